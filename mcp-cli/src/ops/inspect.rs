//! What `list`, `call` and `schema` show: tables of tools, resources, resource templates and
//! prompts, arguments from `key=value` pairs typed by the tool's schema, a readable tool
//! result, and the `tools/list` snapshot format with its comparison.

use anyhow::{Result, anyhow};
use mcp_runtime::protocol::{
    CallToolResult, Content, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition,
    ToolDefinition,
};
use serde_json::{Map, Value, json};

/// The longest description shown in a table cell that does not wrap.
const DESCRIPTION_WIDTH: usize = 72;

/// The longest description shown in a cell that wraps (a few lines on a narrow terminal).
const WRAPPED_DESCRIPTION_WIDTH: usize = 240;

/// A tool's arguments with their types: `city: string, days: integer, unit?: "c"|"f"`
/// (`?` marks the optional ones; see [`schema_type`]).
pub fn argument_summary(tool: &ToolDefinition) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
    else {
        return String::new();
    };
    properties
        .iter()
        .map(|(k, schema)| {
            let mark = if required.contains(&k.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{k}{mark}: {}", schema_type(schema))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A property schema's type in a few characters: `string`, `integer`, `string|null`,
/// `number[]`, an enum's values (`"c"|"f"`, at most four), a `$ref`'s name, `object`, or
/// `any` when the schema does not say.
pub fn schema_type(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let mut shown: Vec<String> = values.iter().take(4).map(Value::to_string).collect();
        if values.len() > 4 {
            shown.push("…".into());
        }
        return shown.join("|");
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let mut types: Vec<String> = Vec::new();
            for option in options.iter().map(schema_type) {
                if !types.contains(&option) {
                    types.push(option);
                }
            }
            return types.join("|");
        }
    }
    let one = |t: &str| match t {
        "array" => format!(
            "{}[]",
            schema
                .get("items")
                .map(schema_type)
                .unwrap_or_else(|| "any".into())
        ),
        other => other.to_owned(),
    };
    match schema.get("type") {
        Some(Value::String(t)) => one(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(one)
            .collect::<Vec<_>>()
            .join("|"),
        _ if schema.get("properties").is_some() => "object".into(),
        _ => "any".into(),
    }
}

/// The width `list` lays its tables out in: `$COLUMNS` when set, else the terminal's when
/// stdout is one; `None` (no wrapping) when printing to a file or a pipe.
pub fn output_width() -> Option<usize> {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|c| *c > 0)
    {
        return Some(columns);
    }
    terminal_size::terminal_size_of(std::io::stdout())
        .map(|(terminal_size::Width(w), _)| usize::from(w))
}

fn first_line(text: &str, width: usize) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() <= width {
        line.to_owned()
    } else {
        let cut: String = line.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// The narrowest a wrapped column gets.
const MIN_WRAPPED: usize = 16;

/// The widest a middle column (arguments, names) gets when the table must wrap.
const MAX_MIDDLE: usize = 40;

/// Rows under a header, each column as wide as its widest cell, two spaces between
/// columns, no trailing spaces. Given a `width` the table does not fit in, the middle
/// columns wrap at [`MAX_MIDDLE`] characters and the last one takes the rest (at least
/// [`MIN_WRAPPED`]), each cell wrapped at word boundaries (`textwrap`) onto as many lines as
/// it needs; the first column (what you type: a name, a URI) never wraps.
pub fn table<const N: usize>(
    header: [&str; N],
    rows: &[[String; N]],
    width: Option<usize>,
) -> String {
    let header = header.map(str::to_owned);
    let cell_width = |s: &String| textwrap::core::display_width(s);
    let mut widths: Vec<usize> = (0..N)
        .map(|i| {
            rows.iter()
                .chain(std::iter::once(&header))
                .map(|r| cell_width(&r[i]))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let total = |widths: &[usize]| widths.iter().sum::<usize>() + 2 * N.saturating_sub(1);
    if let Some(width) = width
        && N > 1
        && total(&widths) > width
    {
        for w in widths.iter_mut().take(N - 1).skip(1) {
            *w = (*w).min(MAX_MIDDLE);
        }
        let before_last = total(&widths) - widths[N - 1];
        widths[N - 1] = width.saturating_sub(before_last).max(MIN_WRAPPED);
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows) {
        let cells: Vec<Vec<String>> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i == 0 || cell_width(cell) <= widths[i] {
                    vec![cell.clone()]
                } else {
                    textwrap::wrap(cell, widths[i])
                        .into_iter()
                        .map(|l| l.into_owned())
                        .collect()
                }
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for line_index in 0..height {
            let mut line = String::new();
            for (i, cell) in cells.iter().enumerate() {
                let text = cell.get(line_index).map(String::as_str).unwrap_or("");
                if i + 1 == N {
                    line.push_str(text);
                } else {
                    let pad = widths[i].saturating_sub(textwrap::core::display_width(text));
                    line.push_str(text);
                    line.push_str(&" ".repeat(pad + 2));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

/// The first line of a description (or of the title when there is none), cut to fit a cell;
/// in a table laid out for a `width`, where the cell wraps, cut only past
/// [`WRAPPED_DESCRIPTION_WIDTH`].
fn about(description: Option<&str>, title: Option<&str>, width: Option<usize>) -> String {
    let cut = match width {
        Some(_) => WRAPPED_DESCRIPTION_WIDTH,
        None => DESCRIPTION_WIDTH,
    };
    first_line(description.or(title).unwrap_or(""), cut)
}

/// The tools as a table: name, typed arguments, the first line of the description (after
/// the tool's MCP Apps view, when it has one: `[view ui://…]`); laid out in `width` columns
/// when given (see [`table`]).
pub fn tools_table(tools: &[ToolDefinition], width: Option<usize>) -> String {
    let rows: Vec<[String; 3]> = tools
        .iter()
        .map(|t| {
            let about = about(t.description.as_deref(), None, width);
            let about = match t.app() {
                Some(ui) => format!("[view {}] {about}", ui.resource_uri),
                None => about,
            };
            [t.name.clone(), argument_summary(t), about]
        })
        .collect();
    table(["NAME", "ARGUMENTS", "DESCRIPTION"], &rows, width)
}

/// The resources as a table: URI, name, MIME type, the first line of the description.
pub fn resources_table(resources: &[ResourceDefinition], width: Option<usize>) -> String {
    let rows: Vec<[String; 4]> = resources
        .iter()
        .map(|r| {
            [
                r.uri.clone(),
                r.name.clone(),
                r.mime_type.clone().unwrap_or_default(),
                about(r.description.as_deref(), r.title.as_deref(), width),
            ]
        })
        .collect();
    table(["URI", "NAME", "MIME TYPE", "DESCRIPTION"], &rows, width)
}

/// The resource templates as a table: URI template, name, the first line of the
/// description.
pub fn templates_table(templates: &[ResourceTemplateDefinition], width: Option<usize>) -> String {
    let rows: Vec<[String; 3]> = templates
        .iter()
        .map(|t| {
            [
                t.uri_template.clone(),
                t.name.clone(),
                about(t.description.as_deref(), t.title.as_deref(), width),
            ]
        })
        .collect();
    table(["URI TEMPLATE", "NAME", "DESCRIPTION"], &rows, width)
}

/// The skills as a table: the `SKILL.md` URI (what `cargo mcp read` takes), how many files
/// the skill has (or `dynamic`), the first line of the description.
pub fn skills_table(
    skills: &[mcp_runtime::protocol::skills::SkillEntry],
    width: Option<usize>,
) -> String {
    use mcp_runtime::protocol::skills::SkillResources;
    let rows: Vec<[String; 3]> = skills
        .iter()
        .map(|s| {
            let files = match &s.resources {
                SkillResources::Files(files) => {
                    let bytes: u64 = files.iter().map(|f| f.size).sum();
                    format!("{}, {bytes} B", count(files.len(), "file"))
                }
                SkillResources::Dynamic => "dynamic".to_owned(),
                // A kind of manifest this build does not know.
                _ => String::new(),
            };
            [s.uri.clone(), files, about(s.description(), None, width)]
        })
        .collect();
    table(["URI", "FILES", "DESCRIPTION"], &rows, width)
}

/// A prompt's arguments as `name, style?` (`?` marks the optional ones).
pub fn prompt_argument_summary(prompt: &PromptDefinition) -> String {
    prompt
        .arguments
        .iter()
        .flatten()
        .map(|a| {
            if a.required == Some(true) {
                a.name.clone()
            } else {
                format!("{}?", a.name)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The prompts as a table: name, arguments, the first line of the description.
pub fn prompts_table(prompts: &[PromptDefinition], width: Option<usize>) -> String {
    let rows: Vec<[String; 3]> = prompts
        .iter()
        .map(|p| {
            [
                p.name.clone(),
                prompt_argument_summary(p),
                about(p.description.as_deref(), p.title.as_deref(), width),
            ]
        })
        .collect();
    table(["NAME", "ARGUMENTS", "DESCRIPTION"], &rows, width)
}

/// `1 tool`, `2 prompts`, `1 resource template`.
pub fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The JSON type(s) a property's schema names.
fn property_types(schema: Option<&Value>) -> Vec<String> {
    match schema.and_then(|s| s.get("type")) {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The arguments of a call: `--args JSON` (an object), then each `key=value` on top.
///
/// A value is taken as JSON (`3`, `true`, `[1,2]`, `{"a":1}`, `"quoted"`) unless the
/// property is declared a string, or it does not parse as JSON; then it is the text as
/// written. So `city=Seoul` and `count=3` both do what they look like.
pub fn call_arguments(
    json_args: Option<&str>,
    pairs: &[String],
    tool: Option<&ToolDefinition>,
) -> Result<Value> {
    let mut arguments = match json_args {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(crate::error::usage(
                    "--args must be a JSON object, e.g. '{\"a\": 1}'",
                ));
            }
            Err(e) => return Err(crate::error::usage(format!("--args is not JSON: {e}"))),
        },
    };
    let properties = tool
        .and_then(|t| t.input_schema.get("properties"))
        .and_then(Value::as_object);
    for pair in pairs {
        let (key, raw) = pair.split_once('=').ok_or_else(|| {
            crate::error::usage(format!("`{pair}` is not key=value (use --args for JSON)"))
        })?;
        if key.is_empty() {
            return Err(crate::error::usage(format!("`{pair}` has an empty key")));
        }
        let types = property_types(properties.and_then(|p| p.get(key)));
        let is_string_only = !types.is_empty() && types.iter().all(|t| t == "string");
        let value = if is_string_only {
            Value::String(raw.to_owned())
        } else {
            serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
        };
        arguments.insert(key.to_owned(), value);
    }
    Ok(Value::Object(arguments))
}

/// The closest tool names to `name`, for "did you mean".
pub fn similar_names<'a>(name: &str, tools: &'a [ToolDefinition]) -> Vec<&'a str> {
    closest(name, tools.iter().map(|t| t.name.as_str()))
}

/// The (at most three) candidates closest to `name`, best first, for "did you mean".
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| (similar::TextDiff::from_chars(name, c).ratio() as f64, c))
        .filter(|(score, _)| *score >= 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|(_, n)| n).take(3).collect()
}

/// A result for people: text blocks as they are, other blocks summarized, structured
/// content pretty-printed when no text block carries it.
pub fn render_result(result: &CallToolResult) -> String {
    let mut out = Vec::new();
    for block in &result.content {
        out.push(match block {
            Content::Text(t) => t.text.clone(),
            Content::Image(b) => {
                format!("[image {}, {} bytes of base64]", b.mime_type, b.data.len())
            }
            Content::Audio(b) => {
                format!("[audio {}, {} bytes of base64]", b.mime_type, b.data.len())
            }
            Content::ResourceLink(l) => format!("[resource link {} ({})]", l.uri, l.name),
            Content::Resource(r) => format!(
                "[embedded resource] {}",
                serde_json::to_string(&r.resource).unwrap_or_default()
            ),
            // A kind of content newer than this match: shown as it came.
            other => serde_json::to_string(other).unwrap_or_default(),
        });
    }
    if out.is_empty()
        && let Some(structured) = &result.structured_content
    {
        out.push(serde_json::to_string_pretty(structured).unwrap_or_default());
    }
    let mut text = out.join("\n");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The snapshot of a tool list, as `schema` prints it and the generated projects commit
/// it: `{"tools": [...]}`, keys sorted, two-space indentation, a final newline.
pub fn snapshot(tools: &[ToolDefinition]) -> String {
    // Through `Value`, whose maps are sorted: the text does not depend on field order.
    let value = json!({ "tools": tools });
    let mut text = serde_json::to_string_pretty(&value).expect("tool definitions serialize");
    text.push('\n');
    text
}

/// Compares a committed snapshot with the live tools. `Ok(None)` when equal (as JSON:
/// formatting does not matter), else a unified diff from the file to the live list.
pub fn compare_snapshot(
    committed: &str,
    tools: &[ToolDefinition],
    file_name: &str,
) -> Result<Option<String>> {
    let expected: Value =
        serde_json::from_str(committed).map_err(|e| anyhow!("{file_name} is not JSON: {e}"))?;
    let actual = json!({ "tools": tools });
    if expected == actual {
        return Ok(None);
    }
    let normalize = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
    let (old, new) = (normalize(&expected), normalize(&actual));
    let diff = similar::TextDiff::from_lines(&old, &new)
        .unified_diff()
        .context_radius(3)
        .header(file_name, "the server's tools/list")
        .to_string();
    Ok(Some(diff))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> ToolDefinition {
        ToolDefinition::new(
            "get_weather",
            "Current weather for a city.\nMore detail.",
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "tags": {"type": "array"},
                    "unit": {"type": ["string", "null"]}
                },
                "required": ["city", "days"]
            }),
        )
    }

    #[test]
    fn tables_show_names_arguments_and_first_lines() {
        let table = tools_table(&[tool()], None);
        assert_eq!(
            table,
            "NAME         ARGUMENTS                                                      DESCRIPTION\n\
             get_weather  city: string, days: integer, tags?: any[], unit?: string|null  Current weather for a city.\n"
        );
        let wrapped = tools_table(&[tool()], Some(60));
        assert_eq!(
            wrapped,
            "NAME         ARGUMENTS                                 DESCRIPTION\n\
             get_weather  city: string, days: integer, tags?:       Current weather\n\
             \x20            any[], unit?: string|null                 for a city.\n"
        );
    }

    #[test]
    fn argument_types_are_short() {
        for (schema, shown) in [
            (json!({"type": "string"}), "string"),
            (json!({"type": ["integer", "null"]}), "integer|null"),
            (
                json!({"type": "array", "items": {"type": "number"}}),
                "number[]",
            ),
            (json!({"enum": ["c", "f"]}), "\"c\"|\"f\""),
            (json!({"enum": [1, 2, 3, 4, 5]}), "1|2|3|4|…"),
            (json!({"$ref": "#/$defs/Unit"}), "Unit"),
            (
                json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                "string|null",
            ),
            (json!({"properties": {}}), "object"),
            (json!({}), "any"),
        ] {
            assert_eq!(schema_type(&schema), shown, "{schema}");
        }
    }

    #[test]
    fn other_primitives_have_tables_too() {
        let readme = ResourceDefinition::new("echo://readme", "readme")
            .with_mime_type("text/markdown")
            .with_description("What this server does.\nMore.");
        let bare = ResourceDefinition::new("a://b", "b");
        assert_eq!(
            resources_table(&[readme, bare], None),
            "URI            NAME    MIME TYPE      DESCRIPTION\n\
             echo://readme  readme  text/markdown  What this server does.\n\
             a://b          b\n"
        );
        let greeting = ResourceTemplateDefinition::new("echo://greeting/{name}", "greeting");
        assert_eq!(
            templates_table(&[greeting], None),
            "URI TEMPLATE            NAME      DESCRIPTION\n\
             echo://greeting/{name}  greeting\n"
        );
        let greet = PromptDefinition::new("greet", "Asks for a greeting.")
            .with_argument(mcp_runtime::protocol::PromptArgument::required(
                "name", "Who",
            ))
            .with_argument(mcp_runtime::protocol::PromptArgument::optional(
                "style", "How",
            ));
        assert_eq!(
            prompts_table(&[greet], None),
            "NAME   ARGUMENTS     DESCRIPTION\n\
             greet  name, style?  Asks for a greeting.\n"
        );
        let skill = mcp_runtime::protocol::skills::SkillEntry::new(
            "skill://pdf/SKILL.md",
            json!({"name": "pdf", "description": "Fills PDF forms.\nMore."})
                .as_object()
                .cloned()
                .unwrap(),
            mcp_runtime::protocol::skills::SkillResources::Files(vec![
                mcp_runtime::protocol::skills::SkillFile::new(
                    "skill://pdf/SKILL.md",
                    "sha256:0",
                    40,
                ),
                mcp_runtime::protocol::skills::SkillFile::new("skill://pdf/a.md", "sha256:1", 2),
            ]),
        );
        assert_eq!(
            skills_table(&[skill], None),
            "URI                   FILES          DESCRIPTION\n\
             skill://pdf/SKILL.md  2 files, 42 B  Fills PDF forms.\n"
        );
        assert_eq!(
            (count(1, "tool"), count(0, "prompt")),
            ("1 tool".into(), "0 prompts".into())
        );
    }

    #[test]
    fn pairs_are_typed_by_the_schema() {
        let args = call_arguments(
            Some(r#"{"days": 1, "extra": true}"#),
            &[
                "city=123".into(),
                "days=3".into(),
                "tags=[\"a\"]".into(),
                "unit=celsius".into(),
                "other=null".into(),
            ],
            Some(&tool()),
        )
        .unwrap();
        assert_eq!(
            args,
            json!({"city": "123", "days": 3, "tags": ["a"], "unit": "celsius", "extra": true, "other": null})
        );
        assert!(call_arguments(None, &["novalue".into()], None).is_err());
        assert!(call_arguments(Some("[1]"), &[], None).is_err());
        assert_eq!(call_arguments(None, &[], None).unwrap(), json!({}));
    }

    #[test]
    fn suggests_close_names() {
        assert_eq!(similar_names("get_wether", &[tool()]), ["get_weather"]);
        assert!(similar_names("zzz", &[tool()]).is_empty());
    }

    #[test]
    fn snapshots_compare_as_json() {
        let tools = [tool()];
        let text = snapshot(&tools);
        assert!(text.starts_with("{\n  \"tools\": [\n"));
        assert_eq!(compare_snapshot(&text, &tools, "tools.json").unwrap(), None);
        let compact = serde_json::to_string(&json!({"tools": tools})).unwrap();
        assert_eq!(
            compare_snapshot(&compact, &tools, "tools.json").unwrap(),
            None
        );
        let mut changed = tool();
        changed.description = Some("Changed.".into());
        let diff = compare_snapshot(&text, &[changed], "tools.json")
            .unwrap()
            .unwrap();
        assert!(
            diff.contains("-      \"description\": \"Current weather"),
            "{diff}"
        );
        assert!(
            diff.contains("+      \"description\": \"Changed.\""),
            "{diff}"
        );
        assert!(compare_snapshot("nope", &tools, "tools.json").is_err());
    }

    #[test]
    fn results_render_for_people() {
        let text = render_result(&CallToolResult::text("5"));
        assert_eq!(text, "5\n");
        // Structured content and no text block carrying it.
        let mut structured = CallToolResult::default();
        structured.structured_content = Some(json!({"a": 1}));
        assert_eq!(render_result(&structured), "{\n  \"a\": 1\n}\n");
    }
}
