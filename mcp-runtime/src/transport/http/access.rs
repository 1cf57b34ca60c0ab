//! [`Access`]: who may reach a server that a binary serves over HTTP, decided from its
//! deployment rather than its code: bearer tokens from a file or the environment (never a
//! command-line argument, which other users of the machine can read in `ps`), and a refusal
//! to serve other machines without them unless told so explicitly.
//!
//! The rules, applied by [`Access::options`] and [`Access::check`]:
//! - tokens come from the file given (one per line: `token`, or `subject token`; blank lines
//!   and `#` comments skipped) and from the environment variable [`TOKEN_ENV`] (one token,
//!   subject `env`); each must be at least [`MIN_TOKEN_LEN`] bytes;
//! - with tokens, every request needs `Authorization: Bearer <token>` (else 401);
//! - without tokens, a listener on a loopback address serves as before; one on any other
//!   address is refused, unless `allow_unauthenticated`, which serves with a warning.

use super::auth::BearerTokens;
use super::options::HttpOptions;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The environment variable a single bearer token is read from.
pub const TOKEN_ENV: &str = "MCP_BEARER_TOKEN";

/// The shortest token accepted, in bytes: anything shorter is guessable.
pub const MIN_TOKEN_LEN: usize = 16;

/// Who may reach an HTTP server: bearer tokens from a file or the environment, and whether
/// a non-loopback address may be served without them.
///
/// ```
/// use mcp_runtime::transport::http::{Access, HttpOptions};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let access = Access::load(None, false)?; // `MCP_BEARER_TOKEN`, if set
/// let options = access.options(HttpOptions::default());
/// // After binding: refuses a non-loopback address without tokens.
/// access.check("127.0.0.1:8000".parse()?)?;
/// assert!(access.check("0.0.0.0:8000".parse()?).is_err() || access.authenticated());
/// # let _ = options;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Access {
    tokens: Option<BearerTokens>,
    allow_unauthenticated: bool,
}

/// Why [`Access`] could not be set up, or refuses an address.
#[derive(Debug)]
#[non_exhaustive]
pub enum AccessError {
    /// The token file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A token is too short.
    ShortToken {
        /// Where it came from (`path:line`, or the variable).
        source: String,
    },
    /// A token file that holds no token.
    NoTokens {
        /// The file.
        path: PathBuf,
    },
    /// A non-loopback address without tokens and without `allow_unauthenticated`.
    Unauthenticated {
        /// The address.
        addr: SocketAddr,
    },
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::Read { path, error } => {
                write!(f, "cannot read the token file {}: {error}", path.display())
            }
            AccessError::ShortToken { source } => write!(
                f,
                "the token at {source} is shorter than {MIN_TOKEN_LEN} bytes; use a long random \
                 one (e.g. `openssl rand -hex 32`)"
            ),
            AccessError::NoTokens { path } => {
                write!(f, "the token file {} holds no token", path.display())
            }
            AccessError::Unauthenticated { addr } => write!(
                f,
                "refusing to serve {addr} without authentication: other machines could use every \
                 tool. Give bearer tokens (--token-file FILE, or {TOKEN_ENV}), bind a loopback \
                 address (127.0.0.1), or pass --allow-unauthenticated if a proxy in front \
                 authenticates"
            ),
        }
    }
}

impl std::error::Error for AccessError {}

impl Access {
    /// Reads the tokens from `token_file` (if given) and [`TOKEN_ENV`] (if set).
    pub fn load(
        token_file: Option<&Path>,
        allow_unauthenticated: bool,
    ) -> Result<Self, AccessError> {
        let env = std::env::var(TOKEN_ENV).ok();
        Self::from_sources(token_file, env.as_deref(), allow_unauthenticated)
    }

