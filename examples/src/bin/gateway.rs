//! `gateway`: one MCP server in front of others. Each upstream (a stdio server it starts,
//! or a Streamable HTTP endpoint) is mounted under a prefix, and the gateway serves them
//! all with the standard server command line: stdio or Streamable HTTP, both eras, bearer
//! tokens or OAuth, Redis fleets, OpenTelemetry by `OTEL_*`.
//!
//! ```text
//! gateway --upstream [PREFIX=]TARGET ... [--upstream-config FILE] [--upstream-timeout 120s] [...]
//! ```
//!
//! - `TARGET` starting with `http://` or `https://` is a Streamable HTTP URL; anything else
//!   is a command line, split as a POSIX shell splits it (quotes, backslashes) and run
//!   without a shell, its stderr in the gateway's log.
//! - `PREFIX=` names the mount: tools `PREFIX_name`, prompts too, resources
//!   `scheme://PREFIX/...` (see `ServerBuilder::mount`). `=TARGET` (an empty prefix) mounts
//!   it flat. Without `PREFIX=`, the prefix is the upstream's name: the program's file name,
//!   or for a launcher (`npx`, `uvx`, `node`, `python`, `docker`, ...) its first argument
//!   that is not an option, without scope, version or extension; for a URL, the first
//!   label of its host. A clash between two upstreams' items is an error at start.
//! - `--upstream-config FILE` (TOML) lists upstreams with more settings:
//!
//! ```toml
//! [[upstream]]
//! prefix = "files"                       # optional, as above
//! command = "npx -y @modelcontextprotocol/server-filesystem /srv/data"  # or a list
//! env = { NODE_ENV = "production" }      # added to the gateway's environment
//! cwd = "/srv"
//! timeout = "5m"                         # each call's limit (default: --upstream-timeout)
//! max_message_bytes = 16777216           # a longer answer closes the connection
//! connection_per_client = 8              # a child per client, up to 8 (see below)
//!
//! [[upstream]]
//! prefix = "weather"
//! url = "https://weather.example/mcp"
//! bearer_token_env = "WEATHER_TOKEN"     # or bearer_token_file; sent to this upstream only
//! era = "modern"                         # legacy (default, or --upstream-era), modern or auto
//!
//! [[upstream]]
//! prefix = "notes"
//! url = "https://notes.example/mcp"
//! # OAuth client credentials (instead of a bearer token): the gateway's own client, its
//! # tokens asked for at token_url for this URL (RFC 8707 resource) and renewed as they expire;
//! # `dpop = true` asks for tokens bound to a key the gateway makes at start (RFC 9449)
//! oauth = { token_url = "https://auth.example/oauth2/token", client_id = "gateway", client_secret_env = "NOTES_SECRET", scopes = ["notes:read"], dpop = true }
//! ```
//!
//! `--upstream-era modern` (or `era = "modern"`) speaks 2026-07-28 to the upstream: the
//! caller's client capabilities go with each request, and the upstream's `input_required`
//! rounds reach the caller under the upstream's keys (see `mcp_runtime::proxy`).
//!
//! `--upstream-per-client N` (or `connection_per_client = N`) gives each client of the
//! gateway (each 2025 Streamable HTTP session) a connection of its own to a 2025 upstream, up
//! to N at once: a child process of its own (an HTTP session for an HTTP upstream). Then the
//! upstream's questions (elicitation, sampling, roots) reach their client even while
//! several clients' requests wait; on a shared connection nothing on the wire says whose a
//! question is, and it is refused then (see `Upstream::connection_per_client`).
//!
//! A caller's own token is never sent upstream: an HTTP upstream gets the credential
//! configured for it, or none. An upstream that is down (or not up yet) is retried with
//! backoff; its items answer with an error saying so, and the others keep serving.

