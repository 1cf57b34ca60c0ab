//! The verifier against an issuer served on loopback by the test: its metadata, a JWKS the
//! test rewrites (rotation, mixed key types), an introspection endpoint, and an outage switch.
//! The keys in `testdata/` were made for these tests and sign nothing else.

use super::*;
use crate::net::{NetPolicy, NetRequest, NetService};
use crate::transport::http::{HttpOptions, HttpServer};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{AlgorithmFamily, EncodingKey, Header};
use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const RSA_A: &str = include_str!("testdata/rsa-a.pem");
const RSA_A_PUBLIC: &str = include_str!("testdata/rsa-a.pub.pem");
const RSA_B: &str = include_str!("testdata/rsa-b.pem");
const EC: &str = include_str!("testdata/ec.pem");
const AUDIENCE: &str = "https://mcp.example.com/mcp";

/// DPoP-bound tokens, JWTs and introspected, with the client's proofs.
mod bound;

#[derive(Default)]
struct Issuer {
    url: Mutex<String>,
    jwks: Mutex<Value>,
    introspection: Mutex<Value>,
    introspection_delay: Mutex<Duration>,
    down: AtomicBool,
    jwks_fetches: AtomicUsize,
    introspections: AtomicUsize,
}

fn jwk(pem: &str, alg: Algorithm, kid: &str) -> Value {
    let key = encoding_key(pem, alg);
    let mut jwk = serde_json::to_value(Jwk::from_encoding_key(&key, alg).unwrap()).unwrap();
    jwk["kid"] = json!(kid);
    jwk["use"] = json!("sig");
    jwk
}

fn encoding_key(pem: &str, alg: Algorithm) -> EncodingKey {
    match alg.family() {
        AlgorithmFamily::Ec => EncodingKey::from_ec_pem(pem.as_bytes()).unwrap(),
        _ => EncodingKey::from_rsa_pem(pem.as_bytes()).unwrap(),
    }
}

async fn start_issuer(keys: Vec<Value>) -> Arc<Issuer> {
    let issuer = Arc::new(Issuer::default());
    *issuer.jwks.lock().unwrap() = json!({ "keys": keys });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    *issuer.url.lock().unwrap() = url;
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(|State(i): State<Arc<Issuer>>| async move {
                if i.down.load(Ordering::SeqCst) {
                    return (StatusCode::BAD_GATEWAY, String::new());
                }
                let url = i.url.lock().unwrap().clone();
                let doc = json!({
                    "issuer": url,
                    "jwks_uri": format!("{url}/jwks"),
                    "introspection_endpoint": format!("{url}/introspect"),
                });
                (StatusCode::OK, doc.to_string())
            }),
        )
        .route(
            "/jwks",
            get(|State(i): State<Arc<Issuer>>| async move {
                if i.down.load(Ordering::SeqCst) {
                    return (StatusCode::BAD_GATEWAY, String::new());
                }
                i.jwks_fetches.fetch_add(1, Ordering::SeqCst);
                (StatusCode::OK, i.jwks.lock().unwrap().to_string())
            }),
        )
        .route(
            "/introspect",
            post(
                |State(i): State<Arc<Issuer>>, headers: HeaderMap, body: String| async move {
                    let delay = *i.introspection_delay.lock().unwrap();
                    tokio::time::sleep(delay).await;
                    if i.down.load(Ordering::SeqCst) {
                        return (StatusCode::BAD_GATEWAY, String::new());
                    }
                    i.introspections.fetch_add(1, Ordering::SeqCst);
                    // client_id "mcp", secret "s3cret"
                    let basic = headers.get("authorization").and_then(|v| v.to_str().ok());
                    if basic != Some("Basic bWNwOnMzY3JldA==") || !body.contains("token=") {
                        return (StatusCode::UNAUTHORIZED, String::new());
                    }
                    (StatusCode::OK, i.introspection.lock().unwrap().to_string())
                },
            ),
        )
        .with_state(issuer.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    issuer
}

impl Issuer {
    fn url(&self) -> String {
        self.url.lock().unwrap().clone()
    }

