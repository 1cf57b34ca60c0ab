//! The identity-provider presets (`mcp_runtime::oauth::providers`) against oauth2-mock-server
//! playing each provider (`tests/oauth/provider.mjs`): its discovery document where the
//! provider serves it, its keys, and tokens with the claims that provider issues. Each preset
//! accepts its provider's token shape, with the scopes where that provider puts them, and
//! refuses the neighbouring mistakes: a v1 token at a v2 issuer and the other way round,
//! another tenant, realm or authorization server, another audience, an issuer spelled
//! another way.

use mcp_runtime::oauth::providers::{self, EntraId, Google};
use mcp_runtime::oauth::{OAuth, OAuthBuilder};
use mcp_tests::oauth::Provider;

const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT: &str = "6e74172b-be56-4843-9ff4-e66a39bb12e3";
/// This server's URL (published as the resource; never named by these providers' tokens).
const RESOURCE: &str = "http://127.0.0.1:1/mcp";

fn built(preset: OAuthBuilder) -> OAuth {
    preset.audience(RESOURCE).build().expect("a valid preset")
}

/// Verifies the provider's token `case`: the subject and scopes, or why it was refused.
async fn verify(oauth: &OAuth, provider: &Provider, case: &str) -> Result<Vec<String>, String> {
    match oauth.verify(provider.token(case)).await {
        Ok(identity) => {
            assert_eq!(identity.subject_name(), Some("alice"), "{case}");
            Ok(identity.scopes().to_vec())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Asserts that `case` is refused with a message containing `why`.
async fn refused(oauth: &OAuth, provider: &Provider, case: &str, why: &str) {
    match verify(oauth, provider, case).await {
        Ok(scopes) => panic!("{case} was accepted (scopes {scopes:?})"),
        Err(e) => assert!(e.contains(why), "{case}: {e:?} does not say {why:?}"),
    }
}

#[tokio::test]
async fn entra_id_v2_and_v1_accept_their_own_tokens_and_refuse_each_others_and_other_tenants() {
    let entra = Provider::start("entra");
    let tenant = || EntraId::tenant(TENANT).cloud(&entra.base, &entra.base);

    let v2 = built(tenant().v2(CLIENT));
    assert_eq!(verify(&v2, &entra, "v2").await.unwrap(), ["notes.read"]);
    // An application's own token: its permissions are in `roles`.
    assert_eq!(
        verify(&v2, &entra, "v2_app_only").await.unwrap(),
        ["Notes.ReadWrite.All"]
    );
    refused(&v2, &entra, "v1", "was not issued by").await;
    refused(&v2, &entra, "v2_other_tenant", "was not issued by").await;
    refused(&v2, &entra, "v2_tenant_claim_mismatch", "tid").await;
    refused(
        &v2,
        &entra,
        "v2_wrong_audience",
        "issued for another resource",
    )
    .await;
    refused(&v2, &entra, "v2_version_mismatch", "ver").await;

    // v1 tokens: another issuer host, metadata read at the login host.
    let v1 = built(tenant().v1(format!("api://{CLIENT}")));
    assert_eq!(verify(&v1, &entra, "v1").await.unwrap(), ["notes.read"]);
    refused(&v1, &entra, "v2", "was not issued by").await;
    refused(&v1, &entra, "v1_other_tenant", "was not issued by").await;
    refused(
        &v1,
        &entra,
        "v1_wrong_audience",
        "issued for another resource",
    )
    .await;
    // The published metadata sends clients to the v2 login endpoint.
    let metadata = serde_json::to_value(
        mcp_runtime::transport::http::Authenticator::protected_resource(&v1).expect("published"),
    )
    .unwrap();
    assert_eq!(
        metadata["authorization_servers"][0],
        format!("{}/{TENANT}/v2.0", entra.base),
        "{metadata}"
    );
}

#[tokio::test]
async fn auth0_takes_permissions_as_scopes_and_its_issuer_with_the_slash() {
    let auth0 = Provider::start("auth0");
    let oauth = built(providers::auth0(
        &auth0.base,
        "https://notes.example.com/api",
    ));
    assert_eq!(
        verify(&oauth, &auth0, "valid").await.unwrap(),
        ["openid", "read:notes", "write:notes"]
    );
    refused(&oauth, &auth0, "issuer_without_slash", "was not issued by").await;
    refused(&oauth, &auth0, "other_tenant", "was not issued by").await;
    refused(
        &oauth,
        &auth0,
        "wrong_audience",
        "issued for another resource",
    )
    .await;
}

#[tokio::test]
async fn okta_accepts_its_custom_servers_tokens_only() {
    let okta = Provider::start("okta");
    let oauth = built(providers::okta(&okta.base, "default", "api://default"));
    assert_eq!(
        verify(&oauth, &okta, "valid").await.unwrap(),
        ["notes.read", "notes.write"]
    );
    refused(&oauth, &okta, "org_server", "was not issued by").await;
    refused(&oauth, &okta, "other_server", "was not issued by").await;
    refused(
        &oauth,
        &okta,
        "wrong_audience",
        "issued for another resource",
    )
    .await;
}

#[tokio::test]
async fn keycloak_needs_the_audience_mapper_and_the_realm() {
    let keycloak = Provider::start("keycloak");
    let oauth = built(providers::keycloak(&keycloak.base, "notes", "notes-mcp"));
    assert_eq!(
        verify(&oauth, &keycloak, "valid").await.unwrap(),
        ["openid", "notes:read"]
    );
    refused(&oauth, &keycloak, "other_realm", "was not issued by").await;
    refused(
        &oauth,
        &keycloak,
        "without_audience_mapper",
        "issued for another resource",
    )
    .await;
}

#[tokio::test]
async fn google_accepts_both_spellings_of_its_issuer_and_one_clients_tokens() {
    let google = Provider::start("google");
    let client = format!("{CLIENT}.apps.googleusercontent.com");
    let oauth = built(Google::at(&google.base).client(&client));
    assert!(verify(&oauth, &google, "valid").await.unwrap().is_empty());
    assert!(
        verify(&oauth, &google, "host_only_issuer")
            .await
            .unwrap()
            .is_empty()
    );
    refused(
        &oauth,
        &google,
        "wrong_audience",
        "issued for another resource",
    )
    .await;
    refused(&oauth, &google, "other_issuer", "was not issued by").await;
    // One Workspace domain.
    let domain = built(
        Google::at(&google.base)
            .client(&client)
            .require_claim("hd", "example.com"),
    );
    assert!(verify(&domain, &google, "valid").await.is_ok());
    refused(&domain, &google, "other_domain", "hd").await;
}
