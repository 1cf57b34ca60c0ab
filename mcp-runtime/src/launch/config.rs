//! `--config FILE`: every launch flag's value from a TOML file, under the flag's long name.
//!
//! ```toml
//! transport = "http"
//! bind = "0.0.0.0:8000"
//! allowed-host = ["mcp.example.com"]
//! trust-proxy = ["10.0.0.0/8"]
//! rate-limit = "100/m"
//! token-file = "/etc/notes/tokens"
//! ```
//!
//! The decisions:
//!
//! - **Flags, then variables, then the file, then the defaults.** A value from the file
//!   becomes the flag's default for this run (clap's own precedence does the rest), so a
//!   flag on the command line or an `MCP_*` variable overrides it, and a service manager can
//!   keep one file and change one value in the environment.
//! - **Every flag, the server's own too.** Keys are the long names of the command's flags
//!   (`bind`, `oauth-issuer`, `confirm` for a server that declares `--confirm`), or the name
//!   of a positional argument (`dirs` for `file-server`'s folders); a flag that repeats takes
//!   an array. A key the command does not have is a usage error listing the ones it has, so
//!   a typo never silently leaves a setting out.
//! - **Not in the file:** `allow-unauthenticated`, which stays visible on the command line
//!   (as it has no variable), and `config` itself.
//! - **Paths are as on the command line**, relative to the working directory, not to the
//!   file: write absolute paths in a file a service manager uses.
//! - **The file is found before parsing**: `--config FILE` or `--config=FILE` before a `--`,
//!   else `MCP_CONFIG`. A file that cannot be read or parsed is a usage error naming it (and,
//!   for TOML errors, the line and column).

use clap::error::ErrorKind;
use clap::{ArgAction, Command};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variable `--config` is read from when the flag is not given.
pub const CONFIG_ENV: &str = "MCP_CONFIG";

/// The flag's id (and long name).
pub(super) const CONFIG_ID: &str = "config";

/// Flags the file may not set: turning authentication off stays on the command line.
const COMMAND_LINE_ONLY: &[&str] = &["allow-unauthenticated", CONFIG_ID];

/// `command` with the values of the configuration file `args` (or `MCP_CONFIG`) names as its
/// arguments' defaults; `command` unchanged when none is named.
pub(super) fn with_config(command: Command, args: &[OsString]) -> Result<Command, clap::Error> {
    let Some(path) = config_path(args) else {
        return Ok(command);
    };
    apply(command, &path)
}

/// The file `--config` names before a `--`, else `MCP_CONFIG`.
fn config_path(args: &[OsString]) -> Option<PathBuf> {
    let mut rest = args.iter().skip(1);
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str() else { continue };
        if text == "--" {
            break;
        }
        if text == "--config" {
            return rest.next().map(PathBuf::from);
        }
        if let Some(path) = text.strip_prefix("--config=") {
            return Some(PathBuf::from(path));
        }
    }
    std::env::var_os(CONFIG_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Reads `path` and sets each key's value as its argument's default.
fn apply(mut command: Command, path: &Path) -> Result<Command, clap::Error> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| command.error(ErrorKind::Io, format!("--config {shown}: {e}")))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| {
        command.error(
            ErrorKind::InvalidValue,
            format!("--config {shown}: not valid TOML: {e}"),
        )
    })?;
    for (key, value) in table {
        let found = command.get_arguments().find(|a| key_of(a) == key).map(|a| {
            (
                a.get_id().clone(),
                a.get_action().clone(),
                a.get_value_delimiter().is_some() || matches!(a.get_action(), ArgAction::Append),
            )
        });
        let Some((id, action, repeats)) = found.filter(|_| !COMMAND_LINE_ONLY.contains(&&*key))
        else {
            let message = match COMMAND_LINE_ONLY.contains(&key.as_str()) {
                true => format!("--config {shown}: `{key}` is only taken on the command line"),
                false => format!(
                    "--config {shown}: unknown key `{key}`; the keys are the flags' long names: {}",
                    keys(&command).join(", ")
                ),
            };
            return Err(command.error(ErrorKind::UnknownArgument, message));
        };
        let values = values(&key, &value, &action, repeats).map_err(|e| {
            command.error(ErrorKind::InvalidValue, format!("--config {shown}: {e}"))
        })?;
        command = command.mut_arg(id, |arg| arg.required(false).default_values(values));
    }
    Ok(command)
}

