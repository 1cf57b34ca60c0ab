//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`) through our client,
//! in both eras, over stdio, HTTP and in memory; and the bad input a skills folder can hold.
//!
//! What the official suite 0.2.0-alpha.12 sends and checks (read from its bundle; the three
//! scenarios run on the 2026-07-28 wire, `tests/it/http_conformance.rs` runs them):
//!
//! - Gate: `server/discover` → `capabilities.extensions["io.modelcontextprotocol/skills"]`
//!   must be an object with its settings inline (no `config`/`specVersion`/`stability`/`id`
//!   envelope); `directoryRead: true` enables the directory checks; `capabilities.resources`
//!   must be declared too. Undeclared: every check SKIPPED.
//! - `skills/list {cursor?}` (followed up to 50 pages; a repeated or endless `nextCursor`
//!   fails) → `{skills: [entry], nextCursor?}`, `ttlMs` and `cacheScope` present on 2026. An
//!   entry: `uri` (`skill://<skill-path>/SKILL.md`, last path segment = `frontmatter.name`,
//!   1–64 of `[a-z0-9-]` without `--` at either end or twice; first segment a RFC 3986
//!   reg-name), `frontmatter` (object with non-empty `name` and `description`; equal, key by
//!   key, to the YAML of the file's `---` block; `metadata` keys under
//!   `io.modelcontextprotocol/` warned), `resources` (array of `{uri, digest, size}` or
//!   `"dynamic"`): complete (an entry for the skill's own `uri`, each uri once), every uri
//!   the SKILL.md or below `<skill dir>/`, `digest` = `sha256:` + 64 lowercase hex, `size` a
//!   non-negative integer; ≤ 512 entries and ≤ 16 MiB per skill (warnings); no entry on two
//!   pages; names unique (warning).
//! - `skills/get {uri}` for the first listed uri → `{skill: entry}` echoing `uri`, no
//!   `nextCursor`, `ttlMs` + `cacheScope` on 2026; `skills/get
//!   {uri: "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"}` → error `-32602`.
//! - `resources/read {uri: <first SKILL.md>}` → a `text` content; its front matter parsed
//!   (`^---\r?\n…\r?\n---`) has `name` and `description` and equals the entry's.
//! - Manifest scenario: `resources/list` (all pages) should list the `SKILL.md` with `name` =
//!   front matter name, `description` = front matter description (warnings otherwise, and a
//!   WARNING "not observable" when not listed); `resources/read` of it: `mimeType`
//!   `text/markdown`; `_meta` keys on it should be `io.modelcontextprotocol.skills/`-prefixed.
//! - `resources/directory/read {uri: <SKILL.md uri without /SKILL.md>, cursor?}` →
//!   `{resources: [{uri, …}], nextCursor?}` of direct children, one child with `mimeType:
//!   "inode/directory"` (FAILURE when none: the served skill needs a subfolder); on the
//!   SKILL.md's own uri → `-32602`; a `nextCursor` is followed once.
//! - `wire-schema-valid`: every server message validated against the 2026 schema: results
//!   of methods the schema lacks (the three above) as a generic `Result` (`resultType`
//!   required); `resources/list`/`read` results as theirs (`ttlMs`, `cacheScope`).

use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::protocol::skills::{DIRECTORY_MIME_TYPE, SkillEntry, SkillResources};
use mcp_runtime::protocol::{Era, ResourceContents};
use mcp_runtime::skill::Skill;
use mcp_runtime::{Server, ServerBuilder};
use mcp_tests::http::Spawned;
use serde_json::{Value, json};
use sha2::Digest as _;
use std::path::Path;
use std::time::Duration;

const PDF_SKILL_MD: &str = "---\nname: pdf-processing\ndescription: Fills PDF forms.\nmetadata:\n  author: tests\n---\n\nRead references/FORMS.md first.\n";
const FORMS: &str = "# Forms\n\nDates are YYYY-MM-DD.\n";
const NOTES_SKILL_MD: &str =
    "---\nname: notes\ndescription: Writes release notes.\n---\nUse templates/notes.md.\n";

