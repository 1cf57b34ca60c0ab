#!/usr/bin/env bash
# Builds what tests/it/wine.rs runs under Wine, and Wine itself:
#   - installs, when missing, Debian's `wine64` (Wine 8) and the cross toolchain
#     (`scripts/cross-env.sh`: Debian's Rust 1.96 with the standard library built from
#     source, MinGW's gcc);
#   - builds echo-server, file-server and command-server for `x86_64-pc-windows-gnu` (into
#     target/cross, shared with scripts/check-targets.sh) and copies them to
#     target/cross/wine/bin/, beside `bcryptprimitives.dll` (this folder's stand-in: Rust's
#     standard library needs its `ProcessPrng`, which Wine 8 lacks) and `tree.exe` (a program
#     that starts a process tree and waits: what command-server's timeout must end whole);
#   - makes a Wine prefix at target/cross/wine/prefix once (`wineboot --init`), so no test
#     waits for one.
# Idempotent, silent on success; on failure prints the failing tool's output.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin wine

cd ../..
source scripts/cross-env.sh
quiet cross_env wine64 || fail "installing the cross toolchain and wine64 failed"

out=target/cross/wine
mkdir -p "$out/bin"
quiet cargo build "${CROSS_CARGO_FLAGS[@]}" --target x86_64-pc-windows-gnu -p mcp-examples \
    --bin echo-server --bin file-server --bin command-server ||
    fail "building the examples for Windows failed"
for bin in echo-server file-server command-server; do
    cp -p "target/cross/x86_64-pc-windows-gnu/debug/$bin.exe" "$out/bin/"
done
quiet x86_64-w64-mingw32-gcc -O2 -shared -o "$out/bin/bcryptprimitives.dll" \
    tests/wine/bcryptprimitives.c -ladvapi32 || fail "building bcryptprimitives.dll failed"
quiet x86_64-w64-mingw32-gcc -O2 -o "$out/bin/tree.exe" tests/wine/tree.c ||
    fail "building tree.exe failed"

if [[ ! -f "$out/prefix/system.reg" ]]; then
    WINEPREFIX="$PWD/$out/prefix" WINEDEBUG=-all quiet /usr/lib/wine/wine64 wineboot --init ||
        fail "making the Wine prefix failed"
fi
