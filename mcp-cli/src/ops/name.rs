//! Package names, checked as `cargo new` checks them, with a suggestion when refused.

use std::fmt;

/// Rust keywords (strict and reserved, 2024 edition): cargo refuses them as package names
/// because the library could not be named in `use`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names of the standard library's crates: a package named like one shadows it.
const STD_CRATES: &[&str] = &["alloc", "core", "proc_macro", "proc-macro", "std", "test"];

/// Directory names cargo uses inside `target/`.
const CARGO_DIRS: &[&str] = &["build", "deps", "examples", "incremental"];

/// File names Windows reserves.
const WINDOWS_RESERVED: &[&str] = &[
    "aux", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9", "con", "lpt1",
    "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9", "nul", "prn",
];

/// The toolkit's own crates: a project of that name could not depend on them.
const TOOLKIT_CRATES: &[&str] = &[
    "mcp-runtime",
    "mcp-runtime-macros",
    "mcp-runtime-cli",
    "mcp_runtime",
    "mcp_runtime_macros",
    "mcp_runtime_cli",
];

/// crates.io's limit.
const MAX_LEN: usize = 64;

/// Why a name cannot be a package name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidName {
    /// The name refused.
    pub name: String,
    /// Why, as a phrase ("it is a Rust keyword").
    pub reason: String,
    /// A valid name close to it.
    pub suggestion: String,
}

impl fmt::Display for InvalidName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` cannot be a package name: {}; try `--name {}`",
            self.name, self.reason, self.suggestion
        )
    }
}

impl std::error::Error for InvalidName {}

/// Why `name` is not a valid package name, if it is not.
fn reason(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let first = name.chars().next()?;
    Some(if first.is_ascii_digit() {
        "it starts with a digit".to_owned()
    } else if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        format!("`{bad}` is not allowed (use ASCII letters, digits, `-` and `_`)")
    } else if !(first.is_ascii_alphabetic() || first == '_') {
        "it must start with a letter or `_`".to_owned()
    } else if name.chars().any(|c| c.is_ascii_uppercase()) {
        // `cargo new` only warns; crates.io treats `Bad-Name` and `bad-name` as one name,
        // and the binary a client starts is named after the package.
        "package names are kebab-case (no uppercase letters)".to_owned()
    } else if KEYWORDS.contains(&name) {
        "it is a Rust keyword".to_owned()
    } else if STD_CRATES.contains(&name) {
        "it is the name of a standard library crate".to_owned()
    } else if CARGO_DIRS.contains(&name) {
        "cargo uses it for a directory in `target/`".to_owned()
    } else if WINDOWS_RESERVED.contains(&lower.as_str()) {
        "it is a reserved file name on Windows".to_owned()
    } else if TOOLKIT_CRATES.contains(&name) {
        "it is the name of a toolkit crate the project depends on".to_owned()
    } else if name.len() > MAX_LEN {
        format!("it is longer than {MAX_LEN} characters")
    } else {
        return None;
    })
}

/// Checks `name` like `cargo new` does (keywords, a leading digit, characters, reserved
/// names), refusing with a suggestion.
pub fn validate(name: &str) -> Result<(), InvalidName> {
    if name.is_empty() {
        return Err(InvalidName {
            name: String::new(),
            reason: "it is empty".to_owned(),
            suggestion: "my-mcp-server".to_owned(),
        });
    }
    match reason(name) {
        None => Ok(()),
        Some(reason) => Err(InvalidName {
            name: name.to_owned(),
            reason,
            suggestion: suggest(name),
        }),
    }
}

/// A valid name close to `name`: bad characters become `-`, a leading digit gets an
/// `mcp-` prefix, a reserved word a `-server` suffix.
pub fn suggest(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let mut out = out.trim_matches('-').to_owned();
    out.truncate(MAX_LEN - "mcp--server".len());
    if out.is_empty() {
        return "my-mcp-server".to_owned();
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out = format!("mcp-{out}");
    }
    if reason(&out).is_some() {
        out.push_str("-server");
    }
    out
}

/// The Rust identifier of a package's library (`my-server` → `my_server`).
pub fn crate_name(package: &str) -> String {
    package.replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uppercase_is_refused_with_the_kebab_case_name() {
        let e = validate("Bad-Name").unwrap_err();
        assert!(e.to_string().contains("kebab-case"), "{e}");
        assert_eq!(e.suggestion, "bad-name");
        assert!(validate("bad-name").is_ok());
    }

    #[test]
    fn accepts_ordinary_names() {
        for name in ["weather", "my-server", "my_server", "_private", "a1"] {
            assert_eq!(validate(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn refuses_like_cargo_new_with_a_suggestion() {
        let cases = [
            ("fn", "keyword", "fn-server"),
            ("1password", "digit", "mcp-1password"),
            ("my server", "` ` is not allowed", "my-server"),
            ("weather.v2", "`.` is not allowed", "weather-v2"),
            ("std", "standard library", "std-server"),
            ("test", "standard library", "test-server"),
            ("build", "target/", "build-server"),
            ("con", "Windows", "con-server"),
            ("mcp-runtime", "toolkit", "mcp-runtime-server"),
            ("", "empty", "my-mcp-server"),
            ("-x", "start with a letter", "x"),
            ("déjà", "`é` is not allowed", "d-j"),
        ];
        for (name, why, suggestion) in cases {
            let err = validate(name).unwrap_err();
            assert!(err.reason.contains(why), "{name}: {}", err.reason);
            assert_eq!(err.suggestion, suggestion, "{name}");
            assert_eq!(
                validate(&err.suggestion),
                Ok(()),
                "{name}: the suggestion is valid"
            );
        }
        let long = "a".repeat(65);
        assert!(validate(&long).unwrap_err().reason.contains("64"));
        assert_eq!(validate(&suggest(&long)), Ok(()));
    }

    #[test]
    fn the_message_names_the_fix() {
        let err = validate("fn").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`fn` cannot be a package name: it is a Rust keyword; try `--name fn-server`"
        );
    }

    #[test]
    fn crate_names_use_underscores() {
        assert_eq!(crate_name("my-mcp-server"), "my_mcp_server");
    }
}
