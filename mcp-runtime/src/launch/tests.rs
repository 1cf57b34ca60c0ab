//! The command line as a user types it: defaults, every flag, the `MCP_*` variables, clap's
//! errors, the help text, and what the HTTP flags do to a running server.

use super::*;
use clap::FromArgMatches as _;
use clap::error::ErrorKind;

fn launcher() -> Launcher {
    Launcher::new("demo", "1.2.3").about("A demo server")
}

fn parse(args: &[&str]) -> Result<ServeArgs, clap::Error> {
    launcher().try_parse_from(std::iter::once("demo").chain(args.iter().copied()))
}

#[test]
fn the_command_is_well_formed() {
    launcher().command().debug_assert();
}

#[test]
fn defaults_serve_stdio_and_bind_loopback_on_a_free_port() {
    let args = parse(&[]).unwrap();
    assert_eq!(args.transport, Transport::Stdio);
    #[cfg(feature = "http")]
    {
        assert_eq!(args.bind, "127.0.0.1:0");
        assert_eq!(args.legacy_mode, None);
        assert!(args.allowed_hosts.is_empty());
        assert!(args.allowed_origins.is_empty());
        assert_eq!(args.token_file, None);
        assert!(!args.allow_unauthenticated);
    }
}

#[cfg(feature = "http")]
#[test]
fn every_flag_sets_its_field() {
    let args = parse(&[
        "--transport",
        "http",
        "--bind",
        "0.0.0.0:8000",
        "--legacy-mode",
        "stateless",
        "--allowed-host",
        "mcp.example.com",
        "--allowed-host=other.example.com:8443",
        "--allowed-origin",
        "https://app.example.com",
        "--token-file",
        "/run/secrets/tokens",
        "--allow-unauthenticated",
    ])
    .unwrap();
    assert_eq!(args.transport, Transport::Http);
    assert_eq!(args.bind, "0.0.0.0:8000");
    assert_eq!(args.legacy_mode, Some(LegacyMode::Stateless));
    assert_eq!(
        args.allowed_hosts,
        ["mcp.example.com", "other.example.com:8443"]
    );
    assert_eq!(args.allowed_origins, ["https://app.example.com"]);
    assert_eq!(
        args.token_file.as_deref(),
        Some(std::path::Path::new("/run/secrets/tokens"))
    );
    assert!(args.allow_unauthenticated);

    let args = parse(&["--legacy-mode", "sessionful"]).unwrap();
    assert_eq!(args.legacy_mode, Some(LegacyMode::Sessionful));
}

#[test]
fn invalid_values_and_unknown_flags_are_usage_errors() {
    let kind = |args: &[&str]| parse(args).map(|_| ()).unwrap_err().kind();
    assert_eq!(kind(&["--transport", "pigeon"]), ErrorKind::InvalidValue);
    assert_eq!(kind(&["--transprot", "http"]), ErrorKind::UnknownArgument);
    assert_eq!(kind(&["--transport"]), ErrorKind::InvalidValue);
    let error = parse(&["--transport", "pigeon"]).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(
        error.to_string().contains("[possible values: stdio"),
        "{error}"
    );
    #[cfg(feature = "http")]
    {
        assert_eq!(kind(&["--legacy-mode", "sticky"]), ErrorKind::InvalidValue);
        assert_eq!(
            kind(&["--allow-unauthenticated=yes"]),
            ErrorKind::TooManyValues
        );
        assert_eq!(
            kind(&["--transport", "http", "--transport", "stdio"]),
            ErrorKind::ArgumentConflict
        );
    }
}

#[cfg(not(feature = "http"))]
#[test]
fn without_http_the_http_transport_and_flags_are_refused() {
    let error = parse(&["--transport", "http"]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidValue);
    assert!(
        error.to_string().contains("[possible values: stdio]"),
        "{error}"
    );
    assert_eq!(
        parse(&["--bind", "127.0.0.1:0"]).unwrap_err().kind(),
        ErrorKind::UnknownArgument
    );
}

