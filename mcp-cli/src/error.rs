//! Exit codes, and errors that choose one.
//!
//! Every failure is reported as one line on stderr, `error: what failed: why: why…` (the
//! `anyhow` chain), and ends the process with one of these codes:
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | success |
//! | 1 | failure: a build, the server, the network or the file system failed |
//! | 2 | usage: invalid arguments or an invalid package name |
//! | 3 | check failed: `schema --check` found a difference, `call` got an error result, `doctor` found a problem |
//! | 4 | refused: it would overwrite or replace something (pass `--force`), or cannot edit a file safely |

use std::fmt;

/// The process exit codes `cargo mcp` uses.
pub mod code {
    /// Success.
    pub const SUCCESS: u8 = 0;
    /// Something failed: a build, the server, the network, the file system.
    pub const FAILURE: u8 = 1;
    /// Invalid arguments or an invalid package name (also clap's code for bad flags).
    pub const USAGE: u8 = 2;
    /// A check found a problem: `schema --check` differs, `call` returned an error result,
    /// `doctor` found something to fix.
    pub const CHECK_FAILED: u8 = 3;
    /// Refused to overwrite or replace something without `--force`, or to edit a file it
    /// cannot parse.
    pub const REFUSED: u8 = 4;
}

/// The exit-code table shown at the end of `cargo mcp --help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success
  1  failure: a build, the server, the network or the file system failed
  2  usage: invalid arguments or an invalid package name
  3  check failed: `schema --check` differs, `call` got an error result, `doctor` found a problem
  4  refused: would overwrite or replace something (see --force), or cannot edit a file safely";

/// An error that decides the exit code; anywhere in an `anyhow` chain.
#[derive(Debug)]
pub struct Exit {
    /// One of [`code`].
    pub code: u8,
    message: String,
    /// Lines to show before the error line (a diff, a snippet to paste).
    pub details: Option<Details>,
}

/// What an error shows besides its one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Details {
    /// The text, printed as it is.
    pub text: String,
    /// Print it on stdout (something to copy, like a config snippet) rather than stderr.
    pub to_stdout: bool,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

fn coded(code: u8, message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Exit {
        code,
        message: message.into(),
        details: None,
    })
}

/// A refusal (exit code 4) that also shows `details`.
pub fn refused_with(message: impl Into<String>, details: Details) -> anyhow::Error {
    anyhow::Error::new(Exit {
        code: code::REFUSED,
        message: message.into(),
        details: Some(details),
    })
}

/// A failed check (exit code 3) that also shows `details`.
pub fn check_failed_with(message: impl Into<String>, details: Details) -> anyhow::Error {
    anyhow::Error::new(Exit {
        code: code::CHECK_FAILED,
        message: message.into(),
        details: Some(details),
    })
}

/// The details `error` carries, if any.
pub fn details(error: &anyhow::Error) -> Option<&Details> {
    error
        .chain()
        .find_map(|e| e.downcast_ref::<Exit>())
        .and_then(|e| e.details.as_ref())
}

/// A usage error (exit code 2).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    coded(code::USAGE, message)
}

/// A failed check (exit code 3).
pub fn check_failed(message: impl Into<String>) -> anyhow::Error {
    coded(code::CHECK_FAILED, message)
}

/// A refusal (exit code 4).
pub fn refused(message: impl Into<String>) -> anyhow::Error {
    coded(code::REFUSED, message)
}

/// The exit code for `error`: the first [`Exit`] in its chain, else [`code::FAILURE`].
pub fn exit_code(error: &anyhow::Error) -> u8 {
    error
        .chain()
        .find_map(|e| e.downcast_ref::<Exit>())
        .map_or(code::FAILURE, |e| e.code)
}

/// The one-line report of `error`: `error: context: cause: cause`.
pub fn report(error: &anyhow::Error) -> String {
    format!("error: {error:#}").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context as _;

    #[test]
    fn the_code_survives_context() {
        let e = Err::<(), _>(refused("it exists"))
            .context("cannot create `x`")
            .unwrap_err();
        assert_eq!(exit_code(&e), code::REFUSED);
        assert_eq!(report(&e), "error: cannot create `x`: it exists");
        assert_eq!(exit_code(&anyhow::anyhow!("boom")), code::FAILURE);
    }
}
