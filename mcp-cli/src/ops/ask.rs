//! Answering a server's questions on the terminal during `cargo mcp call`, `read` and
//! `prompt`: elicitation forms field by field, URL elicitations, sampling (the user plays
//! the model) and roots (the current folder); and what those commands say when there is no
//! terminal to ask on (see [`handler`]).
//!
//! Written over a reader and a writer so the dialogue is tested without a terminal; `call`
//! hands it stdin and stderr (stdout stays the tool's result, so `cargo mcp call … > out`
//! still captures only that).

use mcp_runtime::client::InputHandler;
use mcp_runtime::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorCode,
    McpError, Root, SamplingRole,
};
use serde_json::{Map, Value, json};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The least time between two looks at the clock while the user answers.
const POLL: Duration = Duration::from_millis(50);

/// How many times a field is asked again after an answer that does not fit it.
const ATTEMPTS: usize = 3;

/// Reads one line; `None` at the end of input.
fn line(input: &mut dyn BufRead) -> io::Result<Option<String>> {
    let mut buf = String::new();
    if input.read_line(&mut buf)? == 0 {
        return Ok(None);
    }
    Ok(Some(buf.trim_end_matches(['\r', '\n']).to_owned()))
}

/// Asks the user to fill in a form (or open a URL). The end of input cancels.
pub fn elicit(
    params: &ElicitRequestParams,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<ElicitResult> {
    writeln!(out, "\nThe server asks: {}", params.message)?;
    if params.is_url() {
        let url = params.url.as_deref().unwrap_or_default();
        writeln!(out, "It wants you to open: {url}")?;
        write!(out, "Open it? [y]es / [n]o (decline) / [c]ancel: ")?;
        out.flush()?;
        return Ok(match line(input)?.as_deref().map(str::trim) {
            Some("y" | "Y" | "yes") => ElicitResult::accept(None),
            Some("n" | "N" | "no") => ElicitResult::decline(),
            _ => ElicitResult::cancel(),
        });
    }
    write!(out, "Answer? [Y]es / [n]o (decline) / [c]ancel: ")?;
    out.flush()?;
    match line(input)?.as_deref().map(str::trim) {
        None | Some("c" | "C" | "cancel") => return Ok(cancelled()),
        Some("n" | "N" | "no") => return Ok(ElicitResult::decline()),
        _ => {}
    }
    let schema = params.requested_schema.clone().unwrap_or(Value::Null);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut content = Map::new();
    for (name, field) in schema["properties"].as_object().into_iter().flatten() {
        let needed = required.contains(&name.as_str());
        match ask_field(name, field, needed, input, out)? {
            Field::Value(v) => {
                content.insert(name.clone(), v);
            }
            Field::Skipped => {}
            Field::Ended => return Ok(cancelled()),
        }
    }
    Ok(ElicitResult::accept(Some(content)))
}

fn cancelled() -> ElicitResult {
    ElicitResult::cancel()
}

enum Field {
    Value(Value),
    Skipped,
    Ended,
}

/// The choices of an enum field (`enum`, `oneOf`/`anyOf` of `{const, title}`, or the same
/// under `items` for a multi-select), as (value, label).
fn choices(field: &Value) -> Option<Vec<(String, String)>> {
    let titled = |list: &Value| -> Option<Vec<(String, String)>> {
        let list = list.as_array()?;
        Some(
            list.iter()
                .filter_map(|c| {
                    let value = c["const"].as_str()?.to_owned();
                    let title = c["title"].as_str().unwrap_or(&value).to_owned();
                    Some((value, title))
                })
                .collect(),
        )
    };
    if let Some(values) = field["enum"].as_array() {
        let names = field["enumNames"].as_array();
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_owned();
                    let label = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .unwrap_or(&value)
                        .to_owned();
                    Some((value, label))
                })
                .collect(),
        );
    }
    titled(&field["oneOf"]).or_else(|| titled(&field["anyOf"]))
}

