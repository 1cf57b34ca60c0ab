//! [`LoadError`]: every problem found in a directory of prompt files, each with its file,
//! line and column, listed the way a compiler lists errors.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in one prompt file.
///
/// Displays as `file:line:column: message` (line and column when known), e.g.
/// `prompts/review.yaml:12:5: unknown key `tittle`; expected one of …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadProblem {
    /// The file, as the directory was named joined with the file's name.
    pub file: PathBuf,
    /// 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// 1-based column (in characters), when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl LoadProblem {
    pub(crate) fn at(file: &Path, pos: super::source::Pos, message: impl Into<String>) -> Self {
        Self {
            file: file.to_owned(),
            line: Some(pos.line),
            column: Some(pos.column),
            message: message.into(),
        }
    }

    pub(crate) fn file(file: &Path, message: impl Into<String>) -> Self {
        Self {
            file: file.to_owned(),
            line: None,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// Why prompt files could not be loaded: every problem in every file, in file order.
///
/// ```
/// use mcp_runtime::prompt::PromptTemplates;
///
/// # fn main() -> std::io::Result<()> {
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.yaml"), "description: A\n")?;
/// std::fs::write(dir.path().join("b.json"), "{\"name\": \"b\",}x")?;
/// let error = PromptTemplates::from_dir(dir.path()).unwrap_err();
/// assert_eq!(error.problems().len(), 2);
/// // One line per problem: `…/a.yaml:1:1: missing `messages`…` and `…/b.json:1:15: …`.
/// assert!(error.to_string().lines().any(|l| l.contains("a.yaml:1:1: ")));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    problems: Vec<LoadProblem>,
    /// What was loaded, for the message: prompt files, skill files.
    what: &'static str,
}

impl LoadError {
    pub(crate) fn new(problems: Vec<LoadProblem>) -> Self {
        debug_assert!(!problems.is_empty());
        Self {
            problems,
            what: "prompt files",
        }
    }

    /// Problems in the skill folders of a skills folder.
    #[cfg(feature = "skills")]
    pub(crate) fn skills(problems: Vec<LoadProblem>) -> Self {
        debug_assert!(!problems.is_empty());
        Self {
            problems,
            what: "skill files",
        }
    }

    /// Every problem, in file order, then by line.
    pub fn problems(&self) -> &[LoadProblem] {
        &self.problems
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "{n} problem{} in {}:",
            if n == 1 { "" } else { "s" },
            self.what
        )?;
        for p in &self.problems {
            write!(f, "\n{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}
