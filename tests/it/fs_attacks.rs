//! The FileService attack suite, part one: every path a hostile or confused model might send,
//! against every operation, and symlink and hard-link escapes. Each test names the attack
//! class it covers; special files, extensions, moves, walks and sizes are in
//! `fs_attacks_files`, the race and crash tests in `fs_races`, the positive controls in
//! `fs_controls`.

use crate::fs_support::*;
use mcp_runtime::fs::{EntryKind, FileService, FsErrorKind, FsPolicy, LineRange};

use FsErrorKind::*;

#[tokio::test]
async fn dot_dot_that_climbs_out_is_refused() {
    let fx = fixture();
    let root = s(&fx.root);
    for path in [
        "../outside/secret.txt",
        "..",
        "d/../../outside/secret.txt",
        "./../outside",
        "d/../..",
        &format!("{root}/../outside/secret.txt"),
        &format!("{root}/d/../../outside/sub/deep.txt"),
    ] {
        assert_all_refused(&fx, path, &[OutsideRoots]).await;
    }
    let e = fx.read("../outside/secret.txt").await.unwrap_err();
    assert!(e.to_string().contains("climbs above"), "{e}");
}

#[tokio::test]
async fn dot_dot_inside_a_root_is_resolved_beneath_it() {
    let fx = fixture();
    let root = s(&fx.root);
    // As the reference server and models write them: lexically, from the root.
    for path in [
        "d/../notes.txt",
        "d/x/y/../../../notes.txt",
        "./d/./../notes.txt",
        &format!("{root}/d/../notes.txt"),
        &format!("{}/outside/../allowed/notes.txt", s(&fx.base)),
    ] {
        assert_eq!(fx.read(path).await.unwrap(), "hello notes\n", "{path}");
    }
    let listed = fx.files.list_directory("d/..").await.unwrap();
    assert_eq!(listed.path.absolute(), fx.root);
    assert!(
        listed.entries.iter().any(|e| e.name == "notes.txt"),
        "{:?}",
        listed.entries
    );
    let written = fx
        .files
        .write_file("d/../written.txt", "beneath")
        .await
        .unwrap();
    assert_eq!(written.path.absolute(), fx.root.join("written.txt"));
    assert_eq!(
        std::fs::read_to_string(fx.root.join("written.txt")).unwrap(),
        "beneath"
    );
}

#[tokio::test]
async fn absolute_paths_outside_are_refused() {
    let fx = fixture();
    for path in [
        "/etc/passwd".to_owned(),
        "//etc//passwd".to_owned(),
        "/".to_owned(),
        s(&fx.outside.join("secret.txt")),
        s(&fx.outside.join("sub")),
        s(&fx.base),
        s(&fx.root.parent().unwrap().join("outside/sub/deep.txt")),
    ] {
        assert_all_refused(&fx, &path, &[OutsideRoots]).await;
    }
}

#[tokio::test]
async fn prefix_siblings_are_outside() {
    let fx = fixture();
    let evil = fx.base.join("allowed_evil");
    for path in [
        s(&evil.join("secret.txt")),
        s(&evil),
        format!("{}_evil/secret.txt", s(&fx.root)),
        format!("{}x", s(&fx.root)),
    ] {
        assert_all_refused(&fx, &path, &[OutsideRoots]).await;
    }
    // The root spelled with a trailing slash is still the root, and its sibling still not.
    let fx2 = fixture_with(|p| p);
    let with_slash =
        FileService::new(FsPolicy::new().allow_dir(format!("{}/", s(&fx2.root)))).unwrap();
    let e = with_slash
        .read_text_file(
            &s(&fx2.base.join("allowed_evil/secret.txt")),
            LineRange::All,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind(), OutsideRoots);
}

