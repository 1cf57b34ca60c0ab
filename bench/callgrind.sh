#!/usr/bin/env bash
# Instructions per call under callgrind, for the stdio floor and echo-server (or any servers
# given as NAME=COMMAND). Instruction counts do not depend on what else the machine does, so
# unlike timings they can be compared across runs. Each server runs twice, with N1 and N2
# pipelined calls; (Ir(N2) - Ir(N1)) / (N2 - N1) cancels start-up and shutdown.
#
#   bench/callgrind.sh [NAME=COMMAND ...]       (default: the floors, and echo-server with its
#                                               default audit trail and without it; `release`)
#
# A COMMAND may start with NAME=VALUE words, set in its environment (as compare.sh does).
# WITHOUT_OTEL=1 also builds echo-server without its `otel` feature (as
# target/release/echo-server-without-otel) and, with no servers given, measures it beside
# the default build: what OpenTelemetry costs a server that is compiled with it but never
# configured (the target is 2%).
# HTTP=1 measures instructions per HTTP call instead (`mcp-bench http`: 16 keep-alive
# connections, modern stateless `tools/call`s), for the HTTP floor and echo-server with and
# without its audit trail; a COMMAND then gets `--bind 127.0.0.1:0` appended.
# OTEL=1 measures echo-server exporting its spans and metrics over OTLP/HTTP protobuf to a
# discarding receiver (bench/src/bin/otlp-sink.rs) beside the same binary not exporting: what
# request telemetry costs once configured (the exporter's threads included). A server given
# as NAME=COMMAND may name $OTLP, the receiver's URL (OTEL_EXPORTER_OTLP_ENDPOINT=$OTLP ...),
# to compare another build in the same run.
# Needs valgrind (Debian: `apt-get install valgrind`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unset RUST_LOG
N1=${N1:-2000}
N2=${N2:-12000}
ERA=${ERA:-legacy}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 1; }
bin=target/release
if [ -n "${WITHOUT_OTEL:-}" ]; then
    # Same target folder: the two builds share every dependency but mcp-runtime.
    cargo build --release --quiet -p mcp-examples --no-default-features --bin echo-server
    cp "$bin/echo-server" "$bin/echo-server-without-otel"
fi
cargo build --release --quiet -p mcp-bench -p mcp-examples
if [ -n "${OTEL:-}" ]; then
    # The receiver reads its stdin (fd 9 here) and exits when this script does.
    sink_log=$(mktemp)
    exec 9> >("$bin/otlp-sink" 2>"$sink_log")
    for _ in $(seq 100); do grep -q "receiving at" "$sink_log" && break; sleep 0.1; done
    OTLP=$(sed -n 's/.*receiving at \(http[^ ]*\).*/\1/p' "$sink_log")
    [ -n "$OTLP" ] || { echo "callgrind.sh: otlp-sink did not start" >&2; exit 1; }
    # Servers given on the command line may name $OTLP.
    set -- "${@//\$OTLP/$OTLP}"
    [ $# -gt 0 ] || set -- "echo-server=$bin/echo-server" \
        "echo-server-otlp=OTEL_EXPORTER_OTLP_ENDPOINT=$OTLP $bin/echo-server"
fi
if [ $# -eq 0 ] && [ -n "${HTTP:-}" ]; then
    http_args="--transport http --legacy-mode stateless"
    set -- "http-floor=$bin/http-floor" "echo-server=$bin/echo-server $http_args" \
        "echo-server-quiet=RUST_LOG=warn $bin/echo-server $http_args"
elif [ $# -eq 0 ]; then
    set -- "floor=$bin/stdio-floor" "validating-floor=$bin/validating-floor" \
        "echo-server=$bin/echo-server" "echo-server-quiet=RUST_LOG=warn $bin/echo-server"
    [ -z "${WITHOUT_OTEL:-}" ] || set -- "$@" \
        "echo-server-without-otel=$bin/echo-server-without-otel" \
        "echo-server-without-otel-quiet=RUST_LOG=warn $bin/echo-server-without-otel"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

instructions() { # [NAME=VALUE...] command... -> total Ir of one run with $1 calls
    local calls=$1; shift
    local file="$out/cg.$RANDOM"
    local env=()
    while [ $# -gt 0 ] && [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do env+=("$1"); shift; done
    if [ -n "${HTTP:-}" ]; then
        # The server is stopped with SIGTERM at the end, and callgrind writes its file then.
        "$bin/mcp-bench" http --rounds 1 --calls "$calls" --server \
            "x=${env[*]} valgrind --tool=callgrind --callgrind-out-file=$file $* --bind 127.0.0.1:0" \
            >/dev/null
    else
        "$bin/mcp-bench" run --json --era "$ERA" --calls "$calls" --in-flight 64 \
            --cold-starts 0 --sequential 0 --lists 0 -- \
            "${env[@]}" valgrind --tool=callgrind --callgrind-out-file="$file" "$@" >/dev/null
    fi
    callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}

declare -A per_call
first=""
for spec in "$@"; do
    name=${spec%%=*}
    read -r -a cmd <<<"${spec#*=}"
    a=$(instructions "$N1" "${cmd[@]}")
    b=$(instructions "$N2" "${cmd[@]}")
    per_call[$name]=$(( (b - a) / (N2 - N1) ))
    [ -n "$first" ] || first=$name
    printf '%-17s %10d instructions per call\n' "$name" "${per_call[$name]}"
done
for name in "${!per_call[@]}"; do
    [ "$name" = "$first" ] && continue
    awk -v a="${per_call[$name]}" -v b="${per_call[$first]}" -v n="$name" -v f="$first" \
        'BEGIN { printf "%s / %s = %.2fx\n", n, f, a / b }'
done
