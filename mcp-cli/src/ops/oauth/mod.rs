//! `cargo mcp` as an OAuth client of servers that answer 401, the way the MCP authorization
//! spec describes it:
//!
//! 1. the server's protected-resource metadata (RFC 9728): from the challenge's
//!    `resource_metadata`, else the well-known URLs for the endpoint's path and its root;
//!    its `resource` must be the endpoint or a parent of it on the same origin;
//! 2. the authorization server's metadata: RFC 8414, then OpenID discovery; its `issuer` must
//!    be the one the resource named, and it must support PKCE with `S256` (the spec says to
//!    refuse otherwise);
//! 3. a client: `--client-id` when given, else dynamic registration (RFC 7591) as a public
//!    client with a loopback redirect;
//! 4. the authorization-code flow with PKCE (S256), a `state`, and the `resource` parameter
//!    (RFC 8707): the URL is printed and opened in a browser (`$BROWSER` if set, else the
//!    desktop's opener), and a one-shot server on `127.0.0.1` takes the redirect back
//!    (RFC 8252 §7.3);
//! 5. the token request with the code verifier and the `resource` again; the tokens are
//!    stored per server ([`store`]) and refreshed with the refresh token when they expire.
//!
//! **DPoP** (RFC 9449): when the server's metadata lists ES256 in
//! `dpop_signing_alg_values_supported` (it verifies DPoP proofs; this toolkit's servers
//! publish it) and its authorization server's does too, the login makes a new ES256 key,
//! sends a proof of it with every token request (the code exchange and each refresh, whose
//! refresh token the server may bind to that key), keeps the key beside the tokens, and every
//! MCP request then carries `Authorization: DPoP` and a proof for that request
//! (`mcp_runtime::client::Client::http_with_dpop`). A token endpoint that asks for a nonce
//! (`use_dpop_nonce`) is asked once more with it. Otherwise tokens are bearer tokens:
//! decided so, since a server that does not say it takes DPoP may refuse the `DPoP` scheme,
//! and one whose authorization server does not issue bound tokens gains nothing from it. A
//! server that takes only bound tokens (`dpop_bound_access_tokens_required`) behind an
//! authorization server that issues none ends the login with an error saying so.
//!
//! Scopes asked for: `--scope`, else the `scope` of the server's challenge, else the
//! resource's `scopes_supported`.
//!
//! Every URL this flow reads from a server's answer (the challenge's `resource_metadata`,
//! the authorization server, its endpoints) is chosen by that server, so it is checked by
//! [`metadata_url`] before it is fetched, printed or opened: `https://` only, or `http://`
//! to this machine (a server under development). A `file:` or `javascript:` URL, or plain
//! HTTP across the network, ends the login with an error that names the field, not the URL.
//! The browser is opened without a shell on every system (on Windows through the Shell API:
//! a `cmd /C start` would run what follows an `&` in the URL's query).

pub mod dpop;
pub mod http;
pub mod store;

use self::http::{Http, challenge_params};
use anyhow::{Context as _, Result, anyhow, bail};
use base64::Engine as _;
pub use dpop::Credential;
use dpop::{dpop_key, token_request, wants_dpop};
use mcp_runtime::client::DpopKey;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use store::Login;

/// How a login goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// A client registered beforehand, instead of dynamic registration.
    pub client_id: Option<String>,
    /// Its secret (a confidential client), sent with HTTP Basic.
    pub client_secret: Option<String>,
    /// The scopes to ask for, space-separated.
    pub scope: Option<String>,
    /// Open the authorization URL in a browser (it is printed either way).
    pub open_browser: bool,
    /// When a command other than `login` meets a server that asks for a login (401): log in
    /// without asking (`--login`). Otherwise such a command asks on the terminal first, and
    /// without a terminal it stops with a hint.
    pub login_without_asking: bool,
    /// How long to wait for the browser to come back.
    pub wait: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            client_id: None,
            client_secret: None,
            scope: None,
            open_browser: true,
            login_without_asking: false,
            wait: Duration::from_secs(300),
        }
    }
}

