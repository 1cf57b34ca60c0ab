#!/usr/bin/env bash
# Installs the two lines of the official MCP conformance suite the conformance tests run, each
# pinned by its folder's package-lock.json together with Node 22 from the npm package `node`
# (the suite needs Node >= 22; the package puts a Node 22 binary at node_modules/.bin/node,
# so the machine's own Node only has to run npm):
#   tests/conformance/       `@modelcontextprotocol/conformance` 0.1.16 (the 2025 revisions)
#   tests/conformance-next/  `@modelcontextprotocol/conformance` 0.2.0-alpha.12 (2026-07-28)
# One script for both, so `mcp_tests::setup("conformance")` prepares whichever a test runs.
# Idempotent (reinstalls a folder only when its package.json or package-lock.json changed),
# silent on success, and on failure prints npm's output and exits non-zero. Needs node/npm
# and the npm registry only.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin conformance

command -v npm >/dev/null 2>&1 || fail "npm is not installed (Node.js with npm is needed to install the suite)"

# install_suite FOLDER: installs FOLDER (relative to tests/conformance) and checks the result.
install_suite() {
    (
        cd "$1"
        npm_ci_once node_modules/.conformance-setup-stamp node_modules/.bin/node --version
        version="$(node_modules/.bin/node --version 2>"$log")" || fail "$1: node_modules/.bin/node does not run"
        [[ "$version" == v22.* ]] || fail "$1: node_modules/.bin/node is $version, expected Node 22"
        [[ -f node_modules/@modelcontextprotocol/conformance/dist/index.js ]] ||
            fail "$1: the conformance suite is missing from node_modules"
    )
}

install_suite .
install_suite ../conformance-next
