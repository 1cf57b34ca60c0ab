#!/usr/bin/env bash
# Runs echo-server and the floors side by side, interleaved, for several rounds, and prints
# medians and ratios: stdio in both eras, then HTTP with keep-alive connections.
#
#   bench/compare.sh                 full run (a few minutes)
#   ROUNDS=3 bench/compare.sh        fewer rounds
#   SMOKE=1 bench/compare.sh         tiny counts: proves the harness works, measures nothing
#   EXTRA_STDIO="rmcp=/path/to/rmcp-echo" EXTRA_HTTP="rmcp=/path/to/rmcp-echo-http --bind 127.0.0.1:0" bench/compare.sh
#                                    adds a peer server to the comparison (see bench/README.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The servers run without an audit sink (their default writes one line per call to stderr):
# what is measured is the request path, as in the floors.
export RUST_LOG=warn
ROUNDS=${ROUNDS:-5}
cargo build --profile perf --quiet -p mcp-bench -p mcp-examples
bin=target/perf
smoke=()
http_calls=50000
if [ -n "${SMOKE:-}" ]; then
    smoke=(--smoke)
    ROUNDS=1
    http_calls=200
fi
stdio=(--server "floor=$bin/stdio-floor" --server "validating-floor=$bin/validating-floor"
       --server "echo-server=$bin/echo-server")
http=(--server "http-floor=$bin/http-floor --bind 127.0.0.1:0"
      --server "echo-server=$bin/echo-server --transport http --legacy-mode stateless --bind 127.0.0.1:0")
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