#[test]
fn help_lists_every_option_with_its_variable() {
    let help = launcher().command().render_long_help().to_string();
    assert!(help.contains("A demo server"), "{help}");
    #[cfg_attr(not(feature = "http"), allow(unused_mut))]
    let mut expected = vec![
        "--transport",
        "[env: MCP_TRANSPORT=]",
        "--help",
        "--version",
    ];
    #[cfg(feature = "http")]
    expected.extend([
        "--bind <ADDR>",
        "[env: MCP_BIND=]",
        "[default: 127.0.0.1:0]",
        "--legacy-mode <MODE>",
        "[env: MCP_LEGACY_MODE=]",
        "sessionful",
        "stateless",
        "--allowed-host <HOST>",
        "[env: MCP_ALLOWED_HOSTS=]",
        "--allowed-origin <ORIGIN>",
        "[env: MCP_ALLOWED_ORIGINS=]",
        "--token-file <FILE>",
        "[env: MCP_TOKEN_FILE=]",
        "MCP_BEARER_TOKEN",
        "--allow-unauthenticated",
    ]);
    for text in expected {
        assert!(help.contains(text), "--help lacks {text:?}:\n{help}");
    }
    assert!(launcher().command().render_version().contains("demo 1.2.3"));
}

#[test]
fn a_programs_own_arguments_sit_beside_the_serve_options() {
    /// A program's own arguments, like the file server's.
    #[derive(Debug, clap::Args)]
    struct Dirs {
        /// The directories.
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<String>,
    }
    let command = launcher().command_with::<Dirs>();
    command.clone().debug_assert();
    let matches = command
        .clone()
        .try_get_matches_from(["demo", "a", "--transport", "stdio", "b"])
        .unwrap();
    assert_eq!(Dirs::from_arg_matches(&matches).unwrap().dirs, ["a", "b"]);
    assert_eq!(
        launcher().serve_args(&matches).unwrap().transport,
        Transport::Stdio
    );
    let error = command.try_get_matches_from(["demo"]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::MissingRequiredArgument);
}

#[test]
fn the_default_stdio_hint_names_the_server_and_a_request_to_paste() {
    let hint = default_stdio_hint("weather");
    assert!(hint.starts_with("weather: serving MCP on stdio"), "{hint}");
    let request: serde_json::Value = serde_json::from_str(hint.lines().nth(1).unwrap()).unwrap();
    assert_eq!(request["method"], "tools/list");
}

/// Marks the child process [`in_child`] starts.
pub(super) const CHILD: &str = "MCP_LAUNCH_TEST_CHILD";

/// Variables are read by the process, and this crate forbids the `unsafe` `set_var`: the test
/// runs itself again in a child with the variables set, and the child checks the parse.
#[test]
fn environment_variables_fill_in_flags() {
    if std::env::var_os(CHILD).is_some() {
        let args = parse(&[]).unwrap();
        assert_eq!(args.transport, Transport::Stdio);
        #[cfg(feature = "http")]
        {
            assert_eq!(args.bind, "0.0.0.0:9000");
            assert_eq!(args.legacy_mode, Some(LegacyMode::Stateless));
            assert_eq!(args.allowed_hosts, ["a.example.com", "b.example.com"]);
            assert_eq!(args.allowed_origins, ["https://app.example.com"]);
            assert_eq!(
                args.token_file.as_deref(),
                Some(std::path::Path::new("tokens.txt"))
            );
            // A flag wins over its variable.
            let args = parse(&["--bind", "127.0.0.1:1234", "--transport", "http"]).unwrap();
            assert_eq!(args.bind, "127.0.0.1:1234");
            assert_eq!(args.transport, Transport::Http);
        }
        return;
    }
    in_child(
        "launch::tests::environment_variables_fill_in_flags",
        &[
            ("MCP_TRANSPORT", "stdio"),
            ("MCP_BIND", "0.0.0.0:9000"),
            ("MCP_LEGACY_MODE", "stateless"),
            ("MCP_ALLOWED_HOSTS", "a.example.com,b.example.com"),
            ("MCP_ALLOWED_ORIGINS", "https://app.example.com"),
            ("MCP_TOKEN_FILE", "tokens.txt"),
        ],
    );
}

