//! `FileResources`: the allowed directories as `file://` resources, through the dispatcher
//! in both eras: a bounded listing, reads of text and bytes with their MIME types, every
//! refusal the file tools make (and nothing from outside in any answer), completion of the
//! template's `path`, and refreshes.

use crate::fs_support::{Fixture, SECRET, fixture_with, guarded, s};
use base64::Engine as _;
use mcp_runtime::client::{Client, ClientError, EraMode};
use mcp_runtime::fs::{FILE_URI_TEMPLATE, FileResources, Truncation};
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{CompletionReference, ErrorCode, McpError, ResourceContents};
use serde_json::json;
use std::collections::BTreeMap;

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

/// `allowed/` (see `fs_support`) with `.txt`, `.md`, `.png` and `.json` files allowed, plus:
///
/// ```text
/// allowed/
///   readme.md                "# Readme\n"
///   logo.png                 PNG bytes
///   data.json                {"k":1}
///   nul.txt                  "a\0b"
///   blocked.bin              (an extension the policy refuses)
///   link_out.txt   → ../outside/secret.txt
///   dir_out        → ../outside
///   folder.md/               (a directory whose name has an allowed extension)
///   d/inner.txt, notes.txt   (from the shared fixture)
/// ```
fn fixture() -> Fixture {
    let f = fixture_with(|p| p.allow_extensions(["txt", "md", "png", "json"]));
    f.write("readme.md", "# Readme\n");
    std::fs::write(f.root.join("logo.png"), PNG).unwrap();
    f.write("data.json", "{\"k\":1}");
    f.write("nul.txt", "a\0b");
    f.write("blocked.bin", "blocked");
    f.symlink("../outside/secret.txt", "link_out.txt");
    f.symlink("../outside", "dir_out");
    std::fs::create_dir(f.root.join("folder.md")).unwrap();
    f
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn server(resources: &FileResources) -> Server {
    resources
        .register(Server::builder("files", "1.0.0"))
        .build()
        .expect("a valid server")
}

async fn connect(server: &Server, era: EraMode) -> Client {
    let client = Client::memory(server);
    guarded(client.connect(era)).await.expect("handshake");
    client
}

fn uri(f: &Fixture, rel: &str) -> String {
    format!("file://{}/{rel}", s(&f.root))
}

/// The JSON-RPC error a read of `uri` ends with.
async fn refused(client: &Client, uri: &str) -> McpError {
    match guarded(client.read_resource(uri)).await {
        Err(ClientError::Protocol(e)) => {
            let text = format!("{} {:?}", e.message, e.data);
            assert!(!text.contains(SECRET), "{uri}: leaked {text}");
            e
        }
        other => panic!("{uri}: expected an error, got {other:?}"),
    }
}

/// Asserts an `invalid_uri` refusal whose message says `why`.
async fn assert_invalid(client: &Client, uri: &str, why: &str) {
    let e = refused(client, uri).await;
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{uri}: {e:?}");
    assert_eq!(
        e.data.as_ref().and_then(|d| d.get("reason")),
        Some(&json!("invalid_uri")),
        "{uri}: {e:?}"
    );
    assert!(
        e.message.contains(why),
        "{uri}: {:?} lacks {why:?}",
        e.message
    );
}

#[tokio::test]
async fn the_listing_shows_readable_files_only() {
    let f = fixture();
    let resources = FileResources::new(f.files.clone());
    let server = server(&resources);
    for era in ERAS {
        let client = connect(&server, era).await;
        let listed = guarded(client.list_resources()).await.unwrap();
        let names: Vec<&str> = listed.iter().map(|r| r.name.as_str()).collect();
        // Sorted by URI; no symlink, no refused extension, nothing from outside.
        assert_eq!(
            names,
            [
                "d/inner.txt",
                "data.json",
                "logo.png",
                "notes.txt",
                "nul.txt",
                "readme.md"
            ],
            "{era:?}"
        );
        let readme = listed.iter().find(|r| r.name == "readme.md").unwrap();
        assert_eq!(readme.uri, uri(&f, "readme.md"));
        assert_eq!(readme.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(readme.size, Some(9));
        let templates = guarded(client.list_resource_templates()).await.unwrap();
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].uri_template, FILE_URI_TEMPLATE);
        assert!(
            templates[0]
                .description
                .as_deref()
                .unwrap()
                .contains(&s(&f.root))
        );
    }
}

