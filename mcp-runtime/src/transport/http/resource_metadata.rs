//! OAuth 2.0 Protected Resource Metadata (RFC 9728): the document that tells a client which
//! authorization server issues tokens for this server, served by [`HttpServer`](super::HttpServer)
//! when the [`Authenticator`](super::Authenticator) describes one.

use serde::Serialize;

/// The well-known path prefix of protected-resource metadata (RFC 9728 §3).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// This server as an OAuth protected resource (RFC 9728): its canonical URI (the audience
/// tokens must name), the authorization servers that issue them, and the scopes it knows.
///
/// An [`Authenticator`](super::Authenticator) that returns one from
/// [`protected_resource`](super::Authenticator::protected_resource) gets it served by
/// [`HttpServer`](super::HttpServer) at `/.well-known/oauth-protected-resource` and at the
/// path-suffixed form for the MCP endpoint (`/.well-known/oauth-protected-resource/mcp`),
/// and its [`metadata_url`](Self::metadata_url) named in every 401 and 403 challenge, which
/// is how MCP clients find the authorization server.
///
/// ```
/// use mcp_runtime::transport::http::ProtectedResource;
///
/// let resource = ProtectedResource::new("https://mcp.example.com/mcp")
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["files:read", "files:write"]);
/// assert_eq!(
///     resource.metadata_url(),
///     "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// let json = resource.to_json();
/// assert_eq!(json["authorization_servers"][0], "https://auth.example.com");
/// assert_eq!(json["bearer_methods_supported"][0], "header");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    scopes_supported: Vec<String>,
    bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_name: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dpop_signing_alg_values_supported: Vec<String>,
}

impl ProtectedResource {
    /// The resource at `resource`, this server's canonical URI as clients reach it (the MCP
    /// endpoint's public URL, e.g. `https://mcp.example.com/mcp`).
    pub fn new(resource: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            bearer_methods_supported: ["header"],
            resource_name: None,
            dpop_signing_alg_values_supported: Vec::new(),
        }
    }

    /// Adds an authorization server (its issuer URL).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes this server uses (what a client may ask for).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A name for people (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The JWS algorithms this server verifies DPoP proofs with
    /// (`dpop_signing_alg_values_supported`, RFC 9728 §2): published, it tells clients such
    /// as `cargo mcp` that DPoP-bound tokens are accepted here. The `oauth` feature's
    /// verifier publishes the algorithms it accepts.
    pub fn dpop_signing_algs<S: Into<String>>(
        mut self,
        algorithms: impl IntoIterator<Item = S>,
    ) -> Self {
        self.dpop_signing_alg_values_supported = algorithms.into_iter().map(Into::into).collect();
        self
    }

    /// The canonical URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The authorization servers' issuer URLs.
    pub fn authorization_servers(&self) -> &[String] {
        &self.authorization_servers
    }

    /// Where the metadata is published (RFC 9728 §3.1): the well-known path inserted between
    /// the resource's host and its path.
    pub fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        let path = path.trim_end_matches('/');
        format!("{origin}{RESOURCE_METADATA_PATH}{path}")
    }

    /// The paths it is served at on this server: the bare well-known path, and the
    /// path-suffixed forms for the resource's path and for `endpoint` (the path the MCP
    /// endpoint is mounted at here, which differs behind a proxy that rewrites paths).
    pub(crate) fn paths(&self, endpoint: &str) -> Vec<String> {
        let mut paths = vec![RESOURCE_METADATA_PATH.to_owned()];
        for path in [split_origin(&self.resource).1, endpoint] {
            let path = path.trim_end_matches('/');
            let full = format!("{RESOURCE_METADATA_PATH}{path}");
            if !paths.contains(&full) {
                paths.push(full);
            }
        }
        paths
    }

    /// The metadata document.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("plain strings serialize")
    }
}

/// `https://host:port` and the path (with its leading `/`, or empty) of an absolute URL.
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find(['/', '?', '#']) {
        Some(i) => {
            let (origin, rest) = url.split_at(after_scheme + i);
            let path = rest.split(['?', '#']).next().unwrap_or("");
            (origin, path)
        }
        None => (url, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_follow_rfc_9728() {
        let at = |r: &str| ProtectedResource::new(r).metadata_url();
        assert_eq!(
            at("https://mcp.example.com"),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            at("https://mcp.example.com/"),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            at("http://127.0.0.1:8000/tenant/mcp"),
            "http://127.0.0.1:8000/.well-known/oauth-protected-resource/tenant/mcp"
        );
    }

    #[test]
    fn served_at_the_bare_path_and_both_suffixed_ones() {
        let r = ProtectedResource::new("https://x.example/public/mcp");
        assert_eq!(
            r.paths("/mcp"),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/public/mcp",
                "/.well-known/oauth-protected-resource/mcp"
            ]
        );
        assert_eq!(
            ProtectedResource::new("https://x.example/mcp")
                .paths("/mcp")
                .len(),
            2
        );
    }
}
