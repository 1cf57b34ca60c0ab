//! The stdio floor: the least a Rust process can do per call. It reads a JSON-RPC line,
//! parses it with serde_json, and writes a fixed-shape response (echoing `echo`'s text and
//! summing `add`'s numbers, so the load client's checks pass). Single thread, no protocol
//! logic. Every benchmark run reports the toolkit's numbers as ratios to this.

fn main() -> std::io::Result<()> {
    mcp_bench::floor::serve("stdio-floor", |_, _| Vec::new())
}