fn ask_field(
    name: &str,
    field: &Value,
    needed: bool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Field> {
    let kind = field["type"].as_str().unwrap_or("string");
    let multi = kind == "array";
    let options = if multi {
        choices(&field["items"])
    } else {
        choices(field)
    };
    let mut label = format!("{name} ({kind}");
    if !needed {
        label.push_str(", optional");
    }
    label.push(')');
    if let Some(d) = field["description"].as_str().or(field["title"].as_str()) {
        label.push_str(&format!(": {d}"));
    }
    writeln!(out, "{label}")?;
    if let Some(options) = &options {
        for (i, (value, title)) in options.iter().enumerate() {
            writeln!(out, "  {}. {title} ({value})", i + 1)?;
        }
    }
    let default = field.get("default").filter(|d| !d.is_null());
    for _ in 0..ATTEMPTS {
        match default {
            Some(d) => write!(out, "  [{d}] > ")?,
            None => write!(out, "  > ")?,
        }
        out.flush()?;
        let Some(answer) = line(input)? else {
            return Ok(Field::Ended);
        };
        let answer = answer.trim();
        if answer.is_empty() {
            if let Some(d) = default {
                return Ok(Field::Value(d.clone()));
            }
            if !needed {
                return Ok(Field::Skipped);
            }
            writeln!(out, "  an answer is required")?;
            continue;
        }
        match parse(answer, kind, options.as_deref(), multi) {
            Ok(v) => return Ok(Field::Value(v)),
            Err(why) => writeln!(out, "  {why}")?,
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("no usable answer for `{name}` after {ATTEMPTS} tries"),
    ))
}

/// One choice by its number or its value.
fn pick(answer: &str, options: &[(String, String)]) -> Result<String, String> {
    if let Ok(n) = answer.parse::<usize>()
        && (1..=options.len()).contains(&n)
    {
        return Ok(options[n - 1].0.clone());
    }
    options
        .iter()
        .find(|(value, title)| value == answer || title == answer)
        .map(|(value, _)| value.clone())
        .ok_or_else(|| format!("choose one of 1–{} (or its value)", options.len()))
}

fn parse(
    answer: &str,
    kind: &str,
    options: Option<&[(String, String)]>,
    multi: bool,
) -> Result<Value, String> {
    if multi {
        let options = options.unwrap_or_default();
        let picked: Result<Vec<String>, String> = answer
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| pick(s, options))
            .collect();
        return picked.map(|p| json!(p));
    }
    if let Some(options) = options {
        return pick(answer, options).map(Value::String);
    }
    match kind {
        "integer" => answer
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "a whole number, please".to_owned()),
        "number" => answer
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| "a number, please".to_owned()),
        "boolean" => match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("yes or no, please".to_owned()),
        },
        _ => Ok(Value::String(answer.to_owned())),
    }
}

/// Shows what the server wants its client's model to answer, and takes the user's reply as
/// the model's (one line).
pub fn sample(
    params: &CreateMessageParams,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Option<CreateMessageResult>> {
    writeln!(
        out,
        "\nThe server asks your model (up to {} tokens):",
        params.max_tokens
    )?;
    if let Some(system) = &params.system_prompt {
        writeln!(out, "  system: {system}")?;
    }
    for message in &params.messages {
        let role = match message.role {
            SamplingRole::User => "user",
            SamplingRole::Assistant => "assistant",
        };
        let text = match &message.content {
            Value::Object(block) if block.get("type") == Some(&json!("text")) => {
                block["text"].as_str().unwrap_or_default().to_owned()
            }
            other => other.to_string(),
        };
        writeln!(out, "  {role}: {text}")?;
    }
    write!(out, "Answer as the model (empty to refuse): ")?;
    out.flush()?;
    Ok(line(input)?.filter(|l| !l.trim().is_empty()).map(|text| {
        CreateMessageResult::new(
            json!({"type": "text", "text": text}),
            "cargo-mcp (typed by the user)",
        )
        .with_stop_reason("endTurn")
    }))
}

/// The roots `cargo mcp call` offers: the current folder.
pub fn roots(cwd: &Path) -> Vec<Root> {
    vec![Root::from_path(cwd)]
}

/// Time spent waiting for the user, which `--timeout` does not count: a form takes as long
/// as it takes, the server does not.
#[derive(Debug, Default)]
pub struct PromptClock {
    /// Time of finished dialogues, and the start of the one under way.
    state: Mutex<(Duration, Option<Instant>)>,
}

impl PromptClock {
    /// Time spent in dialogues so far, the current one included.
    pub fn waited(&self) -> Duration {
        let (done, since) = *self.state.lock().unwrap_or_else(|e| e.into_inner());
        done + since.map_or(Duration::ZERO, |s| s.elapsed())
    }

    /// Whether a dialogue is under way.
    pub fn asking(&self) -> bool {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .is_some()
    }

    /// Runs `dialogue` with the clock paused.
    fn paused<T>(&self, dialogue: impl FnOnce() -> T) -> T {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).1 = Some(Instant::now());
        let out = dialogue();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(since) = state.1.take() {
            state.0 += since.elapsed();
        }
        out
    }
}

/// How a command (`call`, `read`, `prompt`) answers a server's questions, and what it says
/// when it cannot.
#[derive(Debug)]
pub struct Answering {
    /// Stdin is a terminal and the output is not `--json`.
    terminal: bool,
    /// `--json` was given.
    json: bool,
    /// The roots offered.
    cwd: PathBuf,
    /// Time spent answering.
    clock: Arc<PromptClock>,
}

