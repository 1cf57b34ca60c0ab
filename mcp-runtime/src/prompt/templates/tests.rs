//! Unit tests of prompt templates: every format, the seed design's example, every load
//! error with its position, and rendering without resources (resources are read through a
//! real server in `tests/it/prompt_templates.rs`).

use super::*;
use crate::protocol::{Content, Role};
use std::collections::BTreeMap;

const SEED: &str = include_str!("fixtures/summarize_file.json");

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn args(pairs: &[(&str, &str)]) -> PromptArguments {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn load_one(name: &str, text: &str) -> TemplatePrompt {
    let dir = dir_with(&[(name, text)]);
    match TemplatePrompt::from_file(dir.path().join(name)) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    }
}

/// The problems of a directory, one `file:line:column: message` line each, the directory's
/// path left out.
fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let dir = dir_with(files);
    let error = PromptTemplates::from_dir(dir.path()).unwrap_err();
    let prefix = format!("{}/", dir.path().display());
    error
        .problems()
        .iter()
        .map(|p| p.to_string().replacen(&prefix, "", 1))
        .collect()
}

async fn render(
    prompt: &TemplatePrompt,
    pairs: &[(&str, &str)],
) -> Result<GetPromptResult, PromptError> {
    prompt.get(args(pairs), RequestContext::detached()).await
}

