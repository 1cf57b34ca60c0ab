//! The FileService attack suite, part two: special files, extension bypasses, moves, walks
//! across symlinks and their bounds, huge files, read-only mode, error texts. Part one
//! (`fs_attacks`) covers the paths themselves and symlink escapes.

use crate::fs_support::*;
use mcp_runtime::fs::{EntryKind, FsErrorKind, LineRange, TextEdit};

use FsErrorKind::*;

#[tokio::test]
async fn special_files_are_refused_without_blocking() {
    use rustix::fs::{CWD, FileType, Mode, makedev, mknodat};
    let fx = fixture();
    mknodat(
        CWD,
        fx.root.join("fifo.txt"),
        FileType::Fifo,
        Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(fx.root.join("sock.txt")).unwrap();
    let device = fx.root.join("zero.txt");
    let have_device = mknodat(
        CWD,
        &device,
        FileType::CharacterDevice,
        Mode::from_raw_mode(0o644),
        makedev(1, 5),
    )
    .is_ok();
    let mut specials = vec!["fifo.txt", "sock.txt"];
    if have_device {
        specials.push("zero.txt");
    }
    for path in specials {
        for r in [
            fx.read(path).await.map(drop),
            guarded(fx.files.read_file_bytes(path)).await.map(drop),
            guarded(fx.files.read_media_file(path)).await.map(drop),
            guarded(
                fx.files
                    .edit_file(path, vec![TextEdit::new("a", "b")], true),
            )
            .await
            .map(drop),
            guarded(fx.files.write_file(path, "x")).await.map(drop),
        ] {
            assert_eq!(r.unwrap_err().kind(), NotAFile, "{path}");
        }
    }
    // Kernel special files outside, directly or through symlinks, are outside.
    fx.symlink("/dev/zero", "devzero.txt");
    fx.symlink("/proc/self/environ", "env.txt");
    fx.symlink("/proc/self/root", "proc_root");
    fx.symlink("../../../../../../../../proc/self/environ", "rel_env.txt");
    for path in [
        "/dev/zero",
        "/dev/stdin",
        "/proc/self/environ",
        "/proc/self/root/etc/passwd",
        "/proc/self/cwd",
        "devzero.txt",
        "env.txt",
        "proc_root/etc/passwd",
        "rel_env.txt",
    ] {
        assert_refused_except(&fx, path, &[OutsideRoots, AlreadyExists], &["move_from"]).await;
    }
    // A listing shows them without opening them.
    let listing = guarded(fx.files.list_directory(".")).await.unwrap();
    let fifo = listing
        .entries
        .iter()
        .find(|e| e.name == "fifo.txt")
        .unwrap();
    assert_eq!((fifo.kind, fifo.size), (EntryKind::Other, None));
}

#[tokio::test]
async fn extension_bypasses_are_refused() {
    let fx = fixture_with(|p| p.allow_extension("txt"));
    fx.write("x.txt", "x");
    fx.write("upper.TXT", "upper");
    fx.write("b.bin", "binary");
    fx.write("dir.txt/inner.bin", "inner binary");
    fx.write(".txt", "no stem");
    fx.symlink("b.bin", "a.txt");
    std::fs::write(fx.root.join("dot.txt."), "trailing dot").unwrap();
    // The documented case rule: ASCII case-insensitive.
    assert_eq!(fx.read("upper.TXT").await.unwrap(), "upper");
    for (path, kind) in [
        ("x.txt/", NotAFile),
        ("dot.txt.", ExtensionNotAllowed),
        ("b.bin", ExtensionNotAllowed),
        ("a.txt", ExtensionNotAllowed),
        ("dir.txt/inner.bin", ExtensionNotAllowed),
        (".txt", ExtensionNotAllowed),
        ("x.txt ", ExtensionNotAllowed),
    ] {
        let e = fx.read(path).await.unwrap_err();
        assert_eq!(e.kind(), kind, "{path:?}: {e}");
    }
    let e = fx.read("a.txt").await.unwrap_err();
    assert!(
        e.to_string().contains("b.bin") && e.to_string().contains(".txt"),
        "{e}"
    );
    for path in ["new.bin", "new.txt.", "new.sh", "x.txt/y"] {
        assert!(fx.files.write_file(path, "x").await.is_err(), "{path}");
        assert!(!fx.root.join(path).exists(), "{path}");
    }
    // A write through a symlink named .txt to a .bin target is refused too.
    assert_eq!(
        fx.files.write_file("a.txt", "x").await.unwrap_err().kind(),
        ExtensionNotAllowed
    );
    assert_eq!(std::fs::read(fx.root.join("b.bin")).unwrap(), b"binary");
    // Renaming into or out of an allowed extension is refused.
    for (from, to) in [("x.txt", "x.sh"), ("b.bin", "b.txt")] {
        let e = fx.files.move_file(from, to).await.unwrap_err();
        assert_eq!(e.kind(), ExtensionNotAllowed, "{from} -> {to}");
    }
    // Walks leave the others out.
    let listing = fx.files.list_directory(".").await.unwrap();
    let names: Vec<&str> = listing.entries.iter().map(|e| e.name.as_str()).collect();
    assert!(
        names.contains(&"x.txt") && names.contains(&"dir.txt"),
        "{names:?}"
    );
    assert!(
        !names.iter().any(|n| n.ends_with(".bin") || *n == ".txt"),
        "{names:?}"
    );
    let found = fx.files.search_files(".", "**/*", &[]).await.unwrap();
    assert!(!found.matches.iter().any(|p| p.relative().ends_with(".bin")));
}

#[tokio::test]
async fn moves_out_of_a_root_or_onto_existing_entries_are_refused() {
    let fx = fixture();
    fx.symlink(&fx.outside, "out");
    fx.write("g.txt", "g");
    let before = fx.forbidden();
    let out_secret = s(&fx.outside.join("secret.txt"));
    for (from, to, kind) in [
        ("notes.txt", s(&fx.outside.join("n.txt")), OutsideRoots),
        ("notes.txt", "../outside/n.txt".to_owned(), OutsideRoots),
        ("notes.txt", "out/n.txt".to_owned(), OutsideRoots),
        ("notes.txt", "g.txt".to_owned(), AlreadyExists),
        ("notes.txt", "d".to_owned(), AlreadyExists),
        ("notes.txt", "out".to_owned(), AlreadyExists),
        ("notes.txt", ".".to_owned(), InvalidArgument),
        (".", "elsewhere".to_owned(), InvalidArgument),
        ("d", "d/inside".to_owned(), InvalidArgument),
        (out_secret.as_str(), "stolen.txt".to_owned(), OutsideRoots),
        ("out/secret.txt", "stolen.txt".to_owned(), OutsideRoots),
    ] {
        let e = fx.files.move_file(from, &to).await.unwrap_err();
        assert_eq!(e.kind(), kind, "{from} -> {to}: {e}");
        assert!(!e.to_string().contains(SECRET));
    }
    assert_eq!(before, fx.forbidden());
    assert_eq!(fx.read("notes.txt").await.unwrap(), "hello notes\n");
    assert_eq!(fx.read("g.txt").await.unwrap(), "g");
    assert!(!fx.root.join("stolen.txt").exists());
}

#[tokio::test]
async fn searches_and_trees_never_cross_symlinks() {
    let fx = fixture();
    // The outside file is large, so a leaked size would be recognisable.
    std::fs::write(fx.outside.join("big.txt"), SECRET.repeat(1000)).unwrap();
    fx.symlink(&fx.outside, "out");
    fx.symlink("../outside", "out_rel");
    fx.symlink("d", "inner_link");
    fx.symlink(fx.outside.join("big.txt"), "big_link.txt");
    let tree = guarded(fx.files.directory_tree(".", &[])).await.unwrap();
    let json = tree.to_json();
    for leaked in ["secret.txt", "deep.txt", "big.txt\"", "sub"] {
        assert!(!json.contains(leaked), "tree shows {leaked}: {json}");
    }
    // Symlinks are leaves, even to directories inside.
    assert!(
        json.contains("\"name\": \"inner_link\",\n    \"type\": \"file\""),
        "{json}"
    );
    for pattern in [
        "**/secret*",
        "**/deep.txt",
        "out/*",
        "out_rel/**/*",
        "**/big.txt",
    ] {
        let found = guarded(fx.files.search_files(".", pattern, &[]))
            .await
            .unwrap();
        assert!(found.matches.is_empty(), "{pattern}: {found:?}");
    }
    let all = guarded(fx.files.search_files(".", "**", &[]))
        .await
        .unwrap();
    let rel: Vec<&str> = all.matches.iter().map(|p| p.relative()).collect();
    assert!(
        rel.contains(&"out") && rel.contains(&"d/inner.txt"),
        "{rel:?}"
    );
    assert!(
        !rel.iter()
            .any(|r| r.starts_with("out/") || r.starts_with("inner_link/"))
    );
    // Sizes are the links' own (none shown), never the targets'.
    let listing = guarded(fx.files.list_directory(".")).await.unwrap();
    for e in &listing.entries {
        if e.kind == EntryKind::Symlink {
            assert_eq!(e.size, None, "{}", e.name);
        }
        assert_ne!(e.size, Some(SECRET.len() as u64 * 1000), "{}", e.name);
    }
    // Exclusions apply.
    let pruned = fx
        .files
        .directory_tree(".", &["d".to_owned(), "*.txt".to_owned()])
        .await
        .unwrap()
        .to_json();
    assert!(
        !pruned.contains("inner.txt") && !pruned.contains("notes"),
        "{pruned}"
    );
    assert!(pruned.contains("inner_link"), "{pruned}");
}

#[tokio::test]
async fn walks_are_bounded_in_depth_and_entries() {
    use mcp_runtime::fs::{Truncation, WalkLimits};
    let mut limits = WalkLimits::default();
    limits.max_depth = 5;
    limits.max_entries = 100;
    let fx = fixture_with(|p| p.walk_limits(limits));
    let deep: String = (0..40).map(|i| format!("l{i}/")).collect();
    std::fs::create_dir_all(fx.root.join(&deep)).unwrap();
    std::fs::write(fx.root.join(&deep).join("bottom.txt"), "deep").unwrap();
    let tree = fx.files.directory_tree("l0", &[]).await.unwrap();
    assert_eq!(tree.truncated, Some(Truncation::Depth));
    assert!(!tree.to_json().contains("l7"), "{}", tree.to_json());
    let found = fx
        .files
        .search_files(".", "**/bottom.txt", &[])
        .await
        .unwrap();
    assert!(found.matches.is_empty());
    assert_eq!(found.truncated, Some(Truncation::Depth));
    for i in 0..300 {
        std::fs::write(fx.root.join(format!("d/f{i:03}.txt")), "").unwrap();
    }
    let listing = fx.files.list_directory("d").await.unwrap();
    assert_eq!(listing.truncated, Some(Truncation::Entries));
    assert!(listing.entries.len() <= 100);
    let found = fx.files.search_files(".", "**", &[]).await.unwrap();
    assert_eq!(found.truncated, Some(Truncation::Entries));
    assert!(found.matches.len() <= 100);
}

#[tokio::test]
async fn huge_files_are_capped() {
    let fx = fixture_with(|p| p.max_read_bytes(1 << 20).max_write_bytes(1 << 20));
    // 5 GiB, sparse: costs no disk, and reading it whole would take the machine down.
    let huge = std::fs::File::create(fx.root.join("huge.txt")).unwrap();
    huge.set_len(5 << 30).unwrap();
    for r in [
        guarded(fx.files.read_text_file("huge.txt", LineRange::All))
            .await
            .map(drop),
        guarded(fx.files.read_text_file("huge.txt", LineRange::Head(1)))
            .await
            .map(drop),
        guarded(fx.files.read_text_file("huge.txt", LineRange::Tail(1)))
            .await
            .map(drop),
        guarded(fx.files.read_file_bytes("huge.txt"))
            .await
            .map(drop),
        guarded(fx.files.read_media_file("huge.txt"))
            .await
            .map(drop),
        guarded(
            fx.files
                .edit_file("huge.txt", vec![TextEdit::new("a", "b")], true),
        )
        .await
        .map(drop),
    ] {
        assert_eq!(r.unwrap_err().kind(), TooLarge);
    }
    let e = fx.read("huge.txt").await.unwrap_err();
    assert!(e.to_string().contains("5368709120 bytes"), "{e}");
    // head/tail of a huge file with short lines read only what they need.
    let mut f = std::fs::File::create(fx.root.join("lines.txt")).unwrap();
    std::io::Write::write_all(&mut f, b"first\nsecond\n").unwrap();
    f.set_len(5 << 30).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, b"\nlast\n", (5 << 30) - 6).unwrap();
    let head = fx
        .files
        .read_text_file("lines.txt", LineRange::Head(2))
        .await;
    assert_eq!(head.unwrap(), "first\nsecond");
    let tail = fx
        .files
        .read_text_file("lines.txt", LineRange::Tail(1))
        .await;
    assert_eq!(tail.unwrap(), "last");
    // Writes over the limit are refused before touching the disk.
    let big = vec![b'x'; (1 << 20) + 1];
    assert_eq!(
        fx.files
            .write_file("big.txt", big)
            .await
            .unwrap_err()
            .kind(),
        TooLarge
    );
    assert!(!fx.root.join("big.txt").exists());
}

