//! Protocol revisions and the two eras they fall into.

use std::fmt;

/// The modern revision: stateless, no handshake, a `_meta` envelope on every request.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The newest legacy revision, answered to an `initialize` that asks for a version this
/// server does not know (including `2026-07-28` and future dates).
pub const LATEST_LEGACY_VERSION: &str = "2025-11-25";

/// Every legacy revision this toolkit negotiates in `initialize`, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Every modern revision this toolkit serves through the per-request envelope.
///
/// `server/discover` lists only these, and so does the `data.supported` of a `-32022` error:
/// a client cannot use a legacy revision through the envelope, so naming one there would
/// invite a request that is bound to fail (see `spec/dual-era.md` §3.2, "Ambiguity").
pub const MODERN_VERSIONS: &[&str] = &[MODERN_VERSION];

/// Which protocol era a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// Revisions up to 2025-11-25, opened by the `initialize` handshake.
    Legacy,
    /// Revision 2026-07-28: stateless, each request carries its own envelope.
    Modern,
}

impl Era {
    /// `legacy` or `modern`, as logs and audit events name the era.
    ///
    /// ```
    /// use mcp_runtime::protocol::Era;
    ///
    /// assert_eq!(Era::Modern.as_str(), "modern");
    /// assert_eq!(Era::Legacy.to_string(), Era::Legacy.as_str());
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
}

impl fmt::Display for Era {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The legacy version to answer an `initialize` that asked for `requested`.
///
/// The requested version when it is a legacy version we speak, otherwise the latest legacy
/// version (2025-11-25 lifecycle §Version Negotiation). Never the modern version: a client
/// that sends `initialize` is speaking the handshake, which 2026-07-28 does not have.
pub fn negotiate_legacy(requested: &str) -> &'static str {
    LEGACY_VERSIONS
        .iter()
        .copied()
        .find(|v| *v == requested)
        .unwrap_or(LATEST_LEGACY_VERSION)
}

/// Whether `version` is a modern revision this toolkit serves.
pub fn is_supported_modern(version: &str) -> bool {
    MODERN_VERSIONS.contains(&version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_never_answers_modern() {
        assert_eq!(negotiate_legacy("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate_legacy("2024-11-05"), "2024-11-05");
        assert_eq!(negotiate_legacy(MODERN_VERSION), LATEST_LEGACY_VERSION);
        assert_eq!(negotiate_legacy("2099-01-01"), LATEST_LEGACY_VERSION);
        assert_eq!(negotiate_legacy(""), LATEST_LEGACY_VERSION);
    }
}
