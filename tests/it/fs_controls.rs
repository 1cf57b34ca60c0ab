//! Positive controls for the FileService: what must keep working while everything in
//! `fs_attacks` is refused.

use crate::fs_support::*;
use mcp_runtime::fs::{
    EntryKind, FileService, FsErrorKind, FsPolicy, LineRange, MediaKind, STALE_AFTER, TEMP_PREFIX,
    TextEdit,
};
use mcp_runtime::fuzzing::temp_file_name;

#[tokio::test]
async fn nested_reads_and_writes() {
    let fx = fixture();
    fx.files.create_directory("a/b/c").await.unwrap();
    fx.files.create_directory("a/b/c/").await.unwrap(); // exists: fine
    let w = fx
        .files
        .write_file("a/b/c/new.txt", "one\ntwo\n")
        .await
        .unwrap();
    assert!(w.created);
    assert_eq!(w.path.relative(), "a/b/c/new.txt");
    assert_eq!(w.path.absolute(), fx.root.join("a/b/c/new.txt"));
    assert_eq!(fx.read("a/b/c/new.txt").await.unwrap(), "one\ntwo\n");
    assert_eq!(fx.read("./a//b/./c/new.txt").await.unwrap(), "one\ntwo\n");
    let abs = s(&fx.root.join("a/b/c/new.txt"));
    assert_eq!(fx.read(&abs).await.unwrap(), "one\ntwo\n");
    let w = fx.files.write_file(&abs, "three\n").await.unwrap();
    assert!(!w.created);
    assert_eq!(
        std::fs::read_to_string(fx.root.join("a/b/c/new.txt")).unwrap(),
        "three\n"
    );
    // A missing parent is an error, not an implicit mkdir.
    let e = fx.files.write_file("x/y/z.txt", "x").await.unwrap_err();
    assert_eq!(e.kind(), FsErrorKind::NotFound);
    // Only the written file is there: no temporary files left behind.
    let names: Vec<_> = std::fs::read_dir(fx.root.join("a/b/c")).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[tokio::test]
async fn writes_keep_permissions_and_edits_keep_crlf() {
    use std::os::unix::fs::PermissionsExt;
    let fx = fixture();
    let p = fx.root.join("script.txt");
    std::fs::write(&p, "a\r\nb\r\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = fx
        .files
        .edit_file("script.txt", vec![TextEdit::new("b", "c")], false)
        .await
        .unwrap();
    assert!(out.written);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "a\r\nc\r\n");
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
    fx.files.write_file("script.txt", "new").await.unwrap();
    assert_eq!(
        std::fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );

    // A setuid/setgid file keeps its permissions through a write or an edit, but never
    // those two bits: content a client wrote does not run with the owner's privileges.
    for (i, edit) in [false, true].into_iter().enumerate() {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o6755)).unwrap();
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
            0o6755
        );
        if edit {
            let edits = vec![TextEdit::new("new", "newer")];
            assert!(
                fx.files
                    .edit_file("script.txt", edits, false)
                    .await
                    .unwrap()
                    .written
            );
        } else {
            fx.files.write_file("script.txt", "new").await.unwrap();
        }
        assert_eq!(
            std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777,
            0o755,
            "case {i}"
        );
    }
}

#[tokio::test]
async fn edit_dry_run_returns_the_reference_diff() {
    let fx = fixture();
    let out = fx
        .files
        .edit_file("notes.txt", vec![TextEdit::new("hello", "goodbye")], true)
        .await
        .unwrap();
    let label = s(&fx.root.join("notes.txt"));
    assert_eq!(
        out.diff,
        format!(
            "Index: {label}\n{}\n--- {label}\toriginal\n+++ {label}\tmodified\n@@ -1,1 +1,1 @@\n-hello notes\n+goodbye notes\n",
            "=".repeat(67)
        )
    );
    assert_eq!(out.fenced_diff(), format!("```diff\n{}```\n\n", out.diff));
    assert!(!out.written);
    assert_eq!(fx.read("notes.txt").await.unwrap(), "hello notes\n");
    let e = fx
        .files
        .edit_file("notes.txt", vec![TextEdit::new("absent", "x")], true)
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Could not find exact match for edit:\nabsent"
    );
}

