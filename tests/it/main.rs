//! End-to-end tests, compiled into one binary (link time dominates on small machines).

mod fs_attacks;
mod fs_attacks_files;
mod fs_controls;
mod fs_races;
mod fs_support;
mod interop;
mod session;
mod stdio_raw;
mod support_smoke;
mod tool_macro;
mod ui;
