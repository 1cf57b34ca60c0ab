//! Two build-time facts for `cargo-mcp`:
//!
//! - it is rebuilt when anything under `templates/` changes: `include_dir!` embeds the folder,
//!   but cargo only notices edits to files it knows about, so an added or removed template
//!   file would otherwise leave a stale binary;
//! - when it is built from a toolkit checkout (`cargo install --path mcp-cli`, or inside the
//!   workspace), `MCP_TOOLKIT_CHECKOUT` holds the checkout's root, so `cargo mcp new` can
//!   point generated projects at the very runtime this CLI was built with. Built from its
//!   packaged form (`cargo install mcp-runtime-cli`), there is no sibling `mcp-runtime/`
//!   folder and the variable is unset: projects then depend on the registry version.

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=templates");
    println!("cargo::rerun-if-changed=build.rs");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let Some(checkout) = Path::new(&manifest_dir).parent() else {
        return;
    };
    let runtime_manifest = checkout.join("mcp-runtime").join("Cargo.toml");
    println!("cargo::rerun-if-changed={}", runtime_manifest.display());
    let is_runtime = std::fs::read_to_string(&runtime_manifest)
        .is_ok_and(|text| text.lines().any(|l| l.trim() == "name = \"mcp-runtime\""));
    if is_runtime {
        println!(
            "cargo::rustc-env=MCP_TOOLKIT_CHECKOUT={}",
            checkout.display()
        );
    }
}