/// An argument's key in the file: its long name, or a positional argument's name.
fn key_of(arg: &clap::Arg) -> String {
    match arg.get_long() {
        Some(long) => long.to_owned(),
        None if arg.is_positional() => arg.get_id().as_str().to_owned(),
        None => String::new(),
    }
}

/// The keys the file may have.
fn keys(command: &Command) -> Vec<String> {
    command
        .get_arguments()
        .map(key_of)
        .filter(|k| !k.is_empty() && !COMMAND_LINE_ONLY.contains(&k.as_str()))
        .collect()
}

/// The default values `value` gives the argument `key`.
fn values(
    key: &str,
    value: &toml::Value,
    action: &ArgAction,
    repeats: bool,
) -> Result<Vec<String>, String> {
    use toml::Value;
    if matches!(action, ArgAction::SetTrue | ArgAction::SetFalse) {
        return match value {
            Value::Boolean(b) => Ok(vec![b.to_string()]),
            other => Err(format!(
                "`{key}` is a switch: write true or false, not a {}",
                other.type_str()
            )),
        };
    }
    if !action.takes_values() {
        return Err(format!("`{key}` cannot be set in a file"));
    }
    let scalar = |v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(i) => Ok(i.to_string()),
        Value::Float(f) => Ok(f.to_string()),
        Value::Boolean(b) => Ok(b.to_string()),
        Value::Datetime(d) => Ok(d.to_string()),
        Value::Array(_) | Value::Table(_) => Err(format!(
            "`{key}` takes a string or a number (or an array of them)"
        )),
    };
    match value {
        Value::Array(items) if repeats => items.iter().map(scalar).collect(),
        Value::Array(_) => Err(format!("`{key}` takes one value, not an array")),
        one => Ok(vec![scalar(one)?]),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{CHILD, in_child};
    use super::super::{Launcher, ServeArgs, Transport};
    use clap::FromArgMatches as _;
    use clap::error::ErrorKind;
    use std::path::Path;

    fn launcher() -> Launcher {
        Launcher::new("demo", "1.2.3")
    }

    /// A config file holding `text` (kept while the returned folder lives).
    fn file(text: &str) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("server.toml");
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap().to_owned();
        (dir, path)
    }

    fn parse(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        launcher().try_parse_from(std::iter::once("demo").chain(args.iter().copied()))
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_file_sets_every_flag_and_a_flag_overrides_it() {
        use crate::transport::http::LegacyMode;
        let (_dir, path) = file(
            r#"
transport = "http"
bind = "0.0.0.0:8000"
legacy-mode = "stateless"
allowed-host = ["a.example.com", "b.example.com"]
allowed-origin = ["https://app.example.com"]
trust-proxy = ["10.0.0.0/8", "192.0.2.7"]
rate-limit = "100/m"
token-file = "/etc/demo/tokens"
"#,
        );
        let args = parse(&["--config", &path]).unwrap();
        assert_eq!(args.transport, Transport::Http);
        assert_eq!(args.bind, "0.0.0.0:8000");
        assert_eq!(args.legacy_mode, Some(LegacyMode::Stateless));
        assert_eq!(args.allowed_hosts, ["a.example.com", "b.example.com"]);
        assert_eq!(args.allowed_origins, ["https://app.example.com"]);
        assert_eq!(args.trusted_proxies, ["10.0.0.0/8", "192.0.2.7"]);
        assert_eq!(args.rate_limit, Some("100/m".parse().unwrap()));
        assert_eq!(
            args.token_file.as_deref(),
            Some(Path::new("/etc/demo/tokens"))
        );
        assert_eq!(args.config.as_deref(), Some(Path::new(&path)));
        // Flags win, before or after `--config`; a repeated flag replaces the file's list.
        let args = parse(&[
            "--bind",
            "127.0.0.1:9",
            &format!("--config={path}"),
            "--allowed-host",
            "c.example.com",
        ])
        .unwrap();
        assert_eq!(args.bind, "127.0.0.1:9");
        assert_eq!(args.allowed_hosts, ["c.example.com"]);
        assert_eq!(args.transport, Transport::Http);
        // A value the flag would refuse is refused from the file too.
        let (_dir, bad) = file("trust-proxy = [\"not-a-network\"]\n");
        let error = parse(&["--config", &bad]).unwrap_err();
        assert!(error.to_string().contains("not-a-network"), "{error}");
    }

    #[test]
    fn a_programs_own_flags_and_arguments_come_from_the_file_too() {
        /// Like the file server's.
        #[derive(Debug, clap::Args)]
        struct Own {
            /// The directories.
            #[arg(value_name = "DIR", required = true)]
            dirs: Vec<String>,
            /// Ask first.
            #[arg(long)]
            confirm: bool,
        }
        let (_dir, path) = file("dirs = [\"/srv/a\", \"/srv/b\"]\nconfirm = true\n");
        let args = ["demo", "--config", &path];
        let command = super::with_config(launcher().command_with::<Own>(), &os(&args)).unwrap();
        command.clone().debug_assert();
        let own = Own::from_arg_matches(&command.try_get_matches_from(args).unwrap()).unwrap();
        assert_eq!(own.dirs, ["/srv/a", "/srv/b"]);
        assert!(own.confirm);
        // Arguments on the command line replace the file's.
        let args = ["demo", "--config", &path, "/srv/c"];
        let command = super::with_config(launcher().command_with::<Own>(), &os(&args)).unwrap();
        let own = Own::from_arg_matches(&command.try_get_matches_from(args).unwrap()).unwrap();
        assert_eq!(own.dirs, ["/srv/c"]);
    }

    #[cfg(feature = "oauth")]
    #[test]
    fn half_an_oauth_configuration_is_refused_not_ignored() {
        let (_dir, path) = file("oauth-issuer = \"https://auth.example.com\"\n");
        let args = parse(&["--config", &path]).unwrap();
        let error = args.oauth().unwrap_err().to_string();
        assert!(error.contains("no OAuth audience"), "{error}");
        let (_dir, path) = file("oauth-audience = \"https://mcp.example.com/mcp\"\n");
        let args = parse(&["--config", &path]).unwrap();
        let error = args.oauth().unwrap_err().to_string();
        assert!(error.contains("need --oauth-issuer"), "{error}");
        let (_dir, path) = file(
            "oauth-issuer = \"https://auth.example.com\"\noauth-audience = \"https://mcp.example.com/mcp\"\n",
        );
        let oauth = parse(&["--config", &path]).unwrap().oauth().unwrap();
        assert_eq!(
            oauth.expect("configured").audience(),
            Some("https://mcp.example.com/mcp")
        );
    }

    fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
        args.iter().map(Into::into).collect()
    }

    #[test]
    fn mistakes_in_the_file_are_usage_errors_that_name_it() {
        let cases: &[(&str, &str)] = &[
            ("bnd = \"0.0.0.0:80\"\n", "unknown key `bnd`"),
            ("transport = \"pigeon\"\n", "pigeon"),
            (
                "allow-unauthenticated = true\n",
                "`allow-unauthenticated` is only taken on the command line",
            ),
            ("transport = [\"http\"]\n", "takes one value, not an array"),
            ("transport = \"http\"\ntransport = 1\n", "not valid TOML"),
            ("redis = { url = \"x\" }\n", "takes a string or a number"),
        ];
        for (text, expected) in cases {
            let (_dir, path) = file(text);
            let error = parse(&["--config", &path]).map(|_| ()).unwrap_err();
            let shown = error.to_string();
            assert!(shown.contains(expected), "{text:?}: {shown}");
            assert_eq!(error.exit_code(), 2, "{text:?}");
        }
        // The unknown key's message lists the keys there are.
        let (_dir, path) = file("bnd = 1\n");
        let shown = parse(&["--config", &path]).unwrap_err().to_string();
        assert!(
            shown.contains("transport") && shown.contains("redis"),
            "{shown}"
        );
        let error = parse(&["--config", "/nonexistent/server.toml"])
            .map(|_| ())
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Io);
        assert!(error.to_string().contains("/nonexistent/server.toml"));
    }

    /// `MCP_CONFIG` names the file, and a variable wins over it; variables are the process's
    /// (the crate forbids the `unsafe` `set_var`), so the test runs itself again in a child.
    #[test]
    fn mcp_config_names_the_file_and_variables_override_it() {
        if std::env::var_os(CHILD).is_some() {
            let args = parse(&[]).unwrap();
            assert_eq!(args.transport, Transport::Http, "from the file");
            #[cfg(feature = "http")]
            assert_eq!(args.bind, "127.0.0.1:7000", "MCP_BIND over the file");
            return;
        }
        let (_dir, path) = file("transport = \"http\"\nbind = \"0.0.0.0:8000\"\n");
        in_child(
            "launch::config::tests::mcp_config_names_the_file_and_variables_override_it",
            &[(super::CONFIG_ENV, &path), ("MCP_BIND", "127.0.0.1:7000")],
        );
    }
}
