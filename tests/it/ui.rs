//! Compile-time diagnostics of `#[mcp_tool]`, pinned by trybuild: one mistake per file in
//! `tests/ui/fail` (with the exact `.stderr` rustc prints), shapes that must compile in
//! `tests/ui/pass`.
//!
//! The `.stderr` files were blessed with rustc 1.95; another compiler words its errors
//! differently, so this test refuses to compare on one. Re-bless deliberately with
//! `TRYBUILD=overwrite cargo test -p mcp-tests --test it ui`, and review the diff.

const BLESSED_WITH: &str = "rustc 1.95.";

#[test]
fn ui() {
    let version =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .expect("rustc runs");
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(
        version.starts_with(BLESSED_WITH),
        "the ui .stderr files were blessed with {BLESSED_WITH}x, this is {version}; re-bless them (see the module docs)"
    );
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
