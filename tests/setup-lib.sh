# Shared by the tests' setup scripts (tests/*/setup.sh): source it after `set -euo pipefail`,
# then call `setup_begin NAME`. Not meant to be run on its own.

# setup_begin NAME: moves to the calling script's folder, waits for any other setup of that
# folder (parallel test runs would race on node_modules), and opens the log that `fail` shows.
# The lock is taken on the calling script itself, so no lock file is left behind.
setup_begin() {
    setup_name="tests/$1/setup.sh"
    dir="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
    cd "$dir"
    if command -v flock >/dev/null 2>&1; then
        exec 9<"$dir/setup.sh"
        flock 9
    fi
    log="$(mktemp "${TMPDIR:-/tmp}/mcp-$1-setup.XXXXXX")"
    trap 'rm -f "$log"' EXIT
}

# fail MESSAGE: prints the message and the log (the failing tool's output), exits non-zero.
fail() {
    echo "$setup_name: $1" >&2
    if [[ -s "$log" ]]; then
        echo "---- output ----" >&2
        cat "$log" >&2
        echo "----------------" >&2
    fi
    exit 1
}

# quiet COMMAND...: runs the command with its output kept in the log, shown only on failure.
quiet() {
    : >"$log"
    "$@" >"$log" 2>&1 || fail "failed ($?): $*"
}

# npm_ci_once STAMP CHECK...: `npm ci` from this folder's package-lock.json, unless STAMP is
# newer than package.json and package-lock.json and CHECK (a command) succeeds.
npm_ci_once() {
    local stamp=$1
    shift
    if [[ ! -f "$stamp" || package-lock.json -nt "$stamp" || package.json -nt "$stamp" ]] ||
        ! "$@" >/dev/null 2>&1; then
        rm -f "$stamp"
        quiet npm ci --no-audit --no-fund --loglevel=error
        touch "$stamp"
    fi
}

# debian_version PACKAGE PINNED SAME_RELEASE: sets `version` to PINNED if apt offers it, else
# to the newest offered version matching the regex SAME_RELEASE (Debian's archives drop
# superseded security builds; a note goes to stderr). Fetches the package lists first on a
# machine that has none (as root, or with passwordless sudo).
debian_version() {
    local package=$1 pinned=$2 same_release=$3 versions
    available() {
        apt-cache madison "$package" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}'
    }
    versions="$(available)"
    if [[ -z "$versions" ]]; then
        if [[ "$(id -u)" == 0 ]]; then
            apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
        elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo -n apt-get update -qq >"$log" 2>&1 || fail "sudo apt-get update failed"
        else
            fail "apt has no package lists; run 'apt-get update' as root once"
        fi
        versions="$(available)"
    fi
    if grep -qxF "$pinned" <<<"$versions"; then
        version="$pinned"
    else
        version="$(grep -E "$same_release" <<<"$versions" | sort -V | tail -n 1 || true)"
        [[ -n "$version" ]] || fail "no $package $pinned (or another build of that release) in apt: found: $(echo $versions)"
        echo "$setup_name: $package $pinned is no longer in the archive; using $version" >&2
    fi
}