/// The stored login's credential for `server`, refreshed (and stored again) when it has
/// expired; `None` when there is no login, or it expired and cannot be refreshed.
pub async fn stored_credential(server: &str) -> Result<Option<Credential>> {
    let folder = store::folder()?;
    let Some(login) = store::load(&folder, server) else {
        return Ok(None);
    };
    if !expired(&login) {
        return Credential::of(&login).map(Some);
    }
    match refresh(&Http::new()?, &login).await {
        Ok(refreshed) => {
            store::save(&folder, &refreshed)?;
            Credential::of(&refreshed).map(Some)
        }
        Err(e) => {
            eprintln!("the stored login for {server} expired and could not be refreshed ({e:#})");
            Ok(None)
        }
    }
}

/// Forgets `server`'s stored login without telling the authorization server.
pub fn forget(server: &str) -> Result<()> {
    store::remove(&store::folder()?, server).map(drop)
}

/// Logs in to `server` (asking it first for its challenge) and stores the tokens.
pub async fn login_and_store(server: &str, options: &Options) -> Result<Login> {
    let http = Http::new()?;
    let probe = http.probe(server).await?;
    if probe.status != ::http::StatusCode::UNAUTHORIZED
        && probe.status != ::http::StatusCode::FORBIDDEN
    {
        bail!(
            "{server} answered {} without asking for credentials: there is nothing to log in to",
            probe.status
        );
    }
    let login = login(&http, server, probe.challenge.as_deref(), options).await?;
    store::save(&store::folder()?, &login)?;
    Ok(login)
}

/// Forgets the login for `server` (revoking its tokens when the authorization server has a
/// revocation endpoint); whether there was one.
pub async fn logout(server: &str) -> Result<bool> {
    let folder = store::folder()?;
    let Some(login) = store::load(&folder, server) else {
        return store::remove(&folder, server);
    };
    if let Some(endpoint) = &login.revocation_endpoint {
        let endpoint = metadata_url("revocation_endpoint", endpoint)?;
        let endpoint = endpoint.as_str();
        let http = Http::new()?;
        for (token, hint) in [
            (login.refresh_token.as_deref(), "refresh_token"),
            (Some(login.access_token.as_str()), "access_token"),
        ] {
            let Some(token) = token else { continue };
            let mut form = vec![("token", token), ("token_type_hint", hint)];
            let basic = client_auth(&login, &mut form);
            // Best effort (RFC 7009): the tokens are forgotten here whatever it answers.
            let _ = http.post_form(endpoint, &form, basic, None).await;
        }
    }
    store::remove(&folder, server)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

/// Expired, or expiring within 30 s.
fn expired(login: &Login) -> bool {
    login.expires_at.is_some_and(|at| at <= now() + 30)
}

/// The client authentication of a token request: HTTP Basic, or the secret in the form.
fn client_auth<'a>(
    login: &'a Login,
    form: &mut Vec<(&'a str, &'a str)>,
) -> Option<(&'a str, &'a str)> {
    match (
        login.token_endpoint_auth_method.as_str(),
        &login.client_secret,
    ) {
        ("client_secret_basic", Some(secret)) => Some((login.client_id.as_str(), secret.as_str())),
        ("client_secret_post", Some(secret)) => {
            form.push(("client_id", &login.client_id));
            form.push(("client_secret", secret));
            None
        }
        _ => {
            form.push(("client_id", &login.client_id));
            None
        }
    }
}

/// Exchanges the refresh token for new tokens.
async fn refresh(http: &Http, login: &Login) -> Result<Login> {
    let refresh_token = login
        .refresh_token
        .as_deref()
        .context("the token expired and no refresh token was issued")?;
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("resource", login.resource.as_str()),
    ];
    let basic = client_auth(login, &mut form);
    let endpoint = metadata_url("token_endpoint", &login.token_endpoint)?;
    let key = dpop_key(login)?;
    let answer = token_request(http, endpoint.as_str(), &form, basic, key.as_ref()).await?;
    let mut refreshed = login.clone();
    apply_token_answer(&mut refreshed, answer)?;
    Ok(refreshed)
}

