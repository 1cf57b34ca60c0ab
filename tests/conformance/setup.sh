#!/usr/bin/env bash
# Installs the official MCP conformance suite the conformance tests run, pinned by this
# folder's package-lock.json: `@modelcontextprotocol/conformance` 0.1.16 and Node 22 from the
# npm package `node` (the suite needs Node >= 22; the package puts a Node 22 binary at
# node_modules/.bin/node, so the machine's own Node only has to run npm).
# Idempotent (reinstalls only when package.json or package-lock.json changed), silent on
# success, and on failure prints npm's output and exits non-zero. Needs node/npm and the npm
# registry only.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$dir"

# One setup at a time (parallel test runs would race on node_modules).
if command -v flock >/dev/null 2>&1; then
    exec 9<"$dir/setup.sh"
    flock 9
fi

log="$(mktemp "${TMPDIR:-/tmp}/mcp-conformance-setup.XXXXXX")"
trap 'rm -f "$log"' EXIT

fail() {
    echo "tests/conformance/setup.sh: $1" >&2
    if [[ -s "$log" ]]; then
        echo "---- output ----" >&2
        cat "$log" >&2
        echo "----------------" >&2
    fi
    exit 1
}

command -v npm >/dev/null 2>&1 || fail "npm is not installed (Node.js with npm is needed to install the suite)"

stamp="node_modules/.conformance-setup-stamp"
if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]] ||
    ! node_modules/.bin/node --version >/dev/null 2>&1; then
    rm -f "$stamp"
    npm ci --no-audit --no-fund --loglevel=error >"$log" 2>&1 || fail "npm ci failed"
    touch "$stamp"
fi

version="$(node_modules/.bin/node --version 2>"$log")" || fail "node_modules/.bin/node does not run"
[[ "$version" == v22.* ]] || fail "node_modules/.bin/node is $version, expected Node 22"
[[ -f node_modules/@modelcontextprotocol/conformance/dist/index.js ]] ||
    fail "the conformance suite is missing from node_modules"
