//! The tool-name rule, in one place: 1 to 128 characters of `[A-Za-z0-9_.-]`.
//!
//! The spec phrases this rule as a SHOULD; this toolkit enforces it so a tool name always
//! fits the `Mcp-Name` header of 2026-07-28 without encoding. Two checks follow it:
//! registration (for tools built at run time) and `#[mcp_tool]`, at compile time; prompt names follow the same rule
//! (registration and `#[mcp_prompt]`). A proc-macro crate cannot call into the
//! runtime, so the macro does not check the name itself: it emits
//! `const _: () = mcp_runtime::__private::assert_tool_name("…");`, spanned on the name, and
//! the compiler evaluates this very function. One rule, so the two cannot drift apart.
//!
//! A const panic takes its message as one `&str`, with no formatting, so the compile-time
//! messages are whole sentences assembled with `concat!` from the same reason texts that
//! [`tool_name_problem`] returns; the error's span shows the offending name.

/// The longest tool name allowed, in bytes (the name is ASCII, so also in characters).
pub const MAX_TOOL_NAME_LEN: usize = 128;

// The reason texts, as macros so `concat!` can build the compile-time messages from them.
macro_rules! empty {
    () => {
        "a tool name needs at least one character"
    };
}
macro_rules! too_long {
    () => {
        "a tool name has at most 128 characters"
    };
}
macro_rules! bad_character {
    () => {
        "a tool name uses only ASCII letters, digits, `_`, `-` and `.`"
    };
}

/// What is wrong with a name; the one rule both checks follow.
#[derive(Clone, Copy)]
enum Problem {
    Empty,
    TooLong,
    BadCharacter,
}

const fn problem(name: &str) -> Option<Problem> {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return Some(Problem::Empty);
    }
    if bytes.len() > MAX_TOOL_NAME_LEN {
        return Some(Problem::TooLong);
    }
    // `Iterator` is not usable in a `const fn`; hence the index loop.
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.') {
            return Some(Problem::BadCharacter);
        }
        i += 1;
    }
    None
}

/// What is wrong with `name` as a tool name, or `None` when it follows the rule
/// (1 to [`MAX_TOOL_NAME_LEN`] characters of ASCII letters, digits, `_`, `-` and `.`).
///
/// A `const fn`, so it also runs at compile time: `#[mcp_tool]` checks names with it.
///
/// ```
/// use mcp_runtime::tool::tool_name_problem;
///
/// assert_eq!(tool_name_problem("files.read_text-v2"), None);
/// assert!(tool_name_problem("read file").is_some());
/// const CHECKED: () = assert!(tool_name_problem("get_weather").is_none());
/// ```
pub const fn tool_name_problem(name: &str) -> Option<&'static str> {
    match problem(name) {
        None => None,
        Some(Problem::Empty) => Some(empty!()),
        Some(Problem::TooLong) => Some(too_long!()),
        Some(Problem::BadCharacter) => Some(bad_character!()),
    }
}

/// The compile-time check of a name given as `#[mcp_tool(name = "…")]`: fails const
/// evaluation, at the caller's span, when the name breaks the rule.
#[doc(hidden)]
#[track_caller]
pub const fn assert_tool_name(name: &str) {
    match problem(name) {
        None => {}
        Some(Problem::Empty) => {
            panic!(concat!(
                "invalid tool name: ",
                empty!(),
                "; fix `name = \"...\"`"
            ))
        }
        Some(Problem::TooLong) => {
            panic!(concat!(
                "invalid tool name: ",
                too_long!(),
                "; shorten `name = \"...\"`"
            ))
        }
        Some(Problem::BadCharacter) => {
            panic!(concat!(
                "invalid tool name: ",
                bad_character!(),
                "; fix `name = \"...\"`"
            ))
        }
    }
}

/// The compile-time check of a name taken from the function's name.
#[doc(hidden)]
#[track_caller]
pub const fn assert_fn_tool_name(name: &str) {
    match problem(name) {
        None => {}
        // A Rust identifier is never empty; kept for completeness.
        Some(Problem::Empty) => {
            panic!(concat!(
                "invalid tool name: ",
                empty!(),
                "; set `name = \"...\"`"
            ))
        }
        Some(Problem::TooLong) => panic!(concat!(
            "invalid tool name: ",
            too_long!(),
            ", and this function's name is longer; rename the function or set a shorter `name = \"...\"`"
        )),
        Some(Problem::BadCharacter) => panic!(concat!(
            "invalid tool name: ",
            bad_character!(),
            ", and this function's name has another character; rename the function or set `name = \"...\"`"
        )),
    }
}

