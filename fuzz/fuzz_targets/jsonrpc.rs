//! `cargo fuzz run jsonrpc`: see `mcp_runtime::fuzzing::jsonrpc` for what it drives and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_runtime::fuzzing::jsonrpc(data));
