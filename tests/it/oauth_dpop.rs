//! DPoP (RFC 9449) on the resource server: `notes-server` verifying tokens that oauth2-mock-server
//! bound to a client key (`cnf.jkt`), with proofs made by `jose` (`tests/oauth/provider.mjs
//! dpop`). A bound token is accepted only with `Authorization: DPoP` and a fresh proof by the
//! bound key for this URL, method and token; each refusal carries a `DPoP` challenge; a proof
//! is used once, across three replicas sharing Redis too.

use mcp_tests::http::{Reply, Spawned, modern, post};
use mcp_tests::oauth::{Provider, free_port};
use mcp_tests::redis::Redis;
use serde_json::json;

/// `tools/list` with `authorization` and, if any, the `DPoP` header.
async fn list(url: &str, authorization: &str, proof: Option<&str>) -> Reply {
    let (message, headers) = modern(1, "tools/list", json!({}));
    let mut headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    headers.push(("authorization", authorization));
    if let Some(proof) = proof {
        headers.push(("dpop", proof));
    }
    post(url, &headers, &message).await
}

/// Asserts a 401 whose `DPoP` challenge has `error` and mentions `why`.
fn challenged(reply: &Reply, error: &str, why: &str) {
    assert_eq!(reply.status, 401, "{reply:?}");
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    assert!(challenge.starts_with("DPoP "), "{challenge}");
    assert!(
        challenge.contains(&format!("error=\"{error}\"")),
        "{challenge}"
    );
    assert!(challenge.contains("algs=\""), "{challenge}");
    assert!(challenge.contains(why), "{challenge} does not say {why:?}");
}

fn notes_server(port: u16, issuer: &str, audience: &str, redis: Option<&str>) -> Spawned {
    let mut args = vec!["--oauth-issuer", issuer, "--oauth-audience", audience];
    if let Some(redis) = redis {
        args.extend(["--redis", redis]);
    }
    Spawned::start_at("notes-server", &format!("127.0.0.1:{port}"), &args)
}

#[tokio::test]
async fn a_bound_token_needs_a_fresh_proof_of_its_key_for_this_request() {
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let idp = Provider::start_with("dpop", &[&url]);
    let server = notes_server(port, &idp.base, &url, None);
    let bound = idp.token("bound");
    let dpop = format!("DPoP {bound}");

    // Without DPoP: as a bearer token, or with the scheme and no proof.
    let reply = list(&server.url, &format!("Bearer {bound}"), None).await;
    challenged(&reply, "invalid_token", "DPoP-bound");
    let reply = list(&server.url, &dpop, None).await;
    challenged(&reply, "invalid_dpop_proof", "exactly one DPoP proof");

    // A proof for another URL, another method, another token, or by another key; a stale one.
    for (proof, why) in [
        ("proof_other_url", "another URL"),
        ("proof_other_method", "another method"),
        ("proof_other_token", "ath"),
        ("proof_other_key", "another key"),
        ("proof_stale", "iat"),
    ] {
        let reply = list(&server.url, &dpop, Some(idp.token(proof))).await;
        challenged(&reply, "invalid_dpop_proof", why);
    }

    // A valid proof passes once; its replay is refused; the next proof passes.
    let reply = list(&server.url, &dpop, Some(idp.token("proof_1"))).await;
    assert_eq!(reply.status, 200, "{reply:?}\n{}", server.stderr());
    let reply = list(&server.url, &dpop, Some(idp.token("proof_1"))).await;
    challenged(&reply, "invalid_dpop_proof", "used before");
    let reply = list(&server.url, &dpop, Some(idp.token("proof_2"))).await;
    assert_eq!(reply.status, 200, "{reply:?}");

    // A token that is not bound is a bearer token as before, and not a DPoP one.
    let unbound = idp.token("unbound");
    let reply = list(&server.url, &format!("Bearer {unbound}"), None).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let reply = list(
        &server.url,
        &format!("DPoP {unbound}"),
        Some(idp.token("proof_3")),
    )
    .await;
    challenged(&reply, "invalid_dpop_proof", "not DPoP-bound");
}

#[tokio::test]
async fn a_proof_used_on_one_replica_is_refused_by_the_others_through_redis() {
    let redis = Redis::start();
    let redis_url = format!("redis://127.0.0.1:{}/", redis.port);
    let ports = [free_port(), free_port(), free_port()];
    // The public URL every replica serves (what a load balancer would expose): the first's.
    let public = format!("http://127.0.0.1:{}/mcp", ports[0]);
    let idp = Provider::start_with("dpop", &[&public]);
    let replicas: Vec<Spawned> = ports
        .iter()
        .map(|&port| notes_server(port, &idp.base, &public, Some(&redis_url)))
        .collect();
    let dpop = format!("DPoP {}", idp.token("bound"));

    let first = list(&replicas[0].url, &dpop, Some(idp.token("proof_1"))).await;
    assert_eq!(first.status, 200, "{first:?}\n{}", replicas[0].stderr());
    for replica in &replicas[1..] {
        let replay = list(&replica.url, &dpop, Some(idp.token("proof_1"))).await;
        challenged(&replay, "invalid_dpop_proof", "used before");
    }
    // A fresh proof passes on another replica.
    let fresh = list(&replicas[2].url, &dpop, Some(idp.token("proof_2"))).await;
    assert_eq!(fresh.status, 200, "{fresh:?}");
}