/// A skills folder: `pdf-processing` (a reference, a script, a subfolder) and
/// `acme/notes` below a group.
fn skills_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("pdf-processing");
    std::fs::create_dir_all(pdf.join("references")).unwrap();
    std::fs::create_dir_all(pdf.join("scripts")).unwrap();
    std::fs::write(pdf.join("SKILL.md"), PDF_SKILL_MD).unwrap();
    std::fs::write(pdf.join("references/FORMS.md"), FORMS).unwrap();
    std::fs::write(pdf.join("scripts/fill.py"), "print('filled')\n").unwrap();
    let notes = dir.path().join("acme/notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("SKILL.md"), NOTES_SKILL_MD).unwrap();
    std::fs::write(dir.path().join("README.md"), "Not a skill.\n").unwrap();
    dir
}

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{:x}", sha2::Sha256::digest(bytes))
}

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("answered")
}

fn code(error: &ClientError) -> i32 {
    error
        .as_protocol()
        .unwrap_or_else(|| panic!("a JSON-RPC error, not {error}"))
        .code
        .0
}

fn text_of(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::Text(t) => &t.text,
        other => panic!("text contents, not {other:?}"),
    }
}

/// Everything a client sees of the folder's skills, in one era.
async fn sees_the_skills(client: &Client, mode: EraMode, label: &str) {
    let (era, _) = bounded(client.connect(mode)).await.unwrap();
    let skills = bounded(client.list_skills()).await.unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/notes/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ],
        "{label}"
    );
    let pdf = &skills[1];
    assert_eq!(
        Value::Object(pdf.frontmatter.clone()),
        json!({"name": "pdf-processing", "description": "Fills PDF forms.", "metadata": {"author": "tests"}}),
        "{label}"
    );
    let SkillResources::Files(files) = &pdf.resources else {
        panic!("{label}: a manifest");
    };
    let manifest: Vec<(&str, &str, u64)> = files
        .iter()
        .map(|f| (f.uri.as_str(), f.digest.as_str(), f.size))
        .collect();
    let (md, forms, script) = (
        digest(PDF_SKILL_MD.as_bytes()),
        digest(FORMS.as_bytes()),
        digest(b"print('filled')\n"),
    );
    assert_eq!(
        manifest,
        [
            (
                "skill://pdf-processing/SKILL.md",
                md.as_str(),
                PDF_SKILL_MD.len() as u64
            ),
            (
                "skill://pdf-processing/references/FORMS.md",
                forms.as_str(),
                FORMS.len() as u64
            ),
            (
                "skill://pdf-processing/scripts/fill.py",
                script.as_str(),
                16
            ),
        ],
        "{label}"
    );

    // skills/get answers the listed entry; an unknown URI is -32602.
    let got = bounded(client.get_skill(&pdf.uri)).await.unwrap();
    assert_eq!(&got, pdf, "{label}");
    let unknown = bounded(client.get_skill("skill://nope/SKILL.md"))
        .await
        .unwrap_err();
    assert_eq!(code(&unknown), -32602, "{label}: {unknown}");

    // The files read as resources, their bytes those the manifest describes.
    let forms_read = bounded(client.read_resource("skill://pdf-processing/references/FORMS.md"))
        .await
        .unwrap();
    assert_eq!(text_of(&forms_read.contents[0]), FORMS, "{label}");
    let md_read = bounded(client.read_resource(&pdf.uri)).await.unwrap();
    assert_eq!(text_of(&md_read.contents[0]), PDF_SKILL_MD, "{label}");
    let ResourceContents::Text(t) = &md_read.contents[0] else {
        unreachable!()
    };
    assert_eq!(t.mime_type.as_deref(), Some("text/markdown"), "{label}");

    // SKILL.md files are listed resources; the template reads the rest.
    let listed = bounded(client.list_resources()).await.unwrap();
    let md = listed
        .iter()
        .find(|r| r.uri == pdf.uri)
        .unwrap_or_else(|| panic!("{label}: SKILL.md listed in {listed:?}"));
    assert_eq!(md.name, "pdf-processing", "{label}");
    assert_eq!(
        md.description.as_deref(),
        Some("Fills PDF forms."),
        "{label}"
    );
    assert!(
        !listed.iter().any(|r| r.uri.ends_with("FORMS.md")),
        "{label}: other files are in the manifest, not the list"
    );
    let templates = bounded(client.list_resource_templates()).await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template == "skill://{+path}"),
        "{label}: {templates:?}"
    );

    // Directories: direct children, subfolders marked; a file is -32602.
    let children = bounded(client.read_directory("skill://pdf-processing"))
        .await
        .unwrap();
    let shown: Vec<(&str, Option<&str>)> = children
        .iter()
        .map(|c| (c.uri.as_str(), c.mime_type.as_deref()))
        .collect();
    assert_eq!(
        shown,
        [
            ("skill://pdf-processing/SKILL.md", Some("text/markdown")),
            (
                "skill://pdf-processing/references",
                Some(DIRECTORY_MIME_TYPE)
            ),
            ("skill://pdf-processing/scripts", Some(DIRECTORY_MIME_TYPE)),
        ],
        "{label}"
    );
    let below = bounded(client.read_directory("skill://pdf-processing/references"))
        .await
        .unwrap();
    assert_eq!(below.len(), 1, "{label}");
    assert_eq!(below[0].size, Some(FORMS.len() as u64), "{label}");
    let not_a_dir = bounded(client.read_directory(&pdf.uri)).await.unwrap_err();
    assert_eq!(code(&not_a_dir), -32602, "{label}: {not_a_dir}");
    let outside = bounded(client.read_directory("skill://elsewhere"))
        .await
        .unwrap_err();
    assert_eq!(code(&outside), -32602, "{label}: {outside}");

    // The era fields: modern results carry the caching hints, legacy ones none.
    let raw = bounded(client.request("skills/list", None)).await.unwrap();
    let raw_get = bounded(client.request("skills/get", Some(json!({"uri": pdf.uri}))))
        .await
        .unwrap();
    for result in [&raw, &raw_get] {
        match era {
            Era::Modern => {
                assert_eq!(result["resultType"], "complete", "{label}: {result}");
                assert!(result["ttlMs"].is_u64(), "{label}: {result}");
                assert!(result["cacheScope"].is_string(), "{label}: {result}");
            }
            _ => {
                assert!(result.get("resultType").is_none(), "{label}: {result}");
                assert!(result.get("ttlMs").is_none(), "{label}: {result}");
            }
        }
        assert!(result.get("nextCursor").is_none(), "{label}: {result}");
    }
}