/// Runs the test `name` again in a child process with [`CHILD`] and `vars` set, and checks
/// that it passed there.
pub(super) fn in_child(name: &str, vars: &[(&str, &str)]) {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", name, "--test-threads=1"])
        .env(CHILD, "1");
    for (var, value) in vars {
        child.env(var, value);
    }
    let output = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Like [`environment_variables_fill_in_flags`], for a variable with an invalid value.
#[test]
fn an_invalid_variable_is_a_usage_error() {
    if std::env::var_os(CHILD).is_some() {
        let error = parse(&[]).map(|_| ()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidValue);
        assert!(error.to_string().contains("pigeon"), "{error}");
        return;
    }
    in_child(
        "launch::tests::an_invalid_variable_is_a_usage_error",
        &[("MCP_TRANSPORT", "pigeon")],
    );
}

#[cfg(feature = "http")]
mod http {
    //! What the HTTP flags do to a server that runs: refusals, tokens, legacy mode, origins.

    use super::*;
    use std::net::SocketAddr;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn server() -> Server {
        Server::builder("demo", "1.2.3").build().unwrap()
    }

    /// Binds with `args`, serves in the background, and returns the address and a stop
    /// switch.
    async fn start(args: &ServeArgs) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
        start_with(args, server()).await
    }

    /// [`start`] with `server`.
    async fn start_with(
        args: &ServeArgs,
        server: Server,
    ) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
        let http = args.bind_http(server).await.unwrap();
        let addr = http.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(http.run_until(async {
            let _ = stopped.await;
        }));
        (addr, stop)
    }

    /// Sends one raw HTTP/1.1 request to `/mcp` (a POST is an `initialize`) and returns the
    /// status code.
    pub(super) async fn status(addr: SocketAddr, method: &str, headers: &[(&str, &str)]) -> u16 {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Accept: application/json, text/event-stream\r\n"
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        if method == "POST" {
            request.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ));
        } else {
            request.push_str("\r\n");
        }
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        let response = String::from_utf8_lossy(&response);
        response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {response:?}"))
    }

    #[tokio::test]
    async fn a_non_loopback_address_without_tokens_is_refused() {
        let args = parse(&["--transport", "http", "--bind", "0.0.0.0:0"]).unwrap();
        let error = args.bind_http(server()).await.unwrap_err();
        assert!(error.to_string().contains("refusing to serve"), "{error}");
        assert!(error.to_string().contains("--token-file"), "{error}");
        // The exit code `main` returns for it.
        assert_eq!(args.serve(server()).await, ExitCode::FAILURE);
    }

    #[tokio::test]
    async fn allow_unauthenticated_serves_a_non_loopback_address() {
        let args = parse(&["--bind", "0.0.0.0:0", "--allow-unauthenticated"]).unwrap();
        let http = args.bind_http(server()).await.unwrap();
        assert!(http.local_addr().ip().is_unspecified());
    }

    #[tokio::test]
    async fn a_token_file_requires_its_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = dir.path().join("tokens");
        let token = "0123456789abcdef0123456789abcdef";
        std::fs::write(&tokens, format!("alice {token}\n")).unwrap();
        let args = parse(&[
            "--bind",
            "0.0.0.0:0",
            "--token-file",
            tokens.to_str().unwrap(),
        ])
        .unwrap();
        let (addr, _stop) = start(&args).await;
        let addr = SocketAddr::from(([127, 0, 0, 1], addr.port()));
        assert_eq!(status(addr, "POST", &[]).await, 401);
        let bearer = format!("Bearer {token}");
        assert_eq!(
            status(addr, "POST", &[("Authorization", &bearer)]).await,
            200
        );

        let missing = parse(&["--token-file", "/nonexistent/tokens"]).unwrap();
        let error = missing.bind_http(server()).await.unwrap_err();
        assert!(error.to_string().contains("/nonexistent/tokens"), "{error}");
    }

    #[tokio::test]
    async fn legacy_mode_overrides_the_servers_base_and_leaves_it_when_absent() {
        let stateless = HttpOptions::default().legacy_mode(LegacyMode::Stateless);
        // The base says stateless, no flag: GET (a session's stream) is 405.
        let args = parse(&[]).unwrap().with_http_options(stateless.clone());
        let (addr, _stop) = start(&args).await;
        assert_eq!(status(addr, "GET", &[]).await, 405);
        // The flag says sessionful: GET is a stream request, not a method refused.
        let args = parse(&["--legacy-mode", "sessionful"])
            .unwrap()
            .with_http_options(stateless);
        let (addr, _stop) = start(&args).await;
        assert_ne!(status(addr, "GET", &[]).await, 405);
        // The flag on the default base.
        let args = parse(&["--legacy-mode", "stateless"]).unwrap();
        let (addr, _stop) = start(&args).await;
        assert_eq!(status(addr, "GET", &[]).await, 405);
    }

    #[tokio::test]
    async fn allowed_origins_are_added_to_the_servers_own() {
        let origin = ("Origin", "https://app.example.com");
        let other = ("Origin", "https://other.example.com");
        let base = HttpOptions::default().allow_origin("https://other.example.com");
        let args = parse(&[]).unwrap().with_http_options(base.clone());
        let (addr, _stop) = start(&args).await;
        assert_eq!(status(addr, "POST", &[origin]).await, 403);
        assert_eq!(status(addr, "POST", &[other]).await, 200);

        let args = parse(&["--allowed-origin", "https://app.example.com"])
            .unwrap()
            .with_http_options(base);
        let (addr, _stop) = start(&args).await;
        assert_eq!(status(addr, "POST", &[origin]).await, 200);
        assert_eq!(status(addr, "POST", &[other]).await, 200);
    }

    /// A server whose one tool allows each caller one call a minute.
    fn rate_limited() -> Server {
        use crate::tool::{Rate, ToolPolicy, tool_fn};
        let definition = crate::protocol::ToolDefinition::new(
            "once",
            "Answers once a minute per caller.",
            serde_json::json!({"type": "object"}),
        );
        let tool = tool_fn(definition, |_, _| async { "answered" })
            .with_policy(ToolPolicy::new().rate_limit(Rate::per_minute(1)));
        Server::builder("demo", "1.2.3").tool(tool).build().unwrap()
    }

    /// A modern `tools/call` of `once` from loopback, claiming `forwarded` as the client's
    /// address; the response's text.
    async fn call_claiming(addr: SocketAddr, forwarded: &str) -> String {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"once","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: once\r\n\
             X-Forwarded-For: {forwarded}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        String::from_utf8_lossy(&response).into_owned()
    }

    #[tokio::test]
    async fn trust_proxy_gives_forwarded_clients_their_own_budgets_and_headers_are_ignored_without_it()
     {
        let serve = async |args: &[&str]| start_with(&parse(args).unwrap(), rate_limited()).await;
        // Behind a trusted proxy (this test, on loopback): two clients, two budgets.
        let (addr, _stop) = serve(&["--trust-proxy", "127.0.0.0/8"]).await;
        let first = call_claiming(addr, "198.51.100.7").await;
        let second = call_claiming(addr, "203.0.113.9").await;
        let again = call_claiming(addr, "198.51.100.7").await;
        assert!(first.contains("answered"), "{first}");
        assert!(
            second.contains("answered"),
            "another client, its own budget: {second}"
        );
        assert!(
            again.contains("Rate limit"),
            "the first client's budget is spent: {again}"
        );

        // Without it the headers are ignored: every request is loopback's, one budget.
        let (addr, _stop) = serve(&[]).await;
        let first = call_claiming(addr, "198.51.100.7").await;
        let second = call_claiming(addr, "203.0.113.9").await;
        assert!(first.contains("answered"), "{first}");
        assert!(second.contains("Rate limit"), "one budget: {second}");

        // A value that is no network is a usage error.
        assert!(parse(&["--trust-proxy", "proxy.internal"]).is_err());
    }

    /// The status line of a response.
    fn status_of(response: &str) -> &str {
        response.lines().next().unwrap_or_default()
    }

    #[tokio::test]
    async fn rate_limit_gives_each_client_behind_a_trusted_proxy_its_own_budget() {
        let serve = async |args: &[&str]| start_with(&parse(args).unwrap(), rate_limited()).await;
        let (addr, _stop) = serve(&["--rate-limit", "1/m", "--trust-proxy", "127.0.0.1"]).await;
        let first = call_claiming(addr, "198.51.100.7").await;
        let other = call_claiming(addr, "203.0.113.9").await;
        let again = call_claiming(addr, "198.51.100.7").await;
        assert!(status_of(&first).contains(" 200 "), "{first}");
        assert!(
            status_of(&other).contains(" 200 "),
            "its own budget: {other}"
        );
        assert!(status_of(&again).contains(" 429 "), "{again}");
        assert!(
            again.to_ascii_lowercase().contains("retry-after: "),
            "{again}"
        );

        // Without --trust-proxy both are this machine: one budget.
        let (addr, _stop) = serve(&["--rate-limit", "1/m"]).await;
        assert!(status_of(&call_claiming(addr, "198.51.100.7").await).contains(" 200 "));
        let other = call_claiming(addr, "203.0.113.9").await;
        assert!(status_of(&other).contains(" 429 "), "{other}");
        assert!(parse(&["--rate-limit", "ten/s"]).is_err());
    }

    #[test]
    fn a_launchers_options_reach_the_parsed_arguments() {
        let args = launcher()
            .http_options(HttpOptions::default().allow_origin("https://app.example.com"))
            .stdio_hint("")
            .try_parse_from(["demo"])
            .unwrap();
        assert_eq!(args.settings.stdio_hint.as_deref(), Some(""));
        assert!(
            format!("{:?}", args.http_options()).contains("https://app.example.com"),
            "{:?}",
            args.http_options()
        );
    }
}

