//! The fuzz targets (`fuzz/`, driven by `mcp_runtime::fuzzing`) on stable, in `cargo test`:
//! every corpus file, then a few thousand inputs mutated from them (bit flips, byte
//! insertions and deletions, splices of two files) by a fixed-seed generator, so a run is
//! reproducible. The long, coverage-guided runs are `fuzz/run.sh` (libFuzzer, 10 million
//! executions per target); this is the short run CI can afford.

use mcp_runtime::fuzzing;
use std::path::Path;

/// A fixed-seed xorshift generator: the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One input mutated from `seeds`.
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..=rng.below(4) {
        match rng.below(6) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(data.len() + 1);
                let interesting = [0u8, b'\n', b'"', b'{', b'}', b'/', b'.', b'%', 0xff, b'\\'];
                data.insert(i, interesting[rng.below(interesting.len())]);
            }
            2 if !data.is_empty() => {
                let i = rng.below(data.len());
                let n = rng.below(data.len() - i) + 1;
                data.drain(i..i + n.min(16));
            }
            3 => {
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(data.len() + 1);
                let from = rng.below(other.len() + 1);
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            4 if !data.is_empty() => {
                let i = rng.below(data.len());
                let n = (rng.below(8) + 1).min(data.len() - i);
                let chunk = data[i..i + n].to_vec();
                data.splice(i..i, chunk);
            }
            _ => {
                let i = rng.below(data.len() + 1);
                data.insert(i, rng.next() as u8);
            }
        }
    }
    data
}

/// Runs `target` on every file of `fuzz/corpus/<name>` and on `mutations` mutants.
fn replay(name: &str, target: fn(&[u8]), mutations: usize) {
    let dir = mcp_tests::workspace_root().join("fuzz/corpus").join(name);
    let seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect();
    assert!(!seeds.is_empty(), "{name}: the corpus is empty");
    let run = |data: &[u8]| {
        let outcome = std::panic::catch_unwind(|| target(data));
        if let Err(panic) = outcome {
            eprintln!("{name}: the failing input, hex: {}", hex(data));
            std::panic::resume_unwind(panic);
        }
    };
    for seed in &seeds {
        run(seed);
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    for _ in 0..mutations {
        run(&mutate(&mut rng, &seeds));
    }
}

fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn lines() {
    replay("lines", fuzzing::lines, 20_000);
}

#[test]
fn jsonrpc() {
    replay("jsonrpc", fuzzing::jsonrpc, 20_000);
}

#[test]
fn dispatch() {
    replay("dispatch", fuzzing::dispatch, 3_000);
}

#[test]
fn http_headers() {
    replay("http_headers", fuzzing::http_headers, 20_000);
}

#[test]
fn path() {
    replay("path", fuzzing::path, 20_000);
}

#[test]
fn uri_template() {
    replay("uri_template", fuzzing::uri_template, 20_000);
}

#[test]
fn prompt_template() {
    replay("prompt_template", fuzzing::prompt_template, 5_000);
}

#[test]
fn every_target_has_a_corpus_and_a_harness() {
    let fuzz = mcp_tests::workspace_root().join("fuzz");
    for name in [
        "lines",
        "jsonrpc",
        "dispatch",
        "http_headers",
        "path",
        "uri_template",
        "prompt_template",
    ] {
        assert!(fuzz.join("corpus").join(name).is_dir(), "{name}");
        let harness = fuzz.join("fuzz_targets").join(format!("{name}.rs"));
        let text = std::fs::read_to_string(&harness).unwrap();
        assert!(
            text.contains(&format!("mcp_runtime::fuzzing::{name}(data)")),
            "{name}"
        );
        assert!(Path::new(&harness).exists());
    }
}
