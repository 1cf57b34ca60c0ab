//! Prompt templates loaded from files, served by a real server in both eras: the seed
//! design's `summarize_file.json` as written, every format, typed arguments, strict
//! rendering, resources confined to what the server serves, load errors reported by
//! `build()`, and a watched directory through a broken edit.

use futures::future::BoxFuture;
use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::prelude::*;
use mcp_runtime::prompt::PromptTemplates;
use mcp_runtime::protocol::{
    CompletionReference, ErrorCode, McpError, ResourceContents, ResourceTemplateDefinition, Role,
};
use mcp_runtime::resource::{IntoContents, ResourceError, ResourceTemplate, Variables};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The seed design's example, copied verbatim (its `//` comments included).
const SEED: &str =
    include_str!("../../mcp-runtime/src/prompt/templates/fixtures/summarize_file.json");

/// `file:///{+path}`, serving only files inside one directory: what a file resource
/// provider does, so prompts can be shown to stay inside it.
struct ConfinedFiles {
    root: PathBuf,
}

impl ResourceTemplate for ConfinedFiles {
    fn definition(&self) -> ResourceTemplateDefinition {
        ResourceTemplateDefinition::new("file:///{+path}", "files")
            .with_description("Files of one directory.")
    }

    fn read(
        &self,
        uri: String,
        variables: Variables,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let path = Path::new("/").join(variables.get("path").unwrap_or_default());
        let root = self.root.clone();
        Box::pin(async move {
            // Dot segments are refused by the template itself; a lexical prefix is enough.
            if !path.starts_with(&root) {
                return Err(ResourceError::InvalidUri(
                    "outside the allowed directory".into(),
                ));
            }
            let text = std::fs::read_to_string(&path)?;
            text.into_contents(&uri, Some("text/plain"))
        })
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    prompts: PathBuf,
    docs: PathBuf,
}

fn fixture(files: &[(&str, &str)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let prompts = dir.path().join("prompts");
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("report.txt"), "Quarterly numbers went up.").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "not for prompts").unwrap();
    for (name, text) in files {
        std::fs::write(prompts.join(name), text).unwrap();
    }
    Fixture {
        _dir: dir,
        prompts,
        docs,
    }
}

fn standard_files() -> Vec<(&'static str, &'static str)> {
    vec![
        ("summarize_file.json", SEED),
        (
            "review.md",
            "---\ndescription: Reviews code.\narguments:\n  - name: code\n    description: The code to review\n    required: true\n---\nPlease review:\n\n{{ code }}",
        ),
        (
            "translate.yaml",
            "name: translate\ndescription: Translates text.\ninputSchema:\n  type: object\n  properties:\n    text: {type: string, description: What to translate}\n    language: {type: string, enum: [english, french, german, korean]}\n    formal: {type: boolean, default: false}\n  required: [text, language]\nmessages:\n  - role: user\n    content: |\n      Translate into {{ language }}{% if formal %} (formally){% endif %}:\n      {{ text }}\n",
        ),
        ("README.txt", "not a prompt: skipped"),
    ]
}

fn server(f: &Fixture) -> Server {
    Server::builder("prompt-files", "1.0.0")
        .prompt_dir(&f.prompts)
        .resource_template(ConfinedFiles {
            root: f.docs.clone(),
        })
        .build()
        .unwrap()
}

