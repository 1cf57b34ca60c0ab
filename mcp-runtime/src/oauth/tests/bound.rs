//! DPoP-bound tokens (JWTs and introspected ones) against this crate's own client and its
//! proofs, and the claim rules on introspection answers.

use super::*;
use crate::client::{Client, DpopKey, EraMode};

fn hi_server() -> crate::Server {
    crate::Server::builder("t", "1")
        .tool(crate::tool::tool_fn(
            crate::protocol::ToolDefinition::new("hi", "Says hi.", json!({"type": "object"})),
            |_, _| async { "hi" },
        ))
        .build()
        .unwrap()
}

/// `Client::http_with_dpop` against this server: a proof of the bound key on every request
/// of a legacy session (its POSTs and its standalone stream's GET), none accepted for
/// another key, and the token alone is not enough.
#[tokio::test]
async fn the_clients_proofs_carry_a_whole_session() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let addr = free_addr();
    let url = format!("http://{addr}/mcp");
    let oauth = OAuth::issuer(issuer.url()).audience(&url).build().unwrap();
    let server = hi_server();
    serve(addr, server.clone(), oauth).await;
    let key = DpopKey::generate().unwrap();
    let mut c = claims(&issuer);
    c["aud"] = json!(url);
    c["cnf"] = json!({"jkt": key.thumbprint()});
    let token = sign(&c, RSA_A, Algorithm::RS256, Some("a"));

    let bearer = Client::http_with_token(&url, &token).unwrap();
    let refused = bearer.connect(EraMode::Legacy).await.unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");
    let other = Client::http_with_dpop(&url, &token, DpopKey::generate().unwrap()).unwrap();
    let refused = other.connect(EraMode::Legacy).await.unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");

    let client = Client::http_with_dpop(&url, &token, key).unwrap();
    client.connect(EraMode::Legacy).await.unwrap();
    let hi = client.call_tool("hi", json!({})).await.unwrap();
    assert_ne!(hi.is_error, Some(true), "{hi:?}");
    // What the server says outside any request comes through the GET stream, which only
    // opens with a valid proof: said again until it arrives (the stream opens on its own
    // time), for at most 20 s.
    let mut unrouted = client.take_unrouted().unwrap();
    let arrived = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            server.views_changed();
            if let Ok(Some(note)) =
                tokio::time::timeout(Duration::from_millis(200), unrouted.recv()).await
            {
                return note;
            }
        }
    })
    .await
    .expect("a notification through the standalone stream");
    assert!(
        arrived["method"]
            .as_str()
            .is_some_and(|m| m.ends_with("list_changed")),
        "{arrived}"
    );
}

/// An introspection answer is held to the claim rules a JWT is: other issuers' and
/// audiences' spellings, required claims, scope claims.
#[tokio::test]
async fn introspection_answers_follow_the_claim_rules() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let oauth = OAuth::issuer(issuer.url())
        .audience(AUDIENCE)
        .accept_audience("api://notes")
        .also_issuer("https://alias.example/")
        .require_claim("tid", "t1")
        .scopes_from_claim("roles")
        .introspection("mcp", "s3cret")
        .build()
        .unwrap();
    let answer = |change: &dyn Fn(&mut Value)| {
        let mut answer = opaque_issuer_answer(&issuer, Some("api://notes"), now() + 600);
        answer["iss"] = json!("https://alias.example/");
        answer["tid"] = json!("t1");
        answer["roles"] = json!(["admin"]);
        change(&mut answer);
        *issuer.introspection.lock().unwrap() = answer;
    };
    answer(&|_| {});
    let identity = oauth.verify("opaque-ruled").await.unwrap();
    assert_eq!(identity.scopes(), ["files:read", "admin"]);
    let refused = [
        ("tid", json!("t2"), "tid"),
        ("iss", json!("https://else.example/"), "not issued by"),
        ("aud", json!("api://other"), "another resource"),
    ];
    for (n, (claim, value, why)) in refused.into_iter().enumerate() {
        answer(&|a| a[claim] = value.clone());
        let (status, message) = refusal(&oauth, &format!("opaque-ruled-{n}")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(message.contains(why), "{why}: {message}");
    }
}

/// An opaque token the introspection answer says is DPoP-bound (`cnf.jkt`, RFC 9449 §6.2)
/// needs a proof of that key, as a bound JWT does.
#[tokio::test]
async fn an_introspected_bound_token_needs_its_proof() {
    let issuer = start_issuer(vec![jwk(RSA_A, Algorithm::RS256, "a")]).await;
    let addr = free_addr();
    let url = format!("http://{addr}/mcp");
    let key = DpopKey::generate().unwrap();
    let mut answer = opaque_issuer_answer(&issuer, Some(&url), now() + 600);
    answer["token_type"] = json!("DPoP");
    answer["cnf"] = json!({"jkt": key.thumbprint()});
    *issuer.introspection.lock().unwrap() = answer;
    let oauth = OAuth::issuer(issuer.url())
        .audience(&url)
        .introspection("mcp", "s3cret")
        .build()
        .unwrap();
    assert!(
        oauth.verify("opaque-bound").await.is_err(),
        "bound, without a proof"
    );
    serve(addr, hi_server(), oauth).await;

    let bearer = Client::http_with_token(&url, "opaque-bound").unwrap();
    let refused = bearer.connect(EraMode::Modern).await.unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");
    let other = Client::http_with_dpop(&url, "opaque-bound", DpopKey::generate().unwrap()).unwrap();
    let refused = other.connect(EraMode::Modern).await.unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");
    let client = Client::http_with_dpop(&url, "opaque-bound", key).unwrap();
    client.connect(EraMode::Modern).await.unwrap();
    let hi = client.call_tool("hi", json!({})).await.unwrap();
    assert_ne!(hi.is_error, Some(true), "{hi:?}");
}