/// The compile-time check of a name given as `#[mcp_prompt(name = "…")]`: prompt names
/// follow the tool-name rule (they travel in the same `Mcp-Name` header).
#[doc(hidden)]
#[track_caller]
pub const fn assert_prompt_name(name: &str) {
    match problem(name) {
        None => {}
        Some(Problem::Empty) => panic!(concat!(
            "invalid prompt name (prompt names follow the tool-name rule): ",
            empty!(),
            "; fix `name = \"...\"`"
        )),
        Some(Problem::TooLong) => panic!(concat!(
            "invalid prompt name (prompt names follow the tool-name rule): ",
            too_long!(),
            "; shorten `name = \"...\"`"
        )),
        Some(Problem::BadCharacter) => panic!(concat!(
            "invalid prompt name (prompt names follow the tool-name rule): ",
            bad_character!(),
            "; fix `name = \"...\"`"
        )),
    }
}

/// The compile-time check of a prompt name taken from the function's name.
#[doc(hidden)]
#[track_caller]
pub const fn assert_fn_prompt_name(name: &str) {
    match problem(name) {
        None => {}
        Some(Problem::Empty) => panic!(concat!(
            "invalid prompt name (prompt names follow the tool-name rule): ",
            empty!(),
            "; set `name = \"...\"`"
        )),
        Some(Problem::TooLong) => panic!(concat!(
            "invalid prompt name (prompt names follow the tool-name rule): ",
            too_long!(),
            ", and this function's name is longer; rename the function or set a shorter `name = \"...\"`"
        )),
        Some(Problem::BadCharacter) => panic!(concat!(
            "invalid prompt name (prompt names follow the tool-name rule): ",
            bad_character!(),
            ", and this function's name has another character; rename the function or set `name = \"...\"`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name `#[mcp_tool]` accepts at compile time is one registration accepts: both
    /// are this table's verdicts (`tests/ui/pass/tool_names.rs` registers the edge cases).
    #[test]
    fn the_rule_on_edge_cases() {
        let longest = "n".repeat(MAX_TOOL_NAME_LEN);
        let too_long = "n".repeat(MAX_TOOL_NAME_LEN + 1);
        let cases: &[(&str, Option<&str>)] = &[
            ("a", None),
            ("get_weather", None),
            ("files.read-text_v2", None),
            ("-.-", None),
            ("...", None),
            ("0", None),
            ("UPPER_lower", None),
            (&longest, None),
            ("", Some(empty!())),
            (&too_long, Some(too_long!())),
            ("has space", Some(bad_character!())),
            ("slash/name", Some(bad_character!())),
            ("colon:name", Some(bad_character!())),
            ("café", Some(bad_character!())),
            ("tab\tname", Some(bad_character!())),
            ("trailing\n", Some(bad_character!())),
            ("nul\0", Some(bad_character!())),
        ];
        for (name, expected) in cases {
            assert_eq!(tool_name_problem(name), *expected, "{name:?}");
        }
        // 128 multi-byte characters are more than 128 bytes: too long, before the
        // character check.
        assert_eq!(tool_name_problem(&"é".repeat(128)), Some(too_long!()));
    }

    #[test]
    fn the_rule_runs_at_compile_time() {
        const GOOD: Option<&str> = tool_name_problem("route.length");
        const BAD: Option<&str> = tool_name_problem("route length");
        const { assert_tool_name("route.length") };
        const { assert_fn_tool_name("route_length") };
        const { assert_prompt_name("code.review") };
        const { assert_fn_prompt_name("code_review") };
        assert_eq!(GOOD, None);
        assert_eq!(BAD, Some(bad_character!()));
    }

    #[test]
    #[should_panic(expected = "invalid tool name: a tool name has at most 128 characters")]
    fn the_compile_time_check_names_the_problem() {
        assert_tool_name(&"n".repeat(MAX_TOOL_NAME_LEN + 1));
    }
}