#[tokio::test]
async fn symlinked_files_pointing_out_are_refused() {
    let fx = fixture();
    fx.symlink(fx.outside.join("secret.txt"), "abs.txt");
    fx.symlink("../outside/secret.txt", "rel.txt");
    fx.symlink("d/../../outside/secret.txt", "rel2.txt");
    fx.symlink(fx.root.join("notes.txt"), "abs_inside.txt");
    for link in ["abs.txt", "rel.txt", "rel2.txt", "abs_inside.txt"] {
        // Moving the link itself is allowed (it stays a link); nothing else is.
        assert_refused_except(
            &fx,
            link,
            &[OutsideRoots, AlreadyExists, NotADirectory],
            &["move_from"],
        )
        .await;
    }
    let e = fx.read("rel.txt").await.unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
}

#[tokio::test]
async fn symlinked_directories_pointing_out_are_refused() {
    let fx = fixture();
    fx.symlink(&fx.outside, "abs_dir");
    fx.symlink("../outside", "rel_dir");
    fx.symlink("d/../../outside", "rel_dir2");
    for link in ["abs_dir", "rel_dir", "rel_dir2"] {
        assert_refused_except(&fx, link, &[OutsideRoots, AlreadyExists], &["move_from"]).await;
        for inner in ["secret.txt", "sub", "sub/deep.txt", "new.txt"] {
            assert_all_refused(&fx, &format!("{link}/{inner}"), &[OutsideRoots]).await;
        }
    }
}

#[tokio::test]
async fn symlink_chains_are_followed_only_while_inside() {
    let fx = fixture();
    // a -> b -> d/c -> ../../outside/secret.txt: escapes at the last hop.
    fx.symlink("b", "a");
    fx.symlink("d/c", "b");
    fx.symlink("../../outside/secret.txt", "d/c");
    // A directory chain out: x -> y -> ../outside
    fx.symlink("y", "x");
    fx.symlink("../outside", "y");
    for path in ["a", "b", "d/c", "x/secret.txt", "x/sub/deep.txt"] {
        assert_refused_except(&fx, path, &[OutsideRoots, AlreadyExists], &["move_from"]).await;
    }
}

#[tokio::test]
async fn dangling_symlinks_cannot_create_files_outside() {
    let fx = fixture();
    fx.symlink(fx.outside.join("created.txt"), "abs_new.txt");
    fx.symlink("../outside/created.txt", "rel_new.txt");
    fx.symlink(fx.outside.join("newdir"), "abs_newdir");
    fx.symlink("../outside/newdir", "rel_newdir");
    for link in ["abs_new.txt", "rel_new.txt"] {
        let e = fx.files.write_file(link, "PWNED").await.unwrap_err();
        assert_eq!(e.kind(), OutsideRoots, "{link}: {e}");
    }
    for link in ["abs_newdir", "rel_newdir"] {
        for path in [
            link.to_owned(),
            format!("{link}/sub"),
            format!("{link}/f.txt"),
        ] {
            assert!(fx.files.create_directory(&path).await.is_err(), "{path}");
            assert!(fx.files.write_file(&path, "PWNED").await.is_err(), "{path}");
        }
    }
    assert!(!fx.outside.join("created.txt").exists());
    assert!(!fx.outside.join("newdir").exists());
    // The links are still links: nothing replaced them either.
    assert!(fx.root.join("abs_new.txt").is_symlink());
}

#[tokio::test]
async fn symlink_loops_terminate() {
    let fx = fixture();
    fx.symlink("loop", "loop");
    fx.symlink("l2", "l1");
    fx.symlink("l1", "l2");
    fx.symlink(".", "self");
    fx.symlink("..", "d/up");
    for path in ["loop", "l1", "loop/x", "l1/x.txt"] {
        let results = every_operation(&fx.files, path).await;
        assert_no_leak(&fx, path, &results);
        for (op, r) in &results {
            if !op.starts_with("move") {
                let e = r.as_ref().expect_err(op);
                assert!(
                    matches!(e.kind(), SymlinkLoop | AlreadyExists),
                    "{op} on {path}: {e}"
                );
            }
        }
    }
    // Walks list the loops as entries and never enter them.
    let tree = guarded(fx.files.directory_tree(".", &[])).await.unwrap();
    let json = tree.to_json();
    assert!(
        json.contains("\"self\"") && tree.truncated.is_none(),
        "{json}"
    );
    let found = guarded(fx.files.search_files(".", "**/inner.txt", &[]))
        .await
        .unwrap();
    assert_eq!(found.matches.len(), 1, "{found:?}");
    // `self` and `d/up` lead back into the root: following them is fine, and bounded.
    assert_eq!(fx.read("self/notes.txt").await.unwrap(), "hello notes\n");
    assert_eq!(
        fx.read("d/up/d/up/notes.txt").await.unwrap(),
        "hello notes\n"
    );
}

