//! `#[mcp_tool]`: the exact `tools/list` JSON generated for a representative set of tools,
//! calls through the macro path, and the generated schemas against the 2020-12 meta-schema.

use mcp_runtime::client::{Client, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::tool::{Rate, State, ToolPolicy};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Says hello.
#[mcp_tool]
async fn hello() -> &'static str {
    "hello"
}

/// Greets someone, politely if asked.
#[mcp_tool]
async fn greet(
    /// Who to greet
    name: String,
    /// Add "please"
    polite: Option<bool>,
) -> String {
    if polite.unwrap_or(false) {
        format!("Hello, {name}, please.")
    } else {
        format!("Hello, {name}.")
    }
}

/// Repeats a word.
#[mcp_tool]
async fn repeat(
    /// The word
    word: String,
    /// How many times
    #[mcp(default = 2)]
    times: u32,
    /// Separator between repetitions
    #[mcp(default)]
    separator: String,
) -> String {
    vec![word; times as usize].join(&separator)
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// Degrees Celsius
    Celsius,
    /// Degrees Fahrenheit
    Fahrenheit,
}

/// A place on Earth.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
struct Location {
    /// City name
    city: String,
    /// ISO country code
    country: Option<String>,
}

/// Current weather.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
struct Weather {
    /// Temperature in the requested unit
    temperature: f64,
    unit: Unit,
}

/// Current weather for a place.
#[mcp_tool(read_only, open_world, title = "Weather")]
async fn weather(
    /// Where
    location: Location,
    /// Temperature unit
    unit: Option<Unit>,
) -> Result<Json<Weather>, String> {
    if location.city.is_empty() {
        return Err("city must not be empty; give a city name such as \"Seoul\"".into());
    }
    let unit = unit.unwrap_or(Unit::Celsius);
    let temperature = match unit {
        Unit::Celsius => 21.5,
        Unit::Fahrenheit => 70.7,
    };
    Ok(Json(Weather { temperature, unit }))
}

/// Total length of the stops of a route.
#[mcp_tool(name = "route.length", idempotent = true, destructive = false, read_only = false, open_world = false, icons = ["https://example.com/route.png"])]
async fn route_length(
    /// The stops
    stops: Vec<Location>,
    /// Count only distinct cities
    #[serde(rename = "distinctOnly")]
    distinct_only: Option<bool>,
) -> Json<usize> {
    let mut cities: Vec<&str> = stops.iter().map(|s| s.city.as_str()).collect();
    if distinct_only.unwrap_or(false) {
        cities.sort_unstable();
        cities.dedup();
    }
    Json(cities.len())
}

/// Counts calls, using shared state and the request context.
#[mcp_tool]
async fn counted(State(counter): State<Arc<AtomicU64>>, cx: RequestContext) -> String {
    let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
    format!("call {n} in the {} era", cx.era())
}

/// Counts calls per key; a repeated call is answered from the cache for a minute.
#[mcp_tool(read_only, idempotent, cache = "60s")]
async fn cached_count(State(counter): State<Arc<AtomicU64>>, key: String) -> String {
    let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{key}: call {n}")
}

/// A stateful server whose methods are tools.
struct Notes {
    prefix: String,
}

#[mcp_tools]
impl Notes {
    /// Prefixes a note.
    #[mcp_tool(read_only)]
    async fn note(
        &self,
        /// The note text
        text: String,
    ) -> String {
        format!("{}{text}", self.prefix)
    }
}

/// Reads a file, under every policy.
#[mcp_tool(
    read_only,
    idempotent,
    timeout = "30s",
    concurrency = 4,
    rate_limit = "10/s",
    cache = "60s",
    scopes = ["files:write", "admin"]
)]
async fn guarded(path: String) -> String {
    path
}

/// A server whose method declares policies.
struct Limited;

#[mcp_tools]
impl Limited {
    /// Looks a key up, under every policy.
    #[mcp_tool(
        read_only,
        idempotent,
        timeout = "250ms",
        concurrency = 1,
        rate_limit = "100/m",
        cache = "2h",
        scopes = ["kv:read"]
    )]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn server() -> Server {
    let notes = Arc::new(Notes {
        prefix: "note: ".into(),
    });
    Server::builder("macro-test", "1.0.0")
        .state(Arc::new(AtomicU64::new(0)))
        .tool(hello::tool())
        .tool(greet::tool())
        .tool(repeat::tool())
        .tool(weather::tool())
        .tool(route_length::tool())
        .tool(counted::tool())
        .tools(notes.mcp_tools())
        .build()
        .unwrap()
}

