//! The clients `cargo mcp install` knows, where each keeps its configuration on each
//! system, and what that depends on (the home folder, `%APPDATA%`, `$XDG_CONFIG_HOME`, the
//! project): the default paths `install` and `uninstall` edit. What goes in the file is
//! [`super::install`]'s.

use super::write::Scope;
use std::fmt;
use std::path::{Path, PathBuf};

/// An MCP client whose configuration `install` edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClientKind {
    /// Claude Desktop: `claude_desktop_config.json`, key `mcpServers`.
    ClaudeDesktop,
    /// Claude Code, user scope: `~/.claude.json`, key `mcpServers` (`--config-path
    /// .mcp.json` for a project's shared file).
    ClaudeCode,
    /// Cursor: `~/.cursor/mcp.json`, key `mcpServers`.
    Cursor,
    /// VS Code: `.vscode/mcp.json` in the project, key `servers`.
    Vscode,
    /// Any other client: prints the `mcpServers` snippet, or merges it into `--config-path`.
    Json,
}

impl fmt::Display for ClientKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClientKind::ClaudeDesktop => "Claude Desktop",
            ClientKind::ClaudeCode => "Claude Code",
            ClientKind::Cursor => "Cursor",
            ClientKind::Vscode => "VS Code",
            ClientKind::Json => "JSON",
        })
    }
}

impl ClientKind {
    /// Where the client keeps its configuration on this machine, if it has a fixed place.
    pub fn default_config_path(self, env: &Environment) -> Option<PathBuf> {
        self.default_config_path_on(Os::HOST, env)
    }

    /// Where the client keeps its configuration on `os`, if it has a fixed place:
    ///
    /// | client | Linux | macOS | Windows |
    /// | --- | --- | --- | --- |
    /// | Claude Desktop | `$XDG_CONFIG_HOME/Claude/` (`~/.config/Claude/`) `claude_desktop_config.json` | `~/Library/Application Support/Claude/claude_desktop_config.json` | `%APPDATA%\Claude\claude_desktop_config.json` |
    /// | Claude Code | `~/.claude.json` | same | `%USERPROFILE%\.claude.json` |
    /// | Cursor | `~/.cursor/mcp.json` | same | `%USERPROFILE%\.cursor\mcp.json` |
    /// | VS Code | the project's `.vscode/mcp.json` | same | same |
    pub fn default_config_path_on(self, os: Os, env: &Environment) -> Option<PathBuf> {
        let home = env.home.as_ref();
        let under = |dir: &PathBuf, parts: &[&str]| -> PathBuf {
            parts.iter().fold(dir.clone(), |path, part| path.join(part))
        };
        match self {
            ClientKind::ClaudeDesktop => {
                let dir = match os {
                    Os::MacOs => under(home?, &["Library", "Application Support", "Claude"]),
                    Os::Windows => under(env.appdata.as_ref()?, &["Claude"]),
                    Os::Linux => env
                        .xdg_config_home
                        .clone()
                        .or_else(|| home.map(|h| h.join(".config")))?
                        .join("Claude"),
                };
                Some(dir.join("claude_desktop_config.json"))
            }
            ClientKind::ClaudeCode => Some(under(home?, &[".claude.json"])),
            ClientKind::Cursor => Some(under(home?, &[".cursor", "mcp.json"])),
            ClientKind::Vscode => Some(under(env.project_root.as_ref()?, &[".vscode", "mcp.json"])),
            ClientKind::Json => None,
        }
    }
}

/// The desktop systems whose clients keep their files in different places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux and the other Unix systems (the XDG layout).
    Linux,
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
}

impl Os {
    /// The system this program runs on.
    pub const HOST: Os = if cfg!(target_os = "macos") {
        Os::MacOs
    } else if cfg!(windows) {
        Os::Windows
    } else {
        Os::Linux
    };
}

/// What the default configuration paths depend on.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    /// The home folder.
    pub home: Option<PathBuf>,
    /// `%APPDATA%` (Windows).
    pub appdata: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// The project's folder (for VS Code's workspace file).
    pub project_root: Option<PathBuf>,
}