#[tokio::test]
async fn the_listing_is_bounded_and_the_rest_stays_readable() {
    let f = fixture_with(|p| p);
    for i in 0..40 {
        f.write(&format!("many/f{i:02}.txt"), &format!("file {i}"));
    }
    f.write("deep/a/b/c/d/e/f/g/h/i/j/k/l/deep.txt", "deep");
    let resources = FileResources::new(f.files.clone()).max_files(12);
    let server = server(&resources);
    assert_eq!(resources.truncated(), Some(Truncation::Entries));
    let client = connect(&server, EraMode::Modern).await;
    let listed = guarded(client.list_resources()).await.unwrap();
    assert_eq!(listed.len(), 12);
    // Breadth-first: the top-level file is kept.
    assert!(listed.iter().any(|r| r.name == "notes.txt"));
    for rel in ["many/f39.txt", "deep/a/b/c/d/e/f/g/h/i/j/k/l/deep.txt"] {
        assert!(listed.iter().all(|r| r.name != rel), "{rel} listed");
        let read = guarded(client.read_resource(&uri(&f, rel))).await.unwrap();
        assert!(
            matches!(&read.contents[0], ResourceContents::Text(_)),
            "{rel}"
        );
    }
    // The default depth leaves the deep file out even without a file cap.
    let unbounded = FileResources::new(f.files.clone()).max_files(usize::MAX);
    let all = unbounded.resources();
    assert_eq!(all.len(), 42);
    assert_eq!(unbounded.truncated(), Some(Truncation::Depth));
}

#[tokio::test]
async fn reads_are_text_or_blob_with_a_mime_type_and_the_concrete_uri() {
    let f = fixture();
    let server = server(&FileResources::new(f.files.clone()));
    for era in ERAS {
        let client = connect(&server, era).await;
        let text = |rel: &'static str| {
            let (client, uri) = (client.clone(), uri(&f, rel));
            async move {
                let read = guarded(client.read_resource(&uri)).await.unwrap();
                assert_eq!(read.contents.len(), 1);
                match read.contents.into_iter().next().unwrap() {
                    ResourceContents::Text(t) => {
                        assert_eq!(t.uri, uri);
                        (t.text, t.mime_type.unwrap())
                    }
                    other => panic!("{rel}: text expected, got {other:?}"),
                }
            }
        };
        assert_eq!(
            text("readme.md").await,
            ("# Readme\n".into(), "text/markdown".into())
        );
        assert_eq!(
            text("data.json").await,
            ("{\"k\":1}".into(), "application/json".into())
        );
        assert_eq!(
            text("d/inner.txt").await,
            ("inner\n".into(), "text/plain".into())
        );

        for (rel, mime, bytes) in [
            ("logo.png", "image/png", PNG),
            ("nul.txt", "text/plain", b"a\0b".as_slice()),
        ] {
            let uri = uri(&f, rel);
            let read = guarded(client.read_resource(&uri)).await.unwrap();
            let ResourceContents::Blob(b) = &read.contents[0] else {
                panic!("{rel}: a blob expected, got {:?}", read.contents);
            };
            assert_eq!(
                (b.uri.as_str(), b.mime_type.as_deref()),
                (uri.as_str(), Some(mime))
            );
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(&b.blob)
                .unwrap();
            assert_eq!(decoded, bytes, "{rel}");
        }

        // A URI spelled differently from the listing (percent-encoded letters) reaches the
        // same file through the template, and the contents carry the URI as asked.
        let spelled = uri(&f, "readm%65.md");
        let read = guarded(client.read_resource(&spelled)).await.unwrap();
        assert!(
            matches!(&read.contents[0], ResourceContents::Text(t) if t.uri == spelled && t.text == "# Readme\n")
        );
    }
}

