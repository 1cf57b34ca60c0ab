#!/usr/bin/env bash
# Times the README's quick start as a new user meets it, from a fresh clone of this checkout
# with clean target folders (package caches as they are: run it once to warm them):
#
#   1. `cargo install --path mcp-cli`                 (the CLI, into a scratch root)
#   2. `cargo mcp new weather` + its first `cargo build` (debug, its own target folder)
#   3. the whole quick start: install, scaffold, `cargo run`, until the server answers the
#      README's `add` call with 5
#
# and prints each in seconds, with the ratio the README states (install / first build) and
# how many packages each build compiles (`cargo tree`, normal and build dependencies, each
# package once: proc macros and build scripts included, a package built for both the host
# and the target counted once).
# Timings, not tests: the machine is shared, so compare the ratio within one run.
#
#   bench/quickstart.sh            (about 6 minutes on 2 cores)
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-quickstart.XXXXXX")"
trap 'rm -rf "$work"' EXIT
unset CARGO_TARGET_DIR
export CARGO_INCREMENTAL=0

clock() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(clock)" 'BEGIN { printf "%.0f", b - a }'; }

git clone --quiet "$src" "$work/toolkit"
cd "$work/toolkit"

# 1. The CLI alone.
start=$(clock)
cargo install --quiet --path mcp-cli --root "$work/root-1" --target-dir "$work/cli-target"
install_s=$(since "$start")

# 2. A scaffolded project's first debug build.
"$work/root-1/bin/cargo-mcp" new "$work/weather-1" --vcs none >/dev/null
start=$(clock)
cargo build --quiet --manifest-path "$work/weather-1/Cargo.toml"
first_build_s=$(since "$start")

# 3. The quick start, as written (the CLI on PATH, a fresh target for each step).
export PATH="$work/root-3/bin:$PATH"
request='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}'
start=$(clock)
cargo install --quiet --path mcp-cli --root "$work/root-3" --target-dir "$work/cli-target-3"
cargo mcp new ../weather-3 --vcs none >/dev/null
answer=$(printf '%s\n' "$request" | cargo run --quiet --manifest-path ../weather-3/Cargo.toml 2>/dev/null)
quickstart_s=$(since "$start")
case "$answer" in
    *'"text":"5"'*) ;;
    *) echo "the quick start's server did not answer 5: $answer" >&2; exit 1 ;;
esac

# The packages each step compiles.
packages() { cargo tree -e normal,build --prefix none "$@" 2>/dev/null | sed 's/ (\*)//' | sort -u | wc -l; }
cli_packages=$(cd "$work/toolkit" && packages -p mcp-runtime-cli)
project_packages=$(cd "$work/weather-1" && packages)

ratio=$(awk -v a="$install_s" -v b="$first_build_s" 'BEGIN { printf "%.2f", a / b }')
cat <<EOF
cargo install --path mcp-cli         ${install_s} s   (${cli_packages} packages)
first debug build of a new project   ${first_build_s} s   (${project_packages} packages)
install / first build                ${ratio}
quick start to an answered call      ${quickstart_s} s
EOF