    fn oauth(&self) -> OAuthBuilder {
        OAuth::issuer(self.url()).audience(AUDIENCE)
    }
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

fn claims(issuer: &Issuer) -> Value {
    json!({
        "iss": issuer.url(),
        "aud": AUDIENCE,
        "sub": "alice",
        "scope": "files:read files:write",
        "exp": now() + 600,
        "iat": now(),
    })
}

fn sign(claims: &Value, pem: &str, alg: Algorithm, kid: Option<&str>) -> String {
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, &encoding_key(pem, alg)).unwrap()
}

async fn refusal(oauth: &OAuth, token: &str) -> (StatusCode, String) {
    let e = oauth.verify(token).await.expect_err("the token is refused");
    (e.status(), e.to_string())
}

#[tokio::test]
async fn a_valid_token_becomes_the_identity() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = issuer.oauth().build().unwrap();
    let token = sign(&claims(&issuer), RSA_A, Algorithm::RS256, Some("a"));
    let identity = oauth.verify(&token).await.unwrap();
    assert_eq!(identity.subject_name(), Some("alice"));
    assert_eq!(identity.scopes(), ["files:read", "files:write"]);

    // `scp` as a list, and an audience list naming this server among others.
    let mut c = claims(&issuer);
    c.as_object_mut().unwrap().remove("scope");
    c["scp"] = json!(["files:read"]);
    c["aud"] = json!(["https://other.example", format!("{AUDIENCE}/")]);
    let identity = oauth
        .verify(&sign(&c, RSA_A, Algorithm::RS256, Some("a")))
        .await
        .unwrap();
    assert_eq!(identity.scopes(), ["files:read"]);
    // NumericDates may carry a fraction (RFC 7519 §2).
    let mut c = claims(&issuer);
    c["exp"] = json!(now() as f64 + 600.5);
    c["nbf"] = json!(now() as f64 - 0.25);
    assert!(
        oauth
            .verify(&sign(&c, RSA_A, Algorithm::RS256, Some("a")))
            .await
            .is_ok()
    );
    // Keys fetched once for both.
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn tokens_for_others_from_others_or_out_of_time_are_refused() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = issuer.oauth().build().unwrap();
    let with = |change: &dyn Fn(&mut Value)| {
        let mut c = claims(&issuer);
        change(&mut c);
        sign(&c, RSA_A, Algorithm::RS256, Some("a"))
    };
    let cases: [(&str, String); 6] = [
        (
            "another resource",
            with(&|c| c["aud"] = json!("https://other.example/mcp")),
        ),
        (
            "not issued by",
            with(&|c| c["iss"] = json!("https://evil.example")),
        ),
        ("expired", with(&|c| c["exp"] = json!(now() - 3600))),
        ("not valid yet", with(&|c| c["nbf"] = json!(now() + 3600))),
        (
            "no aud claim",
            with(&|c| {
                c.as_object_mut().unwrap().remove("aud");
            }),
        ),
        (
            "no exp claim",
            with(&|c| {
                c.as_object_mut().unwrap().remove("exp");
            }),
        ),
    ];
    for (why, token) in cases {
        let (status, message) = refusal(&oauth, &token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{why}");
        assert!(message.contains(why), "{why}: {message}");
    }
    // Within the leeway, an expired token still passes.
    let just_expired = with(&|c| c["exp"] = json!(now() - 10));
    assert!(oauth.verify(&just_expired).await.is_ok());
}

#[tokio::test]
async fn a_rotated_key_is_fetched_once_and_made_up_kids_do_not_hammer_the_issuer() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = issuer
        .oauth()
        .jwks_min_refresh(Duration::ZERO)
        .build()
        .unwrap();
    let c = claims(&issuer);
    oauth
        .verify(&sign(&c, RSA_A, Algorithm::RS256, Some("a")))
        .await
        .unwrap();
    // The issuer rotates to key b; a token signed with b names a kid the cache lacks.
    *issuer.jwks.lock().unwrap() = json!({ "keys": [jwk(RSA_B, Algorithm::RS256, "b")] });
    let identity = oauth
        .verify(&sign(&c, RSA_B, Algorithm::RS256, Some("b")))
        .await
        .unwrap();
    assert_eq!(identity.subject_name(), Some("alice"));
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 2);

    // With the default interval, unknown kids refresh at most once per 30 s.
    let guarded = issuer.oauth().build().unwrap();
    guarded
        .verify(&sign(&c, RSA_B, Algorithm::RS256, Some("b")))
        .await
        .unwrap();
    let before = issuer.jwks_fetches.load(Ordering::SeqCst);
    for n in 0..20 {
        let kid = format!("made-up-{n}");
        let (status, message) =
            refusal(&guarded, &sign(&c, RSA_B, Algorithm::RS256, Some(&kid))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(message.contains("is not one of the issuer's"), "{message}");
    }
    assert!(issuer.jwks_fetches.load(Ordering::SeqCst) <= before + 1);
}