fn expected_tools() -> Value {
    let location = json!({
        "properties": {
            "city": {"description": "City name", "type": "string"},
            "country": {"description": "ISO country code", "type": "string"}
        },
        "required": ["city"],
        "type": "object"
    });
    let unit_choices = json!([
        {"const": "celsius", "description": "Degrees Celsius", "type": "string"},
        {"const": "fahrenheit", "description": "Degrees Fahrenheit", "type": "string"}
    ]);
    let no_params = json!({"additionalProperties": false, "type": "object"});
    let mut stop = location.clone();
    stop["description"] = json!("A place on Earth.");
    let mut where_ = location.clone();
    where_["description"] = json!("Where");
    json!([
        {
            "name": "counted",
            "description": "Counts calls, using shared state and the request context.",
            "inputSchema": no_params
        },
        {
            "name": "greet",
            "description": "Greets someone, politely if asked.",
            "inputSchema": {
                "additionalProperties": false,
                "properties": {
                    "name": {"description": "Who to greet", "type": "string"},
                    "polite": {"description": "Add \"please\"", "type": "boolean"}
                },
                "required": ["name"],
                "type": "object"
            }
        },
        {"name": "hello", "description": "Says hello.", "inputSchema": no_params},
        {
            "name": "note",
            "description": "Prefixes a note.",
            "annotations": {"readOnlyHint": true},
            "inputSchema": {
                "additionalProperties": false,
                "properties": {"text": {"description": "The note text", "type": "string"}},
                "required": ["text"],
                "type": "object"
            }
        },
        {
            "name": "repeat",
            "description": "Repeats a word.",
            "inputSchema": {
                "additionalProperties": false,
                "properties": {
                    "separator": {"default": "", "description": "Separator between repetitions", "type": "string"},
                    "times": {"default": 2, "description": "How many times", "minimum": 0, "type": "integer"},
                    "word": {"description": "The word", "type": "string"}
                },
                "required": ["word"],
                "type": "object"
            }
        },
        {
            "name": "route.length",
            "description": "Total length of the stops of a route.",
            "annotations": {"destructiveHint": false, "idempotentHint": true, "openWorldHint": false, "readOnlyHint": false},
            "icons": [{"src": "https://example.com/route.png"}],
            "inputSchema": {
                "additionalProperties": false,
                "properties": {
                    "distinctOnly": {"description": "Count only distinct cities", "type": "boolean"},
                    "stops": {"description": "The stops", "items": stop, "type": "array"}
                },
                "required": ["stops"],
                "type": "object"
            },
            "outputSchema": {"minimum": 0, "type": "integer"}
        },
        {
            "name": "weather",
            "title": "Weather",
            "description": "Current weather for a place.",
            "annotations": {"openWorldHint": true, "readOnlyHint": true},
            "inputSchema": {
                "additionalProperties": false,
                "properties": {
                    "location": where_,
                    "unit": {"description": "Temperature unit", "oneOf": unit_choices}
                },
                "required": ["location"],
                "type": "object"
            },
            "outputSchema": {
                "description": "Current weather.",
                "properties": {
                    "temperature": {"description": "Temperature in the requested unit", "type": "number"},
                    "unit": {"description": "A temperature unit.", "oneOf": unit_choices}
                },
                "required": ["temperature", "unit"],
                "type": "object"
            }
        }
    ])
}

#[tokio::test]
async fn generated_tool_list_is_exactly_as_expected() {
    let c = Client::memory(&server());
    c.connect(EraMode::Modern).await.unwrap();
    let list = c.request("tools/list", None).await.unwrap();
    assert_eq!(list["tools"], expected_tools(), "{:#}", list["tools"]);
}

