//! Compile-time diagnostics of `#[mcp_tool]`, pinned by trybuild: one mistake per file in
//! `tests/ui/fail` (with the exact `.stderr` rustc prints), shapes that must compile in
//! `tests/ui/pass`.
//!
//! The `.stderr` files were blessed with rustc 1.95; another compiler words its errors
//! differently, so on another one only the `pass` cases run (they must compile anywhere at
//! or above the MSRV) and the `fail` comparison is skipped with a message: a new user's
//! `cargo test` never fails for the compiler they have. Re-bless deliberately with
//! `TRYBUILD=overwrite cargo test -p mcp-tests --test it ui`, and review the diff.

const BLESSED_WITH: &str = "rustc 1.95.";

#[test]
#[allow(clippy::print_stderr)] // A skipped comparison says why.
fn ui() {
    let version =
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .expect("rustc runs");
    let version = String::from_utf8_lossy(&version.stdout);
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    if version.starts_with(BLESSED_WITH) {
        t.compile_fail("ui/fail/*.rs");
    } else {
        eprintln!(
            "ui: the compile-error texts were blessed with {BLESSED_WITH}x and this is {}; \
             their comparison is skipped (the `pass` cases still run)",
            version.trim()
        );
    }
}
