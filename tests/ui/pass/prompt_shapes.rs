//! The shapes `#[mcp_prompt]` accepts: every return conversion, `FromStr` and optional
//! arguments, renamed, described and injected parameters, `description = "..."`.

use mcp_runtime::prelude::*;
use std::collections::BTreeMap;

/// One user message.
#[mcp_prompt(title = "Plain", icons = ["https://example.com/p.png"])]
async fn plain(
    /// Who
    name: String,
    #[mcp(rename = "times", description = "How often")] count: Option<u32>,
) -> String {
    format!("{name} {count:?}")
}

#[mcp_prompt(name = "messages.v1", description = "Several messages.")]
async fn messages(cx: RequestContext) -> Vec<PromptMessage> {
    vec![PromptMessage::user(cx.era().to_string())]
}

/// One message, or a failure.
#[mcp_prompt]
async fn fallible(
    #[mcp(complete = flags)] flag: bool,
) -> Result<PromptMessage, PromptError> {
    if flag {
        Ok(PromptMessage::assistant("yes"))
    } else {
        Err(PromptError::invalid_arguments("`flag` must be true"))
    }
}

fn flags(_: &str, _: &BTreeMap<String, String>) -> Vec<String> {
    vec!["true".into()]
}

/// A whole result, with a string error.
#[mcp_prompt]
async fn whole() -> Result<GetPromptResult, String> {
    Ok(GetPromptResult::new(vec![]))
}

fn main() {
    let _server = Server::builder("pass", "1")
        .prompt(plain::prompt())
        .prompt(messages::prompt())
        .prompt(fallible::prompt())
        .prompt(whole::prompt())
        .build()
        .unwrap();
    let _ = Server::builder("pass", "1").collected_prompts();
}
