#!/usr/bin/env bash
# Provides the Redis the shared-state tests (tests/it/redis*.rs) start: Debian's own
# `redis-tools` package (which carries the server binary), pinned, with the two libraries it
# links (liblzf1, libjemalloc2), unpacked into tests/redis/.redis/ (never installed
# system-wide, so no Redis service is started and nothing outside this folder changes). The
# tests start `redis-server` themselves, on loopback only, each with its own port and temp
# directory, through `.redis/run-redis-server` (which sets the library path).
#
# Pinning: the exact Debian version below is preferred. Debian's archives drop superseded
# security builds, so when that exact version is gone the newest 7.0.15-1~deb12uN build of
# the same release is taken instead (a note goes to stderr); on a machine without apt, a
# redis-server already on PATH is used. Idempotent and silent on success.
set -euo pipefail

PINNED_VERSION="5:7.0.15-1~deb12u7"
SAME_RELEASE='^5:7\.0\.15-1~deb12u[0-9]+$'

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin redis

launcher=".redis/run-redis-server"
if [[ -x "$launcher" ]] && "$launcher" --version >/dev/null 2>&1; then
    exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-redis-deb.XXXXXX")"
trap 'rm -rf "$log" "$work"' EXIT

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    if command -v redis-server >/dev/null 2>&1; then
        mkdir -p .redis
        printf '#!/bin/sh\nexec redis-server "$@"\n' >"$launcher"
        chmod +x "$launcher"
        exit 0 # not Debian: the tests use the redis-server on PATH
    fi
    fail "Redis is needed: this is not a Debian system (no apt-get/dpkg-deb) and no redis-server is on PATH"
fi

debian_version redis-tools "$PINNED_VERSION" "$SAME_RELEASE"

# The libraries at the versions this Debian release carries (they are not security-updated
# apart from the release).
(cd "$work" && apt-get download "redis-tools=$version" liblzf1 libjemalloc2) >"$log" 2>&1 ||
    fail "apt-get download redis-tools=$version liblzf1 libjemalloc2 failed"
for deb in "$work"/*.deb; do
    dpkg-deb -x "$deb" "$work/root" >"$log" 2>&1 || fail "unpacking $deb failed"
done
# The server is the same binary as redis-check-rdb, told apart by its name (as the
# redis-server package links it).
ln -sf redis-check-rdb "$work/root/usr/bin/redis-server"
libdir="$(dirname "$(find "$work/root" -name 'liblzf.so.1' | head -n 1)")"
cat >"$work/root/run-redis-server" <<SCRIPT
#!/bin/sh
here="\$(cd "\$(dirname "\$0")" && pwd)"
LD_LIBRARY_PATH="\$here/${libdir#"$work/root/"}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$here/usr/bin/redis-server" "\$@"
SCRIPT
chmod +x "$work/root/run-redis-server"
"$work/root/run-redis-server" --version >"$log" 2>&1 || fail "the unpacked redis-server does not run"
rm -rf .redis
mv "$work/root" .redis
