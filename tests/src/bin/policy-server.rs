//! `policy-server [--grace-ms N] [--max-concurrent N]`: the tools of
//! `mcp_tests::policy` over stdio, audit events on stderr.

use std::time::Duration;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn,mcp::audit=info"))
        .init();
    let mut builder = mcp_tests::policy::builder();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value: u64 = args
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number after each flag");
        builder = match flag.as_str() {
            "--grace-ms" => builder.shutdown_grace(Duration::from_millis(value)),
            "--max-concurrent" => {
                builder.concurrency_limit(value as usize, Duration::from_secs(30))
            }
            other => panic!("unknown flag {other}"),
        };
    }
    let server = builder.build().expect("the policy server is valid");
    mcp_runtime::serve_stdio(server).await
}
