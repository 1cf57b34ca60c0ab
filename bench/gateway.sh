#!/usr/bin/env bash
# The gateway's added cost: `tools/call` of `echo-server` directly and through `gateway`,
# interleaved, several rounds, medians and ratios to the direct call.
#
#   bench/gateway.sh                 full run (a few minutes; a release build the first time)
#   ROUNDS=3 bench/gateway.sh        fewer rounds
#   SMOKE=1 bench/gateway.sh         tiny counts: proves the harness works, measures nothing
#   NO_PEERS=1 bench/gateway.sh      without the peers (nothing to install)
#
# What runs:
#   stdio, both eras   the load client talks stdio to `echo-server`, and to `gateway` whose
#                      one upstream (mounted flat) is `echo-server` as a stdio child; and
#                      to `relay-floor`, which only copies bytes between its stdio and an
#                      `echo-server` child: what the second hop alone costs.
#   HTTP               16 keep-alive connections of modern stateless requests to
#                      `echo-server --transport http`, and to `gateway --transport http`
#                      with that stdio upstream, or with an HTTP upstream: an `echo-server`
#                      on loopback started for the run.
# Every server runs with RUST_LOG=warn (the request path, not the audit trail's writes).
# The CPU figures are the measured process's only: through the gateway, the upstream's own
# CPU (as much as the direct call's) comes on top of the gateway's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export RUST_LOG=warn
ROUNDS=${ROUNDS:-5}
cargo build --release --quiet -p mcp-bench -p mcp-examples \
    --bin mcp-bench --bin relay-floor --bin echo-server --bin gateway
bin=target/release
smoke=()
calls=(--calls 100000)
http_calls=30000
if [ -n "${SMOKE:-}" ]; then
    smoke=(--smoke)
    calls=()
    ROUNDS=1
    http_calls=200
fi
echo "# $(date -u +%Y-%m-%d) $(nproc) cores, $(uname -sr)"
for era in legacy modern; do
    echo
    echo "## stdio, $era era, $ROUNDS rounds"
    "$bin/mcp-bench" compare --era "$era" --rounds "$ROUNDS" "${smoke[@]}" "${calls[@]}" \
        --server "direct=$bin/echo-server" \
        --server "relay-floor=$bin/relay-floor $bin/echo-server" \
        --server "gateway=$bin/gateway --upstream =$bin/echo-server"
done

# The HTTP upstream: a loopback port the kernel chooses, read from the server's stderr.
upstream_log=$(mktemp)
"$bin/echo-server" --transport http --legacy-mode stateless --bind 127.0.0.1:0 \
    2>"$upstream_log" &
upstream=$!
trap 'kill $upstream 2>/dev/null; rm -f "$upstream_log"' EXIT
url=
for _ in $(seq 100); do
    url=$(grep -o 'http://[^ ]*' "$upstream_log" | head -n1 || true)
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "gateway.sh: the HTTP upstream did not start" >&2; exit 1; }
http=(--transport http --legacy-mode stateless --bind 127.0.0.1:0)
echo
echo "## HTTP, 16 keep-alive connections, modern stateless requests, $ROUNDS rounds"
"$bin/mcp-bench" http --rounds "$ROUNDS" --calls "$http_calls" \
    --server "direct=$bin/echo-server ${http[*]}" \
    --server "gateway-stdio-upstream=$bin/gateway ${http[*]} --upstream =$bin/echo-server" \
    --server "gateway-http-upstream=$bin/gateway ${http[*]} --upstream =$url"

# 2025 sessions over HTTP: the load client opens one session per connection, as the 2025-only
# peers require; the gateway (and `echo-server` directly) keep sessions too (their default
# `--legacy-mode`). Peers, installed pinned by `bench/peers/setup.sh`, each with its stdio
# upstream `echo-server` and its quietest log level (the gateway's is `warn`):
#   supergateway --stateful   Node.js; one upstream child per session (its stateful mode: a
#                             stateless one starts a child per request)
#   mcp-proxy                 Python; one upstream child shared by every session
# They are told a port (a free one the kernel chose for a moment) instead of printing one.
if [ -z "${NO_PEERS:-}" ]; then
    bash bench/peers/setup.sh
    peers=bench/peers
    free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
    sg_port=$(free_port)
    mp_port=$(free_port)
    peer_servers=(
        --server "supergateway=$peers/announce http://127.0.0.1:$sg_port/mcp $peers/node_modules/.bin/node $peers/node_modules/supergateway/dist/index.js --stdio $bin/echo-server --outputTransport streamableHttp --stateful --port $sg_port --logLevel none"
        --server "mcp-proxy=$peers/announce http://127.0.0.1:$mp_port/mcp $peers/.venv/bin/mcp-proxy --host 127.0.0.1 --port $mp_port --log-level WARNING $bin/echo-server"
    )
else
    peer_servers=()
fi
session=(--transport http --bind 127.0.0.1:0)
echo
echo "## HTTP, 16 keep-alive connections, a 2025 session on each, $ROUNDS rounds"
"$bin/mcp-bench" http --era legacy --rounds "$ROUNDS" --calls "$http_calls" \
    --server "direct=$bin/echo-server ${session[*]}" \
    --server "gateway-stdio-upstream=$bin/gateway ${session[*]} --upstream =$bin/echo-server" \
    "${peer_servers[@]}"