use clap::Parser;
use mcp_runtime::client::{ClientCredentials, DpopKey, EraMode};
use mcp_runtime::launch::{ServeArgs, Transport, init_tracing};
use mcp_runtime::proxy::{Proxy, Upstream};
use mcp_runtime::server::{Primitive, Server};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "One MCP server in front of others: stdio servers and HTTP endpoints mounted under prefixes"
)]
struct Args {
    /// An upstream: `[PREFIX=]TARGET`, TARGET an `http(s)://` URL or a command line (run
    /// without a shell). Repeatable.
    #[arg(long = "upstream", value_name = "[PREFIX=]TARGET")]
    upstreams: Vec<String>,
    /// A TOML file of upstreams (`[[upstream]]` tables; see the binary's documentation).
    /// (`--upstream-config` is every server's: the launch flags from a file.)
    #[arg(long = "upstream-config", value_name = "FILE")]
    upstream_config: Option<PathBuf>,
    /// How long one call to an upstream may take before its caller gets an error (and the
    /// upstream a cancellation).
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = duration)]
    upstream_timeout: Duration,
    /// The era the gateway speaks to each `--upstream`: `legacy` (an `initialize`
    /// session), `modern` (2026-07-28: the caller's capabilities and `input_required`
    /// rounds pass through, with the upstream's keys), or `auto` (modern when the upstream
    /// answers `server/discover`). `era` in `--upstream-config`.
    #[arg(long, value_name = "ERA", value_enum, default_value = "legacy")]
    upstream_era: Era,
    /// Gives each client (each 2025 session of the gateway's) a connection of its own to
    /// each 2025 `--upstream`, up to N at once: its questions then reach their client under
    /// concurrency too. `connection_per_client` in `--upstream-config`.
    #[arg(long, value_name = "N")]
    upstream_per_client: Option<usize>,
    #[command(flatten)]
    serve: ServeArgs,
}

fn duration(text: &str) -> Result<Duration, String> {
    mcp_runtime::tool::parse_duration(text).map_err(|e| e.to_string())
}

/// `--upstream-config`'s file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    upstream: Vec<UpstreamConfig>,
}

/// One `[[upstream]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UpstreamConfig {
    prefix: Option<String>,
    command: Option<CommandLine>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    bearer_token_env: Option<String>,
    bearer_token_file: Option<PathBuf>,
    oauth: Option<OAuthConfig>,
    era: Option<Era>,
    timeout: Option<String>,
    max_message_bytes: Option<usize>,
    connection_per_client: Option<usize>,
}

/// An upstream's `oauth` table: OAuth client credentials.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OAuthConfig {
    token_url: String,
    client_id: String,
    client_secret_env: Option<String>,
    client_secret_file: Option<PathBuf>,
    #[serde(default)]
    scopes: Vec<String>,
    /// The `resource` asked for; default: the upstream's URL.
    resource: Option<String>,
    /// Ask for tokens bound to a key the gateway makes at start (DPoP, RFC 9449).
    #[serde(default)]
    dpop: bool,
}

/// A secret read from the environment variable `env` or the file `file` (one of them).
fn secret(
    place: &str,
    what: &str,
    env: Option<&String>,
    file: Option<&PathBuf>,
) -> Result<Option<String>, String> {
    match (env, file) {
        (Some(var), None) => std::env::var(var)
            .map(Some)
            .map_err(|_| format!("{place}: {what}_env names {var:?}, which is not set")),
        (None, Some(file)) => std::fs::read_to_string(file)
            .map(|s| Some(s.trim().to_owned()))
            .map_err(|e| format!("{place}: {what}_file: {e}")),
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(format!("{place}: give {what}_env or {what}_file, not both")),
    }
}

/// A command as one string (split like a shell) or as a list.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum CommandLine {
    Line(String),
    Words(Vec<String>),
}

#[derive(Debug, Clone, Copy, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
enum Era {
    Legacy,
    Modern,
    Auto,
}

impl From<Era> for EraMode {
    fn from(era: Era) -> Self {
        match era {
            Era::Legacy => EraMode::Legacy,
            Era::Modern => EraMode::Modern,
            Era::Auto => EraMode::Auto,
        }
    }
}

/// An upstream to start, under its prefix, with its call timeout.
struct Planned {
    prefix: String,
    upstream: Upstream,
    timeout: Duration,
}