/// Reads a token endpoint's answer into `login`.
fn apply_token_answer(login: &mut Login, answer: self::http::Answer) -> Result<()> {
    if !answer.status.is_success() {
        let error = answer.json["error"].as_str().unwrap_or("no error code");
        let description = answer.json["error_description"].as_str().unwrap_or("");
        bail!(
            "the token endpoint answered {} ({error}{}{description})",
            answer.status,
            if description.is_empty() { "" } else { ": " }
        );
    }
    let json = answer.json;
    let access = json["access_token"]
        .as_str()
        .context("the token endpoint's answer has no access_token")?;
    let kind = json["token_type"].as_str().unwrap_or("Bearer");
    if kind.eq_ignore_ascii_case("bearer") {
        // Not bound (an authorization server may ignore the proof): the key is of no use.
        login.dpop_key = None;
    } else if !(kind.eq_ignore_ascii_case("dpop") && login.dpop_key.is_some()) {
        bail!(
            "the token endpoint issued a {kind} token; only Bearer tokens, and DPoP ones to \
             a login that asked for them, are supported"
        );
    }
    login.access_token = access.to_owned();
    if let Some(refresh) = json["refresh_token"].as_str() {
        login.refresh_token = Some(refresh.to_owned());
    }
    login.expires_at = json["expires_in"].as_u64().map(|s| now() + s);
    if let Some(scope) = json["scope"].as_str() {
        login.scope = Some(scope.to_owned());
    }
    Ok(())
}