#[tokio::test]
async fn none_and_hmac_with_the_public_key_are_refused() {
    use base64::Engine as _;
    let b64 = |v: &Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
    };
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = issuer.oauth().build().unwrap();
    let c = claims(&issuer);

    let none = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "typ": "JWT"})),
        b64(&c)
    );
    let (status, _) = refusal(&oauth, &none).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // The classic confusion: HS256 with the RSA public key (as PEM, and as the JWK's
    // modulus bytes) for the secret.
    for secret in [
        RSA_A_PUBLIC.as_bytes().to_vec(),
        RSA_A_PUBLIC.trim().as_bytes().to_vec(),
    ] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("a".into());
        let forged = jsonwebtoken::encode(&header, &c, &EncodingKey::from_secret(&secret)).unwrap();
        let (status, message) = refusal(&oauth, &forged).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(message.contains("does not accept"), "{message}");
    }

    // Nor is HMAC accepted by configuration.
    let err = issuer
        .oauth()
        .algorithms([Algorithm::RS256, Algorithm::HS256])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("HS256"), "{err}");

    // An RS256 token whose header claims ES256: no EC key, refused.
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("a".into());
    let token = jsonwebtoken::encode(&header, &c, &encoding_key(RSA_A, Algorithm::RS256)).unwrap();
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    parts[0] = b64(&json!({"alg": "ES256", "kid": "a"}));
    let (status, _) = refusal(&oauth, &parts.join(".")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_jwks_with_mixed_key_types_serves_its_usable_keys() {
    let mut encryption = jwk(RSA_B, Algorithm::RS256, "enc");
    encryption["use"] = json!("enc");
    let mut oaep = jwk(RSA_B, Algorithm::RS256, "oaep");
    oaep["alg"] = json!("RSA-OAEP");
    let keys = vec![
        json!({"kty": "oct", "kid": "shared", "k": "c2VjcmV0LXNlY3JldC1zZWNyZXQ"}),
        json!({"kty": "XYZ", "kid": "future", "crv": "whatever"}),
        encryption,
        oaep,
        jwk(EC, Algorithm::ES256, "ec"),
        jwk(RSA_A, Algorithm::RS256, "rsa"),
    ];
    let issuer = start_issuer(keys).await;
    let oauth = issuer.oauth().build().unwrap();
    let c = claims(&issuer);
    for (pem, alg, kid) in [
        (EC, Algorithm::ES256, "ec"),
        (RSA_A, Algorithm::RS256, "rsa"),
    ] {
        oauth.verify(&sign(&c, pem, alg, Some(kid))).await.unwrap();
    }
    // A token without kid finds its key by family.
    oauth
        .verify(&sign(&c, EC, Algorithm::ES256, None))
        .await
        .unwrap();
    // Keys for encryption are not keys for signatures.
    for kid in ["enc", "oaep"] {
        let (status, _) = refusal(&oauth, &sign(&c, RSA_B, Algorithm::RS256, Some(kid))).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{kid}");
    }
    // An HMAC token naming the symmetric key's kid.
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("shared".into());
    let forged = jsonwebtoken::encode(
        &header,
        &c,
        &EncodingKey::from_secret(b"secret-secret-secret"),
    )
    .unwrap();
    assert_eq!(refusal(&oauth, &forged).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn an_oversized_token_is_refused_unread() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = issuer.oauth().build().unwrap();
    let huge = format!("eyJ{}", "A".repeat(64 * 1024));
    let (status, message) = refusal(&oauth, &huge).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(message.contains("longer than"), "{message}");
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_unreachable_issuer_is_served_from_cache_then_503() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let token = sign(&claims(&issuer), RSA_A, Algorithm::RS256, Some("a"));

    // Never reached: 503 with a message saying why.
    issuer.down.store(true, Ordering::SeqCst);
    let cold = issuer.oauth().build().unwrap();
    let (status, message) = refusal(&cold, &token).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(message.contains("cannot be fetched"), "{message}");
    assert!(cold.prefetch().await.is_err());
    issuer.down.store(false, Ordering::SeqCst);

    // Keys that are always past their age: every request tries the issuer.
    let tolerant = issuer
        .oauth()
        .jwks_max_age(Duration::ZERO)
        .jwks_min_refresh(Duration::ZERO)
        .build()
        .unwrap();
    let strict = issuer
        .oauth()
        .jwks_max_age(Duration::ZERO)
        .jwks_min_refresh(Duration::ZERO)
        .serve_stale_for(Duration::ZERO)
        .build()
        .unwrap();
    tolerant.prefetch().await.unwrap();
    strict.prefetch().await.unwrap();
    issuer.down.store(true, Ordering::SeqCst);
    // Within `serve_stale_for` (1 h by default) the cached keys serve.
    assert!(tolerant.verify(&token).await.is_ok());
    // Past it, 503.
    let (status, message) = refusal(&strict, &token).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(message.contains("502"), "{message}");
    issuer.down.store(false, Ordering::SeqCst);
    assert!(strict.verify(&token).await.is_ok());
    // A token verified once is remembered: the issuer's outage does not touch it.
    issuer.down.store(true, Ordering::SeqCst);
    assert!(strict.verify(&token).await.is_ok());
}

/// Review #40 item 3 (and 9): an issuer that accepts connections and never answers made
/// each request wait for the previous one's discovery and JWKS fetch (waits of 38 to 112 s
/// for five requests), and every opaque token retried the failed discovery. Now one fetch
/// runs at a time, within one budget, and after its failure requests are answered 503 at
/// once: the issuer sees at most one connection per discovery document for the whole burst.
#[tokio::test]
async fn an_issuer_that_never_answers_is_asked_once_at_a_time_and_then_not_for_a_while() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    tokio::spawn({
        let accepted = accepted.clone();
        async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::SeqCst);
                held.push(socket);
            }
        }
    });
    let oauth = OAuth::issuer(url.clone())
        .audience(AUDIENCE)
        .introspection("mcp", "s3cret")
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let token = sign(
        &json!({"iss": url, "aud": AUDIENCE, "sub": "a", "exp": now() + 600}),
        RSA_A,
        Algorithm::RS256,
        Some("a"),
    );
    let burst = futures::future::join_all((0..5).map(|_| refusal(&oauth, &token))).await;
    for (status, message) in &burst {
        assert_eq!(*status, StatusCode::SERVICE_UNAVAILABLE, "{message}");
    }
    let after_burst = accepted.load(Ordering::SeqCst);
    // The issuer has no path: two discovery documents, tried in turn by one fetch.
    assert!((1..=2).contains(&after_burst), "{after_burst} connections");
    // Within the gap after the failure, JWTs and opaque tokens alike are refused at once
    // (at most one more discovery should the gap pass on a slow machine).
    for n in 0..10 {
        let (status, message) = refusal(&oauth, &token).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{message}");
        let (status, message) = refusal(&oauth, &format!("opaque-{n}")).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{message}");
        assert!(message.contains("no answer within"), "{message}");
    }
    let later = accepted.load(Ordering::SeqCst);
    assert!(
        later <= after_burst + 2,
        "{after_burst} then {later} connections"
    );
}

