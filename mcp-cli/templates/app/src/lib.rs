//! {{description}}
//!
//! One tool with an interactive view (MCP Apps): `text_stats` measures a text, and hosts
//! that render apps (Claude, ChatGPT, VS Code, Goose, …) show its result in the view of
//! `ui/` (`ui://{{name}}/stats`), from which the user can measure another text; every other
//! client gets the same result as JSON text. `src/main.rs` serves it.

use mcp_runtime::prelude::*;
use mcp_runtime::resource::AppView;
use mcp_runtime::server::BuildError;
use serde::Serialize;

/// The URI of the view, named by the tool and served as a resource.
pub const VIEW: &str = "ui://{{name}}/stats";

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

/// Counts the words, characters and lines of a text (shown in a view where apps render).
#[mcp_tool(read_only, idempotent, open_world = false, app = "ui://{{name}}/stats")]
pub async fn text_stats(
    /// The text to measure
    text: String,
) -> Result<Json<TextStats>, String> {
    if text.trim().is_empty() {
        // An `Err` reaches the model (and the view) as an `isError` result.
        return Err("the text is empty; send the text to measure".into());
    }
    Ok(Json(TextStats {
        words: text.split_whitespace().count(),
        characters: text.chars().count(),
        lines: text.lines().count(),
    }))
}

/// The view: `ui/dist/index.html`, built from `ui/` by `build.rs`; embedded in release
/// builds, read from disk at every render in debug builds.
pub fn view() -> AppView {
    AppView::new(VIEW, mcp_runtime::app_html!("ui/dist/index.html"))
        .with_title("Text stats")
        .with_prefers_border(true)
}

/// The server: its name and version come from `Cargo.toml`, its tool and view from this
/// file. `build()` checks that the tool's view is served.
pub fn server() -> Result<Server, BuildError> {
    Server::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(
            "Use `text_stats` to measure a text; hosts that render apps show the result in a view.",
        )
        .tool(text_stats::tool())
        .resource(view())
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A tool is still an ordinary function: call it directly.

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

    #[test]
    fn the_server_builds() {
        let server = server().expect("the tool's view is served");
        assert_eq!(server.info().name, env!("CARGO_PKG_NAME"));
    }
}
