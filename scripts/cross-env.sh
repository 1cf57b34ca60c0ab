# Shared by scripts/check-targets.sh and tests/wine/setup.sh: source it from the workspace
# root, then call `cross_env [EXTRA-PACKAGE...]`. Not meant to be run on its own.
#
# It installs, when missing, Debian's matched Rust toolchain and the C compilers other
# targets' C code needs (and any extra packages named), then exports what `cargo` needs to
# check or build for `x86_64-pc-windows-gnu`, `aarch64-apple-darwin` and
# `x86_64-apple-darwin` from this Linux machine, the standard library built from source
# (`-Zbuild-std`): no other target's standard library can be installed through rustup here.
# Everything goes to `target/cross`, one folder for every target, so the standard library
# and the dependencies built once are reused by every later run.
#
# macOS: ring's C code is compiled by clang; with no macOS SDK on this machine, clang gets
# `-ffreestanding -nostdlibinc` and three small stand-in headers (ring needs
# `TargetConditionals.h`, `assert.h` and `string.h`). Nothing is linked for macOS: it is
# checked, not built.

# Debian 12 packages (bookworm-security), one toolchain version: rustc, cargo, clippy and the
# standard library's sources of 1.96; MinGW's gcc for Windows, clang for macOS.
CROSS_PACKAGES=(rustc-web cargo-web rust-web-clippy rust-web-src gcc-mingw-w64-x86-64 clang)
CROSS_RUST_VERSION=1.96.

cross_env() {
    local missing=() p sudo=""
    for p in "${CROSS_PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    if ((${#missing[@]})); then
        [[ $(id -u) == 0 ]] || sudo=sudo
        # Waiting for the package lock rather than failing: a test's setup may be using apt.
        $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
            --no-install-recommends "${missing[@]}" >/dev/null
    fi
    if ! /usr/bin/rustc --version | grep -q "rustc $CROSS_RUST_VERSION"; then
        echo "cross-env: /usr/bin/rustc is $(/usr/bin/rustc --version), expected $CROSS_RUST_VERSION*" >&2
        return 1
    fi

    local stubs=$PWD/target/cross/macos-stubs
    mkdir -p "$stubs"
    cat >"$stubs/TargetConditionals.h" <<'H'
/* Stand-in for the macOS SDK's header: what ring asks of it. */
#define TARGET_OS_IPHONE 0
#define TARGET_OS_OSX 1
#define TARGET_OS_MAC 1
H
    cat >"$stubs/assert.h" <<'H'
/* Stand-in for the macOS SDK's header: ring uses static assertions only. */
#define assert(x) ((void)0)
#define static_assert _Static_assert
H
    cat >"$stubs/string.h" <<'H'
/* Stand-in for the macOS SDK's header: the declarations ring's C code uses. */
#include <stddef.h>
void *memcpy(void *, const void *, size_t);
void *memmove(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
size_t strlen(const char *);
H
    export CC_aarch64_apple_darwin=clang CC_x86_64_apple_darwin=clang
    export CFLAGS_aarch64_apple_darwin="--target=arm64-apple-macos11 -ffreestanding -nostdlibinc -I$stubs"
    export CFLAGS_x86_64_apple_darwin="--target=x86_64-apple-macos10.12 -ffreestanding -nostdlibinc -I$stubs"
    export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc

    # Debian's cargo, rustc and clippy first on PATH (rustup's would take over `cargo clippy`).
    export PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_INCREMENTAL=0
    CROSS_CARGO_FLAGS=(-Zbuild-std=std,panic_abort --target-dir target/cross)
}
