//! Names at the edges of the tool-name rule compile, and registration accepts them: the
//! compile-time check and registration follow one rule (`tool_name_problem`).

use mcp_runtime::prelude::*;
use std::sync::Arc;

/// Dots and dashes.
#[mcp_tool(name = "files.read-text_v2")]
async fn dotted() {}

/// Only punctuation.
#[mcp_tool(name = "-.-")]
async fn punctuation() {}

/// One character.
#[mcp_tool(name = "x")]
async fn one() {}

/// Digits first.
#[mcp_tool(name = "2fa.check")]
async fn digits() {}

/// The longest explicit name: 128 characters.
#[mcp_tool(name = "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn")]
async fn longest() {}

/// The longest name taken from the function: 128 characters.
#[mcp_tool]
async fn ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff() {}

struct Notes;

#[mcp_tools]
impl Notes {
    /// A method with a dotted name.
    #[mcp_tool(name = "notes.add")]
    async fn add(&self) {}
}

fn main() {
    let server = Server::builder("names", "1")
        .tool(dotted::tool())
        .tool(punctuation::tool())
        .tool(one::tool())
        .tool(digits::tool())
        .tool(longest::tool())
        .tool(ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff::tool())
        .tools(Arc::new(Notes).mcp_tools())
        .build()
        .expect("every name the macro accepts, registration accepts");
    let names = server.tools().names();
    assert_eq!(names.len(), 7, "{names:?}");
    for name in ["files.read-text_v2", "-.-", "x", "2fa.check", "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn", "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", "notes.add"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        assert_eq!(mcp_runtime::tool::tool_name_problem(name), None);
    }
}
