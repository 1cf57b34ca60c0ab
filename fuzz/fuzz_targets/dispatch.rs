//! `cargo fuzz run dispatch`: see `mcp_runtime::fuzzing::dispatch` for what it drives and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_runtime::fuzzing::dispatch(data));