impl Environment {
    /// Whose file `path` is: a file of the project when it lies inside the project's folder,
    /// except where it is the client's own default for a user-wide file (`default` is true
    /// when no `--config-path` was given).
    pub fn scope_of(&self, kind: ClientKind, path: &Path, default: bool) -> Scope<'_> {
        let Some(root) = &self.project_root else {
            return Scope::User;
        };
        let user_wide = default && kind != ClientKind::Vscode;
        let inside = match (std::path::absolute(path), std::path::absolute(root)) {
            (Ok(path), Ok(root)) => path.starts_with(root),
            _ => false,
        };
        if inside && !user_wide {
            Scope::Project(root)
        } else {
            Scope::User
        }
    }

    /// From the process environment.
    pub fn from_process(project_root: Option<PathBuf>) -> Self {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Environment {
            home: var("HOME").or_else(|| var("USERPROFILE")),
            appdata: var("APPDATA"),
            xdg_config_home: var("XDG_CONFIG_HOME"),
            project_root,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_paths() {
        let env = Environment {
            home: Some("/home/u".into()),
            appdata: None,
            xdg_config_home: None,
            project_root: Some("/p".into()),
        };
        assert_eq!(
            ClientKind::ClaudeCode.default_config_path(&env),
            Some("/home/u/.claude.json".into())
        );
        assert_eq!(
            ClientKind::Cursor.default_config_path(&env),
            Some("/home/u/.cursor/mcp.json".into())
        );
        assert_eq!(
            ClientKind::Vscode.default_config_path(&env),
            Some("/p/.vscode/mcp.json".into())
        );
        assert_eq!(ClientKind::Json.default_config_path(&env), None);
        #[cfg(target_os = "linux")]
        assert_eq!(
            ClientKind::ClaudeDesktop.default_config_path(&env),
            Some("/home/u/.config/Claude/claude_desktop_config.json".into())
        );
        assert_eq!(
            ClientKind::ClaudeDesktop.default_config_path_on(Os::Linux, &env),
            Some("/home/u/.config/Claude/claude_desktop_config.json".into())
        );
        let xdg = Environment {
            xdg_config_home: Some("/x".into()),
            ..env.clone()
        };
        assert_eq!(
            ClientKind::ClaudeDesktop.default_config_path_on(Os::Linux, &xdg),
            Some("/x/Claude/claude_desktop_config.json".into())
        );
    }

    /// The other systems' places, component by component (this host joins with its own
    /// separator; on Windows they are `\`-separated).
    #[test]
    fn default_paths_on_macos_and_windows() {
        let parts = |p: Option<PathBuf>| -> Vec<String> {
            p.expect("a path")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect()
        };
        let mac = Environment {
            home: Some("/Users/u".into()),
            ..Environment::default()
        };
        assert_eq!(
            parts(ClientKind::ClaudeDesktop.default_config_path_on(Os::MacOs, &mac)),
            [
                "/",
                "Users",
                "u",
                "Library",
                "Application Support",
                "Claude",
                "claude_desktop_config.json"
            ]
        );
        assert_eq!(
            parts(ClientKind::Cursor.default_config_path_on(Os::MacOs, &mac)),
            ["/", "Users", "u", ".cursor", "mcp.json"]
        );
        let win = Environment {
            home: Some("/C/Users/u".into()),
            appdata: Some("/C/Users/u/AppData/Roaming".into()),
            ..Environment::default()
        };
        assert_eq!(
            parts(ClientKind::ClaudeDesktop.default_config_path_on(Os::Windows, &win)),
            [
                "/",
                "C",
                "Users",
                "u",
                "AppData",
                "Roaming",
                "Claude",
                "claude_desktop_config.json"
            ]
        );
        // Without %APPDATA% there is no default place for Claude Desktop on Windows.
        let bare = Environment {
            appdata: None,
            ..win.clone()
        };
        assert_eq!(
            ClientKind::ClaudeDesktop.default_config_path_on(Os::Windows, &bare),
            None
        );
        assert_eq!(
            parts(ClientKind::ClaudeCode.default_config_path_on(Os::Windows, &win)),
            ["/", "C", "Users", "u", ".claude.json"]
        );
    }
}