impl Answering {
    /// Decides from `--json` and whether stdin is a terminal.
    pub fn new(json: bool) -> anyhow::Result<Self> {
        use anyhow::Context as _;
        use std::io::IsTerminal as _;
        Ok(Self {
            terminal: !json && io::stdin().is_terminal(),
            json,
            cwd: std::env::current_dir().context("cannot read the current folder")?,
            clock: Arc::default(),
        })
    }

    /// The handler to connect with (see [`handler`]).
    pub fn handler(&self) -> InputHandler {
        handler(self.terminal, self.cwd.clone(), self.clock.clone())
    }

    /// Runs `call` with `timeout`, not counting the time the user spends answering; `None`
    /// when the server took too long.
    pub async fn bounded<T>(
        &self,
        timeout: Duration,
        call: impl std::future::Future<Output = T>,
    ) -> Option<T> {
        let start = Instant::now();
        let mut call = std::pin::pin!(call);
        loop {
            // Never a busy loop, even at the edge.
            let deadline = (start + timeout + self.clock.waited()).max(Instant::now() + POLL);
            tokio::select! {
                out = &mut call => return Some(out),
                _ = tokio::time::sleep_until(deadline.into()) => {
                    if !self.clock.asking()
                        && Instant::now() >= start + timeout + self.clock.waited()
                    {
                        return None;
                    }
                }
            }
        }
    }

    /// Why `subject` (`the tool \`x\``) failed for want of a client capability (`-32021`),
    /// and what to do about it.
    pub fn needs_input(&self, subject: &str, error: &McpError) -> String {
        let required = error
            .data
            .as_ref()
            .and_then(|d| d.get("requiredCapabilities"));
        let mut needs: Vec<&str> = Vec::new();
        for (capability, detail) in required.and_then(Value::as_object).into_iter().flatten() {
            needs.push(
                match (capability.as_str(), detail.get("url"), detail.get("tools")) {
                    ("elicitation", Some(_), _) => "to open a URL for you (URL elicitation)",
                    ("elicitation", ..) => "you to fill in a form (elicitation)",
                    ("sampling", _, Some(_)) => {
                        "the client's model, with tools (sampling with tools)"
                    }
                    ("sampling", ..) => "the client's model (sampling)",
                    ("roots", ..) => "the client's roots",
                    _ => capability.as_str(),
                },
            );
        }
        let needs = match needs.is_empty() {
            true => format!("a client capability ({})", error.message),
            false => needs.join(" and "),
        };
        let why = if self.terminal {
            "which `cargo mcp` cannot answer"
        } else if self.json {
            "which `cargo mcp` answers only by asking you on a terminal, and not with --json \
             (its output is for programs)"
        } else {
            "which `cargo mcp` answers only by asking you on a terminal, and stdin is not one"
        };
        format!("{subject} needs {needs}, {why}")
    }
}

/// How `cargo mcp` answers a server's questions.
///
/// With `terminal` (stdin is a terminal and the output is not `--json`), all three kinds,
/// one dialogue at a time on stdin and stderr, the clock paused while the user answers.
/// Without, only roots (the current folder needs no one to answer): elicitation and
/// sampling are not declared, so a tool that can do without them carries on, and one that
/// cannot gets `-32021` naming the capability, which `call` turns into a clear failure.
/// Declaring them and then refusing every question would fail the tools that can do
/// without.
pub fn handler(terminal: bool, cwd: PathBuf, clock: Arc<PromptClock>) -> InputHandler {
    let handler = InputHandler::new().on_roots(move || {
        let roots = roots(&cwd);
        async move { Ok(roots) }
    });
    if !terminal {
        return handler;
    }
    // One dialogue at a time: a legacy server may ask twice at once.
    let turn = Arc::new(Mutex::new(()));
    let (elicit_turn, elicit_clock) = (turn.clone(), clock.clone());
    handler
        .on_elicit(move |params| {
            let (turn, clock) = (elicit_turn.clone(), elicit_clock.clone());
            on_terminal(turn, clock, move |input, out| elicit(&params, input, out))
        })
        .on_sample(move |params| {
            let (turn, clock) = (turn.clone(), clock.clone());
            async move {
                let reply =
                    on_terminal(turn, clock, move |input, out| sample(&params, input, out)).await?;
                // The code the specification's examples use for a user's refusal.
                reply.ok_or_else(|| {
                    McpError::new(ErrorCode(-1), "the user refused to answer as the model")
                })
            }
        })
}

