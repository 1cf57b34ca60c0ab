//! Rebuilds `cargo-mcp` when anything under `templates/` changes: `include_dir!` embeds the
//! folder, but cargo only notices edits to files it knows about, so an added or removed
//! template file would otherwise leave a stale binary.

fn main() {
    println!("cargo::rerun-if-changed=../templates");
    println!("cargo::rerun-if-changed=build.rs");
}