#[test]
fn the_programs_about_replaces_the_structs_doc_comment() {
    let help = Launcher::new("demo", "1")
        .command()
        .render_long_help()
        .to_string();
    assert!(help.starts_with("Usage: demo"), "{help}");
    let help = launcher().command().render_long_help().to_string();
    assert!(help.starts_with("A demo server\n"), "{help}");
    assert!(!help.contains("flatten it into"), "{help}");

    // Flattened into a program's own parser, the program's about stays.
    use clap::{CommandFactory, Parser};
    /// The program's about.
    #[derive(Parser)]
    struct Program {
        #[command(flatten)]
        serve: ServeArgs,
    }
    let help = Program::command().render_long_help().to_string();
    assert!(help.starts_with("The program's about\n"), "{help}");
}

#[test]
fn the_default_filter_keeps_the_audit_trail() {
    // A `const` cannot be built from another at compile time, so the filter spells the
    // target out; this keeps the two the same.
    assert_eq!(
        DEFAULT_LOG_FILTER,
        format!("warn,{}=info", crate::pipeline::AUDIT_TARGET)
    );
}

#[cfg(feature = "oauth")]
mod oauth {
    use super::http::status;
    use super::*;
    use std::net::SocketAddr;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn server() -> Server {
        Server::builder("demo", "1.2.3").build().unwrap()
    }

