#!/usr/bin/env bash
# Runs echo-server and the floors side by side, interleaved, for several rounds, and prints
# medians and ratios: stdio in both eras, then HTTP with keep-alive connections.
#
#   bench/compare.sh                 full run (several minutes, two builds the first time)
#   ROUNDS=3 bench/compare.sh        fewer rounds
#   SMOKE=1 bench/compare.sh         tiny counts: proves the harness works, measures nothing
#   OTEL=1 bench/compare.sh          adds echo-server exporting its traces and metrics over
#                                    OTLP/HTTP to a discarding receiver (bench/src/bin/otlp-sink.rs)
#   EXTRA_STDIO="rmcp=/path/to/rmcp-echo" EXTRA_HTTP="rmcp=/path/to/rmcp-echo-http --bind 127.0.0.1:0" bench/compare.sh
#                                    adds a peer server to the comparison (see bench/README.md)
#
# What runs, and why:
#   echo-server           as users get it: `cargo build --release` (cargo's stock profile) and
#                         the default logging, so the audit trail writes one line per call
#                         to stderr. The figures the README leads with.
#   echo-server-quiet     the same binary with RUST_LOG=warn: the request path alone.
#   echo-server-perf      the `perf` profile (thin LTO, one codegen unit) with RUST_LOG=warn:
#                         what whole-program optimization adds on top.
#   launched-echo         the same tools behind `launcher!().run(server)`, as a generated
#                         project's `main` serves them: the launcher's runtime (stdio on one
#                         thread, HTTP on a pool) rather than echo-server's one thread for both.
# The floors are built with `release` like the servers users build. A server command may
# start with NAME=VALUE words: they are set in its environment (no `env` process in the
# cold start).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The servers' environment is the user's: no RUST_LOG unless a command sets one.
unset RUST_LOG
ROUNDS=${ROUNDS:-5}
cargo build --release --quiet -p mcp-bench -p mcp-examples
cargo build --profile perf --quiet -p mcp-examples --bin echo-server
bin=target/release
perf=target/perf
smoke=()
http_calls=50000
if [ -n "${SMOKE:-}" ]; then
    smoke=(--smoke)
    ROUNDS=1
    http_calls=200
fi
stdio=(--server "floor=$bin/stdio-floor" --server "validating-floor=$bin/validating-floor"
       --server "echo-server=$bin/echo-server"
       --server "launched-echo=$bin/launched-echo"
       --server "echo-server-quiet=RUST_LOG=warn $bin/echo-server"
       --server "echo-server-perf=RUST_LOG=warn $perf/echo-server")
http=(--server "http-floor=$bin/http-floor --bind 127.0.0.1:0"
      --server "echo-server=$bin/echo-server --transport http --legacy-mode stateless --bind 127.0.0.1:0"
      --server "launched-echo=$bin/launched-echo --transport http --legacy-mode stateless --bind 127.0.0.1:0"
      --server "echo-server-quiet=RUST_LOG=warn $bin/echo-server --transport http --legacy-mode stateless --bind 127.0.0.1:0")
if [ -n "${OTEL:-}" ]; then
    # The receiver reads its stdin (fd 9 here) and exits when this script does.
    sink_log=$(mktemp)
    exec 9> >("$bin/otlp-sink" 2>"$sink_log")
    for _ in $(seq 100); do grep -q "receiving at" "$sink_log" && break; sleep 0.1; done
    otlp=$(sed -n 's/.*receiving at \(http[^ ]*\).*/\1/p' "$sink_log")
    [ -n "$otlp" ] || { echo "compare.sh: otlp-sink did not start" >&2; exit 1; }
    stdio+=(--server "echo-server-otlp=OTEL_EXPORTER_OTLP_ENDPOINT=$otlp $bin/echo-server")
    http+=(--server "echo-server-otlp=OTEL_EXPORTER_OTLP_ENDPOINT=$otlp $bin/echo-server --transport http --legacy-mode stateless --bind 127.0.0.1:0")
fi
[ -n "${EXTRA_STDIO:-}" ] && stdio+=(--server "$EXTRA_STDIO")
[ -n "${EXTRA_HTTP:-}" ] && http+=(--server "$EXTRA_HTTP")

echo "# $(date -u +%Y-%m-%d) $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
for era in legacy modern; do
    echo
    echo "## stdio, $era era, $ROUNDS rounds"
    "$bin/mcp-bench" compare --era "$era" --rounds "$ROUNDS" "${smoke[@]}" "${stdio[@]}"
done
echo
echo "## HTTP, 16 keep-alive connections, modern stateless requests, $ROUNDS rounds"
"$bin/mcp-bench" http --rounds "$ROUNDS" --calls "$http_calls" "${http[@]}"
