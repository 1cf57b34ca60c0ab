//! {{description}}
//!
//! The tools live here as plain async functions marked `#[mcp_tool]`: a tool's doc comment
//! becomes its description, its parameters (with their doc comments) its input schema, and
//! its return type its result (and output schema, for `Json<T>`). So does a resource
//! (`#[mcp_resource]`); the prompts are template files in `prompts/`, and the skills are
//! folders in `skills/`. `src/main.rs` serves them, over Streamable HTTP with the options of
//! [`http_options`].

use mcp_runtime::prelude::*;
use mcp_runtime::server::BuildError;
use mcp_runtime::transport::http::{HttpOptions, LegacyMode};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Adds two numbers and returns the sum.
#[mcp_tool(read_only, idempotent, open_world = false)]
pub async fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// What `text_stats` reports.
#[derive(Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TextStats {
    /// Whitespace-separated words
    pub words: usize,
    /// Characters (Unicode scalar values)
    pub characters: usize,
    /// Lines
    pub lines: usize,
}

/// Counts the words, characters and lines of a text.
#[mcp_tool(read_only, idempotent, open_world = false)]
pub async fn text_stats(
    /// The text to measure
    text: String,
) -> Result<Json<TextStats>, String> {
    if text.trim().is_empty() {
        // An `Err` reaches the model as an `isError` result: say how to fix the call.
        return Err("the text is empty; send the text to measure".into());
    }
    Ok(Json(TextStats {
        words: text.split_whitespace().count(),
        characters: text.chars().count(),
        lines: text.lines().count(),
    }))
}

/// What this server offers and how to use it.
#[mcp_resource(uri = "info://about", mime_type = "text/markdown")]
pub async fn about() -> String {
    format!(
        "# {}\n\n{}\n",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_DESCRIPTION")
    )
}

/// Where the prompt templates are read from: `MCP_PROMPTS_DIR` when set, else this
/// project's `prompts/` folder. One file per prompt (Markdown with front matter, JSON or
/// YAML); add a file and it is served at the next start.
pub fn prompts_dir() -> PathBuf {
    std::env::var_os("MCP_PROMPTS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts"),
        PathBuf::from,
    )
}

/// Where the skills are read from: `MCP_SKILLS_DIR` when set, else this project's
/// `skills/` folder. One folder per skill: a `SKILL.md` (front matter with `name`, the
/// folder's name, and `description`, then instructions) and the files it refers to, served
/// to clients that support skills (`skills/list`, `skill://` resources).
pub fn skills_dir() -> PathBuf {
    std::env::var_os("MCP_SKILLS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"),
        PathBuf::from,
    )
}

/// The server: its name and version come from `Cargo.toml`, its tools and resource from
/// this file, its prompts from [`prompts_dir`], its skills from [`skills_dir`].
pub fn server() -> Result<Server, BuildError> {
    server_with_prompts(prompts_dir())
}

/// The server, with the prompt templates of `prompts` and the skills of [`skills_dir`] (a
/// problem in any file is reported by `build()`, with the file and line).
pub fn server_with_prompts(prompts: impl AsRef<Path>) -> Result<Server, BuildError> {
    Server::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions("Use `add` to add two numbers and `text_stats` to measure a text.")
        .tool(add::tool())
        .tool(text_stats::tool())
        .resource(about::resource())
        .prompt_dir(prompts)
        .skills_dir(skills_dir())
        .build()
}

/// How the HTTP endpoint serves clients: the base that `src/main.rs` serves with, which the
/// command line's flags then adjust (`--legacy-mode`, and `--allowed-origin` and
/// `--allowed-host` add to the lists).
///
/// - Clients of 2026-07-28 are always served statelessly. Clients of the 2025 revisions
///   (the `initialize` handshake) are served statelessly too (`LegacyMode::Stateless`): any
///   instance behind a load balancer can answer any request, and no session is kept. Switch
///   to `LegacyMode::Sessionful` for list-change notifications on a GET stream (it then
///   needs sticky routing).
/// - `Host` and `Origin` are checked against DNS rebinding: loopback and IP hosts pass, a
///   browser page from any other origin gets 403 unless allowed here
///   (`.allow_origin("https://app.example.com")`) or with `--allowed-origin`.
pub fn http_options() -> HttpOptions {
    HttpOptions::default().legacy_mode(LegacyMode::Stateless)
}

#[cfg(test)]
mod tests {
    use super::*;

    // A tool is still an ordinary function: call it directly.

    #[tokio::test]
    async fn add_adds() {
        assert_eq!(add(2.0, 3.0).await, 5.0);
    }

    #[tokio::test]
    async fn text_stats_counts() {
        let Json(stats) = text_stats("one two\nthree".into()).await.unwrap();
        assert_eq!(
            stats,
            TextStats {
                words: 3,
                characters: 13,
                lines: 2
            }
        );
        assert!(text_stats("  ".into()).await.is_err());
    }

    #[tokio::test]
    async fn about_names_the_package() {
        assert!(
            about()
                .await
                .starts_with(&format!("# {}", env!("CARGO_PKG_NAME")))
        );
    }

    #[test]
    fn the_server_builds() {
        let server = server().expect("every tool is valid");
        assert_eq!(server.info().name, env!("CARGO_PKG_NAME"));
    }
}
