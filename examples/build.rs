//! Links the example servers with packed relative relocations (`-z pack-relative-relocs`,
//! DT_RELR) on Linux with glibc.
//!
//! A position-independent Rust binary carries one relocation per pointer in its static data
//! (vtables, string tables): about 12,000 for `echo-server`, 280 KiB of `.rela.dyn` that the
//! dynamic loader reads, page by page, at every start. Packed, they take 4 KiB: the server
//! keeps its address randomization and maps about 0.3 MiB less (see `bench/README.md`).
//! glibc reads DT_RELR since 2.36; lld and GNU ld since 2.38 write it.
//!
//! Packing shrinks the table, not the work: the loader still writes every pointer at every
//! start (33,600 for `echo-server`), which copies each page holding one. Linked without PIE the
//! same server starts in 0.76 × the time; we keep PIE for its address randomization (the
//! README's benchmark section has the figures).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
