//! `cargo mcp`: scaffold, inspect and install MCP servers built with `mcp-runtime`.
//!
//! The binary `cargo-mcp` is a thin `main` over this library, so every command can be
//! tested without a process:
//!
//! - [`cli`] is the command line (clap derive, the cargo-subcommand shape);
//! - [`commands`] holds one module per subcommand, each with its `Args` and an `exec` that
//!   prints;
//! - [`ops`] does the work (templates, workspaces, building the project, talking to
//!   servers, client configuration files, diagnostics) and returns values;
//! - [`error`] maps failures to the documented exit codes.

#![deny(missing_docs)]

pub mod cli;
pub mod commands;
pub mod error;
pub mod ops;

use std::ffi::OsString;

/// The version of the toolkit this CLI was built from (also the default `mcp-runtime`
/// version of generated projects).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The oldest Rust the toolkit supports (its `rust-version`).
pub const RUST_VERSION: &str = env!("CARGO_PKG_RUST_VERSION");

/// This CLI's package on crates.io (`cargo install mcp-runtime-cli`); the binary is
/// `cargo-mcp`.
pub const CLI_PACKAGE: &str = env!("CARGO_PKG_NAME");

/// The toolkit checkout this CLI was built from (`cargo install --path mcp-cli`), when it was
/// built from one and the checkout is still there; `None` for a CLI installed from crates.io.
///
/// `cargo mcp new` points generated projects at this checkout's `mcp-runtime` by default:
/// the runtime is then exactly the one the CLI was built with, released or not.
pub fn toolkit_checkout() -> Option<&'static std::path::Path> {
    let checkout = std::path::Path::new(option_env!("MCP_TOOLKIT_CHECKOUT")?);
    checkout
        .join("mcp-runtime")
        .join("Cargo.toml")
        .is_file()
        .then_some(checkout)
}

/// Runs `cargo mcp` with `args` (as `std::env::args_os` gives them: the program first) and
/// returns the exit code: parses, dispatches, and reports a failure as one line on stderr
/// (with any details it carries shown first).
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let parsed = match cli::parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            // clap prints help and version to stdout (exit 0) and mistakes to stderr (2).
            let _ = e.print();
            return if e.use_stderr() {
                error::code::USAGE
            } else {
                error::code::SUCCESS
            };
        }
    };
    match cli::exec(parsed) {
        Ok(()) => error::code::SUCCESS,
        Err(e) => {
            if let Some(details) = error::details(&e) {
                let text = details.text.trim_end();
                if details.to_stdout {
                    println!("{text}");
                } else {
                    eprintln!("{text}");
                }
            }
            eprintln!("{}", error::report(&e));
            error::exit_code(&e)
        }
    }
}
