//! `#[mcp_prompt]`: definitions listed as declared (descriptions, optional arguments),
//! arguments parsed into the parameters, parse failures that name the argument, every
//! return shape, injected parameters, completions from enums and from completion functions
//! (which see the arguments already chosen), and collection; in both eras.

use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{CompletionReference, ErrorCode, McpError};
use serde_json::json;
use std::collections::BTreeMap;
use std::str::FromStr;

/// How thorough a review is.
#[derive(Debug, Clone, Copy, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Depth {
    /// A glance
    Quick,
    /// Line by line
    Thorough,
}

impl FromStr for Depth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "quick" => Ok(Depth::Quick),
            "thorough" => Ok(Depth::Thorough),
            other => Err(format!("{other:?} is neither quick nor thorough")),
        }
    }
}

/// Asks for a review of some code.
#[mcp_prompt(title = "Code review")]
async fn code_review(
    /// The code to review
    code: String,
    /// The language it is in
    #[mcp(complete = languages)]
    language: Option<String>,
    #[mcp(description = "At most this many remarks")] remarks: Option<u8>,
    depth: Depth,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!(
            "Review this {} code ({depth:?}, at most {} remarks):",
            language.as_deref().unwrap_or("unknown"),
            remarks.unwrap_or(3)
        )),
        PromptMessage::user(code),
    ]
}

/// Languages that start with what was typed; `rust` alone when the code looks like Rust.
fn languages(value: &str, chosen: &BTreeMap<String, String>) -> Vec<&'static str> {
    if chosen.get("code").is_some_and(|c| c.contains("fn main")) {
        return vec!["rust"];
    }
    ["python", "rust", "ruby"]
        .into_iter()
        .filter(|l| l.starts_with(value))
        .collect()
}

/// What the server greets with.
#[derive(Clone)]
struct Greeting(&'static str);

/// Greets someone.
#[mcp_prompt(name = "greet.v2")]
async fn greet(name: String, State(greeting): State<Greeting>) -> String {
    format!("{}, {name}!", greeting.0)
}

/// Always fails.
#[mcp_prompt]
async fn fails(reason: String) -> Result<PromptMessage, PromptError> {
    Err(PromptError::failed(reason))
}

/// Answers a whole result.
#[mcp_prompt]
async fn whole() -> GetPromptResult {
    let mut result = GetPromptResult::new(vec![PromptMessage::assistant("Done.")]);
    result.description = Some("A finished conversation".into());
    result
}

fn server() -> Server {
    Server::builder("prompts", "1.0.0")
        .state(Greeting("Hello"))
        .prompt(code_review::prompt())
        .prompt(greet::prompt())
        .prompt(fails::prompt())
        .prompt(whole::prompt())
        .build()
        .unwrap()
}

async fn connected(mode: EraMode) -> Client {
    let client = Client::memory(&server());
    client.connect(mode).await.unwrap();
    client
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

async fn get_error(client: &Client, name: &str, arguments: &[(&str, &str)]) -> McpError {
    match client.get_prompt(name, &args(arguments)).await {
        Err(ClientError::Protocol(e)) => e,
        other => panic!("{name}: expected an error, got {other:?}"),
    }
}

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

#[tokio::test]
async fn definitions_are_listed_as_declared() {
    for era in ERAS {
        let client = connected(era).await;
        let prompts = client.list_prompts().await.unwrap();
        let listed = |name: &str| {
            let p = prompts.iter().find(|p| p.name == name).expect(name);
            serde_json::to_value(p).unwrap()
        };
        assert_eq!(prompts.len(), 4);
        assert_eq!(
            listed("code_review"),
            json!({
                "name": "code_review",
                "title": "Code review",
                "description": "Asks for a review of some code.",
                "arguments": [
                    {"name": "code", "description": "The code to review", "required": true},
                    {"name": "language", "description": "The language it is in", "required": false},
                    {"name": "remarks", "description": "At most this many remarks", "required": false},
                    {"name": "depth", "required": true},
                ],
            })
        );
        // Injected parameters are not arguments; a prompt without any lists none.
        assert_eq!(
            listed("greet.v2"),
            json!({"name": "greet.v2", "description": "Greets someone.", "arguments": [{"name": "name", "required": true}]})
        );
        assert_eq!(
            listed("whole"),
            json!({"name": "whole", "description": "Answers a whole result."})
        );
    }
}

#[tokio::test]
async fn arguments_reach_the_parameters_parsed() {
    for era in ERAS {
        let client = connected(era).await;
        let result = client
            .get_prompt(
                "code_review",
                &args(&[("code", "x = 1"), ("depth", "thorough"), ("remarks", "5")]),
            )
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&result.messages).unwrap(),
            json!([
                {"role": "user", "content": {"type": "text", "text": "Review this unknown code (Thorough, at most 5 remarks):"}},
                {"role": "user", "content": {"type": "text", "text": "x = 1"}},
            ])
        );
    }
}

