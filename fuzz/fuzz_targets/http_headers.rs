//! `cargo fuzz run http_headers`: see `mcp_runtime::fuzzing::http_headers` for what it drives and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_runtime::fuzzing::http_headers(data));
