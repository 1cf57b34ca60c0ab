//! Client configuration files: the entry each client expects for a server, and a merge that
//! changes only that entry (where each client keeps its file: [`super::client_paths`]).
//!
//! The file is edited through a concrete syntax tree (`jsonc-parser`), so everything else in
//! it (other servers, other settings, comments in VS Code's JSONC, indentation, key order)
//! stays byte for byte.
//!
//! A file of the project (VS Code's `.vscode/mcp.json`, or any `--config-path` inside the
//! project) is edited in [`Scope::Project`], a user's own file in [`Scope::User`]; both are
//! written as [`write`] writes, never through a planted link, the `<file>.bak` included.

pub use super::client_paths::{ClientKind, Environment, Os};
use super::write::{self, Mode, Scope};
use crate::error::{Details, refused_with};
use anyhow::{Context as _, Result, anyhow};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

impl ClientKind {
    /// The key holding the servers.
    pub fn servers_key(self) -> &'static str {
        match self {
            ClientKind::Vscode => "servers",
            _ => "mcpServers",
        }
    }

    /// The entry this client expects for `server`: a command it starts (stdio), or a URL it
    /// connects to (Streamable HTTP: `"type": "http"`, except Cursor, which takes a bare
    /// `url`).
    pub fn entry(self, server: &ServerEntry) -> Value {
        let mut entry = Map::new();
        match &server.launch {
            Launch::Command { command, args, env } => {
                if matches!(self, ClientKind::Vscode | ClientKind::ClaudeCode) {
                    entry.insert("type".into(), json!("stdio"));
                }
                entry.insert("command".into(), json!(command));
                entry.insert("args".into(), json!(args));
                if !env.is_empty() {
                    entry.insert("env".into(), json!(env));
                }
            }
            Launch::Url { url, headers } => {
                if self != ClientKind::Cursor {
                    entry.insert("type".into(), json!("http"));
                }
                entry.insert("url".into(), json!(url));
                if !headers.is_empty() {
                    entry.insert("headers".into(), json!(headers));
                }
            }
        }
        Value::Object(entry)
    }

    /// Whether the client's configuration file can hold a server reached by URL. Claude
    /// Desktop's cannot: it adds remote servers as connectors, in its settings.
    pub fn takes_urls(self) -> bool {
        self != ClientKind::ClaudeDesktop
    }
}

/// A client's configuration file, with the links on its way resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// The path as given, for messages.
    pub path: PathBuf,
    /// Where reads and writes go: `path` with every existing link on the way resolved.
    pub target: PathBuf,
}

impl ConfigFile {
    /// Resolves `path` for an edit in `scope` ([`write::resolve`]).
    pub fn resolve(path: &Path, scope: Scope<'_>) -> Result<ConfigFile> {
        Ok(ConfigFile {
            path: path.to_path_buf(),
            target: write::resolve(path, scope)?,
        })
    }
}

/// The server as a client knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The name the client shows.
    pub name: String,
    /// How the client reaches it.
    pub launch: Launch,
}

/// How a client reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// The client starts it and talks over stdio.
    Command {
        /// The executable: an absolute path, or (VS Code) `${workspaceFolder}/…`.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables.
        env: BTreeMap<String, String>,
    },
    /// A running server, over Streamable HTTP.
    Url {
        /// The endpoint.
        url: String,
        /// Headers sent with every request (`Authorization`, say).
        headers: BTreeMap<String, String>,
    },
}

impl Launch {
    /// For VS Code's workspace file: `command` as `${workspaceFolder}/…` when it lies inside
    /// `workspace` (the folder holding `.vscode/`), so the file can be committed and works in
    /// every clone. Anything else is returned as it is.
    pub fn relative_to_workspace(self, workspace: &Path) -> Self {
        match self {
            Launch::Command { command, args, env } => {
                let command = match Path::new(&command).strip_prefix(workspace) {
                    Ok(rest) if !rest.as_os_str().is_empty() => format!(
                        "${{workspaceFolder}}/{}",
                        rest.to_string_lossy().replace('\\', "/")
                    ),
                    _ => command,
                };
                Launch::Command { command, args, env }
            }
            url => url,
        }
    }
}