fn conformance_server_stdio(skills: &Path) -> Client {
    let mut command = tokio::process::Command::new(mcp_tests::example_bin("conformance-server"));
    command
        .arg("--skills-dir")
        .arg(skills)
        .env("RUST_LOG", "warn");
    Client::spawn(command).expect("conformance-server starts")
}

#[tokio::test]
async fn a_client_sees_the_skills_in_both_eras_over_stdio() {
    let dir = skills_folder();
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let client = conformance_server_stdio(dir.path());
        sees_the_skills(&client, mode, &format!("stdio {mode:?}")).await;
        let status = bounded(client.close()).await.expect("closes");
        assert!(status.is_some_and(|s| s.success()), "{status:?}");
    }
}

#[tokio::test]
async fn a_client_sees_the_skills_in_both_eras_over_http() {
    let dir = skills_folder();
    let path = dir.path().to_str().unwrap();
    let server = Spawned::start("conformance-server", &["--skills-dir", path]);
    for mode in [EraMode::Legacy, EraMode::Modern] {
        let client = Client::http(&server.url).unwrap();
        sees_the_skills(&client, mode, &format!("http {mode:?}")).await;
    }
}

#[tokio::test]
async fn the_extension_is_declared_with_resources_and_only_when_configured() {
    let dir = skills_folder();
    let server = Server::builder("s", "1")
        .skills_dir(dir.path())
        .build()
        .unwrap();
    let declared = serde_json::to_value(server.capabilities()).unwrap();
    assert_eq!(
        declared["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(declared["resources"].is_object(), "{declared}");
    // An empty folder still declares it: the server serves skills, none yet.
    let empty = tempfile::tempdir().unwrap();
    let none = Server::builder("s", "1")
        .skills_dir(empty.path())
        .build()
        .unwrap();
    assert!(none.skills().is_empty());
    assert!(none.capabilities().extensions.is_some());
    let client = Client::memory(&none);
    client.connect(EraMode::Modern).await.unwrap();
    assert!(client.list_skills().await.unwrap().is_empty());
    // Without skills, the methods are not offered.
    let bare = Server::builder("s", "1").build().unwrap();
    assert!(bare.capabilities().extensions.is_none());
    let client = Client::memory(&bare);
    client.connect(EraMode::Modern).await.unwrap();
    assert_eq!(code(&client.list_skills().await.unwrap_err()), -32601);
}

#[tokio::test]
async fn pages_hold_whole_skills_and_directories_page_by_cursor() {
    let dir = skills_folder();
    let server = Server::builder("s", "1")
        .page_size(1)
        .skills_dir(dir.path())
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let first = client.request("skills/list", None).await.unwrap();
    assert_eq!(first["skills"].as_array().unwrap().len(), 1, "{first}");
    let cursor = first["nextCursor"].as_str().expect("a second page");
    let second = client
        .request("skills/list", Some(json!({"cursor": cursor})))
        .await
        .unwrap();
    assert_eq!(
        second["skills"][0]["uri"],
        "skill://pdf-processing/SKILL.md"
    );
    assert!(second.get("nextCursor").is_none(), "{second}");
    // All pages together, one child each.
    let children = client
        .read_directory("skill://pdf-processing/")
        .await
        .unwrap();
    assert_eq!(children.len(), 3, "{children:?}");
    let bad = client
        .request(
            "resources/directory/read",
            Some(json!({"uri": "skill://pdf-processing", "cursor": "%%%"})),
        )
        .await
        .unwrap_err();
    assert_eq!(code(&bad), -32602);
}

/// Security review #40 item 7: two 1 MiB URIs of slashes froze the server for minutes (the
/// folder lookup tried every prefix). A URI over 8 KiB is refused before any lookup, as
/// `resources/read` refuses it; within the bound, a deep URI is an ordinary miss.
#[tokio::test]
async fn a_uri_over_8_kib_is_refused_at_once_and_deep_ones_are_ordinary_misses() {
    let dir = skills_folder();
    let server = Server::builder("s", "1")
        .skills_dir(dir.path())
        .build()
        .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let huge = format!("skill://pdf-processing/{}", "a/".repeat(512 * 1024));
    for method in ["resources/directory/read", "skills/get"] {
        let error = bounded(client.request(method, Some(json!({"uri": huge}))))
            .await
            .unwrap_err();
        assert_eq!(code(&error), -32602, "{method}");
        let text = error.to_string();
        assert!(text.contains("longer than 8 KiB"), "{method}: {text}");
        assert!(text.len() < 1024, "{method}: the URI is not echoed");
    }
    let deep = format!("skill://pdf-processing/{}", "a/".repeat(4000));
    let miss = bounded(client.read_directory(&deep)).await.unwrap_err();
    assert_eq!(code(&miss), -32602);
    assert!(miss.to_string().contains("is not a directory"), "{miss}");
    // Lookups below the bound still find the skill and its subfolder.
    let children = client
        .read_directory("skill://pdf-processing/references/")
        .await
        .unwrap();
    assert_eq!(children.len(), 1, "{children:?}");
}

#[tokio::test]
async fn skills_declared_in_code_are_served_like_folders() {
    let skill = Skill::new(NOTES_SKILL_MD)
        .file("templates/notes.md", "## Fixes\n")
        .under("acme");
    let server = Server::builder("s", "1").skill(skill).build().unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let entry: SkillEntry = client
        .get_skill("skill://acme/notes/SKILL.md")
        .await
        .unwrap();
    let SkillResources::Files(files) = &entry.resources else {
        panic!("a manifest")
    };
    assert_eq!(files[1].uri, "skill://acme/notes/templates/notes.md");
    assert_eq!(files[1].digest, digest(b"## Fixes\n"));
    let read = client
        .read_resource("skill://acme/notes/templates/notes.md")
        .await
        .unwrap();
    assert_eq!(text_of(&read.contents[0]), "## Fixes\n");

    let wrong = Skill::new("---\nname: Notes\ndescription: x\n---\n").file("../up.md", "x");
    let error = Server::builder("s", "1")
        .skill(wrong)
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("invalid skill name \"Notes\""), "{error}");
    let twice = Skill::new(NOTES_SKILL_MD)
        .file("a.md", "1")
        .file("a.md", "2");
    let error = Server::builder("s", "1")
        .skill(twice)
        .skill(Skill::new(NOTES_SKILL_MD))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("skill://notes/SKILL.md:1:1: the file \"a.md\" is given twice"),
        "{error}"
    );
}

