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
