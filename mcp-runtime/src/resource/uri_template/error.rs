//! [`UriTemplateError`]: why a template was refused, and where.

use super::*;

/// Why a URI template was refused, and at which byte of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// A `{` without its `}`.
    #[error("unclosed `{{` at byte {offset}: an expression ends with `}}` before any other `{{`")]
    Unclosed {
        /// Where the `{` is.
        offset: usize,
    },
    /// A `}` outside any expression.
    #[error("`}}` at byte {offset} closes no expression")]
    UnmatchedClose {
        /// Where the `}` is.
        offset: usize,
    },
    /// The `;` operator, or one RFC 6570 reserves for future use (`=`, `,`, `!`, `@`, `|`).
    #[error("{}", unsupported_operator(*.operator, *.offset))]
    UnsupportedOperator {
        /// Where the operator is.
        offset: usize,
        /// The operator.
        operator: char,
    },
    /// `{}`, or a missing name around a `,`.
    #[error("empty variable name at byte {offset}")]
    EmptyVariableName {
        /// Where the name should be.
        offset: usize,
    },
    /// A character that cannot appear in a variable name.
    #[error(
        "{character:?} at byte {offset} cannot be part of a variable name (ASCII letters, digits, `_`, %-escapes, and `.` between them)"
    )]
    InvalidVariableName {
        /// Where the character is.
        offset: usize,
        /// The character.
        character: char,
    },
    /// A prefix modifier, `{x:3}`.
    #[error(
        "prefix modifier at byte {offset} is not supported: a URI carrying only a prefix of a value cannot be matched back to that value"
    )]
    PrefixModifier {
        /// Where the `:` is.
        offset: usize,
    },
    /// `*` on a variable followed by others in a non-query expression (`{a*,b}`).
    #[error(
        "`*` at byte {offset} makes a list of a variable that is not the last of its expression: nothing would mark where the list ends (only `{{?…}}` and `{{&…}}` can do that)"
    )]
    ExplodeNotLast {
        /// Where the `*` is.
        offset: usize,
    },
    /// Two expressions with nothing between them to mark where the first value ends.
    #[error(
        "the expression at byte {offset} directly follows another one, and nothing would mark where that one's value ends: put a literal between them (`{{a}}/{{b}}`), or start the second with an operator the first cannot contain (`{{a}}{{/b}}`)"
    )]
    AdjacentExpressions {
        /// Where the second expression's `{` is.
        offset: usize,
    },
    /// A character RFC 6570 does not allow outside expressions.
    #[error("{character:?} at byte {offset} is not allowed in a URI template; percent-encode it")]
    InvalidLiteral {
        /// Where the character is.
        offset: usize,
        /// The character.
        character: char,
    },
    /// A `%` not followed by two hex digits.
    #[error("`%` at byte {offset} is not followed by two hex digits")]
    InvalidPercentEncoding {
        /// Where the `%` is.
        offset: usize,
    },
    /// A variable named more than once (`{a}/{a}`, `{?q,q}`, `{?id*}{#id}`): a URI can fill
    /// the places differently, one can swallow the other's text, or read a list where the
    /// other reads a string, so what the template matches would not expand back to it.
    /// Found by fuzzing.
    #[error(
        "the expression at byte {offset} names a variable the template already names; name each variable once"
    )]
    RepeatedVariable {
        /// Where the expression naming it again starts (its `{`).
        offset: usize,
    },
    /// A `{?…}` or `{&…}` expression followed by something other than `{&…}`, `{#…}` or a
    /// `#` fragment (`{?q}/{x}`): a query value may hold `/`, so it would swallow what
    /// follows. Found by fuzzing.
    #[error(
        "the query expression at byte {offset} is followed by more than query or a fragment; put it at the end"
    )]
    QueryNotLast {
        /// Where the query expression's `{` is.
        offset: usize,
    },
}