/// Runs one dialogue on stdin and stderr, off the async threads, in turn.
async fn on_terminal<T: Send + 'static>(
    turn: Arc<Mutex<()>>,
    clock: Arc<PromptClock>,
    dialogue: impl FnOnce(&mut dyn BufRead, &mut dyn Write) -> io::Result<T> + Send + 'static,
) -> Result<T, McpError> {
    let asked = tokio::task::spawn_blocking(move || {
        let _turn = turn.lock().unwrap_or_else(|e| e.into_inner());
        clock.paused(|| dialogue(&mut io::stdin().lock(), &mut io::stderr().lock()))
    })
    .await;
    match asked {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(McpError::internal(format!(
            "asking on the terminal failed: {e}"
        ))),
        Err(e) => Err(McpError::internal(format!(
            "the terminal dialogue failed: {e}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::protocol::ElicitAction;

    fn form(schema: Value) -> ElicitRequestParams {
        ElicitRequestParams::form("Tell me about you", schema)
    }

    fn run(params: &ElicitRequestParams, typed: &str) -> (ElicitResult, String) {
        let mut input = io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let result = elicit(params, &mut input, &mut out).unwrap();
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_form_is_answered_field_by_field_with_defaults_and_choices() {
        let params = form(json!({
            "type": "object",
            "properties": {
                "age": {"type": "integer", "default": 30},
                "name": {"type": "string", "description": "Your name"},
                "nick": {"type": "string"},
                "status": {"type": "string", "oneOf": [
                    {"const": "a", "title": "Active"}, {"const": "i", "title": "Inactive"}]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}},
                "verified": {"type": "boolean"}
            },
            "required": ["name", "status", "verified"]
        }));
        // yes; age: default; name: empty (required: asked again) then Ada; nick: skipped;
        // status: 2; tags: 1,z; verified: maybe (asked again) then y.
        let (result, shown) = run(&params, "\n\n\nAda\n\n2\n1, z\nmaybe\ny\n");
        assert_eq!(result.action, ElicitAction::Accept);
        assert_eq!(
            Value::Object(result.content.unwrap()),
            json!({"age": 30, "name": "Ada", "status": "i", "tags": ["x", "z"], "verified": true})
        );
        assert!(shown.contains("Tell me about you"), "{shown}");
        assert!(shown.contains("2. Inactive (i)"), "{shown}");
        assert!(shown.contains("an answer is required"), "{shown}");
        assert!(shown.contains("name (string): Your name"), "{shown}");
    }

    #[test]
    fn decline_cancel_and_the_end_of_input_are_answers_too() {
        let params = form(json!({"type": "object", "properties": {"x": {"type": "string"}}}));
        assert_eq!(run(&params, "n\n").0.action, ElicitAction::Decline);
        assert_eq!(run(&params, "c\n").0.action, ElicitAction::Cancel);
        assert_eq!(run(&params, "").0.action, ElicitAction::Cancel);
        assert_eq!(
            run(&params, "y\n").0.action,
            ElicitAction::Cancel,
            "input ended mid-form"
        );
        let url = ElicitRequestParams::url("Sign in", "https://example.com/login", "e1");
        let (result, shown) = run(&url, "y\n");
        assert_eq!(result.action, ElicitAction::Accept);
        assert!(shown.contains("https://example.com/login"));
    }

    #[test]
    fn a_field_that_never_gets_a_usable_answer_is_an_error() {
        let params = form(
            json!({"type": "object", "properties": {"n": {"type": "integer"}},
                                 "required": ["n"]}),
        );
        let mut input = io::Cursor::new(b"y\nx\ny\nz\n".to_vec());
        let err = elicit(&params, &mut input, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("`n`"), "{err}");
    }

    #[test]
    fn sampling_shows_the_conversation_and_takes_the_reply() {
        let params = CreateMessageParams::new(50)
            .system_prompt("Be brief")
            .user("Capital of France?");
        let mut out = Vec::new();
        let reply = sample(&params, &mut io::Cursor::new(b"Paris\n".to_vec()), &mut out)
            .unwrap()
            .unwrap();
        assert_eq!(reply.text().as_deref(), Some("Paris"));
        let shown = String::from_utf8(out).unwrap();
        assert!(shown.contains("user: Capital of France?") && shown.contains("system: Be brief"));
        assert!(
            sample(
                &params,
                &mut io::Cursor::new(b"\n".to_vec()),
                &mut Vec::new()
            )
            .unwrap()
            .is_none()
        );
    }

    #[test]
    fn the_root_is_the_current_folder() {
        let roots = roots(Path::new("/work/my project"));
        assert_eq!(roots[0].uri, "file:///work/my%20project");
        assert_eq!(roots[0].name.as_deref(), Some("my project"));
    }
}
