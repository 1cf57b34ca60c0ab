//! `cargo fuzz run prompt_template`: see `mcp_runtime::fuzzing::prompt_template` for what it drives and checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| mcp_runtime::fuzzing::prompt_template(data));