#[tokio::test]
async fn read_only_mode_refuses_every_change() {
    let fx = fixture_with(|p| p.read_only(true));
    let before = snapshot(&fx.root);
    for r in [
        fx.files.write_file("notes.txt", "x").await.map(drop),
        fx.files.write_file("new.txt", "x").await.map(drop),
        fx.files
            .edit_file("notes.txt", vec![TextEdit::new("hello", "bye")], false)
            .await
            .map(drop),
        fx.files.create_directory("nd").await.map(drop),
        fx.files.move_file("notes.txt", "moved.txt").await.map(drop),
        fx.files.remove_stale_temp_files(".").await.map(drop),
    ] {
        assert_eq!(r.unwrap_err().kind(), ReadOnly);
    }
    assert_eq!(before, snapshot(&fx.root));
    // Reads and dry runs still work.
    assert_eq!(fx.read("notes.txt").await.unwrap(), "hello notes\n");
    let dry = fx
        .files
        .edit_file("notes.txt", vec![TextEdit::new("hello", "bye")], true)
        .await
        .unwrap();
    assert!(dry.diff.contains("+bye notes") && !dry.written);
}

#[tokio::test]
async fn errors_name_only_what_the_caller_gave() {
    let fx = fixture();
    fx.symlink(fx.outside.join("secret.txt"), "link.txt");
    fx.symlink("../outside", "dirlink");
    for path in [
        "link.txt",
        "dirlink/secret.txt",
        "dirlink/sub/deep.txt",
        "dirlink",
    ] {
        for (op, r) in every_operation(&fx.files, path).await {
            if let Err(e) = r {
                let text = e.to_string();
                assert!(!text.contains(&s(&fx.outside)), "{op} {path}: {text}");
                assert!(!text.contains(&s(&fx.base)), "{op} {path}: {text}");
                assert!(!text.contains("os error") || e.kind() == Io, "{op}: {text}");
            }
        }
    }
}
