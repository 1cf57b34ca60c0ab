//! `cargo fuzz run lines`: see `mcp_runtime::fuzzing::lines` for what it drives and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_runtime::fuzzing::lines(data));