    /// Like [`load`](Self::load), with the variable's value given (tests, other sources).
    pub fn from_sources(
        token_file: Option<&Path>,
        env_token: Option<&str>,
        allow_unauthenticated: bool,
    ) -> Result<Self, AccessError> {
        let mut tokens: Vec<(String, String)> = Vec::new();
        if let Some(path) = token_file {
            let text = std::fs::read_to_string(path).map_err(|error| AccessError::Read {
                path: path.to_owned(),
                error,
            })?;
            let before = tokens.len();
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (subject, token) = match line.split_once(char::is_whitespace) {
                    Some((subject, token)) => (subject.to_owned(), token.trim()),
                    None => (format!("token-{}", n + 1), line),
                };
                if token.len() < MIN_TOKEN_LEN {
                    return Err(AccessError::ShortToken {
                        source: format!("{}:{}", path.display(), n + 1),
                    });
                }
                tokens.push((subject, token.to_owned()));
            }
            if tokens.len() == before {
                return Err(AccessError::NoTokens {
                    path: path.to_owned(),
                });
            }
            if let Some(warning) = exposed(path) {
                tracing::warn!("{warning}");
            }
        }
        if let Some(token) = env_token.map(str::trim).filter(|t| !t.is_empty()) {
            if token.len() < MIN_TOKEN_LEN {
                return Err(AccessError::ShortToken {
                    source: TOKEN_ENV.to_owned(),
                });
            }
            tokens.push(("env".to_owned(), token.to_owned()));
        }
        Ok(Self {
            tokens: (!tokens.is_empty()).then(|| BearerTokens::new(tokens)),
            allow_unauthenticated,
        })
    }

    /// Whether requests must carry a token.
    pub fn authenticated(&self) -> bool {
        self.tokens.is_some()
    }

    /// `options` with the tokens required, if there are any.
    pub fn options(&self, options: HttpOptions) -> HttpOptions {
        match &self.tokens {
            Some(tokens) => options.auth(tokens.clone()),
            None => options,
        }
    }

    /// Checks the address the server listens on (after binding, so port 0 and host names
    /// are resolved): refuses a non-loopback one without tokens unless
    /// `allow_unauthenticated`, and then warns.
    pub fn check(&self, addr: SocketAddr) -> Result<(), AccessError> {
        if self.authenticated() || addr.ip().is_loopback() {
            return Ok(());
        }
        if !self.allow_unauthenticated {
            return Err(AccessError::Unauthenticated { addr });
        }
        tracing::warn!(
            %addr,
            "serving without authentication on a non-loopback address: anyone who can reach \
             it can use every tool"
        );
        Ok(())
    }
}

/// Why a token file is exposed, if it is: readable or writable by users other than its
/// owner (the tokens are credentials).
fn exposed(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(path).ok()?.permissions().mode() & 0o777;
        (mode & 0o077 != 0).then(|| {
            format!(
                "the token file {} can be read or written by other users (mode {mode:03o}); \
                 make it the owner's alone: chmod 600 {}",
                path.display(),
                path.display()
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_token_file_others_can_read_is_warned_about() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, "0123456789abcdef0123\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let warning = exposed(&path).expect("mode 644 is exposed");
        assert!(
            warning.contains("mode 644") && warning.contains("chmod 600"),
            "{warning}"
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(exposed(&path), None);
    }

    const LONG: &str = "0123456789abcdef0123";

    #[test]
    fn tokens_come_from_a_file_and_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tokens");
        std::fs::write(&file, format!("# ci\nci {LONG}\n\n{LONG}x\n")).unwrap();
        let access = Access::from_sources(Some(&file), Some(LONG), false).unwrap();
        assert!(access.authenticated());
        assert!(format!("{:?}", access.tokens).contains("token-4"));
        assert!(access.check("0.0.0.0:80".parse().unwrap()).is_ok());

        std::fs::write(&file, "short\n").unwrap();
        let e = Access::from_sources(Some(&file), None, false).unwrap_err();
        assert!(e.to_string().contains("tokens:1 is shorter than 16"), "{e}");
        std::fs::write(&file, "# nothing\n").unwrap();
        assert!(matches!(
            Access::from_sources(Some(&file), None, false),
            Err(AccessError::NoTokens { .. })
        ));
        assert!(matches!(
            Access::from_sources(None, Some("short"), false),
            Err(AccessError::ShortToken { .. })
        ));
    }

    #[test]
    fn other_machines_need_tokens_or_an_explicit_opt_out() {
        let none = Access::from_sources(None, None, false).unwrap();
        assert!(!none.authenticated());
        assert!(none.check("127.0.0.1:80".parse().unwrap()).is_ok());
        assert!(none.check("[::1]:80".parse().unwrap()).is_ok());
        let e = none.check("0.0.0.0:80".parse().unwrap()).unwrap_err();
        assert!(e.to_string().contains("--allow-unauthenticated"), "{e}");
        assert!(none.check("192.168.1.5:80".parse().unwrap()).is_err());
        let open = Access::from_sources(None, None, true).unwrap();
        assert!(open.check("0.0.0.0:80".parse().unwrap()).is_ok());
    }
}