fn texts(result: &GetPromptResult) -> Vec<(Role, String)> {
    result
        .messages
        .iter()
        .map(|m| {
            (
                m.role,
                m.content.as_text().unwrap_or("<not text>").to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_seed_example_loads_as_written() {
    let prompt = load_one("summarize_file.json", SEED);
    let d = prompt.definition();
    assert_eq!(d.name, "summarize_file");
    assert_eq!(
        d.description.as_deref(),
        Some("지정된 파일의 내용을 요약합니다.")
    );
    let arguments = d.arguments.unwrap();
    let shape: Vec<(&str, Option<bool>)> = arguments
        .iter()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    // `maxLength` has a default, so it need not be given.
    assert_eq!(shape, [("fileUri", Some(true)), ("maxLength", Some(false))]);
    assert_eq!(
        arguments[1].description.as_deref(),
        Some("최대 요약 길이 (단어 수)")
    );
    // system text, user text, user resource: one message per content item.
    let t = &prompt.template;
    let roles: Vec<Role> = t.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::User, Role::User]);
    assert!(matches!(
        t.messages[2].item,
        checked::ItemTemplate::Resource { .. }
    ));
}

#[tokio::test]
async fn the_seed_example_renders_its_text_and_needs_its_resource() {
    let prompt = load_one("summarize_file.json", SEED);
    // A detached context reaches no resources: the error names the argument.
    let error = render(&prompt, &[("fileUri", "file:///docs/report.txt")])
        .await
        .unwrap_err();
    let PromptError::InvalidArguments(message) = error else {
        panic!("{error:?}")
    };
    assert!(
        message.starts_with(
            "argument `fileUri`: the resource `file:///docs/report.txt` cannot be read"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn yaml_with_a_content_string_and_roles() {
    let prompt = load_one(
        "chat.yaml",
        "name: chat\ndescription: A short exchange.\ninputSchema:\n  type: object\n  properties:\n    topic: {type: string, enum: [rust, go, zig]}\n  required: [topic]\nmessages:\n  - role: system\n    content: Be brief.\n  - role: user\n    content:\n      - type: text\n        text: |\n          Tell me about {{ topic }}.\n          Two lines.\n      - {type: text, text: And why.}\n  - role: assistant\n    content: {type: text, text: 'Sure: {{ topic | upper }}'}\n",
    );
    let result = render(&prompt, &[("topic", "rust")]).await.unwrap();
    assert_eq!(
        texts(&result),
        [
            (Role::User, "Be brief.".to_owned()),
            (Role::User, "Tell me about rust.\nTwo lines.".to_owned()),
            (Role::User, "And why.".to_owned()),
            (Role::Assistant, "Sure: RUST".to_owned()),
        ]
    );
    assert_eq!(result.description.as_deref(), Some("A short exchange."));
}

#[tokio::test]
async fn markdown_with_arguments_and_with_a_schema() {
    let prompt = load_one(
        "review.md",
        "---\ndescription: Reviews code.\narguments:\n  - name: code\n    description: The code\n    required: true\n  - name: focus\n---\n\nReview this:\n\n{{ code }}\n{% if focus is defined %}\nFocus on {{ focus }}.\n{% endif %}\n",
    );
    let d = prompt.definition();
    assert_eq!(d.name, "review");
    let arguments = d.arguments.unwrap();
    assert_eq!(arguments[0].required, Some(true));
    assert_eq!(arguments[0].description.as_deref(), Some("The code"));
    assert_eq!(arguments[1].required, Some(false));
    let result = render(&prompt, &[("code", "fn main() {}")]).await.unwrap();
    assert_eq!(
        texts(&result),
        [(Role::User, "Review this:\n\nfn main() {}\n".to_owned())]
    );
    let result = render(&prompt, &[("code", "x"), ("focus", "naming")])
        .await
        .unwrap();
    assert_eq!(texts(&result)[0].1, "Review this:\n\nx\nFocus on naming.\n");

    let prompt = load_one(
        "count.markdown",
        "---\nname: count_to\ndescription: Counts.\nrole: assistant\ninputSchema:\n  type: object\n  properties:\n    n: {type: integer, minimum: 1, maximum: 5}\n  required: [n]\n---\n{% for i in range(1, n + 1) %}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}\n",
    );
    let result = render(&prompt, &[("n", "3")]).await.unwrap();
    assert_eq!(texts(&result), [(Role::Assistant, "1,2,3".to_owned())]);
}

#[tokio::test]
async fn json_content_items_of_every_kind() {
    let prompt = load_one(
        "kinds.json",
        r#"{"name": "kinds", "description": "Every kind.",
            "arguments": [{"name": "path", "required": true}],
            "messages": [{"role": "user", "content": [
              {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
              {"type": "resource_link", "uri": "file:///{{ path }}", "name": "the file"}
            ]}]}"#,
    );
    let result = render(&prompt, &[("path", "a b.txt")]).await.unwrap();
    assert!(matches!(&result.messages[0].content, Content::Image(i) if i.mime_type == "image/png"));
    let Content::ResourceLink(link) = &result.messages[1].content else {
        panic!("{result:?}")
    };
    // A value placed into a URI is percent-encoded.
    assert_eq!(
        (link.uri.as_str(), link.name.as_str()),
        ("file:///a%20b.txt", "the file")
    );
}

#[tokio::test]
async fn values_placed_into_uris_cannot_add_segments_but_a_whole_uri_stays_whole() {
    let prompt = load_one(
        "links.json",
        r#"{"name": "links", "description": "Links.",
            "arguments": [{"name": "path", "required": true}, {"name": "whole", "required": true}],
            "messages": [{"role": "user", "content": [
              {"type": "resource_link", "uri": "notes://{{ path }}/data", "name": "placed"},
              {"type": "resource_link", "uri": "{{ whole }}", "name": "whole"}
            ]}]}"#,
    );
    let result = render(
        &prompt,
        &[
            ("path", "../../etc/passwd?x=1#y"),
            ("whole", "file:///docs/a b.txt"),
        ],
    )
    .await
    .unwrap();
    let uris: Vec<&str> = result
        .messages
        .iter()
        .map(|m| match &m.content {
            Content::ResourceLink(link) => link.uri.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        uris,
        [
            "notes://..%2F..%2Fetc%2Fpasswd%3Fx%3D1%23y/data",
            "file:///docs/a b.txt"
        ]
    );
}

#[tokio::test]
async fn a_render_is_bounded_in_work_and_in_output() {
    let spinning = load_one(
        "spin.md",
        "---
description: Loops for ever.
---
{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}done",
    );
    let started = std::time::Instant::now();
    let error = render(&spinning, &[]).await.unwrap_err();
    assert!(matches!(error, PromptError::Failed(_)), "{error:?}");
    assert!(error.to_string().contains("fuel"), "{error}");
    // Stopped by its fuel, not after 10^10 iterations (bounded loosely: a loaded machine).
    assert!(started.elapsed() < std::time::Duration::from_secs(60));

    let long = load_one(
        "long.md",
        "---
description: Repeats.
arguments: [{name: text, required: true}]
---
{% for i in range(2000) %}{{ text }}{% endfor %}",
    );
    let text = "x".repeat(1000);
    let error = render(&long, &[("text", &text)]).await.unwrap_err();
    assert!(
        error.to_string().contains("renders more than 1024 KiB"),
        "{error}"
    );
    // Below the cap it renders.
    let fine = render(&long, &[("text", "ab")]).await.unwrap();
    assert_eq!(texts(&fine)[0].1.len(), 4000);
}

#[tokio::test]
async fn argument_values_are_data_not_templates() {
    let prompt = load_one(
        "echo.md",
        "---\ndescription: Echoes.\narguments: [{name: text, required: true}]\n---\nYou said: {{ text }}",
    );
    let result = render(
        &prompt,
        &[("text", "{{ 7 * 6 }} {% if true %}x{% endif %}")],
    )
    .await
    .unwrap();
    assert_eq!(
        texts(&result)[0].1,
        "You said: {{ 7 * 6 }} {% if true %}x{% endif %}"
    );
}

#[tokio::test]
async fn undefined_values_are_errors_naming_the_argument() {
    let prompt = load_one(
        "opt.md",
        "---\ndescription: Uses an optional argument unguarded.\narguments: [{name: who}]\n---\nHello {{ who }}!",
    );
    let error = render(&prompt, &[]).await.unwrap_err();
    let PromptError::InvalidArguments(message) = &error else {
        panic!("{error:?}")
    };
    assert!(message.contains("needs argument `who`"), "{message}");
    assert!(message.contains("opt.md:5:1"), "{message}");
    assert_eq!(
        texts(&render(&prompt, &[("who", "Ada")]).await.unwrap())[0].1,
        "Hello Ada!"
    );
}

#[tokio::test]
async fn arguments_are_converted_defaulted_and_every_violation_reported() {
    let prompt = load_one(
        "typed.yaml",
        "description: Typed arguments.\ninputSchema:\n  type: object\n  properties:\n    n: {type: integer, default: 100}\n    ratio: {type: number, maximum: 1}\n    loud: {type: boolean}\n    tags: {type: array, items: {type: string}}\n  required: [loud]\nmessages:\n  - role: user\n    content: \"{{ n + 1 }} {{ ratio | default(0) }} {{ loud }} {{ tags | default([]) | join('+') }}\"\n",
    );
    let result = render(&prompt, &[("loud", "true"), ("tags", r#"["a","b"]"#)])
        .await
        .unwrap();
    // Booleans print as Jinja prints them.
    assert_eq!(texts(&result)[0].1, "101 0 True a+b");
    let result = render(&prompt, &[("loud", "false"), ("n", "5"), ("ratio", "0.5")])
        .await
        .unwrap();
    assert_eq!(texts(&result)[0].1, "6 0.5 False ");

    let error = render(&prompt, &[("loud", "yes"), ("n", "1.5"), ("ratio", "2")])
        .await
        .unwrap_err();
    let PromptError::InvalidArguments(message) = &error else {
        panic!("{error:?}")
    };
    assert!(message.contains("(3 problems)"), "{message}");
    for argument in ["loud", "n", "ratio"] {
        assert!(
            message.contains(&format!("- argument `{argument}`: ")),
            "{message}"
        );
    }
}

#[tokio::test]
async fn enum_arguments_complete_by_prefix() {
    let prompt = load_one(
        "lang.yaml",
        "description: Picks a language.\ninputSchema:\n  type: object\n  properties:\n    lang: {type: string, enum: [rust, ruby, go]}\n    strict: {type: boolean}\n    free: {type: string}\nmessages: [{role: user, content: '{{ lang }}'}]\n",
    );
    let none = BTreeMap::new();
    let c = prompt.complete("lang", "ru", &none).await;
    assert_eq!(c.values, ["rust", "ruby"]);
    assert_eq!(prompt.complete("lang", "", &none).await.values.len(), 3);
    assert_eq!(prompt.complete("strict", "t", &none).await.values, ["true"]);
    assert!(prompt.complete("free", "", &none).await.values.is_empty());
    assert!(prompt.complete("nope", "", &none).await.values.is_empty());
}

#[test]
fn every_problem_of_every_file_with_its_position() {
    let found = problems(&[
        // JSON syntax: a second comma.
        ("a_syntax.json", "{\n  \"description\": \"x\",,\n}\n"),
        // YAML syntax.
        ("b_syntax.yaml", "description: x\nmessages: [\n"),
        // Missing description, unknown key, undeclared variable in a quoted string.
        (
            "c_keys.yaml",
            "name: c\ntittle: C\nmessages:\n  - role: user\n    content: \"Hi {{ nme }}\"\n",
        ),
        // A template syntax error in a literal block: exact line and column.
        (
            "d_template.yaml",
            "description: D\nmessages:\n  - role: user\n    content:\n      - type: text\n        text: |\n          fine\n          {% if %}\n",
        ),
        // An invalid schema: the violation at its key.
        (
            "e_schema.json",
            "{\n  \"description\": \"E\",\n  \"inputSchema\": {\n    \"type\": \"object\",\n    \"properties\": {\"a\": {\"type\": \"strng\"}}\n  },\n  \"messages\": [{\"role\": \"user\", \"content\": \"{{ a }}\"}]\n}\n",
        ),
        // Markdown: an undeclared variable in the body, exact line and column.
        (
            "f_body.md",
            "---\ndescription: F\narguments: [{name: code}]\n---\n\nReview:\n  {{ code }} in {{ language }}\n",
        ),
        // A role that does not exist.
        (
            "g_role.yaml",
            "description: G\nmessages: [{role: robot, content: hi}]\n",
        ),
        // Required but not declared.
        (
            "h_required.yaml",
            "description: H\ninputSchema: {type: object, required: [x]}\nmessages: [{role: user, content: hi}]\n",
        ),
        // Skipped: not a prompt file extension.
        ("notes.txt", "{{ not read"),
    ]);
    let expected = [
        "a_syntax.json:2:22: invalid JSON: ",
        "b_syntax.yaml:3:1: invalid YAML: ",
        "c_keys.yaml:1:1: missing `description`",
        "c_keys.yaml:2:1: unknown key `tittle`; expected one of `name`, `id`, `title`, `description`, `inputSchema`, `arguments`, `messages`",
        "c_keys.yaml:5:14: the template uses `nme`, which is not an argument; declare it in the prompt's arguments (it declares none)",
        "d_template.yaml:8:17: template syntax error: unexpected end of block",
        "e_schema.json:5:26: invalid `inputSchema`: \"strng\" is not valid",
        "f_body.md:7:20: the template uses `language`, which is not an argument; declare it in the prompt's arguments (it declares `code`)",
        "g_role.yaml:2:19: unknown role `robot`",
        "h_required.yaml:2:29: `x` is required but not declared in `properties`",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (line, prefix) in found.iter().zip(expected) {
        assert!(
            line.starts_with(prefix),
            "{line:?}\n  does not start with\n{prefix:?}\n{found:#?}"
        );
    }
}

#[test]
fn duplicate_names_across_files_point_at_both() {
    let found = problems(&[
        (
            "a.yaml",
            "name: same\ndescription: A\nmessages: [{role: user, content: a}]\n",
        ),
        (
            "b.json",
            "{\n  \"id\": \"same\",\n  \"description\": \"B\",\n  \"messages\": [{\"role\": \"user\", \"content\": \"b\"}]\n}",
        ),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("b.json:2:9: the prompt name `same` is already used by "),
        "{}",
        found[0]
    );
    assert!(found[0].ends_with("a.yaml:1:7"), "{}", found[0]);
}

#[test]
fn display_lists_one_problem_a_line() {
    let dir = dir_with(&[("x.yaml", "name: x\n")]);
    let error = PromptTemplates::from_dir(dir.path()).unwrap_err();
    let text = error.to_string();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("2 problems in prompt files:"));
    assert!(lines.all(|l| l.contains("x.yaml:1:1: ")), "{text}");
}

#[test]
fn a_missing_directory_is_one_problem() {
    let error = PromptTemplates::from_dir("/nonexistent/prompts").unwrap_err();
    assert_eq!(error.problems().len(), 1);
    assert!(
        error
            .to_string()
            .contains("cannot read the prompt directory"),
        "{error}"
    );
}

#[test]
fn names_default_to_the_file_stem_and_must_be_valid() {
    let dir = dir_with(&[
        ("from_stem.md", "---\ndescription: x\n---\nhi"),
        (
            "ok.yaml",
            "description: y\nmessages: [{role: user, content: hi}]\n",
        ),
    ]);
    let t = PromptTemplates::from_dir(dir.path()).unwrap();
    assert_eq!(t.names().collect::<Vec<_>>(), ["from_stem", "ok"]);
    let found = problems(&[("bad name.md", "---\ndescription: x\n---\nhi")]);
    assert!(found[0].contains("taken from the file name"), "{found:?}");
}

/// Waits (up to 10 s) until `done` holds.
#[cfg(feature = "prompt-watch")]
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[cfg(feature = "prompt-watch")]
#[test]
fn watching_serves_new_files_keeps_the_last_good_version_and_removes_deleted_ones() {
    use crate::server::{Primitive, PromptWatcher};
    let dir = dir_with(&[("a.md", "---\ndescription: A one.\n---\nA")]);
    let server = crate::Server::builder("w", "1")
        .advertise(Primitive::Prompts)
        .build()
        .unwrap();
    let watcher =
        PromptWatcher::start(dir.path(), &server, std::time::Duration::from_millis(50)).unwrap();
    let description = |name: &str| {
        server
            .prompts()
            .definition(name)
            .and_then(|d| d.description)
    };
    assert_eq!(server.prompts().names(), ["a"]);

    let b = dir.path().join("b.md");
    std::fs::write(&b, "---\ndescription: B one.\n---\nB").unwrap();
    eventually("b served", || description("b").as_deref() == Some("B one."));

    // A broken edit: the old version stays, the problem is known with its line.
    std::fs::write(&b, "---\ndescription: B two.\n---\n{{ undeclared }}").unwrap();
    eventually("b's problem reported", || !watcher.problems().is_empty());
    assert_eq!(description("b").as_deref(), Some("B one."));
    let problems = watcher.problems();
    assert_eq!(problems[0].line, Some(4), "{problems:?}");

    // A name another file has: also broken.
    std::fs::write(&b, "---\nname: a\ndescription: B three.\n---\nB").unwrap();
    eventually("b's clash reported", || {
        watcher
            .problems()
            .iter()
            .any(|p| p.message.contains("already used"))
    });
    assert_eq!(description("b").as_deref(), Some("B one."));
    assert_eq!(description("a").as_deref(), Some("A one."));

    std::fs::write(&b, "---\ndescription: B four.\n---\nB").unwrap();
    eventually("b fixed", || description("b").as_deref() == Some("B four."));
    assert!(watcher.problems().is_empty());

    std::fs::remove_file(&b).unwrap();
    eventually("b removed", || server.prompts().names() == ["a"]);
    drop(watcher);
}

#[test]
fn front_matter_keys_of_other_tools_are_ignored_but_json_and_yaml_keys_are_checked() {
    // A command file written for another tool, with keys only it reads.
    let p = load_one(
        "fix.md",
        "---\ndescription: Fix an issue.\nargument-hint: [issue]\nallowed-tools: Bash(git:*)\narguments:\n  - name: issue\n    required: true\n---\nFix issue {{ issue }}.",
    );
    assert_eq!(p.definition().name, "fix");
    let found = problems(&[(
        "typo.yaml",
        "description: x\nargument-hint: y\nmessages:\n  - role: user\n    content: [{type: text, text: hi}]\n",
    )]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("typo.yaml:2:1: unknown key `argument-hint`"),
        "{found:?}"
    );
}