/// Review #40 item 12: the caller is the token's `sub` alone (a `client_id` is another
/// namespace, and a token naming no one owned nothing), a JWT typed for something else is
/// not an access token, nor is an introspected refresh token, and introspection never runs
/// with an empty secret.
#[tokio::test]
async fn only_a_subject_names_the_caller_and_tokens_of_other_types_are_refused() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = issuer.oauth().build().unwrap();
    let mut client_only = claims(&issuer);
    client_only.as_object_mut().unwrap().remove("sub");
    client_only["client_id"] = json!("alice");
    let (status, message) = refusal(
        &oauth,
        &sign(&client_only, RSA_A, Algorithm::RS256, Some("a")),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(message.contains("no sub claim"), "{message}");

    let typed = |typ: &str| {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("a".into());
        header.typ = Some(typ.into());
        let key = encoding_key(RSA_A, Algorithm::RS256);
        jsonwebtoken::encode(&header, &claims(&issuer), &key).unwrap()
    };
    for typ in ["at+jwt", "application/AT+JWT", "JWT"] {
        assert!(oauth.verify(&typed(typ)).await.is_ok(), "{typ}");
    }
    for typ in ["logout+jwt", "secevent+jwt", "dpop+jwt"] {
        let (status, message) = refusal(&oauth, &typed(typ)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{typ}");
        assert!(message.contains("not an access token"), "{typ}: {message}");
    }
    let strict = issuer
        .oauth()
        .require_access_token_type(true)
        .build()
        .unwrap();
    assert!(strict.verify(&typed("at+jwt")).await.is_ok());
    assert_eq!(
        refusal(&strict, &typed("JWT")).await.0,
        StatusCode::UNAUTHORIZED
    );

    let introspecting = issuer
        .oauth()
        .introspection("mcp", "s3cret")
        .build()
        .unwrap();
    let mut refresh = opaque_issuer_answer(&issuer, Some(AUDIENCE), now() + 600);
    refresh["token_type"] = json!("refresh_token");
    *issuer.introspection.lock().unwrap() = refresh;
    let (status, message) = refusal(&introspecting, "opaque-refresh").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(message.contains("refresh_token token"), "{message}");
    let mut nobody = opaque_issuer_answer(&issuer, Some(AUDIENCE), now() + 600);
    nobody.as_object_mut().unwrap().remove("sub");
    nobody["client_id"] = json!("svc");
    *issuer.introspection.lock().unwrap() = nobody;
    let (status, message) = refusal(&introspecting, "opaque-nobody").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(message.contains("names no subject"), "{message}");
    let mut bearer = opaque_issuer_answer(&issuer, Some(AUDIENCE), now() + 600);
    bearer["token_type"] = json!("Bearer");
    *issuer.introspection.lock().unwrap() = bearer;
    assert!(introspecting.verify("opaque-bearer").await.is_ok());

    for (id, secret, empty) in [("mcp", "", "client secret"), ("", "s", "client id")] {
        let error = issuer
            .oauth()
            .introspection(id, secret)
            .build()
            .unwrap_err()
            .to_string();
        assert!(error.contains(empty), "{error}");
    }
}

#[tokio::test]
async fn configuration_mistakes_are_refused_at_build() {
    let err = |b: OAuthBuilder| b.build().unwrap_err().to_string();
    assert!(err(OAuth::issuer("http://auth.example.com").audience(AUDIENCE)).contains("http://"));
    assert!(err(OAuth::issuer("auth.example.com").audience(AUDIENCE)).contains("absolute"));
    assert!(err(OAuth::issuer("https://auth.example.com")).contains("no OAuth audience"));
    assert!(err(OAuth::issuer("https://auth.example.com").audience("mcp")).contains("audience"));
    assert!(
        OAuth::issuer("http://127.0.0.1:9/")
            .audience(AUDIENCE)
            .build()
            .is_ok()
    );
    let any = OAuth::issuer("https://auth.example.com")
        .dangerously_accept_any_audience()
        .build()
        .unwrap();
    assert!(any.protected_resource().is_none());
}

fn opaque_issuer_answer(issuer: &Issuer, aud: Option<&str>, exp: u64) -> Value {
    let mut answer = json!({
        "active": true,
        "iss": issuer.url(),
        "sub": "svc",
        "scope": "files:read",
        "exp": exp,
    });
    if let Some(aud) = aud {
        answer["aud"] = json!(aud);
    }
    answer
}

#[tokio::test]
async fn opaque_tokens_are_introspected_and_cached() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    *issuer.introspection.lock().unwrap() =
        opaque_issuer_answer(&issuer, Some(AUDIENCE), now() + 600);
    let oauth = issuer
        .oauth()
        .introspection("mcp", "s3cret")
        .build()
        .unwrap();
    for _ in 0..3 {
        let identity = oauth.verify("opaque-token-1").await.unwrap();
        assert_eq!(identity.subject_name(), Some("svc"));
        assert_eq!(identity.scopes(), ["files:read"]);
    }
    assert_eq!(issuer.introspections.load(Ordering::SeqCst), 1);

    let refused = [
        (json!({"active": false}), "not active"),
        (
            opaque_issuer_answer(&issuer, Some("https://other.example"), now() + 600),
            "another resource",
        ),
        (
            opaque_issuer_answer(&issuer, None, now() + 600),
            "names no audience",
        ),
        (
            opaque_issuer_answer(&issuer, Some(AUDIENCE), now() - 5),
            "expired",
        ),
    ];
    for (n, (answer, why)) in refused.into_iter().enumerate() {
        *issuer.introspection.lock().unwrap() = answer;
        let (status, message) = refusal(&oauth, &format!("opaque-token-x{n}")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(message.contains(why), "{why}: {message}");
    }

    // Without introspection configured, an opaque token is simply not valid.
    let plain = issuer.oauth().build().unwrap();
    assert_eq!(
        refusal(&plain, "opaque-token-1").await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_slow_or_down_introspection_endpoint_is_503() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    *issuer.introspection.lock().unwrap() =
        opaque_issuer_answer(&issuer, Some(AUDIENCE), now() + 600);
    let oauth = issuer
        .oauth()
        .introspection("mcp", "s3cret")
        .timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    oauth.prefetch().await.unwrap();
    *issuer.introspection_delay.lock().unwrap() = Duration::from_secs(5);
    let (status, message) = refusal(&oauth, "opaque-slow").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(message.contains("could not be asked"), "{message}");
    *issuer.introspection_delay.lock().unwrap() = Duration::ZERO;
    issuer.down.store(true, Ordering::SeqCst);
    let (status, message) = refusal(&oauth, "opaque-down").await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(message.contains("502"), "{message}");
    // Neither outage was cached as a verdict.
    issuer.down.store(false, Ordering::SeqCst);
    assert!(oauth.verify("opaque-down").await.is_ok());
}

/// A loopback address free at the time of asking (a server's audience names it before
/// it starts).
fn free_addr() -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

/// Serves `server` over HTTP at `addr` behind `oauth`, until the test ends.
async fn serve(addr: std::net::SocketAddr, server: crate::Server, oauth: OAuth) {
    let http = HttpServer::bind(addr, server, HttpOptions::default().auth(oauth))
        .await
        .unwrap();
    tokio::spawn(http.run_until(std::future::pending()));
}

#[tokio::test]
async fn the_http_server_publishes_the_metadata_and_points_to_it() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let addr = free_addr();
    let audience = format!("http://{addr}/mcp");
    let oauth = OAuth::issuer(issuer.url())
        .audience(&audience)
        .scopes_supported(["files:read"])
        .build()
        .unwrap();
    serve(
        addr,
        crate::Server::builder("t", "1").build().unwrap(),
        oauth,
    )
    .await;
    let net = NetService::new(
        NetPolicy::new()
            .allow_origin(format!("http://{addr}"))
            .unwrap(),
    )
    .unwrap();
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let got = net.get(&format!("http://{addr}{path}")).await.unwrap();
        assert_eq!(got.status(), 200, "{path}");
        assert_eq!(got.header("access-control-allow-origin"), Some("*"));
        let doc: Value = serde_json::from_slice(got.body()).unwrap();
        assert_eq!(doc["resource"], json!(audience));
        assert_eq!(doc["authorization_servers"], json!([issuer.url()]));
        assert_eq!(doc["scopes_supported"], json!(["files:read"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        // DPoP proofs are verified with the token algorithms (the default set here).
        let algs = doc["dpop_signing_alg_values_supported"].as_array().unwrap();
        assert!(
            algs.contains(&json!("ES256")) && algs.contains(&json!("RS256")),
            "{doc}"
        );
    }
    let post = |token: Option<String>| {
        let mut request = NetRequest::new("POST", format!("http://{addr}/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        net.send(request)
    };
    let unauthenticated = post(None).await.unwrap();
    assert_eq!(unauthenticated.status(), 401);
    let challenge = unauthenticated.header("www-authenticate").unwrap();
    assert!(
        challenge.contains(&format!(
            r#"resource_metadata="http://{addr}/.well-known/oauth-protected-resource/mcp""#
        )),
        "{challenge}"
    );
    let mut c = claims(&issuer);
    c["aud"] = json!(audience);
    let answered = post(Some(sign(&c, RSA_A, Algorithm::RS256, Some("a"))))
        .await
        .unwrap();
    assert_ne!(answered.status(), 401, "{}", answered.text());
    c["aud"] = json!(AUDIENCE);
    let foreign = post(Some(sign(&c, RSA_A, Algorithm::RS256, Some("a"))))
        .await
        .unwrap();
    assert_eq!(foreign.status(), 401);
    assert!(
        foreign
            .header("www-authenticate")
            .unwrap()
            .contains("invalid_token")
    );
}