fn build_error(builder: ServerBuilder) -> String {
    builder.build().unwrap_err().to_string()
}

#[test]
fn a_symlink_out_of_a_skill_is_a_build_error_naming_it() {
    let dir = skills_folder();
    let secret = tempfile::tempdir().unwrap();
    std::fs::write(secret.path().join("secret.md"), "secret").unwrap();
    let link = dir.path().join("pdf-processing/references/escape.md");
    std::os::unix::fs::symlink(secret.path().join("secret.md"), &link).unwrap();
    // A symlink to a file of another skill leaves this skill's folder too.
    let sibling = dir.path().join("pdf-processing/notes.md");
    std::os::unix::fs::symlink(dir.path().join("acme/notes/SKILL.md"), &sibling).unwrap();
    let error = build_error(Server::builder("s", "1").skills_dir(dir.path()));
    assert!(error.contains("2 problems in skill files"), "{error}");
    for path in [&link, &sibling] {
        assert!(
            error.contains(&format!(
                "{}:1:1: a symlink that leads out of the skill's folder",
                path.display()
            )),
            "{error}"
        );
    }
    // Inside the folder, a symlink is served as the file it names.
    std::fs::remove_file(&link).unwrap();
    std::fs::remove_file(&sibling).unwrap();
    std::os::unix::fs::symlink("FORMS.md", &link).unwrap();
    let server = Server::builder("s", "1")
        .skills_dir(dir.path())
        .build()
        .unwrap();
    let entry = server
        .skills()
        .entry("skill://pdf-processing/SKILL.md")
        .unwrap();
    let SkillResources::Files(files) = entry.resources else {
        panic!()
    };
    let escape = files.iter().find(|f| f.uri.ends_with("escape.md")).unwrap();
    assert_eq!(escape.digest, digest(FORMS.as_bytes()));
}

