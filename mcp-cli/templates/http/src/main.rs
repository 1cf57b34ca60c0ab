//! Serves the tools of `src/lib.rs`: over stdio by default (what desktop clients start),
//! or over Streamable HTTP with `--transport http`, with the options of `http_options` as
//! the base that flags such as `--allowed-origin` add to. The options are every server's
//! (`mcp_runtime::launch::ServeArgs`; `cargo run -- --help` lists them).
//!
//! stdout carries only the protocol; write logs and messages to stderr.

use {{crate_name}}::{http_options, server};

fn main() -> std::process::ExitCode {
    // The name, version and description in `--help` come from Cargo.toml.
    mcp_runtime::launcher!()
        .http_options(http_options())
        .run(server)
}
