#!/usr/bin/env bash
# Provides the nginx the horizontal-scaling test puts in front of two server instances:
# Debian's own nginx package, pinned, unpacked into tests/scale/.nginx/ (never installed
# system-wide, so no nginx service is started on port 80 and nothing outside this folder
# changes). The test starts it itself, on loopback only, with a config it writes to a temp
# directory.
#
# Pinning: the exact Debian version below is preferred. Debian's archives drop superseded
# security builds, so when that exact version is gone the newest 1.22.1-9+deb12uN build of
# the same release is taken instead (a note goes to stderr); on a machine without apt, an
# nginx already on PATH is used. Idempotent and silent on success.
set -euo pipefail

PINNED_VERSION="1.22.1-9+deb12u11"
SAME_RELEASE='^1\.22\.1-9\+deb12u[0-9]+$'

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin scale

local_nginx=".nginx/usr/sbin/nginx"
if [[ -x "$local_nginx" ]] && "$local_nginx" -v >/dev/null 2>&1; then
    exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-scale-deb.XXXXXX")"
trap 'rm -rf "$log" "$work"' EXIT

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    if command -v nginx >/dev/null 2>&1; then
        exit 0 # not Debian: the test uses the nginx on PATH
    fi
    fail "nginx is needed: this is not a Debian system (no apt-get/dpkg-deb) and no nginx is on PATH"
fi

debian_version nginx "$PINNED_VERSION" "$SAME_RELEASE"

(cd "$work" && apt-get download "nginx=$version") >"$log" 2>&1 || fail "apt-get download nginx=$version failed"
dpkg-deb -x "$work"/nginx_*.deb "$work/root" >"$log" 2>&1 || fail "unpacking the nginx package failed"
"$work/root/usr/sbin/nginx" -v >"$log" 2>&1 || fail "the unpacked nginx does not run"
rm -rf .nginx
mv "$work/root" .nginx
