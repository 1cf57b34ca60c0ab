//! What OAuth token verification (`mcp_runtime::oauth::OAuth`) costs a request, the issuer's
//! keys already cached (served once by an issuer on loopback):
//!
//! - `first sight`: an RS256 token never seen before (measured with
//!   `remember_verified(Duration::ZERO)`, so every run verifies afresh): the claims checks,
//!   the key lookup, the signature. Target: under 20 µs.
//! - `seen before`: the same token again (a client sends its token with every request):
//!   the verified-token cache.
//! - `foreign audience`, `expired`: refused on the claims, before any signature work.
//!   Target: less than a valid token.
//! - `bad signature`: a valid-looking token whose signature does not verify.
//!
//! Before criterion's runs it prints the mean of each, measured back to back (9 rounds, the
//! median round), so they can be read side by side.

use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use jsonwebtoken::{Algorithm, EncodingKey, Header, jwk::Jwk};
use mcp_runtime::oauth::OAuth;
use serde_json::json;
use std::convert::Infallible;
use std::hint::black_box;
use std::time::{Duration, Instant};

const KEY: &str = include_str!("../../mcp-runtime/src/oauth/testdata/rsa-a.pem");
const AUDIENCE: &str = "https://mcp.example.com/mcp";

/// An issuer on loopback serving its metadata and its one key.
async fn issuer() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let key = EncodingKey::from_rsa_pem(KEY.as_bytes()).unwrap();
    let mut jwk =
        serde_json::to_value(Jwk::from_encoding_key(&key, Algorithm::RS256).unwrap()).unwrap();
    jwk["kid"] = json!("k");
    let jwks = json!({ "keys": [jwk] }).to_string();
    let metadata = json!({ "issuer": url, "jwks_uri": format!("{url}/jwks") }).to_string();
    tokio::spawn(async move {
        while let Ok((conn, _)) = listener.accept().await {
            let (jwks, metadata) = (jwks.clone(), metadata.clone());
            tokio::spawn(async move {
                let service = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let body = if req.uri().path() == "/jwks" {
                        jwks.clone()
                    } else {
                        metadata.clone()
                    };
                    async move {
                        Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from(body))))
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(conn), service)
                    .await;
            });
        }
    });
    url
}

fn token(issuer: &str, n: u64, change: impl FnOnce(&mut serde_json::Value)) -> String {
    let now = jsonwebtoken::get_current_timestamp();
    let mut claims = json!({
        "iss": issuer, "aud": AUDIENCE, "sub": "alice", "scope": "notes:read",
        "exp": now + 3600, "iat": now, "jti": n,
    });
    change(&mut claims);
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("k".into());
    jsonwebtoken::encode(
        &header,
        &claims,
        &EncodingKey::from_rsa_pem(KEY.as_bytes()).unwrap(),
    )
    .unwrap()
}

/// Mean time of `f` over `n` runs, the median of 9 rounds.
fn mean(n: usize, mut f: impl FnMut(usize)) -> Duration {
    let mut rounds: Vec<Duration> = (0..9)
        .map(|r| {
            let start = Instant::now();
            for i in 0..n {
                f(r * n + i);
            }
            start.elapsed() / n as u32
        })
        .collect();
    rounds.sort();
    rounds[4]
}

fn verify(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let issuer = rt.block_on(issuer());
    let oauth = OAuth::issuer(&issuer).audience(AUDIENCE).build().unwrap();
    rt.block_on(oauth.prefetch()).unwrap();
    let afresh = OAuth::issuer(&issuer)
        .audience(AUDIENCE)
        .remember_verified(Duration::ZERO)
        .build()
        .unwrap();
    rt.block_on(afresh.prefetch()).unwrap();

    const N: usize = 300;
    let fresh = token(&issuer, 0, |_| {});
    let seen = token(&issuer, u64::MAX, |_| {});
    let foreign = token(&issuer, 0, |c| {
        c["aud"] = json!("https://other.example/mcp")
    });
    let expired = token(&issuer, 0, |c| c["exp"] = json!(1));
    let forged = {
        let mut t = token(&issuer, 1, |_| {});
        let last = t.pop().unwrap();
        t.push(if last == 'A' { 'B' } else { 'A' });
        t
    };
    let ok = |t: &str| assert!(rt.block_on(oauth.verify(t)).is_ok());
    let refused = |t: &str| assert!(rt.block_on(oauth.verify(t)).is_err());

    let first_sight = mean(N, |_| assert!(rt.block_on(afresh.verify(&fresh)).is_ok()));
    let seen_before = mean(N, |_| ok(&seen));
    let foreign_t = mean(N, |_| refused(&foreign));
    let expired_t = mean(N, |_| refused(&expired));
    let forged_t = mean(N, |_| refused(&forged));
    eprintln!(
        "oauth: first sight {first_sight:?} (target < 20 µs), seen before {seen_before:?}, \
         foreign audience {foreign_t:?}, expired {expired_t:?}, bad signature {forged_t:?}"
    );

    let mut group = c.benchmark_group("oauth");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("verify/first_sight", |b| {
        b.iter(|| black_box(rt.block_on(afresh.verify(&fresh)).is_ok()))
    });
    group.bench_function("verify/seen_before", |b| {
        b.iter(|| black_box(rt.block_on(oauth.verify(&seen)).is_ok()))
    });
    group.bench_function("refuse/foreign_audience", |b| {
        b.iter(|| black_box(rt.block_on(oauth.verify(&foreign)).is_err()))
    });
    group.bench_function("refuse/bad_signature", |b| {
        b.iter(|| black_box(rt.block_on(oauth.verify(&forged)).is_err()))
    });
    group.finish();
}

criterion_group!(benches, verify);
criterion_main!(benches);