/// The upstream `--upstream` describes.
fn from_flag(flag: &str, timeout: Duration, era: Era) -> Result<Planned, String> {
    let (prefix, target) = match flag.split_once('=') {
        Some((prefix, target))
            if prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) =>
        {
            (Some(prefix.to_owned()), target)
        }
        _ => (None, flag),
    };
    let upstream = if is_url(target) {
        Upstream::http(target)
    } else {
        let words = shlex::split(target)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| {
                format!("--upstream {flag:?}: not a command line (unbalanced quotes?)")
            })?;
        Upstream::command(&words[0], &words[1..])
    };
    planned(prefix, target, upstream.era(era.into()), timeout)
}

/// The upstream a `[[upstream]]` table describes.
fn from_table(table: UpstreamConfig, timeout: Duration, at: &Path) -> Result<Planned, String> {
    let place = format!("{}: an [[upstream]]", at.display());
    let timeout = match &table.timeout {
        Some(text) => duration(text).map_err(|e| format!("{place}: timeout: {e}"))?,
        None => timeout,
    };
    let (mut upstream, target) = match (&table.command, &table.url) {
        (Some(command), None) => {
            let mut words = match command {
                CommandLine::Line(line) => shlex::split(line)
                    .ok_or_else(|| format!("{place}: `command` is not a command line"))?,
                CommandLine::Words(words) => words.clone(),
            };
            words.extend(table.args.iter().cloned());
            if words.is_empty() {
                return Err(format!("{place}: `command` is empty"));
            }
            let mut upstream = Upstream::command(&words[0], &words[1..]);
            for (key, value) in &table.env {
                upstream = upstream.env(key, value);
            }
            if let Some(dir) = &table.cwd {
                upstream = upstream.current_dir(dir);
            }
            (
                upstream,
                shlex::try_join(words.iter().map(String::as_str)).unwrap_or_default(),
            )
        }
        (None, Some(url)) if is_url(url) => {
            let mut upstream = Upstream::http(url);
            let token = secret(
                &place,
                "bearer_token",
                table.bearer_token_env.as_ref(),
                table.bearer_token_file.as_ref(),
            )?;
            match (token, &table.oauth) {
                (Some(_), Some(_)) => {
                    return Err(format!("{place}: give a bearer token or oauth, not both"));
                }
                (Some(token), None) => upstream = upstream.bearer_token(token),
                (None, Some(oauth)) => {
                    let client_secret = secret(
                        &place,
                        "oauth.client_secret",
                        oauth.client_secret_env.as_ref(),
                        oauth.client_secret_file.as_ref(),
                    )?
                    .ok_or_else(|| {
                        format!("{place}: oauth needs client_secret_env or client_secret_file")
                    })?;
                    let mut credentials =
                        ClientCredentials::new(&oauth.token_url, &oauth.client_id, client_secret);
                    for scope in &oauth.scopes {
                        credentials = credentials.scope(scope);
                    }
                    if let Some(resource) = &oauth.resource {
                        credentials = credentials.resource(resource);
                    }
                    if oauth.dpop {
                        let key = DpopKey::generate().map_err(|e| format!("{place}: {e}"))?;
                        credentials = credentials.dpop(key);
                    }
                    upstream = upstream.client_credentials(credentials);
                }
                (None, None) => {}
            }
            (upstream, url.clone())
        }
        (None, Some(url)) => return Err(format!("{place}: url {url:?} is not http(s)://")),
        _ => return Err(format!("{place}: give `command` or `url`, exactly one")),
    };
    if let Some(era) = table.era {
        upstream = upstream.era(era.into());
    }
    if let Some(bytes) = table.max_message_bytes {
        upstream = upstream.max_message_bytes(bytes);
    }
    if let Some(max) = table.connection_per_client {
        upstream = upstream.connection_per_client(max);
    }
    planned(table.prefix, &target, upstream, timeout)
}

fn is_url(target: &str) -> bool {
    target.starts_with("http://") || target.starts_with("https://")
}

/// `upstream` under `prefix`, or under the name `target` suggests.
fn planned(
    prefix: Option<String>,
    target: &str,
    upstream: Upstream,
    timeout: Duration,
) -> Result<Planned, String> {
    let prefix = match prefix {
        Some(prefix) => prefix,
        None => default_prefix(target)
            .ok_or_else(|| format!("cannot name the upstream {target:?}: give it PREFIX="))?,
    };
    let name = if prefix.is_empty() {
        target.to_owned()
    } else {
        prefix.clone()
    };
    Ok(Planned {
        prefix,
        upstream: upstream.name(name),
        timeout,
    })
}

