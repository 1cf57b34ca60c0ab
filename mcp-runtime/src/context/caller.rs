//! [`Caller`]: who a request comes from.

use std::sync::Arc;

/// Who a request comes from, as far as its transport knows: what rate limits and caches
/// are keyed by and what a tool or a layer can authorize by. Cheap to clone.
///
/// stdio has one client per process, so its caller is that connection. Streamable HTTP
/// fills in the identity its [`Authenticator`](crate::transport::http::Authenticator)
/// established with the scopes it granted, the legacy session, and the peer's IP address.
///
/// Scopes: a caller *with* scopes (every HTTP caller; an unauthenticated one has none) is
/// held to the scopes a tool declares; a caller without (stdio and in-memory, whose client
/// is the local user who started the server, as the MCP authorization spec has it) is not.
///
/// ```
/// use mcp_runtime::tool::Caller;
///
/// let caller = Caller::connection().with_identity("alice").with_session("s1");
/// assert_eq!(caller.identity(), Some("alice"));
/// assert_eq!(caller.key(), "identity:alice");
/// assert_eq!(Caller::connection().key(), "connection");
///
/// let required = ["files:read".to_owned(), "files:write".to_owned()];
/// let reader = Caller::connection().with_identity("bob").with_scopes(["files:read"]);
/// assert!(!reader.has_scopes(&required));
/// assert!(Caller::connection().has_scopes(&required), "a local client is not held to scopes");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Caller {
    identity: Option<Arc<str>>,
    session: Option<Arc<str>>,
    address: Option<Arc<str>>,
    scopes: Option<Arc<[String]>>,
}

/// [`Caller::connection`], for borrowing.
pub(crate) static LOCAL: Caller = Caller {
    identity: None,
    session: None,
    address: None,
    scopes: None,
};

impl Caller {
    /// The connection itself, nothing more known (stdio, in-memory).
    pub fn connection() -> Self {
        Self::default()
    }

    /// With an authenticated identity (e.g. the token's subject).
    pub fn with_identity(mut self, identity: impl Into<Arc<str>>) -> Self {
        self.identity = Some(identity.into());
        self
    }

