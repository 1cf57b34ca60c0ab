#!/usr/bin/env bash
# Installs the official MCP clients the interop tests drive, pinned by this folder's files:
#   - TypeScript: `npm ci` from package-lock.json into node_modules/ (the official client, the
#     reference filesystem server @modelcontextprotocol/server-filesystem that the file-tool
#     tests compare file-server with, and the MCPB CLI @anthropic-ai/mcpb that checks the
#     bundles `cargo mcp package` builds)
#   - Python:     a venv at .venv/ with `pip install -r python/requirements.txt`
# Idempotent (each step reruns only when its inputs changed), silent on success, and on any
# failure prints the failing tool's output and exits non-zero. Needs only node/npm, python3
# and the npm and PyPI registries.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin interop

# ---- TypeScript client -------------------------------------------------------------------
command -v node >/dev/null 2>&1 || fail "node is not installed (Node.js >= 20 is needed)"
command -v npm >/dev/null 2>&1 || fail "npm is not installed"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
((node_major >= 20)) || fail "Node.js >= 20 is needed, found $(node --version)"

npm_ci_once node_modules/.interop-setup-stamp true

# ---- Python client -----------------------------------------------------------------------
python="${PYTHON:-python3}"
command -v "$python" >/dev/null 2>&1 || fail "$python is not installed (Python >= 3.10 is needed)"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' ||
    fail "Python >= 3.10 is needed, found $("$python" --version 2>&1)"

venv=".venv"
requirements="python/requirements.txt"
# The stamp is a copy of the requirements the venv was built from: any change rebuilds it.
py_stamp="$venv/.interop-requirements.txt"
if [[ ! -f "$py_stamp" ]] || ! cmp -s "$requirements" "$py_stamp" || ! "$venv/bin/python" -c '' >/dev/null 2>&1; then
    rm -rf "$venv"
    quiet "$python" -m venv "$venv"
    quiet "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"
    cp "$requirements" "$py_stamp"
fi