/// `https://host:port` of a URL.
fn origin(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

/// `value`, a URL a server chose (its field `what`), when it may be fetched or shown to the
/// user's browser: `https://`, or `http://` to a loopback host (`localhost`, 127.0.0.0/8,
/// `[::1]`); no user name or password in it (`https://good@bad/` reads as `good`), no
/// fragment (RFC 6749 §3.1). The error names the field and the scheme or host, never the
/// URL itself, which is not printed.
pub fn metadata_url(what: &str, value: &str) -> Result<url::Url> {
    let Ok(url) = url::Url::parse(value) else {
        bail!("the {what} given by the server is not a URL; refusing to log in");
    };
    let loopback = match url.host() {
        Some(url::Host::Domain(host)) => host.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" if url.host().is_some() => {}
        "http" if loopback => {}
        "http" => bail!(
            "the {what} given by the server is a plain http:// URL to {}; only https:// (or \
             http:// to this machine) is accepted, refusing to log in",
            url.host_str().unwrap_or("no host")
        ),
        scheme => bail!(
            "the {what} given by the server is a {scheme}: URL; only https:// (or http:// to \
             this machine) is accepted, refusing to log in"
        ),
    }
    if !url.username().is_empty() || url.password().is_some() {
        bail!("the {what} given by the server has a user name in it; refusing to log in");
    }
    if url.fragment().is_some() {
        bail!("the {what} given by the server has a fragment (#...); refusing to log in");
    }
    Ok(url)
}

/// Whether `resource` is `server` or a parent of it: the same origin, and a path that is
/// `server`'s or one of its leading segments (`/mcp` is within `/`, `/mcp/` and `/mcp`, not
/// within `/mc`).
fn within(resource: &url::Url, server: &url::Url) -> bool {
    let parent = resource.path().trim_end_matches('/');
    let path = server.path();
    origin(resource) == origin(server)
        && path
            .strip_prefix(parent)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The server's protected-resource metadata.
async fn discover_resource(http: &Http, server: &url::Url, named: Option<&str>) -> Result<Value> {
    let path = server.path().trim_end_matches('/');
    let named = named
        .map(|url| metadata_url("resource_metadata", url))
        .transpose()?;
    // The server's own metadata is on its origin (RFC 9728 §3 puts it under the resource's
    // well-known path); one named elsewhere would make this CLI fetch a URL of the server's
    // choosing anywhere.
    if let Some(named) = &named
        && origin(named) != origin(server)
    {
        bail!(
            "the server's resource_metadata is on another origin than the server; refusing to log in"
        );
    }
    let mut candidates: Vec<String> = named.map(String::from).into_iter().collect();
    candidates.push(format!(
        "{}/.well-known/oauth-protected-resource{path}",
        origin(server)
    ));
    candidates.push(format!(
        "{}/.well-known/oauth-protected-resource",
        origin(server)
    ));
    candidates.dedup();
    match first_document(http, candidates).await {
        Ok((_, document)) => Ok(document),
        Err(failures) => bail!(
            "the server asks for a login but publishes no protected-resource metadata ({failures})"
        ),
    }
}

/// The first of `candidates` that answers a JSON object, with its URL; else what each
/// answered.
async fn first_document(http: &Http, candidates: Vec<String>) -> Result<(String, Value), String> {
    let mut failures = Vec::new();
    for candidate in candidates {
        match http.get_json(&candidate).await {
            Ok(answer) if answer.status.is_success() && answer.json.is_object() => {
                return Ok((candidate, answer.json));
            }
            Ok(answer) => failures.push(format!("{candidate} answered {}", answer.status)),
            Err(e) => failures.push(format!("{e:#}")),
        }
    }
    Err(failures.join("; "))
}

/// The authorization server's metadata: RFC 8414, then OpenID discovery.
async fn discover_issuer(http: &Http, issuer: &str) -> Result<Value> {
    let url = metadata_url("authorization server", issuer)?;
    let path = url.path().trim_end_matches('/');
    let mut candidates = vec![
        format!(
            "{}/.well-known/oauth-authorization-server{path}",
            origin(&url)
        ),
        format!(
            "{}/.well-known/openid-configuration",
            issuer.trim_end_matches('/')
        ),
    ];
    if !path.is_empty() {
        candidates.push(format!(
            "{}/.well-known/openid-configuration{path}",
            origin(&url)
        ));
    }
    let (found, document) = first_document(http, candidates).await.map_err(|failures| {
        anyhow!("cannot read the metadata of the authorization server {issuer} ({failures})")
    })?;
    let named = document["issuer"].as_str().unwrap_or_default();
    if named != issuer {
        bail!("{found} names the issuer {named:?}, not {issuer:?}");
    }
    Ok(document)
}

/// Random bytes as base64url: PKCE verifiers and `state`.
fn random_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow!("no randomness: {e}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The whole flow for `server`, given its 401 challenge.
async fn login(
    http: &Http,
    server: &str,
    challenge: Option<&str>,
    options: &Options,
) -> Result<Login> {
    let server_url = url::Url::parse(server).with_context(|| format!("{server:?} is not a URL"))?;
    let params = challenge.map(challenge_params).unwrap_or_default();
    let param = |name: &str| {
        params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };

    let resource_doc =
        discover_resource(http, &server_url, param("resource_metadata").as_deref()).await?;
    let resource = resource_doc["resource"]
        .as_str()
        .context("the protected-resource metadata has no resource")?
        .to_owned();
    let resource_url = url::Url::parse(&resource)
        .with_context(|| format!("the resource {resource:?} is not a URL"))?;
    if !within(&resource_url, &server_url) {
        bail!("the protected-resource metadata is for {resource}, which is not {server}");
    }
    let issuer = resource_doc["authorization_servers"][0]
        .as_str()
        .context("the protected-resource metadata names no authorization server")?
        .to_owned();
    let meta = discover_issuer(http, &issuer).await?;
    // Every endpoint is checked now, before anything is registered, printed or opened.
    let endpoint = |name: &str| {
        meta[name]
            .as_str()
            .map(|url| metadata_url(name, url).map(String::from))
            .transpose()
    };
    let authorization_endpoint = endpoint("authorization_endpoint")?
        .context("the authorization server has no authorization_endpoint")?;
    let token_endpoint =
        endpoint("token_endpoint")?.context("the authorization server has no token_endpoint")?;
    let revocation_endpoint = endpoint("revocation_endpoint")?;
    let registration_endpoint = endpoint("registration_endpoint")?;
    let pkce = meta["code_challenge_methods_supported"]
        .as_array()
        .is_some_and(|m| m.iter().any(|v| v == "S256"));
    if !pkce {
        bail!(
            "the authorization server {issuer} does not say it supports PKCE with S256; the MCP authorization spec forbids logging in without it"
        );
    }
    let dpop = wants_dpop(&resource_doc, &meta, &issuer)?
        .then(DpopKey::generate)
        .transpose()
        .map_err(|e| anyhow!("{e}"))?;
    let scope = options
        .scope
        .clone()
        .or_else(|| param("scope"))
        .or_else(|| {
            let listed: Vec<&str> = resource_doc["scopes_supported"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            (!listed.is_empty()).then(|| listed.join(" "))
        });

    // The loopback redirect (RFC 8252 §7.3), bound before the client is registered with it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot listen on 127.0.0.1 for the login's redirect")?;
    let redirect_uri = format!(
        "http://127.0.0.1:{}/callback",
        listener.local_addr()?.port()
    );

    let (client_id, client_secret, auth_method) = match &options.client_id {
        Some(id) => {
            let method = if options.client_secret.is_some() {
                "client_secret_basic"
            } else {
                "none"
            };
            (id.clone(), options.client_secret.clone(), method.to_owned())
        }
        None => {
            let endpoint = registration_endpoint.with_context(|| {
                format!("the authorization server {issuer} does not allow dynamic registration; register a client there and pass --client-id")
            })?;
            register(http, &endpoint, &redirect_uri).await?
        }
    };

    let verifier = random_token()?;
    let state = random_token()?;
    let challenge_value = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    let mut authorize = url::Url::parse(&authorization_endpoint).with_context(|| {
        format!("the authorization endpoint {authorization_endpoint:?} is not a URL")
    })?;
    {
        let mut query = authorize.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", &client_id)
            .append_pair("redirect_uri", &redirect_uri)
            .append_pair("code_challenge", &challenge_value)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &state)
            .append_pair("resource", &resource);
        if let Some(scope) = &scope {
            query.append_pair("scope", scope);
        }
    }
    eprintln!("To log in to {server}, open this URL in a browser:\n  {authorize}");
    if options.open_browser {
        open_browser(authorize.as_str());
    }
    let back = callback::wait(listener, options.wait).await?;
    let get = |name: &str| {
        back.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if get("state") != Some(state.as_str()) {
        bail!("the login came back with another state: not the login this command started");
    }
    if let Some(error) = get("error") {
        bail!(
            "the authorization server refused the login: {error}{}",
            get("error_description")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        );
    }
    if let Some(iss) = get("iss")
        && iss != issuer
    {
        bail!("the login came back from {iss}, not {issuer} (RFC 9207)");
    }
    let code = get("code").context("the login came back without a code")?;

    let mut login = Login {
        server: server.to_owned(),
        resource: resource.clone(),
        issuer,
        token_endpoint: token_endpoint.clone(),
        revocation_endpoint,
        client_id,
        client_secret,
        token_endpoint_auth_method: auth_method,
        access_token: String::new(),
        refresh_token: None,
        expires_at: None,
        scope: None,
        dpop_key: dpop
            .as_ref()
            .map(|key| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key.to_pkcs8())),
    };
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect_uri.as_str()),
        ("code_verifier", verifier.as_str()),
        ("resource", resource.as_str()),
    ];
    let snapshot = login.clone();
    let basic = client_auth(&snapshot, &mut form);
    let answer = token_request(http, &token_endpoint, &form, basic, dpop.as_ref()).await?;
    apply_token_answer(&mut login, answer)?;
    eprintln!(
        "logged in to {server}{}",
        if login.dpop_key.is_some() {
            " (tokens bound to a DPoP key)"
        } else {
            ""
        }
    );
    Ok(login)
}

/// Registers `cargo mcp` as a public client with `redirect_uri` at `endpoint` (RFC 7591).
async fn register(
    http: &Http,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<(String, Option<String>, String)> {
    let request = serde_json::json!({
        "client_name": "cargo mcp",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    let answer = http.post_json(endpoint, &request).await?;
    if !answer.status.is_success() {
        bail!(
            "the authorization server refused to register cargo mcp ({}: {})",
            answer.status,
            answer.json["error_description"]
                .as_str()
                .or(answer.json["error"].as_str())
                .unwrap_or("no reason given")
        );
    }
    let id = answer.json["client_id"]
        .as_str()
        .context("the registration's answer has no client_id")?
        .to_owned();
    let secret = answer.json["client_secret"].as_str().map(str::to_owned);
    let method = answer.json["token_endpoint_auth_method"]
        .as_str()
        .unwrap_or(if secret.is_some() {
            "client_secret_basic"
        } else {
            "none"
        })
        .to_owned();
    Ok((id, secret, method))
}

/// Opens `url` (checked by [`metadata_url`]) in the user's browser: `$BROWSER` (a command
/// run without a shell; the URL is its last argument) when set, else the system's opener
/// through the `open` crate: LaunchServices' `open` on macOS, the Shell API
/// (`ShellExecuteW`) on Windows, `xdg-open` and its kin elsewhere; never `cmd /C start`,
/// whose parsing runs what follows an `&` in a URL. Failures are silent: the URL is printed
/// anyway.
fn open_browser(url: &str) {
    use std::process::{Command, Stdio};
    let browser = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let Some(browser) = browser else {
        // The opener may wait a moment to see the launcher start: not on the runtime's thread.
        let url = url.to_owned();
        std::thread::spawn(move || open::that_detached(url));
        return;
    };
    let mut words = browser.split_whitespace();
    let Some(program) = words.next() else { return };
    let _ = Command::new(program)
        .args(words)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

mod callback {
    //! The one-shot loopback server the browser comes back to.

    use anyhow::{Result, anyhow};
    use bytes::Bytes;
    use http_body_util::Full;
    use hyper::server::conn::http1;
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    use std::time::Duration;
    use tokio::sync::mpsc;

    const DONE: &str = "<!doctype html><title>cargo mcp</title><p>Logged in. You can close this tab and go back to the terminal.</p>";

    /// Serves `listener` until a request for `/callback` arrives (or `wait` passes) and
    /// returns its query parameters.
    pub(super) async fn wait(
        listener: tokio::net::TcpListener,
        wait: Duration,
    ) -> Result<Vec<(String, String)>> {
        let (tx, mut rx) = mpsc::channel::<Vec<(String, String)>>(1);
        let serve = async {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let tx = tx.clone();
                tokio::spawn(async move {
                    let service =
                        service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                            let tx = tx.clone();
                            async move {
                                let uri = request.uri();
                                if uri.path() != "/callback" {
                                    let mut response = hyper::Response::new(Full::new(
                                        Bytes::from_static(b"not found"),
                                    ));
                                    *response.status_mut() = hyper::StatusCode::NOT_FOUND;
                                    return Ok::<_, std::convert::Infallible>(response);
                                }
                                let params = url::form_urlencoded::parse(
                                    uri.query().unwrap_or("").as_bytes(),
                                )
                                .into_owned()
                                .collect();
                                let _ = tx.send(params).await;
                                let mut response = hyper::Response::new(Full::new(
                                    Bytes::from_static(DONE.as_bytes()),
                                ));
                                response.headers_mut().insert(
                                    hyper::header::CONTENT_TYPE,
                                    hyper::header::HeaderValue::from_static(
                                        "text/html; charset=utf-8",
                                    ),
                                );
                                Ok(response)
                            }
                        });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        };
        tokio::select! {
            () = serve => Err(anyhow!("the login's redirect server stopped")),
            params = rx.recv() => params.ok_or_else(|| anyhow!("the login's redirect server stopped")),
            () = tokio::time::sleep(wait) => Err(anyhow!(
                "the browser did not come back within {} s; run the command again to retry",
                wait.as_secs()
            )),
        }
    }
}