async fn connected(server: &Server, mode: EraMode) -> Client {
    let c = Client::memory(server);
    c.connect(mode).await.unwrap();
    c
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn protocol_error(e: ClientError) -> McpError {
    match e {
        ClientError::Protocol(e) => e,
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

#[tokio::test]
async fn every_format_is_listed_with_arguments_from_its_schema() {
    let f = fixture(&standard_files());
    let s = server(&f);
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        let prompts = c.list_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["review", "summarize_file", "translate"], "{mode:?}");
        let translate = &prompts[2];
        let arguments: Vec<(&str, Option<bool>, Option<&str>)> = translate
            .arguments
            .as_deref()
            .unwrap()
            .iter()
            .map(|a| (a.name.as_str(), a.required, a.description.as_deref()))
            .collect();
        assert_eq!(
            arguments,
            [
                ("text", Some(true), Some("What to translate")),
                ("language", Some(true), None),
                ("formal", Some(false), None),
            ]
        );
    }
}

#[tokio::test]
async fn the_seed_example_renders_with_its_file_embedded() {
    let f = fixture(&standard_files());
    let s = server(&f);
    let report = file_uri(&f.docs.join("report.txt"));
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        let result = c
            .get_prompt("summarize_file", &args(&[("fileUri", &report)]))
            .await
            .unwrap();
        assert_eq!(
            result.description.as_deref(),
            Some("지정된 파일의 내용을 요약합니다.")
        );
        let m = &result.messages;
        assert_eq!(m.len(), 3, "{m:?}");
        // The system message is served as a user message; each content item is a message.
        assert!(m.iter().all(|m| m.role == Role::User));
        assert_eq!(
            m[0].content.as_text(),
            Some("당신은 주어진 텍스트를 간결하게 요약하는 AI 비서입니다.")
        );
        // `maxLength` took its schema default.
        assert_eq!(
            m[1].content.as_text(),
            Some("다음 파일 내용을 100 단어 내외로 요약해주세요:")
        );
        let Content::Resource(embedded) = &m[2].content else {
            panic!("{m:?}")
        };
        let ResourceContents::Text(text) = &embedded.resource else {
            panic!("{embedded:?}")
        };
        assert_eq!(text.uri, report);
        assert_eq!(text.text, "Quarterly numbers went up.");

        let result = c
            .get_prompt(
                "summarize_file",
                &args(&[("fileUri", &report), ("maxLength", "42")]),
            )
            .await
            .unwrap();
        assert_eq!(
            result.messages[1].content.as_text(),
            Some("다음 파일 내용을 42 단어 내외로 요약해주세요:")
        );
    }
}

#[tokio::test]
async fn a_resource_the_server_does_not_serve_is_refused_naming_the_argument() {
    let f = fixture(&standard_files());
    let s = server(&f);
    let secret = file_uri(&f.docs.parent().unwrap().join("secret.txt"));
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        for uri in [
            secret.as_str(),
            "file:///etc/passwd",
            "https://example.com/x",
            "file:///../etc/passwd",
        ] {
            let e = protocol_error(
                c.get_prompt("summarize_file", &args(&[("fileUri", uri)]))
                    .await
                    .unwrap_err(),
            );
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{uri}: {e:?}");
            assert!(
                e.message.starts_with(&format!(
                    "argument `fileUri`: the resource `{uri}` cannot be read"
                )),
                "{uri}: {}",
                e.message
            );
        }
    }
}

