//! End-to-end tests, compiled into one binary (link time dominates on small machines).

mod fs_attacks;
mod fs_attacks_files;
mod fs_controls;
mod fs_races;
mod fs_support;
mod fs_tools;
mod fs_tools_kill;
mod fs_tools_reference;
mod fs_tools_support;
mod http_conformance;
mod http_interop;
mod http_raw;
mod http_scale;
mod http_security;
mod http_session;
mod http_stream;
mod interop;
mod policies;
mod prompt_macro;
mod resource_macro;
mod session;
mod stdio_raw;
mod support_smoke;
mod tool_macro;
mod transports;
mod ui;