pub(super) fn unsupported_operator(operator: char, offset: usize) -> String {
    if operator == ';' {
        format!(
            "operator `;` (path-style parameters) at byte {offset} is not supported; use `{{/x}}` or `{{?x}}`"
        )
    } else {
        format!(
            "operator `{operator}` at byte {offset} is reserved by RFC 6570 and has no meaning yet"
        )
    }
}

impl UriTemplateError {
    /// The byte offset in the template where the problem is.
    pub fn offset(&self) -> usize {
        match *self {
            Self::Unclosed { offset }
            | Self::UnmatchedClose { offset }
            | Self::UnsupportedOperator { offset, .. }
            | Self::EmptyVariableName { offset }
            | Self::InvalidVariableName { offset, .. }
            | Self::PrefixModifier { offset }
            | Self::ExplodeNotLast { offset }
            | Self::AdjacentExpressions { offset }
            | Self::InvalidLiteral { offset, .. }
            | Self::InvalidPercentEncoding { offset }
            | Self::RepeatedVariable { offset }
            | Self::QueryNotLast { offset } => offset,
        }
    }
}

/// The compile-time check of `#[mcp_resource(template = "…")]`: fails const evaluation,
/// at the caller's span (the template literal), when [`validate`] refuses the template. A
/// const panic takes one `&str` without formatting, so the messages leave out the byte
/// offset that [`UriTemplateError`]'s `Display` gives; the error's span shows the template.
#[track_caller]
pub const fn assert_uri_template(template: &str) {
    let Err(error) = validate(template) else {
        return;
    };
    match error {
        UriTemplateError::Unclosed { .. } => panic!(
            "invalid URI template: a `{{` is not closed; an expression ends with `}}` before any other `{{`"
        ),
        UriTemplateError::UnmatchedClose { .. } => {
            panic!("invalid URI template: a `}}` closes no expression")
        }
        UriTemplateError::UnsupportedOperator { operator: ';', .. } => panic!(
            "invalid URI template: the operator `;` (path-style parameters) is not supported; use `{{/x}}` or `{{?x}}`"
        ),
        UriTemplateError::UnsupportedOperator { .. } => panic!(
            "invalid URI template: the operators `=`, `,`, `!`, `@` and `|` are reserved by RFC 6570 and have no meaning yet"
        ),
        UriTemplateError::EmptyVariableName { .. } => {
            panic!("invalid URI template: an expression has an empty variable name")
        }
        UriTemplateError::InvalidVariableName { .. } => panic!(
            "invalid URI template: a variable name is made of ASCII letters, digits, `_`, %-escapes, and `.` between them"
        ),
        UriTemplateError::PrefixModifier { .. } => panic!(
            "invalid URI template: the prefix modifier `{{x:N}}` is not supported; a URI carrying only a prefix of a value cannot be matched back to that value"
        ),
        UriTemplateError::ExplodeNotLast { .. } => panic!(
            "invalid URI template: `*` makes a list of a variable that is not the last of its expression, and nothing would mark where the list ends (only `{{?…}}` and `{{&…}}` can)"
        ),
        UriTemplateError::AdjacentExpressions { .. } => panic!(
            "invalid URI template: an expression directly follows another one, and nothing would mark where that one's value ends; put a literal between them (`{{a}}/{{b}}`), or start the second with an operator the first cannot contain (`{{a}}{{/b}}`)"
        ),
        UriTemplateError::InvalidLiteral { .. } => panic!(
            "invalid URI template: a character outside the expressions is not allowed in a URI (a space, `\"`, `<`, `>`, `\\`, `^`, `` ` ``, `|` or a control character); percent-encode it"
        ),
        UriTemplateError::InvalidPercentEncoding { .. } => {
            panic!("invalid URI template: a `%` is not followed by two hex digits")
        }
        // Checked by `UriTemplate::parse` only (registration), not at compile time.
        UriTemplateError::RepeatedVariable { .. } => {
            panic!("invalid URI template: a variable is named more than once")
        }
        UriTemplateError::QueryNotLast { .. } => panic!(
            "invalid URI template: a query expression is followed by more than query or a fragment"
        ),
    }
}
