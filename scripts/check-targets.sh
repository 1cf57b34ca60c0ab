#!/usr/bin/env bash
# Checks and lints the workspace for Windows and macOS from this Linux machine.
#
# What it proves: every crate *compiles* for `x86_64-pc-windows-gnu`, `aarch64-apple-darwin`
# and `x86_64-apple-darwin`: the workspace with all features, tests, examples and benchmarks,
# and the runtime and the CLI alone with their default features (and the runtime as a
# stdio-only server; the CLI builds it as a client), and the projects `cargo mcp new` makes
# from each template, and `cargo clippy -D warnings` is clean there (clippy
# runs the compiler's checks, so it is `cargo check` plus the lints). It runs nothing on those
# systems: `tests/it/wine.rs` runs the Windows build under Wine; nothing here runs macOS code.
#
# Usage: scripts/check-targets.sh [TARGET...]   (default: the three targets)
# It installs what is missing with apt-get (`scripts/cross-env.sh`, which says how the
# targets are reached: Debian's Rust 1.96 with `-Zbuild-std`; it needs root or sudo and
# Debian's registry), and is idempotent. Its build folder is `target/cross`, shared by every
# target and feature set, so a second run only checks what changed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

source scripts/cross-env.sh
cross_env

targets=("$@")
((${#targets[@]})) || targets=(x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin)

# Clippy 1.96 with a standard library built from source takes every `thread_local!` for one
# without `const { … }` (ours all have it; the lint is clean with rustup's 1.95 on Linux):
# that one lint is off here, and on in the Linux run of .ci/run.
allow=(-A clippy::missing_const_for_thread_local)
# What is checked for each target. Cargo unifies features across the packages of one run, so
# "default features" means one crate on its own, as a user's project would build it.
# `mcp-tests` is the Linux test suite's support (it drives this machine's processes, Unix
# sockets and official clients), so its own tests are not checked; its library is, as the
# CLI's tests use it.
checks=(
    "--workspace --exclude mcp-tests --all-targets --all-features"
    "-p mcp-runtime"
    "-p mcp-runtime --no-default-features --features server"
    "-p mcp-runtime-cli"
)
# The projects `cargo mcp new` generates, one per template, depending on this checkout: what a
# user on each system starts from. Scaffolded with the CLI built here (nothing is built by
# `new`), standalone, with the workspace's lock file as their starting point.
cargo build "${CROSS_CARGO_FLAGS[@]:1}" -p mcp-runtime-cli --quiet
projects=target/cross/projects
templates=(stdio http files app)
rm -rf "$projects" && mkdir -p "$projects"
for template in "${templates[@]}"; do
    target/cross/debug/cargo-mcp mcp new "$projects/$template" --template "$template" \
        --runtime-path . --standalone --vcs none >/dev/null
    cp Cargo.lock "$projects/$template/"
done

for target in "${targets[@]}"; do
    for template in "${templates[@]}"; do
        start=$SECONDS
        cargo clippy "${CROSS_CARGO_FLAGS[@]}" --target "$target" --all-targets --quiet \
            --manifest-path "$projects/$template/Cargo.toml" -- -D warnings "${allow[@]}"
        echo "check-targets: $target, a new project from the $template template: clean in $((SECONDS - start)) s" >&2
    done
    for check in "${checks[@]}"; do
        start=$SECONDS
        # shellcheck disable=SC2086 # each check is words
        cargo clippy "${CROSS_CARGO_FLAGS[@]}" --target "$target" $check --quiet -- \
            -D warnings "${allow[@]}"
        echo "check-targets: $target $check: clean in $((SECONDS - start)) s" >&2
    done
done
