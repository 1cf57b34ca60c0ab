#!/usr/bin/env bash
# Runs one of the Windows programs tests/wine/setup.sh built (target/cross/wine/bin) under
# Wine, with this workspace's Wine prefix: the server command the tests give the official
# clients, which pass a server only a few environment variables (so the prefix is set here).
# Usage: tests/wine/run.sh PROGRAM.exe [ARG...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export WINEPREFIX="$root/target/cross/wine/prefix" WINEDEBUG=-all
exec /usr/lib/wine/wine64 "$root/target/cross/wine/bin/$1" "${@:2}"