#[tokio::test]
async fn arguments_are_typed_and_every_violation_is_reported() {
    let f = fixture(&standard_files());
    let s = server(&f);
    let c = connected(&s, EraMode::Modern).await;
    let report = file_uri(&f.docs.join("report.txt"));
    let e = protocol_error(
        c.get_prompt(
            "summarize_file",
            &args(&[("fileUri", &report), ("maxLength", "many")]),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    assert!(
        e.message.contains("- argument `maxLength`: "),
        "{}",
        e.message
    );

    let e = protocol_error(
        c.get_prompt(
            "translate",
            &args(&[("text", "hi"), ("language", "klingon"), ("formal", "maybe")]),
        )
        .await
        .unwrap_err(),
    );
    assert!(e.message.contains("(2 problems)"), "{}", e.message);
    assert!(
        e.message.contains("- argument `language`: "),
        "{}",
        e.message
    );
    assert!(e.message.contains("- argument `formal`: "), "{}", e.message);

    let ok = c
        .get_prompt(
            "translate",
            &args(&[("text", "hi"), ("language", "french"), ("formal", "true")]),
        )
        .await
        .unwrap();
    assert_eq!(
        ok.messages[0].content.as_text(),
        Some("Translate into french (formally):\nhi")
    );

    // Missing required arguments are the server's check, before rendering.
    let e = protocol_error(c.get_prompt("translate", &args(&[])).await.unwrap_err());
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn argument_values_are_rendered_literally() {
    let f = fixture(&standard_files());
    let s = server(&f);
    let c = connected(&s, EraMode::Legacy).await;
    let code = "let t = \"{{ code }}\"; {% raw %}{{ 1 + 1 }}";
    let result = c
        .get_prompt("review", &args(&[("code", code)]))
        .await
        .unwrap();
    assert_eq!(
        result.messages[0].content.as_text(),
        Some(format!("Please review:\n\n{code}").as_str())
    );
}

#[tokio::test]
async fn enum_arguments_complete() {
    let f = fixture(&standard_files());
    let s = server(&f);
    let c = connected(&s, EraMode::Modern).await;
    let reference = CompletionReference::Prompt {
        name: "translate".into(),
    };
    let completion = c
        .complete(&reference, "language", "", &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(completion.values, ["english", "french", "german", "korean"]);
    let completion = c
        .complete(&reference, "language", "ge", &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(completion.values, ["german"]);
}

#[test]
fn build_reports_every_problem_with_its_file_and_line() {
    let f = fixture(&[
        ("ok.md", "---\ndescription: Fine.\n---\nFine."),
        (
            "broken.yaml",
            "description: x\nmessages:\n  - role: user\n    content: \"{{ nope }}\"\n",
        ),
        (
            "bad.json",
            "{\n  \"description\": \"y\",\n  \"messages\": [}\n",
        ),
    ]);
    let error = Server::builder("p", "1.0.0")
        .prompt_dir(&f.prompts)
        .build()
        .unwrap_err();
    let text = error.to_string();
    let prompts = f.prompts.display().to_string();
    assert!(text.contains("2 problems in prompt files:"), "{text}");
    assert!(
        text.contains(&format!("{prompts}/bad.json:3:16: invalid JSON")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{prompts}/broken.yaml:4:14: the template uses `nope`, which is not an argument"
        )),
        "{text}"
    );
    let [mcp_runtime::server::RegistrationError::PromptFiles(load)] = error.errors.as_slice()
    else {
        panic!("{error:?}")
    };
    assert_eq!(load.problems().len(), 2);
}

#[test]
fn templates_can_be_loaded_and_registered_by_hand() {
    let f = fixture(&standard_files());
    let templates = PromptTemplates::from_dir(&f.prompts).unwrap();
    assert_eq!(templates.len(), 3);
    assert_eq!(
        templates.get("review").unwrap().file(),
        f.prompts.join("review.md")
    );
    let s = Server::builder("p", "1.0.0")
        .prompts(templates)
        .build()
        .unwrap();
    assert_eq!(s.prompts().names().len(), 3);
}

/// The text of the first message of `name`, rendered without arguments.
async fn text(c: &Client, name: &str) -> Option<String> {
    c.get_prompt(name, &BTreeMap::new())
        .await
        .ok()
        .and_then(|r| r.messages[0].content.as_text().map(str::to_owned))
}

/// Polls `done` (up to 10 s).
async fn eventually<F: std::future::Future<Output = bool>>(
    what: &str,
    mut done: impl FnMut() -> F,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !done().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_watched_directory_reloads_and_keeps_the_last_good_version() {
    let f = fixture(&[("hello.md", "---\ndescription: Says hello.\n---\nHello!")]);
    // Built from the same directory; the watcher takes its prompts over.
    let s = Server::builder("watched", "1.0.0")
        .prompt_dir(&f.prompts)
        .build()
        .unwrap();
    let watcher =
        mcp_runtime::server::PromptWatcher::start(&f.prompts, &s, Duration::from_millis(50))
            .unwrap();
    let c = connected(&s, EraMode::Legacy).await;
    let mut notifications = c.take_unrouted().unwrap();

    // Added: served, and clients are told.
    let bye = f.prompts.join("bye.yaml");
    std::fs::write(
        &bye,
        "description: Says goodbye.\nmessages: [{role: assistant, content: Goodbye!}]\n",
    )
    .unwrap();
    eventually("bye listed", || async {
        c.list_prompts()
            .await
            .unwrap()
            .iter()
            .any(|p| p.name == "bye")
    })
    .await;
    assert_eq!(text(&c, "bye").await.as_deref(), Some("Goodbye!"));
    let note = tokio::time::timeout(Duration::from_secs(10), notifications.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(note["method"], "notifications/prompts/list_changed");

    // Broken: the previous version stays served; the problem is known with its line.
    std::fs::write(
        &bye,
        "description: Says goodbye.\nmessages: [{role: assistant, content: \"{{ who }}\"}]\n",
    )
    .unwrap();
    eventually("the broken edit seen", || async {
        !watcher.problems().is_empty()
    })
    .await;
    let problem = &watcher.problems()[0];
    assert_eq!(
        (problem.file.as_path(), problem.line),
        (bye.as_path(), Some(2))
    );
    assert_eq!(text(&c, "bye").await.as_deref(), Some("Goodbye!"));

    // Fixed: the new version.
    std::fs::write(
        &bye,
        "description: Says goodbye.\nmessages: [{role: assistant, content: See you!}]\n",
    )
    .unwrap();
    eventually("the fix served", || async {
        text(&c, "bye").await.as_deref() == Some("See you!")
    })
    .await;
    assert!(watcher.problems().is_empty());

    // Deleted: gone.
    std::fs::remove_file(&bye).unwrap();
    eventually("bye removed", || async {
        c.list_prompts()
            .await
            .unwrap()
            .iter()
            .all(|p| p.name != "bye")
    })
    .await;
    assert_eq!(text(&c, "hello").await.as_deref(), Some("Hello!"));
}

#[tokio::test]
async fn the_file_service_confines_what_a_prompt_embeds() {
    use mcp_runtime::fs::{FileResources, FileService, FsPolicy};
    let f = fixture(&[("summarize_file.json", SEED)]);
    let outside = f.docs.parent().unwrap().join("secret.txt");
    std::os::unix::fs::symlink(&outside, f.docs.join("escape.txt")).unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(&f.docs)).unwrap();
    let s = FileResources::new(files)
        .register(Server::builder("confined", "1.0.0").prompt_dir(&f.prompts))
        .build()
        .unwrap();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let c = connected(&s, mode).await;
        let report = file_uri(&f.docs.join("report.txt"));
        let ok = c
            .get_prompt("summarize_file", &args(&[("fileUri", &report)]))
            .await
            .unwrap();
        let Content::Resource(embedded) = &ok.messages[2].content else {
            panic!("{ok:?}")
        };
        let ResourceContents::Text(text) = &embedded.resource else {
            panic!("{embedded:?}")
        };
        assert_eq!(text.text, "Quarterly numbers went up.");

        for uri in [
            file_uri(&outside),
            format!("{}/../secret.txt", file_uri(&f.docs)),
            file_uri(&f.docs.join("escape.txt")),
            file_uri(&f.docs.join("missing.txt")),
        ] {
            let e = protocol_error(
                c.get_prompt("summarize_file", &args(&[("fileUri", &uri)]))
                    .await
                    .unwrap_err(),
            );
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{uri}: {e:?}");
            assert!(
                e.message.starts_with("argument `fileUri`: "),
                "{uri}: {}",
                e.message
            );
            assert!(!e.message.contains("not for prompts"), "{}", e.message);
        }
    }
}
