#!/usr/bin/env bash
# Provides the real browser the MCP Apps preview test (tests/it/apps_browser.rs) drives:
# Debian's `chromium` and `chromium-driver` (ChromeDriver, the WebDriver server the test
# talks to), pinned, installed with apt (a browser's libraries cannot be unpacked into a
# folder the way tests/redis does). Nothing is downloaded at test time beyond this.
#
# Pinning: the exact Debian version below is preferred; Debian's archives drop superseded
# security builds, so when it is gone the newest build of the same major release is taken
# (a note goes to stderr). On a machine without apt, a `chromium` and `chromedriver` already
# on PATH are used. Prints the two paths, one per line. Idempotent and silent otherwise.
set -euo pipefail

PINNED_VERSION="156.0.8078.108-1~deb12u1"
SAME_RELEASE='^156\.0\.[0-9.]+-1~deb12u[0-9]+$'

source "$(dirname "${BASH_SOURCE[0]}")/../setup-lib.sh"
setup_begin browser

installed() {
    command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1
}

if ! installed; then
    if ! command -v apt-get >/dev/null 2>&1; then
        fail "Chromium and ChromeDriver are needed: this is not a Debian system (no apt-get) and no chromium and chromedriver are on PATH"
    fi
    debian_version chromium "$PINNED_VERSION" "$SAME_RELEASE"
    sudo=""
    [[ $(id -u) == 0 ]] || sudo="sudo -n"
    # Waiting for the package lock rather than failing: another test's setup may be using apt.
    DEBIAN_FRONTEND=noninteractive quiet $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        --no-install-recommends "chromium=$version" "chromium-driver=$version"
    installed || fail "chromium and chromedriver are not on PATH after installing them"
fi
command -v chromium
command -v chromedriver