#[tokio::test]
async fn a_value_that_does_not_parse_is_invalid_params_naming_the_argument() {
    for era in ERAS {
        let client = connected(era).await;
        let e = get_error(
            &client,
            "code_review",
            &[("code", "x"), ("depth", "quick"), ("remarks", "many")],
        )
        .await;
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            e.message,
            "the argument `remarks` is \"many\", which is not a valid `u8`: invalid digit found in string"
        );
        let e = get_error(&client, "code_review", &[("code", "x"), ("depth", "deep")]).await;
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("`depth`"), "{}", e.message);
        assert!(
            e.message.contains("neither quick nor thorough"),
            "{}",
            e.message
        );
        // A required argument left out is refused before the prompt runs.
        let e = get_error(&client, "code_review", &[("code", "x")]).await;
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("`depth`"), "{}", e.message);
    }
}

#[tokio::test]
async fn every_return_shape_and_injected_state() {
    for era in ERAS {
        let client = connected(era).await;
        let greeting = client
            .get_prompt("greet.v2", &args(&[("name", "Ada")]))
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&greeting.messages).unwrap(),
            json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}])
        );
        let whole = client.get_prompt("whole", &args(&[])).await.unwrap();
        assert_eq!(
            whole.description.as_deref(),
            Some("A finished conversation")
        );
        assert_eq!(whole.messages, vec![PromptMessage::assistant("Done.")]);
        let e = get_error(&client, "fails", &[("reason", "the model is busy")]).await;
        assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(e.message, "the model is busy");
    }
}

#[tokio::test]
async fn completions_from_enums_and_completion_functions() {
    let review = CompletionReference::Prompt {
        name: "code_review".into(),
    };
    let none = BTreeMap::new();
    for era in ERAS {
        let client = connected(era).await;
        // The enum's values, as its schema lists them (variants with docs: `oneOf` consts).
        let c = client.complete(&review, "depth", "", &none).await.unwrap();
        assert_eq!(c.values, ["quick", "thorough"]);
        let c = client.complete(&review, "depth", "T", &none).await.unwrap();
        assert_eq!(c.values, ["thorough"]);
        let c = client
            .complete(&review, "language", "r", &none)
            .await
            .unwrap();
        assert_eq!(c.values, ["rust", "ruby"]);
        // The completion function sees the arguments already chosen.
        let chosen = args(&[("code", "fn main() {}")]);
        let c = client
            .complete(&review, "language", "", &chosen)
            .await
            .unwrap();
        assert_eq!(c.values, ["rust"]);
        // Plain strings and numbers complete nothing.
        let c = client
            .complete(&review, "remarks", "", &none)
            .await
            .unwrap();
        assert!(c.values.is_empty());
    }
}

#[tokio::test]
async fn collected_prompts_registers_every_one() {
    let server = Server::builder("collected", "1.0.0")
        .state(Greeting("Hi"))
        .collected_prompts()
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let names: Vec<String> = client
        .list_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    for name in ["code_review", "greet.v2", "fails", "whole"] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
}