#[tokio::test]
async fn symlinks_that_stay_inside_work() {
    let fx = fixture();
    fx.symlink("notes.txt", "file_link.txt");
    fx.symlink("d", "dir_link");
    fx.symlink("../notes.txt", "d/up_link.txt");
    fx.symlink("file_link.txt", "chain.txt");
    fx.symlink("d/missing.txt", "dangling_inside.txt");
    for path in ["file_link.txt", "d/up_link.txt", "chain.txt"] {
        assert_eq!(fx.read(path).await.unwrap(), "hello notes\n", "{path}");
    }
    assert_eq!(fx.read("dir_link/inner.txt").await.unwrap(), "inner\n");
    let listing = fx.files.list_directory("dir_link").await.unwrap();
    assert!(listing.entries.iter().any(|e| e.name == "inner.txt"));
    // A write through an inside link replaces the target, and leaves the link a link.
    fx.files
        .write_file("chain.txt", "via chain\n")
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(fx.root.join("notes.txt")).unwrap(),
        "via chain\n"
    );
    assert!(fx.root.join("chain.txt").is_symlink());
    // A dangling link inside the root creates its target inside the root.
    fx.files
        .write_file("dangling_inside.txt", "made\n")
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(fx.root.join("d/missing.txt")).unwrap(),
        "made\n"
    );
    let info = fx.files.get_file_info("dir_link").await.unwrap();
    assert_eq!(info.kind, EntryKind::Directory);
    // Moving a link moves the link.
    fx.files
        .move_file("file_link.txt", "d/moved_link.txt")
        .await
        .unwrap();
    assert!(fx.root.join("d/moved_link.txt").is_symlink());
}

#[tokio::test]
async fn roots_spelled_through_an_alias() {
    let fx = fixture();
    let alias = fx.base.join("alias");
    std::os::unix::fs::symlink(&fx.root, &alias).unwrap();
    let files = FileService::new(FsPolicy::new().allow_dir(&alias)).unwrap();
    assert_eq!(files.allowed_directories(), std::slice::from_ref(&alias));
    // Relative, through the alias spelling, and through the real spelling.
    for path in [
        "notes.txt".to_owned(),
        s(&alias.join("notes.txt")),
        s(&fx.root.join("notes.txt")),
        format!("file://{}", s(&alias.join("notes.txt"))),
    ] {
        let text = files.read_text_file(&path, LineRange::All).await;
        assert_eq!(text.unwrap(), "hello notes\n", "{path}");
    }
    // Paths are shown with the spelling as given.
    let w = files
        .write_file(&s(&fx.root.join("w.txt")), "w")
        .await
        .unwrap();
    assert_eq!(w.path.absolute(), alias.join("w.txt"));
    // A root given by its real path does not know an alias created elsewhere.
    let real = FileService::new(FsPolicy::new().allow_dir(&fx.root)).unwrap();
    let e = real
        .read_text_file(&s(&alias.join("notes.txt")), LineRange::All)
        .await
        .unwrap_err();
    assert_eq!(e.kind(), FsErrorKind::OutsideRoots);
    // A root given with `..` in it is shown canonically.
    let dotted = fx.base.join("outside/../allowed");
    let files = FileService::new(FsPolicy::new().allow_dir(&dotted)).unwrap();
    assert_eq!(files.allowed_directories(), std::slice::from_ref(&fx.root));
}