/// Parses `KEY=VALUE`.
pub fn parse_env(pair: &str) -> Result<(String, String)> {
    parse_pair("--env", pair)
}

/// Parses `KEY=VALUE` given to `flag`.
pub fn parse_pair(flag: &str, pair: &str) -> Result<(String, String)> {
    match pair.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(crate::error::usage(format!(
            "{flag} `{pair}` is not KEY=VALUE"
        ))),
    }
}

/// The standalone snippet for `kind`: `{"<servers key>": {"<name>": entry}}`, pretty.
pub fn snippet(kind: ClientKind, server: &ServerEntry) -> String {
    let value = json!({ kind.servers_key(): { &server.name: kind.entry(server) } });
    serde_json::to_string_pretty(&value).expect("JSON serializes") + "\n"
}

/// What merging an entry into a configuration gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merge {
    /// The file has exactly this entry already: nothing to write.
    Unchanged,
    /// The new file text; `replaced` is the entry it replaces (`--force`).
    Write {
        /// The whole new file.
        text: String,
        /// The entry of the same name that was replaced, if any.
        replaced: Option<Value>,
    },
}

/// Why a merge did not happen.
#[derive(Debug)]
pub enum MergeRefusal {
    /// The file is not JSON(C), or not shaped as the client's configuration.
    Unparsable(String),
    /// A different entry of the same name exists; the diff from it to the new one.
    Conflict(String),
}

/// Merges `server` into the configuration `existing` (`None`: no file yet). Only the
/// server's own entry changes; a different entry of the same name is replaced only with
/// `force`.
pub fn merge(
    existing: Option<&str>,
    kind: ClientKind,
    server: &ServerEntry,
    force: bool,
) -> Result<Merge, MergeRefusal> {
    let entry = kind.entry(server);
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return Ok(Merge::Write {
            text: snippet(kind, server),
            replaced: None,
        });
    };
    let (root, object) = parse_config(text)?;
    let key = kind.servers_key();
    let servers = match object.get(key) {
        None => {
            object.append(key, to_input(&json!({ &server.name: entry })));
            return Ok(Merge::Write {
                text: root.to_string(),
                replaced: None,
            });
        }
        Some(prop) => prop
            .value()
            .and_then(|v| v.as_object())
            .ok_or_else(|| MergeRefusal::Unparsable(format!("`{key}` is not an object")))?,
    };
    match servers.get(&server.name) {
        None => {
            servers.append(&server.name, to_input(&entry));
            Ok(Merge::Write {
                text: root.to_string(),
                replaced: None,
            })
        }
        Some(prop) => {
            let current = prop.value().and_then(|v| v.to_serde_value());
            if current.as_ref() == Some(&entry) {
                return Ok(Merge::Unchanged);
            }
            if !force {
                return Err(MergeRefusal::Conflict(entry_diff(current.as_ref(), &entry)));
            }
            prop.set_value(to_input(&entry));
            Ok(Merge::Write {
                text: root.to_string(),
                replaced: current,
            })
        }
    }
}

/// A configuration file's syntax tree and its top-level object.
fn parse_config(text: &str) -> Result<(CstRootNode, jsonc_parser::cst::CstObject), MergeRefusal> {
    let root = CstRootNode::parse(text, &ParseOptions::default())
        .map_err(|e| MergeRefusal::Unparsable(e.to_string()))?;
    let object = root
        .object_value()
        .ok_or_else(|| MergeRefusal::Unparsable("the top level is not an object".into()))?;
    Ok((root, object))
}

/// What `--dry-run` prints: the unified diff from the file at `path` to `text` (stdout),
/// and that nothing was written (stderr).
pub fn print_dry_run(path: &Path, text: &str, after: &str) {
    let before = std::fs::read_to_string(path).unwrap_or_default();
    let diff = similar::TextDiff::from_lines(before.as_str(), text)
        .unified_diff()
        .header(&path.display().to_string(), after)
        .to_string();
    print!("{diff}");
    eprintln!("dry run: nothing was written");
}

