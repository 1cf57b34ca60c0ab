#!/usr/bin/env bash
# Installs the peers `bench/gateway.sh` measures beside the gateway, pinned by this folder's
# files: `supergateway` and Node.js 22 (`npm ci` into node_modules/), and Python `mcp-proxy`
# (a venv at .venv/ from python/requirements.txt). Idempotent and silent on success, like the
# tests' setup scripts whose helpers it uses. Needs node/npm, python3 and the npm and PyPI
# registries. Not run by CI: the benchmark is a script, not a test.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../../tests/setup-lib.sh"
setup_name="bench/peers/setup.sh"
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$dir"
log="$(mktemp "${TMPDIR:-/tmp}/mcp-bench-peers-setup.XXXXXX")"
trap 'rm -f "$log"' EXIT

command -v npm >/dev/null 2>&1 || fail "npm is not installed"
npm_ci_once node_modules/.peers-setup-stamp node_modules/.bin/supergateway --version

python="${PYTHON:-python3}"
command -v "$python" >/dev/null 2>&1 || fail "$python is not installed (Python >= 3.10 is needed)"
venv=".venv"
requirements="python/requirements.txt"
stamp="$venv/.peers-requirements.txt"
if [[ ! -f "$stamp" ]] || ! cmp -s "$requirements" "$stamp" || ! "$venv/bin/mcp-proxy" --version >/dev/null 2>&1; then
    rm -rf "$venv"
    quiet "$python" -m venv "$venv"
    quiet "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"
    cp "$requirements" "$stamp"
fi
