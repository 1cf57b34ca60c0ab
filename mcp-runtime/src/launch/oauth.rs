//! `--oauth-issuer`, `--oauth-audience`, `--oauth-scope` and `--oauth-client-id` made into
//! the [`OAuth`](crate::oauth::OAuth) verifier [`ServeArgs::bind_http`] serves with.

use super::ServeArgs;

/// The variable `--oauth-client-id`'s secret is read from.
pub const OAUTH_CLIENT_SECRET_ENV: &str = "MCP_OAUTH_CLIENT_SECRET";

impl ServeArgs {
    /// The OAuth verifier `--oauth-issuer` and `--oauth-audience` ask for, if they do
    /// (with the scopes, and introspection when `--oauth-client-id` is given).
    ///
    /// ```
    /// use clap::Parser;
    /// use mcp_runtime::launch::ServeArgs;
    ///
    /// #[derive(Parser)]
    /// struct Cli {
    ///     #[command(flatten)]
    ///     serve: ServeArgs,
    /// }
    ///
    /// let cli = Cli::try_parse_from([
    ///     "demo", "--transport", "http",
    ///     "--oauth-issuer", "https://auth.example.com",
    ///     "--oauth-audience", "https://mcp.example.com/mcp",
    /// ])?;
    /// let oauth = cli.serve.oauth()?.expect("configured");
    /// assert_eq!(oauth.audience(), Some("https://mcp.example.com/mcp"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn oauth(&self) -> Result<Option<crate::oauth::OAuth>, crate::oauth::OAuthError> {
        self.oauth_builder()?.map(|b| b.build()).transpose()
    }

    /// What [`oauth`](Self::oauth) builds, before it is built.
    pub(super) fn oauth_builder(
        &self,
    ) -> Result<Option<crate::oauth::OAuthBuilder>, crate::oauth::OAuthError> {
        // The flags require each other; a `--config` file's values are defaults, which clap's
        // `requires` does not see, so one without the other is refused here, not ignored.
        let Some(issuer) = &self.oauth_issuer else {
            return match (&self.oauth_audience, &self.oauth_client_id) {
                (None, None) => Ok(None),
                _ => Err(crate::oauth::OAuthError::Issuer {
                    url: String::new(),
                    why: "is missing: --oauth-audience and --oauth-client-id need --oauth-issuer",
                }),
            };
        };
        let mut builder =
            crate::oauth::OAuth::issuer(issuer).scopes_supported(self.oauth_scopes.iter().cloned());
        if let Some(audience) = &self.oauth_audience {
            builder = builder.audience(audience);
        }
        if let Some(id) = &self.oauth_client_id {
            // Unset is empty, which `build` refuses naming the variable: never an empty secret.
            let secret = std::env::var(OAUTH_CLIENT_SECRET_ENV).unwrap_or_default();
            builder = builder.introspection(id, secret);
        }
        Ok(Some(builder))
    }
}