/// A unified diff between two entries, for people.
pub fn entry_diff(old: Option<&Value>, new: &Value) -> String {
    let show = |v: Option<&Value>| match v {
        Some(v) => serde_json::to_string_pretty(v).unwrap_or_default() + "\n",
        None => "(not valid JSON)\n".to_owned(),
    };
    similar::TextDiff::from_lines(&show(old), &show(Some(new)))
        .unified_diff()
        .header("configured now", "cargo mcp install")
        .to_string()
}

fn to_input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(to_input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), to_input(v))).collect())
        }
    }
}

/// What `install` did, or would do with `--dry-run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// The entry was already there.
    Unchanged,
    /// The file was written; `backup` is the copy of the old file, if there was one.
    Written {
        /// `<file>.bak`.
        backup: Option<PathBuf>,
        /// Whether an entry of the same name was replaced.
        replaced: bool,
    },
    /// `--dry-run`: the text that would be written.
    WouldWrite(String),
}

/// ` (the link's target, X)` when `file` was reached through a link, for messages; empty
/// otherwise.
pub fn through_link(file: &ConfigFile) -> String {
    match std::path::absolute(&file.path) {
        Ok(path) if path != file.target => format!(" (through a link: {})", file.target.display()),
        _ => String::new(),
    }
}

/// `<file>.bak` beside `path`.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

/// Merges `server` into `file` and writes it (keeping a `.bak`), unless `dry_run`. A file it
/// cannot parse, or a conflicting entry without `force`, is refused (exit code 4) and nothing
/// is written; the error says why, and for a conflict the diff.
pub fn install_into(
    file: &ConfigFile,
    kind: ClientKind,
    server: &ServerEntry,
    force: bool,
    dry_run: bool,
) -> Result<Installed> {
    let path = &file.path;
    let existing = match std::fs::read_to_string(&file.target) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(anyhow!(e).context(format!("cannot read {}", path.display()))),
    };
    let merged = merge(existing.as_deref(), kind, server, force).map_err(|refusal| match refusal {
        MergeRefusal::Unparsable(why) => refused_with(
            format!(
                "cannot parse {} ({why}); nothing was written: add the entry printed above to it yourself",
                path.display()
            ),
            Details {
                text: snippet(kind, server),
                to_stdout: true,
            },
        ),
        MergeRefusal::Conflict(diff) => refused_with(
            format!(
                "{} already has a different server named `{}` (the difference is above); nothing was written: pass --force to replace it, or --name to pick another name",
                path.display(),
                server.name
            ),
            Details {
                text: diff,
                to_stdout: false,
            },
        ),
    })?;
    let (text, replaced) = match merged {
        Merge::Unchanged => return Ok(Installed::Unchanged),
        Merge::Write { text, replaced } => (text, replaced.is_some()),
    };
    if dry_run {
        return Ok(Installed::WouldWrite(text));
    }
    let backup = write_config(&file.target, existing.as_deref(), &text)?;
    Ok(Installed::Written { backup, replaced })
}

/// What `uninstall` did, or would do with `--dry-run`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Uninstalled {
    /// No entry of that name (or no file): nothing to do.
    Absent,
    /// The entry was removed; `backup` is the copy of the old file.
    Removed {
        /// `<file>.bak`.
        backup: PathBuf,
        /// The entry that was removed.
        entry: Value,
    },
    /// `--dry-run`: the text that would be written.
    WouldWrite(String),
}

/// The configuration `text` without the server `name`, as [`merge`] edits it (everything
/// else byte for byte); `Ok(None)` when there is no such entry.
pub fn remove(
    text: &str,
    kind: ClientKind,
    name: &str,
) -> Result<Option<(String, Value)>, MergeRefusal> {
    let (root, object) = parse_config(text)?;
    let key = kind.servers_key();
    let Some(servers) = object.get(key) else {
        return Ok(None);
    };
    let servers = servers
        .value()
        .and_then(|v| v.as_object())
        .ok_or_else(|| MergeRefusal::Unparsable(format!("`{key}` is not an object")))?;
    let Some(prop) = servers.get(name) else {
        return Ok(None);
    };
    let entry = prop
        .value()
        .and_then(|v| v.to_serde_value())
        .unwrap_or(Value::Null);
    prop.remove();
    Ok(Some((root.to_string(), entry)))
}