#[tokio::test]
async fn hard_links_are_refused_by_default() {
    let fx = fixture();
    std::fs::hard_link(fx.outside.join("secret.txt"), fx.root.join("h.txt")).unwrap();
    assert_all_refused(&fx, "h.txt", &[HardLinked, AlreadyExists, NotADirectory]).await;
    // A listing names it but withholds its size (which is the outside file's).
    let listing = fx.files.list_directory(".").await.unwrap();
    let h = listing.entries.iter().find(|e| e.name == "h.txt").unwrap();
    assert_eq!((h.kind, h.size), (EntryKind::File, None));
    // An explicit policy admits it.
    let lenient =
        FileService::new(FsPolicy::new().allow_dir(&fx.root).allow_hard_links(true)).unwrap();
    let text = lenient
        .read_text_file("h.txt", LineRange::All)
        .await
        .unwrap();
    assert_eq!(text, SECRET);
}

#[tokio::test]
async fn percent_encoding_and_file_uris() {
    let fx = fixture();
    let root = s(&fx.root);
    // Plain paths are never decoded: these are literal (missing) names inside the root.
    for path in [
        "%2e%2e/outside/secret.txt",
        "%2e%2e%2foutside%2fsecret.txt",
        "..%2foutside%2fsecret.txt",
        "%252e%252e/outside",
    ] {
        let e = fx.read(path).await.unwrap_err();
        assert_eq!(e.kind(), NotFound, "{path}: {e}");
    }
    // file:// URIs are decoded once, then checked like any absolute path.
    for (uri, kind) in [
        (
            format!("file://{}", s(&fx.outside.join("secret.txt"))),
            OutsideRoots,
        ),
        (
            format!("file://{root}/%2e%2e/outside/secret.txt"),
            OutsideRoots,
        ),
        (
            format!("file://{root}/..%2Foutside%2Fsecret.txt"),
            OutsideRoots,
        ),
        (format!("file://{root}/notes.txt%00.png"), InvalidPath),
        (format!("file://evil.example{root}/notes.txt"), InvalidPath),
        (format!("file://{root}/notes.txt?x=1"), InvalidPath),
        ("file:///etc/passwd".to_owned(), OutsideRoots),
        ("http://localhost/notes.txt".to_owned(), InvalidPath),
    ] {
        assert_all_refused(&fx, &uri, &[kind]).await;
    }
    // A well-formed URI inside works.
    let uri = format!("file://{root}/notes.txt");
    assert_eq!(fx.read(&uri).await.unwrap(), "hello notes\n");
    fx.write("with space.txt", "spaced");
    let uri = format!("file://localhost{root}/with%20space.txt");
    assert_eq!(fx.read(&uri).await.unwrap(), "spaced");
}

#[tokio::test]
async fn backslashes_nul_bytes_and_windows_paths_are_refused() {
    let fx = fixture();
    for path in [
        "..\\outside\\secret.txt",
        "d\\inner.txt",
        "C:\\Windows\\win.ini",
        "C:/Windows",
        "notes.txt\0.png",
        "\0",
        "d/\0/inner.txt",
    ] {
        assert_all_refused(&fx, path, &[InvalidPath]).await;
    }
}

