//! `cargo fuzz run path`: see `mcp_runtime::fuzzing::path` for what it drives and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_runtime::fuzzing::path(data));
