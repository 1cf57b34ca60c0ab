//! Serves the tools of `src/lib.rs`: over stdio by default (what desktop clients start),
//! or over Streamable HTTP with `--transport http`. The options are every server's
//! (`mcp_runtime::launch::ServeArgs`; `cargo run -- --help` lists them).
//!
//! stdout carries only the protocol; write logs and messages to stderr.

fn main() -> std::process::ExitCode {
    // The name, version and description in `--help` come from Cargo.toml.
    mcp_runtime::launcher!().run({{crate_name}}::server)
}
