//! The runtime's public API is a decision: its listing, every public item with its
//! signature, is committed as `mcp-runtime/public-api.txt`, and this test fails when the
//! code says something else, with the difference. A change to the API is then a change to
//! that file, visible in review. `UPDATE_SNAPSHOTS=1 cargo test -p mcp-tests --test
//! public_api` writes the new listing.
//!
//! The listing is `public-api`'s, read from rustdoc's JSON output. That output is unstable
//! rustdoc; this toolchain's own rustdoc writes it when `RUSTC_BOOTSTRAP=1` allows the
//! flag (no nightly toolchain is needed), into a target folder of its own so the workspace's
//! builds are left as they are. Every feature is on: the listing is the whole API.

use std::path::Path;
use std::process::Command;

#[test]
fn the_runtimes_public_api_is_the_committed_listing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package sits in the workspace root");
    let target = root.join("target").join("public-api");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args([
            "rustdoc",
            "-p",
            "mcp-runtime",
            "--lib",
            "--all-features",
            "--quiet",
        ])
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "rustdoc's JSON of mcp-runtime failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let api = public_api::Builder::from_rustdoc_json(target.join("doc").join("mcp_runtime.json"))
        .omit_blanket_impls(true)
        .omit_auto_trait_impls(true)
        .omit_auto_derived_impls(true)
        .build()
        .expect("rustdoc's JSON is one public-api reads");
    api.assert_eq_or_update(root.join("mcp-runtime").join("public-api.txt"));
}
