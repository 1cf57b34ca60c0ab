//! Where `cargo mcp` keeps what a login gave it: one file per server under the user's
//! configuration folder (`$XDG_CONFIG_HOME/cargo-mcp/oauth/` on Linux,
//! `~/Library/Application Support/cargo-mcp/oauth/` on macOS, `%APPDATA%\cargo-mcp\oauth\` on
//! Windows), readable by the user alone (folder 0700, files 0600 on Unix), written whole
//! (a temporary file renamed over the old one).

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What a login to one server gave: the tokens, and what refreshing them needs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Login {
    /// The MCP endpoint.
    pub server: String,
    /// The resource the tokens are for (the server's canonical URI).
    pub resource: String,
    /// The authorization server.
    pub issuer: String,
    /// Where tokens are refreshed.
    pub token_endpoint: String,
    /// Where tokens are revoked, if the authorization server says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    /// The client id (registered dynamically or given).
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub token_endpoint_auth_method: String,
    /// The access token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), if said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The scopes granted, space-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The DPoP key (RFC 9449) the tokens are bound to, PKCS#8 in base64url, when the
    /// server and its authorization server both take DPoP; `None` for bearer tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

/// The folder of the stored logins, from the environment.
pub fn folder() -> Result<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        var("APPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|h| h.join("Library").join("Application Support"))
    } else {
        var("XDG_CONFIG_HOME").or_else(|| var("HOME").map(|h| h.join(".config")))
    };
    let base = base.context("cannot find the user's configuration folder (HOME is not set)")?;
    Ok(base.join("cargo-mcp").join("oauth"))
}

/// The file of `server`'s login in `folder`: named by a hash of the URL (a URL is not a
/// file name).
pub fn file_for(folder: &Path, server: &str) -> PathBuf {
    let digest = Sha256::digest(server.trim_end_matches('/').as_bytes());
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    folder.join(format!("{name}.json"))
}

/// The stored login for `server`, if there is a readable one.
pub fn load(folder: &Path, server: &str) -> Option<Login> {
    let text = std::fs::read_to_string(file_for(folder, server)).ok()?;
    serde_json::from_str::<Login>(&text)
        .ok()
        .filter(|login| login.server.trim_end_matches('/') == server.trim_end_matches('/'))
}

/// Stores `login`, replacing what was stored for its server.
pub fn save(folder: &Path, login: &Login) -> Result<()> {
    create_private_folder(folder)?;
    let path = file_for(folder, &login.server);
    let mut file = tempfile::NamedTempFile::new_in(folder)
        .with_context(|| format!("cannot write in {}", folder.display()))?;
    // NamedTempFile creates the file 0600 on Unix.
    file.write_all(serde_json::to_string_pretty(login)?.as_bytes())?;
    file.as_file().sync_all()?;
    file.persist(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Forgets `server`'s login; whether there was one.
pub fn remove(folder: &Path, server: &str) -> Result<bool> {
    match std::fs::remove_file(file_for(folder, server)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e).context("cannot remove the stored login"),
    }
}

fn create_private_folder(folder: &Path) -> Result<()> {
    std::fs::create_dir_all(folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
            .with_context(|| format!("cannot make {} private", folder.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(server: &str) -> Login {
        Login {
            server: server.to_owned(),
            resource: server.to_owned(),
            issuer: "https://auth.example.com".into(),
            token_endpoint: "https://auth.example.com/token".into(),
            revocation_endpoint: None,
            client_id: "c".into(),
            client_secret: None,
            token_endpoint_auth_method: "none".into(),
            access_token: "at".into(),
            refresh_token: Some("rt".into()),
            expires_at: Some(1),
            scope: None,
            dpop_key: Some("the-key".into()),
        }
    }

    #[test]
    fn logins_are_kept_per_server_privately_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("cargo-mcp").join("oauth");
        let a = login("http://127.0.0.1:1/mcp");
        save(&folder, &a).unwrap();
        save(&folder, &login("http://127.0.0.1:2/mcp")).unwrap();
        assert_eq!(load(&folder, "http://127.0.0.1:1/mcp/"), Some(a));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&folder), 0o700);
            assert_eq!(mode(&file_for(&folder, "http://127.0.0.1:1/mcp")), 0o600);
        }
        assert!(remove(&folder, "http://127.0.0.1:1/mcp").unwrap());
        assert!(!remove(&folder, "http://127.0.0.1:1/mcp").unwrap());
        assert!(load(&folder, "http://127.0.0.1:1/mcp").is_none());
        assert!(load(&folder, "http://127.0.0.1:2/mcp").is_some());
    }
}