#[tokio::test]
async fn refusals_explain_themselves_and_leak_nothing() {
    let f = fixture();
    let before = f.forbidden();
    let server = server(&FileResources::new(f.files.clone()));
    let root = s(&f.root);
    for era in ERAS {
        let client = connect(&server, era).await;
        let outside = "outside the allowed directories";
        assert_invalid(&client, "file:///etc/passwd", outside).await;
        assert_invalid(
            &client,
            &format!("file://{}/secret.txt", s(&f.outside)),
            outside,
        )
        .await;
        // A sibling whose name extends the root's is not inside it.
        assert_invalid(&client, &format!("file://{root}_evil/secret.txt"), outside).await;
        for traversal in [
            format!("file://{root}/../outside/secret.txt"),
            format!("file://{root}/%2e%2e/outside/secret.txt"),
            format!("file://{root}/%2E%2E%2Foutside%2Fsecret.txt"),
            format!("file://{root}/d/../../outside/secret.txt"),
        ] {
            assert_invalid(&client, &traversal, outside).await;
        }
        let through_link = "outside its allowed directory through a symbolic link";
        assert_invalid(&client, &uri(&f, "link_out.txt"), through_link).await;
        assert_invalid(&client, &uri(&f, "dir_out/secret.txt"), through_link).await;
        assert_invalid(
            &client,
            &uri(&f, "blocked.bin"),
            "does not have an allowed extension",
        )
        .await;
        assert_invalid(&client, &uri(&f, "folder.md"), "is a directory").await;
        assert_invalid(&client, &uri(&f, "folder.md/"), "names a directory").await;

        // Nothing there: the spec's not-found error for the era, with the URI.
        let missing = uri(&f, "missing.txt");
        let e = refused(&client, &missing).await;
        let code = match era {
            EraMode::Legacy => ErrorCode::RESOURCE_NOT_FOUND,
            _ => ErrorCode::INVALID_PARAMS,
        };
        assert_eq!((e.code, e.message.as_ref()), (code, "Resource not found"));
        assert_eq!(e.data, Some(json!({ "uri": missing })));
        // Other hosts and schemes, and a NUL, match no template: not found.
        let nul = format!("file://{root}/a%00b.txt");
        for other in [
            "file://evil.example/etc/passwd",
            "http://example.com/x",
            &nul,
        ] {
            let e = refused(&client, other).await;
            assert_eq!(e.message, "Resource not found", "{other}");
        }
    }
    assert_eq!(f.forbidden(), before, "nothing outside changed");
}

#[tokio::test]
async fn hard_linked_files_are_refused_unless_the_policy_admits_them() {
    let f = fixture_with(|p| p);
    std::fs::hard_link(f.root.join("notes.txt"), f.root.join("twin.txt")).unwrap();
    let server = server(&FileResources::new(f.files.clone()));
    let client = connect(&server, EraMode::Modern).await;
    let listed = guarded(client.list_resources()).await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_invalid(&client, &uri(&f, "twin.txt"), "more than one hard link").await;

    let admitted = fixture_with(|p| p.allow_hard_links(true));
    std::fs::hard_link(
        admitted.root.join("notes.txt"),
        admitted.root.join("twin.txt"),
    )
    .unwrap();
    let server = self::server(&FileResources::new(admitted.files.clone()));
    let client = connect(&server, EraMode::Legacy).await;
    assert_eq!(guarded(client.list_resources()).await.unwrap().len(), 3);
    let read = guarded(client.read_resource(&uri(&admitted, "twin.txt")))
        .await
        .unwrap();
    assert!(matches!(&read.contents[0], ResourceContents::Text(t) if t.text == "hello notes\n"));
}

#[tokio::test]
async fn files_over_the_read_limit_fail_with_the_reason() {
    let f = fixture_with(|p| p.max_read_bytes(4));
    let server = server(&FileResources::new(f.files.clone()));
    let client = connect(&server, EraMode::Legacy).await;
    assert!(guarded(client.list_resources()).await.unwrap().is_empty());
    let e = refused(&client, &uri(&f, "notes.txt")).await;
    assert_eq!(e.code, ErrorCode::INTERNAL_ERROR);
    assert!(
        e.message.contains("over the read limit of 4 bytes"),
        "{e:?}"
    );
}

