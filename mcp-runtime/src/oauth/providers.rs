//! Presets for the identity providers MCP servers are deployed behind: each an
//! [`OAuthBuilder`] set up for how that provider issues access tokens (its issuer's form,
//! what it puts in `aud`, where scopes are), to finish with [`audience`](OAuthBuilder::audience)
//! (this server's URL, published in its metadata) and [`build`](OAuthBuilder::build).
//!
//! | provider | `iss` | `aud` accepted | scopes from |
//! | --- | --- | --- | --- |
//! | [Entra ID, v2 tokens](EntraId::v2) | `https://login.microsoftonline.com/{tenant}/v2.0` | the application (client) ID, `api://{client id}` | `scp`, `roles` |
//! | [Entra ID, v1 tokens](EntraId::v1) | `https://sts.windows.net/{tenant}/` | the application ID URI | `scp`, `roles` |
//! | [`auth0`] | `https://{domain}/` (the trailing `/` is Auth0's) | the API identifier | `scope`, `permissions` |
//! | [`okta`] | `https://{org}/oauth2/{server}` (a custom authorization server) | the server's audience (`api://default`) | `scp` |
//! | [`keycloak`] | `https://{host}/realms/{realm}` | the client an audience mapper names | `scope` |
//! | [`Google`] | `https://accounts.google.com` or `accounts.google.com` | the OAuth client ID | none (ID tokens) |
//!
//! Every preset also accepts this server's own URL in `aud` (what [`audience`](OAuthBuilder::audience)
//! sets), for a provider set up to issue it (RFC 8707).
//!
//! Entra ID's quirks are the ones that trip deployments: an API whose manifest keeps
//! `accessTokenAcceptedVersion` unset gets **v1** tokens even from the v2 endpoint (issuer
//! `sts.windows.net`, no `/v2.0`), so choose [`EntraId::v1`] or set the manifest to 2; the
//! tenant is checked twice (the issuer's path and `tid`), and the token version (`ver`)
//! once, so a v1 token is refused by a v2 preset and the other way round, and a token of
//! another tenant by both.
//!
//! ```
//! use mcp_runtime::oauth::providers::EntraId;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let oauth = EntraId::tenant("72f988bf-86f1-41af-91ab-2d7cd011db47")
//!     .v2("6e74172b-be56-4843-9ff4-e66a39bb12e3")
//!     .audience("https://mcp.example.com/mcp")
//!     .build()?;
//! assert_eq!(
//!     oauth.issuer_url(),
//!     "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"
//! );
//! # Ok(()) }
//! ```
//!
//! Not covered: Entra ID's multi-tenant endpoints (`common`, `organizations`; give each
//! tenant its own preset), Google's opaque access tokens (only its ID tokens are JWTs), and
//! Okta's org authorization server (its tokens are not for resource servers to verify).

use super::{OAuth, OAuthBuilder};

/// The public cloud's login host.
const ENTRA_LOGIN: &str = "https://login.microsoftonline.com";
/// The public cloud's v1 token issuer host.
const ENTRA_STS: &str = "https://sts.windows.net";

/// Microsoft Entra ID (Azure AD): one tenant's tokens, v2 or v1.
#[derive(Debug, Clone)]
#[must_use]
pub struct EntraId {
    tenant: String,
    login: String,
    sts: String,
}

impl EntraId {
    /// The tenant (directory) ID whose tokens are accepted, in the public cloud.
    pub fn tenant(tenant: impl Into<String>) -> Self {
        Self {
            tenant: tenant.into(),
            login: ENTRA_LOGIN.to_owned(),
            sts: ENTRA_STS.to_owned(),
        }
    }

    /// Another cloud: its login host (`https://login.microsoftonline.us`,
    /// `https://login.chinacloudapi.cn`) and its v1 issuer host (`https://sts.windows.net`
    /// for the US government cloud too, `https://sts.chinacloudapi.cn`).
    pub fn cloud(mut self, login: impl Into<String>, sts: impl Into<String>) -> Self {
        self.login = login.into().trim_end_matches('/').to_owned();
        self.sts = sts.into().trim_end_matches('/').to_owned();
        self
    }