/// Removes the server `name` from `file` (keeping a `.bak`), unless `dry_run`. A file it
/// cannot parse is refused (exit code 4) and left alone.
pub fn uninstall_from(
    file: &ConfigFile,
    kind: ClientKind,
    name: &str,
    dry_run: bool,
) -> Result<Uninstalled> {
    let path = &file.path;
    let existing = match std::fs::read_to_string(&file.target) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Uninstalled::Absent),
        Err(e) => return Err(anyhow!(e).context(format!("cannot read {}", path.display()))),
    };
    let removed = remove(&existing, kind, name).map_err(|refusal| {
        let why = match refusal {
            MergeRefusal::Unparsable(why) | MergeRefusal::Conflict(why) => why,
        };
        crate::error::refused(format!(
            "cannot parse {} ({why}); nothing was written",
            path.display()
        ))
    })?;
    let Some((text, entry)) = removed else {
        return Ok(Uninstalled::Absent);
    };
    if dry_run {
        return Ok(Uninstalled::WouldWrite(text));
    }
    let backup =
        write_config(&file.target, Some(&existing), &text)?.expect("an existing file is backed up");
    Ok(Uninstalled::Removed { backup, entry })
}

/// Writes `text` to `path`, after writing `old` (the file's text as read, when it existed)
/// to `<file>.bak`; each through a fresh temporary file in the folder and a rename, so no
/// existing file or link is ever opened (see the module docs). Both keep the old file's
/// permissions. Returns the backup's path.
fn write_config(path: &Path, old: Option<&str>, text: &str) -> Result<Option<PathBuf>> {
    // `~/.claude.json` is private: the backup and the new file stay so.
    let mode = old
        .and_then(|_| std::fs::metadata(path).ok())
        .map_or(Mode::Private, |meta| Mode::Like(meta.permissions()));
    let replace = |path: &Path, text: &str| write::replace(path, text.as_bytes(), mode.clone());
    let backup = match old {
        Some(old) => {
            let backup = backup_path(path);
            replace(&backup, old)
                .with_context(|| format!("cannot write the backup {}", backup.display()))?;
            Some(backup)
        }
        None => None,
    };
    replace(path, text)?;
    Ok(backup)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> ServerEntry {
        ServerEntry {
            name: "weather".into(),
            launch: Launch::Command {
                command: "/opt/weather/target/release/weather".into(),
                args: vec![],
                env: BTreeMap::from([("UNITS".to_owned(), "metric".to_owned())]),
            },
        }
    }

    #[test]
    fn entries_follow_each_client() {
        let s = server();
        assert_eq!(
            ClientKind::ClaudeDesktop.entry(&s),
            json!({"command": "/opt/weather/target/release/weather", "args": [], "env": {"UNITS": "metric"}})
        );
        assert_eq!(ClientKind::Vscode.entry(&s)["type"], "stdio");
        let remote = ServerEntry {
            name: "weather".into(),
            launch: Launch::Url {
                url: "https://example.com/mcp".into(),
                headers: BTreeMap::from([("Authorization".to_owned(), "Bearer t".to_owned())]),
            },
        };
        assert_eq!(
            ClientKind::Vscode.entry(&remote),
            json!({"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}})
        );
        assert_eq!(
            ClientKind::Cursor.entry(&remote),
            json!({"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}})
        );
        assert!(!ClientKind::ClaudeDesktop.takes_urls());
        assert_eq!(ClientKind::Vscode.servers_key(), "servers");
        assert_eq!(ClientKind::Cursor.servers_key(), "mcpServers");
    }

    #[test]
    fn merging_touches_only_the_entry() {
        let text = "{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\",   \"args\": [\"--a\"]}\n  }\n}\n";
        let Ok(Merge::Write {
            text: merged,
            replaced: None,
        }) = merge(Some(text), ClientKind::Cursor, &server(), false)
        else {
            panic!("merged");
        };
        assert!(merged.starts_with("{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\",   \"args\": [\"--a\"]},\n"), "{merged}");
        let parsed: Value = serde_json::from_str(&merged.replace("  // mine\n", "")).unwrap();
        assert_eq!(
            parsed["mcpServers"]["weather"],
            ClientKind::Cursor.entry(&server())
        );

        // Again: nothing to do.
        assert_eq!(
            merge(Some(&merged), ClientKind::Cursor, &server(), false).unwrap(),
            Merge::Unchanged
        );

        // A different entry of the same name: refused with a diff, replaced with force.
        let mut moved = server();
        if let Launch::Command { command, .. } = &mut moved.launch {
            *command = "/elsewhere".into();
        }
        let Err(MergeRefusal::Conflict(diff)) =
            merge(Some(&merged), ClientKind::Cursor, &moved, false)
        else {
            panic!("refused");
        };
        assert!(
            diff.contains("-  \"command\": \"/opt/weather/target/release/weather\""),
            "{diff}"
        );
        assert!(diff.contains("+  \"command\": \"/elsewhere\""), "{diff}");
        let Ok(Merge::Write {
            text: forced,
            replaced: Some(_),
        }) = merge(Some(&merged), ClientKind::Cursor, &moved, true)
        else {
            panic!("forced");
        };
        assert!(forced.contains("\"other\": {\"command\": \"x\",   \"args\": [\"--a\"]}"));
        assert!(forced.contains("/elsewhere") && !forced.contains("/opt/weather"));
    }

    #[test]
    fn missing_keys_and_files_are_created() {
        let Ok(Merge::Write { text, .. }) = merge(None, ClientKind::Vscode, &server(), false)
        else {
            panic!()
        };
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap()["servers"]["weather"]["type"],
            "stdio"
        );
        let Ok(Merge::Write { text, .. }) = merge(
            Some("{\"a\": 1}"),
            ClientKind::ClaudeDesktop,
            &server(),
            false,
        ) else {
            panic!()
        };
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["a"], 1);
        assert!(parsed["mcpServers"]["weather"].is_object());
    }

    #[test]
    fn unparsable_files_are_refused() {
        for text in ["{ not json", "[1, 2]", "{\"mcpServers\": 3}"] {
            assert!(
                matches!(
                    merge(Some(text), ClientKind::Cursor, &server(), false),
                    Err(MergeRefusal::Unparsable(_))
                ),
                "{text}"
            );
        }
    }

    #[test]
    fn vscode_commands_inside_the_workspace_are_relative_to_it() {
        let launch = |command: &str| Launch::Command {
            command: command.into(),
            args: vec![],
            env: BTreeMap::new(),
        };
        let inside = launch("/p/target/release/weather").relative_to_workspace(Path::new("/p"));
        assert_eq!(inside, launch("${workspaceFolder}/target/release/weather"));
        let outside = launch("/q/weather").relative_to_workspace(Path::new("/p"));
        assert_eq!(outside, launch("/q/weather"));
    }

    #[test]
    fn removing_keeps_the_rest_byte_for_byte() {
        let text = "{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n    \"weather\": {\"command\": \"w\"}\n  }\n}\n";
        let (left, entry) = remove(text, ClientKind::Cursor, "weather")
            .unwrap()
            .unwrap();
        assert_eq!(entry, json!({"command": "w"}));
        assert!(
            left.starts_with(
                "{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}"
            ),
            "{left}"
        );
        assert!(!left.contains("weather"), "{left}");
        assert_eq!(remove(&left, ClientKind::Cursor, "weather").unwrap(), None);
        assert!(matches!(
            remove("[1]", ClientKind::Cursor, "weather"),
            Err(MergeRefusal::Unparsable(_))
        ));
    }

    #[test]
    fn env_pairs_parse() {
        assert_eq!(parse_env("A=b=c").unwrap(), ("A".into(), "b=c".into()));
        assert!(parse_env("=x").is_err());
        assert!(parse_env("A").is_err());
    }
}