#[tokio::test]
async fn the_path_variable_completes_from_directory_entries() {
    let f = fixture();
    let server = server(&FileResources::new(f.files.clone()));
    let root = s(&f.root);
    let root = root.trim_start_matches('/');
    let template = CompletionReference::Resource {
        uri: FILE_URI_TEMPLATE.into(),
    };
    let none = BTreeMap::new();
    for era in ERAS {
        let client = connect(&server, era).await;
        let complete = |typed: String| {
            let (client, template, none) = (client.clone(), template.clone(), none.clone());
            async move {
                guarded(client.complete(&template, "path", &typed, &none))
                    .await
                    .unwrap()
                    .values
            }
        };
        assert_eq!(complete(String::new()).await, [format!("{root}/")]);
        assert_eq!(
            complete(format!("{root}/d")).await,
            [format!("{root}/d/"), format!("{root}/data.json")]
        );
        assert_eq!(
            complete(format!("{root}/d/")).await,
            [format!("{root}/d/inner.txt")]
        );
        // Symlinks and refused extensions are not offered; nothing outside is listed.
        assert!(complete(format!("{root}/link")).await.is_empty());
        assert!(complete(format!("{root}/blocked")).await.is_empty());
        assert!(complete(format!("{root}/../outside/")).await.is_empty());
        let other = guarded(client.complete(&template, "other", "", &none)).await;
        assert!(other.is_err(), "{other:?}");
    }
}

#[tokio::test]
async fn a_refresh_lists_new_files_drops_vanished_ones_and_tells_subscribers() {
    let f = fixture_with(|p| p);
    let resources = FileResources::new(f.files.clone());
    let server = server(&resources);
    let client = connect(&server, EraMode::Legacy).await;
    let mut incoming = client.take_unrouted().unwrap();
    assert_eq!(guarded(client.list_resources()).await.unwrap().len(), 2);
    let notes = uri(&f, "notes.txt");
    guarded(client.request("resources/subscribe", Some(json!({ "uri": notes }))))
        .await
        .unwrap();

    assert!(
        guarded(resources.refresh(&server))
            .await
            .unwrap()
            .is_empty()
    );
    f.write("new.txt", "new");
    std::fs::remove_file(f.root.join("d/inner.txt")).unwrap();
    f.write("notes.txt", "a longer text than before\n");
    let change = guarded(resources.refresh(&server)).await.unwrap();
    assert_eq!(change.added, [uri(&f, "new.txt")]);
    assert_eq!(change.removed, [uri(&f, "d/inner.txt")]);
    assert_eq!(change.changed, std::slice::from_ref(&notes));

    let (mut list_changed, mut updated) = (false, false);
    while !(list_changed && updated) {
        let n = guarded(incoming.recv()).await.expect("a notification");
        match n["method"].as_str() {
            Some("notifications/resources/list_changed") => list_changed = true,
            Some("notifications/resources/updated") => {
                assert_eq!(n["params"]["uri"], json!(notes));
                updated = true;
            }
            _ => panic!("unexpected {n}"),
        }
    }
    let listed = guarded(client.list_resources()).await.unwrap();
    let names: Vec<(&str, Option<u64>)> =
        listed.iter().map(|r| (r.name.as_str(), r.size)).collect();
    assert_eq!(names, [("new.txt", Some(3)), ("notes.txt", Some(26))]);
}

#[tokio::test]
async fn file_server_serves_its_directories_as_resources() {
    let tree = crate::fs_tools_support::tree();
    let root = tree.root_str();
    for era in ERAS {
        let client = crate::fs_tools_support::file_server([root], era).await;
        let listed = guarded(client.list_resources()).await.unwrap();
        assert_eq!(listed.len(), 11, "{era:?}: {listed:?}");
        let templates = guarded(client.list_resource_templates()).await.unwrap();
        assert_eq!(templates[0].uri_template, FILE_URI_TEMPLATE);
        let read = guarded(client.read_resource(&format!("file://{root}/sub/deep/d.txt")))
            .await
            .unwrap();
        assert!(
            matches!(&read.contents[0], ResourceContents::Text(t) if t.text == "deep\nfile"),
            "{era:?}: {read:?}"
        );
        let e = refused(&client, "file:///etc/passwd").await;
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{era:?}");
        let _ = client.close().await;
    }
}