    /// With a session id (a legacy Streamable HTTP session).
    pub fn with_session(mut self, session: impl Into<Arc<str>>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// With the peer's network address (an IP address, without port).
    pub fn with_address(mut self, address: impl Into<Arc<str>>) -> Self {
        self.address = Some(address.into());
        self
    }

    /// With the scopes the caller's credentials grant (possibly none): from now on the
    /// caller is held to the scopes of what it calls.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// [`with_scopes`](Self::with_scopes) with a set already shared (no copy): what a
    /// transport that authenticates many requests with one credential gives each of them.
    pub fn with_granted_scopes(mut self, scopes: Arc<[String]>) -> Self {
        self.scopes = Some(scopes);
        self
    }

    /// The scopes the caller's credentials grant, or `None` when its transport does not
    /// authorize by scope.
    pub fn scopes(&self) -> Option<&[String]> {
        self.scopes.as_deref()
    }

    /// Whether the caller may use something that requires every scope in `required`: it
    /// holds them all, or its transport does not authorize by scope.
    pub fn has_scopes(&self, required: &[String]) -> bool {
        match &self.scopes {
            None => true,
            Some(granted) => required.iter().all(|r| granted.contains(r)),
        }
    }

    /// The authenticated identity, if any.
    pub fn identity(&self) -> Option<&str> {
        self.identity.as_deref()
    }

    /// The legacy session, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The peer's address, if known.
    pub fn address(&self) -> Option<&str> {
        self.address.as_deref()
    }

    /// [`key`](Self::key) as logs show it: the same, except that a session id (the only
    /// credential of an unauthenticated legacy client: whoever reads it can use the
    /// session) becomes `session:` and a tag, the first 12 hex digits of its SHA-256. The tag
    /// tells sessions apart in a log without giving one away.
    ///
    /// ```
    /// use mcp_runtime::context::Caller;
    ///
    /// let caller = Caller::connection().with_session("uJ9b0-the-session-id");
    /// let shown = caller.log_name();
    /// assert!(shown.starts_with("session:") && !shown.contains("uJ9b0"));
    /// assert_eq!(shown.len(), "session:".len() + 12);
    /// assert_eq!(Caller::connection().with_identity("alice").log_name(), "identity:alice");
    /// ```
    pub fn log_name(&self) -> String {
        if self.identity.is_none()
            && let Some(tag) = self.session_tag()
        {
            let mut shown = String::with_capacity("session:".len() + tag.len());
            shown.push_str("session:");
            shown.push_str(&tag);
            return shown;
        }
        self.key()
    }

    /// The legacy session as logs and traces may show it: the first 12 hex digits of its
    /// SHA-256, never the id itself (whoever reads an id can use the session).
    pub fn session_tag(&self) -> Option<String> {
        use sha2::Digest as _;
        let session = self.session.as_ref()?;
        let digest = sha2::Sha256::digest(session.as_bytes());
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut shown = String::with_capacity(12);
        for byte in &digest[..6] {
            shown.push(char::from(HEX[usize::from(byte >> 4)]));
            shown.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        Some(shown)
    }

    /// Whom a rate limit counts: `identity:…`, else `address:…`, else `session:…`, else
    /// `connection`. Unlike [`key`](Self::key), the address comes before the session: an
    /// unauthenticated client that opens a new legacy session gets no new budget.
    ///
    /// ```
    /// use mcp_runtime::context::Caller;
    ///
    /// let caller = Caller::connection().with_session("s1").with_address("192.0.2.7");
    /// assert_eq!(caller.limit_key(), "address:192.0.2.7");
    /// assert_eq!(caller.key(), "session:s1");
    /// ```
    pub fn limit_key(&self) -> String {
        match (&self.identity, &self.address, &self.session) {
            (Some(i), _, _) => prefixed("identity:", i),
            (None, Some(a), _) => prefixed("address:", a),
            (None, None, Some(s)) => prefixed("session:", s),
            (None, None, None) => "connection".to_owned(),
        }
    }

    /// The most specific name of this caller: `identity:…`, else `session:…`, else
    /// `address:…`, else `connection`. Result caches are keyed by it (one session never
    /// sees another's answers); rate limits by [`limit_key`](Self::limit_key).
    pub fn key(&self) -> String {
        match (&self.identity, &self.session, &self.address) {
            (Some(i), _, _) => prefixed("identity:", i),
            (None, Some(s), _) => prefixed("session:", s),
            (None, None, Some(a)) => prefixed("address:", a),
            (None, None, None) => "connection".to_owned(),
        }
    }
}

/// `prefix` then `rest`, in one allocation of the right size: the audit trail and the rate
/// limits name the caller on every request, and `format!` would go through `core::fmt`.
fn prefixed(prefix: &str, rest: &str) -> String {
    let mut text = String::with_capacity(prefix.len() + rest.len());
    text.push_str(prefix);
    text.push_str(rest);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_logged_as_the_first_twelve_hex_digits_of_its_sha256() {
        use sha2::Digest as _;
        let id = "uJ9b0-the-session-id";
        let digest = sha2::Sha256::digest(id.as_bytes());
        let expected: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            Caller::connection().with_session(id).log_name(),
            format!("session:{expected}")
        );
    }

    #[test]
    fn keys_name_the_most_specific_part() {
        let caller = Caller::connection().with_address("10.0.0.1");
        assert_eq!(caller.key(), "address:10.0.0.1");
        assert_eq!(caller.limit_key(), "address:10.0.0.1");
        let caller = caller.with_session("s").with_identity("alice");
        assert_eq!(caller.key(), "identity:alice");
        assert_eq!(Caller::connection().key(), "connection");
    }
}
