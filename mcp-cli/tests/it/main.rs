//! `cargo-mcp` end to end, compiled as one test binary (link time dominates on small
//! machines): generated projects built and tested, generated trees against snapshots,
//! `list`/`call`/`schema`/`read`/`prompt` against the example servers over stdio and HTTP in
//! both eras, `install` on temporary client configurations, and the command line's exit
//! codes.

mod ask;
mod cli;
mod dev;
mod generate;
mod inspect;
mod install;
mod oauth;
mod package;
mod preview;
mod primitives;
mod skills;
mod support;
mod task;
mod tree;