#[test]
fn a_skill_over_16_mib_is_a_build_error() {
    let dir = skills_folder();
    let big = vec![b'x'; 9 * 1024 * 1024];
    std::fs::write(dir.path().join("pdf-processing/scripts/a.bin"), &big).unwrap();
    std::fs::write(dir.path().join("pdf-processing/scripts/b.bin"), &big).unwrap();
    let error = build_error(Server::builder("s", "1").skills_dir(dir.path()));
    let skill_md = dir.path().join("pdf-processing/SKILL.md");
    assert!(
        error.contains(&format!(
            "{}:1:1: the skill `pdf-processing` holds {} bytes; a skill holds at most 16 MiB",
            skill_md.display(),
            18 * 1024 * 1024 + PDF_SKILL_MD.len() + FORMS.len() + 16
        )),
        "{error}"
    );
}

#[test]
fn more_than_512_files_is_a_build_error() {
    let dir = skills_folder();
    let many = dir.path().join("acme/notes/many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..512 {
        std::fs::write(many.join(format!("{i}.txt")), "x").unwrap();
    }
    let error = build_error(Server::builder("s", "1").skills_dir(dir.path()));
    assert!(
        error.contains("the skill `notes` has more than 512 files"),
        "{error}"
    );
}

#[test]
fn a_skill_md_without_front_matter_and_other_mistakes_are_listed_with_their_place() {
    let dir = skills_folder();
    std::fs::write(
        dir.path().join("acme/notes/SKILL.md"),
        "# Notes\n\nNo front matter.\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("wrong-name")).unwrap();
    std::fs::write(
        dir.path().join("wrong-name/SKILL.md"),
        "---\nname: right-name\ndescription: d\n---\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("bad-yaml")).unwrap();
    std::fs::write(
        dir.path().join("bad-yaml/SKILL.md"),
        "---\nname: [bad-yaml\n---\n",
    )
    .unwrap();
    let error = build_error(Server::builder("s", "1").skills_dir(dir.path()));
    let at = |rel: &str| dir.path().join(rel).display().to_string();
    assert!(error.contains("3 problems in skill files"), "{error}");
    assert!(
        error.contains(&format!(
            "{}:1:1: SKILL.md has no YAML front matter",
            at("acme/notes/SKILL.md")
        )),
        "{error}"
    );
    assert!(
        error.contains(&format!(
            "{}:2:7: the skill's name is \"right-name\" but its folder is `wrong-name`",
            at("wrong-name/SKILL.md")
        )),
        "{error}"
    );
    assert!(
        error.contains(&format!("{}:3:1: invalid YAML", at("bad-yaml/SKILL.md")))
            || error.contains(&format!("{}:2:", at("bad-yaml/SKILL.md"))),
        "{error}"
    );
    // A skill's own folder given as the skills folder is a mistake said as such.
    let error = build_error(Server::builder("s", "1").skills_dir(dir.path().join("acme/notes")));
    assert!(
        error.contains("the skills folder itself holds a SKILL.md"),
        "{error}"
    );
    // A folder that is not there is a clear error too.
    let error = build_error(Server::builder("s", "1").skills_dir(dir.path().join("missing")));
    assert!(error.contains("cannot open the skills folder"), "{error}");
}

#[tokio::test]
async fn a_file_changed_after_loading_is_refused_not_served_against_its_digest() {
    let dir = skills_folder();
    let server = Server::builder("s", "1")
        .skills_dir(dir.path())
        .build()
        .unwrap();
    std::fs::write(
        dir.path().join("pdf-processing/references/FORMS.md"),
        "changed",
    )
    .unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Modern).await.unwrap();
    let error = client
        .read_resource("skill://pdf-processing/references/FORMS.md")
        .await
        .unwrap_err();
    assert_eq!(code(&error), -32603, "{error}");
    assert!(
        error
            .to_string()
            .contains("changed since the server loaded it"),
        "{error}"
    );
    // Nothing but the manifest's files is reachable under skill://.
    for uri in [
        "skill://pdf-processing/../acme/notes/SKILL.md",
        "skill://pdf-processing/references/../../README.md",
        "skill://pdf-processing/missing.md",
        "skill://README.md",
    ] {
        let error = client.read_resource(uri).await.unwrap_err();
        assert_eq!(code(&error), -32602, "{uri}: {error}");
    }
}

/// Polls `done` until it holds (a bounded wait for the watcher, never a timing assertion).
async fn eventually<F: std::future::Future<Output = bool>>(
    what: &str,
    mut done: impl FnMut() -> F,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !done().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_watched_folder_reloads_and_keeps_the_last_good_version() {
    use mcp_runtime::skill::SkillsWatcher;
    let dir = skills_folder();
    let server = Server::builder("s", "1")
        .skills_dir(dir.path())
        .build()
        .unwrap();
    let watcher = SkillsWatcher::start(dir.path(), &server, Duration::from_millis(50)).unwrap();
    let client = Client::memory(&server);
    client.connect(EraMode::Legacy).await.unwrap();
    let mut notifications = client.take_unrouted().unwrap();

    // Changed: the new digest is served, and the file reads again.
    let forms = dir.path().join("pdf-processing/references/FORMS.md");
    std::fs::write(&forms, "# Forms, edited\n").unwrap();
    let uri = "skill://pdf-processing/references/FORMS.md";
    eventually("the edit served", || async {
        client
            .read_resource(uri)
            .await
            .is_ok_and(|r| text_of(&r.contents[0]) == "# Forms, edited\n")
    })
    .await;
    let entry = client
        .get_skill("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    let SkillResources::Files(files) = entry.resources else {
        panic!()
    };
    assert!(
        files
            .iter()
            .any(|f| f.uri == uri && f.digest == digest(b"# Forms, edited\n"))
    );
    let note = tokio::time::timeout(Duration::from_secs(30), notifications.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(note["method"], "notifications/resources/list_changed");

    // Broken: the previous skills stay served; the problem is known with its place.
    let notes = dir.path().join("acme/notes/SKILL.md");
    std::fs::write(&notes, "no front matter\n").unwrap();
    eventually("the broken edit seen", || async {
        !watcher.problems().is_empty()
    })
    .await;
    assert_eq!(watcher.problems()[0].file, notes);
    assert_eq!(client.list_skills().await.unwrap().len(), 2);

    // Fixed and a skill removed: gone from skills/list and resources/list.
    std::fs::write(&notes, NOTES_SKILL_MD).unwrap();
    std::fs::remove_dir_all(dir.path().join("pdf-processing")).unwrap();
    eventually("pdf-processing removed", || async {
        client.list_skills().await.unwrap().len() == 1
    })
    .await;
    assert!(watcher.problems().is_empty());
    let listed = client.list_resources().await.unwrap();
    assert!(
        !listed.iter().any(|r| r.uri.contains("pdf-processing")),
        "{listed:?}"
    );
    assert_eq!(code(&client.read_resource(uri).await.unwrap_err()), -32002);

    // A server without skills cannot be watched into serving some.
    let bare = Server::builder("s", "1").build().unwrap();
    assert!(SkillsWatcher::start(dir.path(), &bare, Duration::from_millis(50)).is_err());
}
