//! Builds the view in `ui/` into one self-contained `ui/dist/index.html` (Vite with
//! `vite-plugin-singlefile`, versions pinned by `ui/package-lock.json`) before the server
//! compiles, so `cargo build` and `cargo test` are the only commands. Release builds embed
//! that file in the binary; debug builds read it at every render (`mcp_runtime::app_html!`),
//! so `npm run build` in `ui/` shows a changed view without restarting the server.
//!
//! Needs Node.js 20.19 or later with npm. The first build runs `npm ci` in `ui/` (from the
//! npm registry); later ones rebuild the view only when a file of `ui/` changed. Set
//! `MCP_VIEW_PREBUILT=1` to build the server with the `ui/dist/index.html` already there
//! (a CI job that built the view in an earlier step, a machine without Node.js).

use std::path::Path;
use std::process::{Command, Stdio};

fn main() {
    for input in [
        "ui/index.html",
        "ui/src",
        "ui/package.json",
        "ui/package-lock.json",
        "ui/vite.config.js",
    ] {
        println!("cargo::rerun-if-changed={input}");
    }
    println!("cargo::rerun-if-env-changed=MCP_VIEW_PREBUILT");
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let ui = Path::new(&manifest_dir).join("ui");
    if std::env::var_os("MCP_VIEW_PREBUILT").is_some() {
        if !ui.join("dist/index.html").is_file() {
            panic!(
                "MCP_VIEW_PREBUILT is set but ui/dist/index.html is missing: run `npm ci && npm run build` in ui/ first"
            );
        }
        return;
    }
    if !ui.join("node_modules").is_dir() {
        npm(&ui, &["ci", "--no-audit", "--no-fund"]);
    }
    npm(&ui, &["run", "build"]);
}

/// Runs `npm args` in `dir`, its output on stderr (a build script's stdout is for cargo).
fn npm(dir: &Path, args: &[&str]) {
    // npm is a `.cmd` script on Windows.
    let program = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::from(std::io::stderr()))
        .status();
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => panic!(
            "`npm {}` in ui/ failed ({status}); its output is above",
            args.join(" ")
        ),
        Err(e) => panic!(
            "the view in ui/ is built with npm, which could not be started ({e}): install Node.js 20.19 or later (https://nodejs.org), or build ui/dist/index.html elsewhere and set MCP_VIEW_PREBUILT=1"
        ),
    }
}