    /// Tokens of version 2.0 (the API's manifest says `accessTokenAcceptedVersion: 2`):
    /// `iss` `{login}/{tenant}/v2.0`, `aud` the application (client) ID (or
    /// `api://{client id}`), `tid` the tenant, `ver` `2.0`; `scp` (delegated) and `roles`
    /// (application permissions) are the scopes.
    pub fn v2(self, client_id: impl Into<String>) -> OAuthBuilder {
        let client_id = client_id.into();
        OAuth::issuer(format!("{}/{}/v2.0", self.login, self.tenant))
            .accept_audience(format!("api://{client_id}"))
            .accept_audience(client_id)
            .require_claim("tid", &self.tenant)
            .require_claim("ver", "2.0")
            .scopes_from_claim("roles")
    }

    /// Tokens of version 1.0 (the default for an API whose manifest does not say 2):
    /// `iss` `{sts}/{tenant}/`, `aud` the application ID URI (`api://…`, or the client ID),
    /// `tid` the tenant, `ver` `1.0`. The metadata is read from
    /// `{login}/{tenant}/.well-known/openid-configuration` (which names that issuer), and
    /// clients are sent to log in at `{login}/{tenant}/v2.0`.
    pub fn v1(self, app_id_uri: impl Into<String>) -> OAuthBuilder {
        OAuth::issuer(format!("{}/{}/", self.sts, self.tenant))
            .metadata_url(format!(
                "{}/{}/.well-known/openid-configuration",
                self.login, self.tenant
            ))
            .authorization_server(format!("{}/{}/v2.0", self.login, self.tenant))
            .accept_audience(app_id_uri)
            .require_claim("tid", &self.tenant)
            .require_claim("ver", "1.0")
            .scopes_from_claim("roles")
    }
}

/// Auth0: tokens of the tenant at `domain` (`acme.us.auth0.com`, a custom domain, or a URL)
/// for the API whose identifier is `api_identifier`. `iss` is the domain's URL with its
/// trailing `/`; with RBAC on, `permissions` are scopes too.
pub fn auth0(domain: &str, api_identifier: impl Into<String>) -> OAuthBuilder {
    OAuth::issuer(format!("{}/", base_url(domain)))
        .accept_audience(api_identifier)
        .scopes_from_claim("permissions")
}

/// Okta: tokens of the custom authorization server `server` (`default`, or its ID) of the
/// org at `org` (`acme.okta.com` or a URL), for `audience` (the server's, `api://default`
/// unless changed). `scp` is a list.
pub fn okta(org: &str, server: &str, audience: impl Into<String>) -> OAuthBuilder {
    OAuth::issuer(format!("{}/oauth2/{server}", base_url(org))).accept_audience(audience)
}

/// Keycloak: tokens of `realm` at `base` (`https://sso.example.com`, with `/auth` for
/// versions before 17), for `audience`: the client ID an audience mapper puts in `aud`
/// (Keycloak's tokens name only `account` without one, and are refused).
pub fn keycloak(base: &str, realm: &str, audience: impl Into<String>) -> OAuthBuilder {
    OAuth::issuer(format!("{}/realms/{realm}", base_url(base))).accept_audience(audience)
}

/// Google: ID tokens issued to the OAuth client `client_id` (Google's access tokens are
/// opaque, and only Google's own APIs read them).
#[derive(Debug, Clone)]
#[must_use]
pub struct Google {
    base: String,
}

impl Google {
    /// Google's accounts service.
    pub fn accounts() -> Self {
        Self {
            base: "https://accounts.google.com".to_owned(),
        }
    }

    /// Another host serving Google's issuer protocol (a test double, a mirror): its URL.
    pub fn at(base: &str) -> Self {
        Self {
            base: base_url(base),
        }
    }

    /// ID tokens for `client_id`: `iss` the accounts URL or its host alone (Google writes
    /// both), `aud` the client ID. For one Workspace domain's users only, add
    /// `.require_claim("hd", "example.com")`.
    pub fn client(self, client_id: impl Into<String>) -> OAuthBuilder {
        let host = self
            .base
            .split_once("://")
            .map_or(self.base.as_str(), |(_, host)| host)
            .to_owned();
        OAuth::issuer(&self.base)
            .also_issuer(host)
            .accept_audience(client_id)
    }
}

/// `https://{host}` for a bare host, the URL itself (without a trailing `/`) otherwise.
fn base_url(host_or_url: &str) -> String {
    let trimmed = host_or_url.trim_end_matches('/');
    match trimmed.contains("://") {
        true => trimmed.to_owned(),
        false => format!("https://{trimmed}"),
    }
}
