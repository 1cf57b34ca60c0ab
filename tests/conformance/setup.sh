#!/usr/bin/env bash
# Installs the official MCP conformance suite the conformance tests run, pinned by this
# folder's package-lock.json: `@modelcontextprotocol/conformance` 0.1.16 and Node 22 from the
# npm package `node` (the suite needs Node >= 22; the package puts a Node 22 binary at
# node_modules/.bin/node, so the machine's own Node only has to run npm).
# Idempotent (reinstalls only when package.json or package-lock.json changed), silent on
# success, and on failure prints npm's output and exits non-zero. Needs node/npm and the npm
# registry only.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin conformance

command -v npm >/dev/null 2>&1 || fail "npm is not installed (Node.js with npm is needed to install the suite)"
npm_ci_once node_modules/.conformance-setup-stamp node_modules/.bin/node --version

version="$(node_modules/.bin/node --version 2>"$log")" || fail "node_modules/.bin/node does not run"
[[ "$version" == v22.* ]] || fail "node_modules/.bin/node is $version, expected Node 22"
[[ -f node_modules/@modelcontextprotocol/conformance/dist/index.js ]] ||
    fail "the conformance suite is missing from node_modules"
