//! End-to-end tests, compiled into one binary (link time dominates on small machines).

mod interop;
mod session;
mod stdio_raw;
mod support_smoke;
mod tool_macro;
mod ui;