    const ISSUER: &str = "http://127.0.0.1:9";
    const AUDIENCE: &str = "https://mcp.example.com/mcp";

    #[test]
    fn issuer_and_audience_go_together() {
        let only_issuer = parse(&["--oauth-issuer", ISSUER]).unwrap_err();
        assert_eq!(only_issuer.kind(), ErrorKind::MissingRequiredArgument);
        let only_audience = parse(&["--oauth-audience", AUDIENCE]).unwrap_err();
        assert_eq!(only_audience.kind(), ErrorKind::MissingRequiredArgument);
        let both = parse(&["--oauth-issuer", ISSUER, "--oauth-audience", AUDIENCE]).unwrap();
        assert_eq!(both.oauth().unwrap().unwrap().audience(), Some(AUDIENCE));
        assert!(parse(&[]).unwrap().oauth().unwrap().is_none());
    }

    #[tokio::test]
    async fn oauth_serves_a_non_loopback_address_and_publishes_the_metadata() {
        let args = parse(&[
            "--bind",
            "0.0.0.0:0",
            "--oauth-issuer",
            ISSUER,
            "--oauth-audience",
            AUDIENCE,
            "--oauth-scope",
            "notes:read",
        ])
        .unwrap();
        let http = args.bind_http(server()).await.unwrap();
        assert!(http.local_addr().ip().is_unspecified());
        let port = http.local_addr().port();
        let stop = tokio_util::sync::CancellationToken::new();
        let until = stop.clone();
        tokio::spawn(http.run_until(async move { until.cancelled().await }));
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        // No token: 401 (the issuer is never asked).
        assert_eq!(status(addr, "POST", &[]).await, 401);
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(
                b"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            )
            .await
            .unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        let response = String::from_utf8_lossy(&response);
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(
            response.contains(r#""resource":"https://mcp.example.com/mcp""#),
            "{response}"
        );
        assert!(
            response.contains(r#""scopes_supported":["notes:read"]"#),
            "{response}"
        );
        stop.cancel();
    }

    #[tokio::test]
    async fn oauth_and_bearer_tokens_are_one_or_the_other_and_http_issuers_must_be_loopback() {
        let dir = tempfile::tempdir().unwrap();
        let tokens = dir.path().join("tokens");
        std::fs::write(&tokens, "0123456789abcdef0123456789abcdef\n").unwrap();
        let both = parse(&[
            "--token-file",
            tokens.to_str().unwrap(),
            "--oauth-issuer",
            ISSUER,
            "--oauth-audience",
            AUDIENCE,
        ])
        .unwrap();
        let error = both.bind_http(server()).await.unwrap_err();
        assert!(error.to_string().contains("cannot be combined"), "{error}");

        let plain = parse(&[
            "--oauth-issuer",
            "http://auth.example.com",
            "--oauth-audience",
            AUDIENCE,
        ])
        .unwrap();
        let error = plain.bind_http(server()).await.unwrap_err();
        assert!(error.to_string().contains("http://"), "{error}");
    }
}