#[tokio::test]
async fn overlong_paths_and_components_are_refused() {
    let fx = fixture();
    let long_name = "n".repeat(256);
    let long_path = "d/".repeat(2100) + "x.txt";
    assert_all_refused(&fx, &long_name, &[InvalidPath]).await;
    assert_all_refused(&fx, &long_path, &[InvalidPath]).await;
    // 255 bytes is the limit and works.
    let ok_name = format!("{}.txt", "n".repeat(251));
    fx.files.write_file(&ok_name, "max").await.unwrap();
    assert_eq!(fx.read(&ok_name).await.unwrap(), "max");
}

#[tokio::test]
async fn unicode_look_alikes_are_just_other_names() {
    let fx = fixture();
    // The root's name with a Cyrillic 'а': another directory entirely.
    let lookalike = s(&fx.base.join("\u{0430}llowed/notes.txt"));
    assert_all_refused(&fx, &lookalike, &[OutsideRoots]).await;
    for path in [
        "\u{ff0e}\u{ff0e}/outside/secret.txt", // fullwidth dots
        "\u{2024}\u{2024}/outside/secret.txt", // one-dot leaders
        "..\u{2215}outside\u{2215}secret.txt", // division slash
        "..\u{ff0f}outside",                   // fullwidth solidus
        "\u{200b}../outside/secret.txt",       // zero-width space
    ] {
        let e = fx.read(path).await.unwrap_err();
        assert_eq!(e.kind(), NotFound, "{path:?}: {e}");
    }
    // No Unicode normalization: an NFD spelling does not reach an NFC name.
    fx.write("caf\u{e9}.txt", "nfc");
    assert_eq!(fx.read("caf\u{e9}.txt").await.unwrap(), "nfc");
    assert_eq!(
        fx.read("cafe\u{301}.txt").await.unwrap_err().kind(),
        NotFound
    );
}

#[tokio::test]
async fn trailing_dots_slashes_quotes_and_whitespace_are_literal() {
    let fx = fixture();
    for path in [
        "notes.txt.",
        "notes.txt ",
        " notes.txt",
        "\"notes.txt\"",
        "'notes.txt'",
        "notes.txt\n",
        "notes.txt\t",
        "notes.txt..",
    ] {
        let e = fx.read(path).await.unwrap_err();
        assert_eq!(e.kind(), NotFound, "{path:?}: {e}");
    }
    let e = fx.read("notes.txt/").await.unwrap_err();
    assert_eq!(e.kind(), NotAFile, "{e}");
    assert!(fx.files.write_file("notes.txt/", "x").await.is_err());
    // The reference server's leak: checked trimmed, used untrimmed. Here nothing is trimmed,
    // so a quoted or padded absolute path is a relative name inside the root, or outside.
    let secret = s(&fx.outside.join("secret.txt"));
    for path in [
        format!(" {secret}"),
        format!("\"{secret}\""),
        format!("'{secret}'"),
        format!("{secret} "),
        format!("{secret}\""),
        // Padded, so relative: its `..` stays beneath the root (`allowed/outside/…`).
        "\t/../outside/secret.txt".to_owned(),
    ] {
        let results = every_operation(&fx.files, &path).await;
        assert_no_leak(&fx, &path, &results);
        let before = fx.forbidden();
        let _ = fx.files.write_file(&path, "PWNED").await;
        assert_eq!(before, fx.forbidden(), "{path:?}");
    }
    // The message shows the stray characters.
    let e = fx.read("notes.txt ").await.unwrap_err();
    assert!(e.to_string().contains("\"notes.txt \""), "{e}");
}

#[tokio::test]
async fn empty_path_and_tilde() {
    let fx = fixture();
    for path in ["", "~", "~/notes.txt", "~/.ssh/id_rsa"] {
        // (`create_directory` is tried on "{path}/newdir", which for "" is absolute.)
        assert_all_refused(&fx, path, &[InvalidPath, OutsideRoots]).await;
    }
    assert_eq!(fx.read("").await.unwrap_err().kind(), InvalidPath);
    // `~user` is an ordinary name, confined like any other.
    assert_eq!(fx.read("~root/.bashrc").await.unwrap_err().kind(), NotFound);
}