/// Programs that run another program named by an argument.
const LAUNCHERS: &[&str] = &[
    "npx", "uvx", "uv", "pipx", "bunx", "bun", "deno", "node", "python", "python3", "docker",
    "podman", "cargo", "go", "java", "dotnet", "env",
];

/// The name an upstream is mounted under when its flag gives none.
fn default_prefix(target: &str) -> Option<String> {
    let name = if is_url(target) {
        let host = target.split("://").nth(1)?.split(['/', ':', '?']).next()?;
        host.split('.').next()?.to_owned()
    } else {
        let words = shlex::split(target)?;
        let stem = |word: &str| {
            let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
            let base = base.split('@').find(|s| !s.is_empty()).unwrap_or(base);
            match base.rsplit_once('.') {
                Some((stem, "js" | "mjs" | "cjs" | "ts" | "py" | "exe" | "jar")) => stem,
                _ => base,
            }
            .to_owned()
        };
        let program = stem(words.first()?);
        if LAUNCHERS.contains(&program.as_str()) {
            let argument = words[1..]
                .iter()
                .find(|w| !w.starts_with('-') && !matches!(w.as_str(), "run" | "exec" | "x"))?;
            stem(argument)
        } else {
            program
        }
    };
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every upstream of the command line and the configuration file.
fn plan(args: &Args) -> Result<Vec<Planned>, String> {
    let mut planned = Vec::new();
    if let Some(path) = &args.upstream_config {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let config: Config =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for table in config.upstream {
            planned.push(from_table(table, args.upstream_timeout, path)?);
        }
    }
    for flag in &args.upstreams {
        let mut one = from_flag(flag, args.upstream_timeout, args.upstream_era)?;
        if let Some(max) = args.upstream_per_client {
            one.upstream = one.upstream.connection_per_client(max);
        }
        planned.push(one);
    }
    if planned.is_empty() {
        return Err(
            "no upstream: give --upstream [PREFIX=]TARGET or --upstream-config FILE".into(),
        );
    }
    Ok(planned)
}

/// Starts every upstream, waits a moment for each to come up (an upstream that does not is
/// mounted all the same: its items appear when it does), and mounts them.
async fn gateway(planned: Vec<Planned>) -> Result<(Server, Vec<Proxy>), String> {
    let mut builder = Server::builder("gateway", env!("CARGO_PKG_VERSION"))
        .advertise(Primitive::Tools)
        .advertise(Primitive::Prompts)
        .advertise(Primitive::Resources);
    let mut proxies = Vec::new();
    for Planned {
        prefix,
        upstream,
        timeout,
    } in planned
    {
        let proxy = Proxy::start_with(
            upstream,
            Server::builder(prefix.clone(), env!("CARGO_PKG_VERSION")).default_timeout(timeout),
        )
        .map_err(|e| e.to_string())?;
        proxies.push((prefix, proxy));
    }
    for (prefix, proxy) in &proxies {
        // Served once each upstream's first attempt ended (bounded): the first lists are
        // complete, and an upstream that is down does not hold up the others.
        let first = tokio::time::timeout(Duration::from_secs(30), proxy.first_attempt());
        if first.await.is_err() {
            tracing::warn!(
                upstream = %prefix,
                "not up after 30 s: serving the others; its items appear when it is"
            );
        } else if !proxy.connected() {
            tracing::warn!(
                upstream = %prefix,
                "not up: serving the others; its items appear when it is"
            );
        }
        builder = builder.mount(prefix.clone(), proxy.server().clone());
    }
    let server = builder.build().map_err(|e| e.to_string())?;
    Ok((server, proxies.into_iter().map(|(_, p)| p).collect()))
}

// A stdio gateway forwards one client's requests: one thread's event loop, where no
// message waits for a worker to wake up or moves between threads (as `launch::RuntimeFlavor`
// chooses for stdio; 1.3 × the calls per second of the multi-threaded runtime with a stdio
// upstream, `bench/gateway.sh`). HTTP serves many callers and gets a thread per core.
fn main() -> ExitCode {
    let args: Args = mcp_runtime::launch::parse();
    let runtime = if args.serve.transport == Transport::Stdio {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    }
    .enable_all()
    .build();
    match runtime {
        Ok(runtime) => runtime.block_on(run(args)),
        Err(e) => {
            eprintln!("gateway: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> ExitCode {
    let _logs = init_tracing();
    let planned = match plan(&args) {
        Ok(planned) => planned,
        Err(e) => {
            eprintln!("gateway: {e}");
            return ExitCode::from(2);
        }
    };
    match gateway(planned).await {
        // The proxies live as long as the server is served.
        Ok((server, _proxies)) => args.serve.serve(server).await,
        Err(e) => {
            eprintln!("gateway: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Its own flags and every server's (`ServeArgs`) live in one command: no name twice
    /// (the gateway's upstream file is `--upstream-config`, `--config` being every server's).
    #[test]
    fn the_command_is_well_formed() {
        use clap::CommandFactory as _;
        Args::command().debug_assert();
    }

    #[test]
    fn prefixes_default_to_the_upstreams_name() {
        for (target, prefix) in [
            (
                "npx -y @modelcontextprotocol/server-everything",
                "server-everything",
            ),
            (
                "npx -y @modelcontextprotocol/server-filesystem@1.2 /data",
                "server-filesystem",
            ),
            ("uvx mcp-server-fetch", "mcp-server-fetch"),
            ("python3 -m weather", "weather"),
            ("node build/index.js", "index"),
            (
                "/usr/local/bin/echo-server --transport stdio",
                "echo-server",
            ),
            ("'C:\\Program Files\\tools\\notes.exe'", "notes"),
            ("https://mcp.example.com/mcp", "mcp"),
            ("http://127.0.0.1:8000/mcp", "127"),
        ] {
            assert_eq!(default_prefix(target).as_deref(), Some(prefix), "{target}");
        }
    }

    #[test]
    fn flags_name_their_prefix_and_split_like_a_shell() {
        let t = Duration::from_secs(1);
        let flat = from_flag("=echo-server --x 'a b'", t, Era::Legacy).unwrap();
        assert_eq!(flat.prefix, "");
        let named = from_flag("docs=npx -y server --opt=1", t, Era::Legacy).unwrap();
        assert_eq!(named.prefix, "docs");
        // `=` inside the command line is not a prefix.
        let unnamed = from_flag("server --opt=1", t, Era::Legacy).unwrap();
        assert_eq!(unnamed.prefix, "server");
        assert!(from_flag("x=node 'unbalanced", t, Era::Legacy).is_err());
    }

    #[test]
    fn the_configuration_file_is_read_strictly() {
        let at = Path::new("gateway.toml");
        let config: Config = toml::from_str(
            r#"
            [[upstream]]
            prefix = "files"
            command = ["server-filesystem", "/data"]
            env = { A = "1" }
            timeout = "5m"
            connection_per_client = 8

            [[upstream]]
            url = "https://weather.example/mcp"
            era = "modern"
            "#,
        )
        .unwrap();
        let mut planned = config
            .upstream
            .into_iter()
            .map(|t| from_table(t, Duration::from_secs(1), at).unwrap());
        let files = planned.next().unwrap();
        assert_eq!(
            (files.prefix.as_str(), files.timeout),
            ("files", Duration::from_secs(300))
        );
        let weather = planned.next().unwrap();
        assert_eq!(weather.prefix, "weather");
        let unknown = toml::from_str::<Config>("[[upstream]]\ncomand = \"x\"\n").unwrap_err();
        assert!(unknown.to_string().contains("comand"), "{unknown}");
        let both: Config =
            toml::from_str("[[upstream]]\ncommand = \"x\"\nurl = \"http://h/\"\n").unwrap();
        let both = from_table(
            both.upstream.into_iter().next().unwrap(),
            Duration::ZERO,
            at,
        );
        assert!(both.err().unwrap().contains("exactly one"));
    }
}