#[tokio::test]
async fn legacy_clients_see_non_object_output_wrapped() {
    let c = Client::memory(&server());
    c.connect(EraMode::Legacy).await.unwrap();
    let tools = c.list_tools().await.unwrap();
    let route = tools.iter().find(|t| t.name == "route.length").unwrap();
    assert_eq!(
        route.output_schema,
        Some(
            json!({"type": "object", "properties": {"result": {"minimum": 0, "type": "integer"}}, "required": ["result"]})
        )
    );
    let r = c
        .call_tool(
            "route.length",
            json!({"stops": [{"city": "Seoul"}, {"city": "Seoul"}], "distinctOnly": true}),
        )
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"result": 1})));
}

#[tokio::test]
async fn calls_go_through_the_macro_path() {
    let c = Client::memory(&server());
    c.connect(EraMode::Modern).await.unwrap();
    let text = |r: CallToolResult| r.first_text().map(str::to_owned);
    assert_eq!(
        text(c.call_tool("hello", json!({})).await.unwrap()).as_deref(),
        Some("hello")
    );
    assert_eq!(
        text(
            c.call_tool("greet", json!({"name": "Ada", "polite": true}))
                .await
                .unwrap()
        )
        .as_deref(),
        Some("Hello, Ada, please.")
    );
    assert_eq!(
        text(c.call_tool("greet", json!({"name": "Ada"})).await.unwrap()).as_deref(),
        Some("Hello, Ada.")
    );
    // Defaults: `times` = 2, `separator` = "".
    assert_eq!(
        text(c.call_tool("repeat", json!({"word": "ab"})).await.unwrap()).as_deref(),
        Some("abab")
    );
    assert_eq!(
        text(
            c.call_tool(
                "repeat",
                json!({"word": "ab", "times": 3, "separator": "-"})
            )
            .await
            .unwrap()
        )
        .as_deref(),
        Some("ab-ab-ab")
    );
    // Structured output with its text copy.
    let w = c
        .call_tool(
            "weather",
            json!({"location": {"city": "Seoul"}, "unit": "fahrenheit"}),
        )
        .await
        .unwrap();
    assert_eq!(
        w.structured_content,
        Some(json!({"temperature": 70.7, "unit": "fahrenheit"}))
    );
    assert_eq!(
        w.first_text(),
        Some(r#"{"temperature":70.7,"unit":"fahrenheit"}"#)
    );
    // The `Err` path: an isError result carrying the error's text.
    let e = c
        .call_tool("weather", json!({"location": {"city": ""}}))
        .await
        .unwrap();
    assert!(e.is_error());
    assert_eq!(
        e.first_text(),
        Some("city must not be empty; give a city name such as \"Seoul\"")
    );
    // Validation happens before the function runs: an unknown enum value, an extra field.
    let bad = c
        .call_tool(
            "weather",
            json!({"location": {"city": "Seoul"}, "unit": "kelvin", "extra": 1}),
        )
        .await
        .unwrap();
    assert!(bad.is_error());
    let msg = bad.first_text().unwrap();
    assert!(
        msg.contains("at /unit:") && msg.contains("'extra'"),
        "{msg}"
    );
    // Injected state and context.
    assert_eq!(
        text(c.call_tool("counted", json!({})).await.unwrap()).as_deref(),
        Some("call 1 in the modern era")
    );
    assert_eq!(
        text(c.call_tool("counted", json!({})).await.unwrap()).as_deref(),
        Some("call 2 in the modern era")
    );
    // A method bound to its instance.
    assert_eq!(
        text(c.call_tool("note", json!({"text": "hi"})).await.unwrap()).as_deref(),
        Some("note: hi")
    );
}

#[test]
fn a_server_without_a_tools_state_fails_to_build() {
    let error = Server::builder("macro-test", "1.0.0")
        .tool(counted::tool())
        .tool(hello::tool())
        .build()
        .unwrap_err();
    assert_eq!(error.errors.len(), 1, "{error}");
    let text = error.to_string();
    assert!(
        text.contains("tool `counted` needs state the server was not given")
            && text.contains("AtomicU64"),
        "{text}"
    );
}

#[tokio::test]
async fn a_rejected_extraction_becomes_an_error_result() {
    // Called outside a server, so with no state: `State<Arc<AtomicU64>>` rejects with
    // `MissingState`, and its text is what the model gets.
    let r = counted::tool()
        .call(Default::default(), RequestContext::detached())
        .await;
    assert!(r.is_error());
    let text = r.first_text().unwrap();
    assert!(
        text.starts_with("the server has no state of type `")
            && text.contains("AtomicU64")
            && text.ends_with("give one to `ServerBuilder::state` (a server configuration error)"),
        "{text}"
    );
}

#[tokio::test]
async fn functions_stay_callable_as_written() {
    assert_eq!(greet("Ada".into(), None).await, "Hello, Ada.");
    assert_eq!(repeat("x".into(), 3, ",".into()).await, "x,x,x");
    let notes = Notes {
        prefix: "> ".into(),
    };
    assert_eq!(notes.note("hi".into()).await, "> hi");
}

#[test]
fn policy_keys_become_the_tool_policy() {
    assert_eq!(
        guarded::tool().policy(),
        ToolPolicy::new()
            .timeout(Duration::from_millis(30_000))
            .concurrency(4)
            .rate_limit(Rate::new(10, Duration::from_secs(1)))
            .cache(Duration::from_millis(60_000))
            .scope("files:write")
            .scope("admin")
    );
    let limited = Arc::new(Limited).mcp_tools();
    assert_eq!(
        limited[0].policy(),
        ToolPolicy::new()
            .timeout(Duration::from_millis(250))
            .concurrency(1)
            .rate_limit(Rate::new(100, Duration::from_secs(60)))
            .cache(Duration::from_secs(2 * 3600))
            .scope("kv:read")
    );
    // Without policy keys, the trait's default: no `fn policy` is generated.
    assert_eq!(hello::tool().policy(), ToolPolicy::default());
    assert_eq!(weather::tool().policy(), ToolPolicy::default());
    let notes = Arc::new(Notes { prefix: "".into() }).mcp_tools();
    assert_eq!(notes[0].policy(), ToolPolicy::default());
    // `cache` on these read-only, idempotent tools and `scopes` are accepted.
    let server = Server::builder("policy-test", "1.0.0")
        .tool(guarded::tool())
        .tools(limited)
        .build()
        .expect("declared caches and scopes are enforced, not refused");
    assert_eq!(server.tools().names(), ["guarded", "lookup"]);
}

#[tokio::test]
async fn a_cache_key_on_the_attribute_caches_results() {
    assert_eq!(
        cached_count::tool().policy(),
        ToolPolicy::new().cache(Duration::from_secs(60))
    );
    let server = Server::builder("cache-test", "1.0.0")
        .state(Arc::new(AtomicU64::new(0)))
        .tool(cached_count::tool())
        .build()
        .unwrap();
    let c = Client::memory(&server);
    c.connect(EraMode::Modern).await.unwrap();
    for (key, expected) in [("a", "a: call 1"), ("a", "a: call 1"), ("b", "b: call 2")] {
        let r = c
            .call_tool("cached_count", json!({ "key": key }))
            .await
            .unwrap();
        assert_eq!(r.first_text(), Some(expected), "{r:?}");
    }
}

#[test]
fn every_attributed_tool_is_collected() {
    let names: Vec<String> = mcp_runtime::tool::collected()
        .iter()
        .map(|t| t.definition().name)
        .collect();
    for name in [
        "hello",
        "greet",
        "repeat",
        "weather",
        "route.length",
        "counted",
    ] {
        assert!(
            names.iter().any(|n| n == name),
            "{name} missing from {names:?}"
        );
    }
    assert!(
        !names.iter().any(|n| n == "note"),
        "methods need an instance and are not collected"
    );
}

#[tokio::test]
async fn generated_schemas_are_valid_json_schema_2020_12() {
    let c = Client::memory(&server());
    c.connect(EraMode::Modern).await.unwrap();
    let tools = c.list_tools().await.unwrap();
    assert_eq!(tools.len(), 7);
    for tool in tools {
        let input = Value::Object(tool.input_schema.clone());
        jsonschema::draft202012::meta::validate(&input).unwrap_or_else(|e| {
            panic!(
                "input schema of {} is not valid 2020-12: {e}\n{input:#}",
                tool.name
            )
        });
        if let Some(output) = &tool.output_schema {
            jsonschema::draft202012::meta::validate(output).unwrap_or_else(|e| {
                panic!(
                    "output schema of {} is not valid 2020-12: {e}\n{output:#}",
                    tool.name
                )
            });
        }
    }
    // The check is not vacuous: a broken schema fails it.
    assert!(jsonschema::draft202012::meta::validate(&json!({"type": 12})).is_err());
}