#[tokio::test]
async fn several_roots_and_moves_between_them() {
    let fx = fixture();
    let second = fx.base.join("second");
    std::fs::create_dir(&second).unwrap();
    std::fs::write(second.join("s.txt"), "second root").unwrap();
    let files = FileService::new(FsPolicy::new().allow_dirs([&fx.root, &second])).unwrap();
    // Relative paths belong to the first root; absolute ones pick theirs.
    assert_eq!(
        files
            .read_text_file("notes.txt", LineRange::All)
            .await
            .unwrap(),
        "hello notes\n"
    );
    assert_eq!(
        files
            .read_text_file("s.txt", LineRange::All)
            .await
            .unwrap_err()
            .kind(),
        FsErrorKind::NotFound
    );
    let abs = s(&second.join("s.txt"));
    assert_eq!(
        files.read_text_file(&abs, LineRange::All).await.unwrap(),
        "second root"
    );
    let moved = files.move_file(&abs, "from_second.txt").await.unwrap();
    assert_eq!(
        moved.destination.absolute(),
        fx.root.join("from_second.txt")
    );
    assert_eq!(moved.source.root(), second.as_path());
    assert!(fx.root.join("from_second.txt").exists() && !second.join("s.txt").exists());
    // A symlink never leads from one root into another.
    std::os::unix::fs::symlink(&second, fx.root.join("to_second")).unwrap();
    let e = files.list_directory("to_second").await.unwrap_err();
    assert_eq!(e.kind(), FsErrorKind::OutsideRoots);
    // A missing root is a startup error.
    let e = FileService::new(FsPolicy::new().allow_dirs([&fx.root, &fx.base.join("nope")]))
        .unwrap_err();
    assert_eq!(e.kind(), FsErrorKind::Config);
}

#[tokio::test]
async fn listings_trees_searches_and_info() {
    let fx = fixture();
    fx.write("d/e/deep.rs", "fn main() {}\n");
    fx.write(".hidden.txt", "h");
    let listing = fx.files.list_directory(".").await.unwrap();
    let names: Vec<_> = listing
        .entries
        .iter()
        .map(|e| (e.name.as_str(), e.kind, e.size))
        .collect();
    assert_eq!(
        names,
        [
            (".hidden.txt", EntryKind::File, Some(1)),
            ("d", EntryKind::Directory, None),
            ("notes.txt", EntryKind::File, Some(12)),
        ]
    );
    let tree = fx.files.directory_tree("d", &[]).await.unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&tree.to_json()).unwrap(),
        serde_json::json!([
            {"name": "e", "type": "directory", "children": [{"name": "deep.rs", "type": "file"}]},
            {"name": "inner.txt", "type": "file"}
        ])
    );
    let found = fx.files.search_files(".", "**/*.rs", &[]).await.unwrap();
    let rel: Vec<_> = found.matches.iter().map(|p| p.relative()).collect();
    assert_eq!(rel, ["d/e/deep.rs"]);
    let found = fx.files.search_files("d", "*.txt", &[]).await.unwrap();
    assert_eq!(found.matches[0].absolute(), fx.root.join("d/inner.txt"));
    let found = fx
        .files
        .search_files(".", "**/*", &["d".into()])
        .await
        .unwrap();
    assert!(found.matches.iter().all(|p| !p.relative().starts_with('d')));
    let info = fx.files.get_file_info("notes.txt").await.unwrap();
    assert_eq!((info.kind, info.size), (EntryKind::File, 12));
    assert!(info.modified.is_some() && info.permissions <= 0o777);
    let media = fx.files.read_media_file("notes.txt").await.unwrap();
    assert_eq!(
        (media.kind, media.mime_type),
        (MediaKind::Other, "application/octet-stream")
    );
    assert_eq!(
        media.path.file_uri(),
        format!("file://{}", s(&fx.root.join("notes.txt")))
    );
}

#[tokio::test]
async fn stale_temp_files_are_cleaned_up() {
    let fx = fixture();
    let d = fx.root.join("d");
    // pid_max is at most 2^22: no process has these ids.
    let stale = temp_file_name(99_999_999);
    let fresh = temp_file_name(99_999_998);
    // Named like ours but without our marker: someone else's file, never touched.
    let lookalike = format!("{TEMP_PREFIX}99999999-00000000deadbeef");
    for name in [stale.as_os_str(), fresh.as_os_str(), lookalike.as_ref()] {
        std::fs::write(d.join(name), "complete").unwrap();
    }
    for name in [stale.as_os_str(), lookalike.as_ref()] {
        set_idle(&d.join(name), STALE_AFTER * 2);
    }
    assert_eq!(fx.files.remove_stale_temp_files("d").await.unwrap(), 1);
    assert!(!d.join(&stale).exists());
    assert!(
        d.join(&fresh).exists(),
        "a file written a moment ago may be a live writer's"
    );
    assert!(d.join(&lookalike).exists());
    assert_eq!(fx.files.remove_stale_temp_files("d").await.unwrap(), 0);
}
