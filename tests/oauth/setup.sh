#!/usr/bin/env bash
# Installs the OAuth authorization server the OAuth tests (tests/it/oauth.rs) start:
# oauth2-mock-server, configured by authorization-server.mjs, and Node 22 from the npm package
# `node` (oauth2-mock-server needs Node >= 22.12; the package puts a Node 22 binary at
# node_modules/.bin/node, so the machine's own Node only has to run npm), both pinned by
# package-lock.json. Idempotent, silent on success, and on failure prints npm's output and
# exits non-zero. Needs node/npm and the npm registry only.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin oauth

command -v npm >/dev/null 2>&1 || fail "npm is not installed (Node.js with npm is needed to install the authorization server)"
npm_ci_once node_modules/.oauth-setup-stamp node_modules/.bin/node --version
version="$(node_modules/.bin/node --version 2>"$log")" || fail "node_modules/.bin/node does not run"
[[ "$version" == v22.* ]] || fail "node_modules/.bin/node is $version, expected Node 22"
[[ -f node_modules/oauth2-mock-server/package.json ]] || fail "oauth2-mock-server is missing from node_modules"
