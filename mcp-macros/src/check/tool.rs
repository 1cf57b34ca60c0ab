//! The rules of `#[mcp_tool]`: a description, consistent annotations, safe policies, and
//! arguments that can be fields of the arguments struct.

use super::{SignatureWords, ValueWords, description, params, signature};
use crate::ast::ToolFn;
use crate::attr::Spanned;
use crate::ctxt::Ctxt;

/// Where the function stands: a free function, or a method in an `#[mcp_tools]` impl.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    Free,
    Method,
}

/// Checks every rule, recording each violation.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn, position: Position) {
    signature(
        cx,
        &tool.func,
        &SignatureWords {
            what: "mcp_tool",
            fixed: "the input schema",
            hidden: "whether it returns structured output",
        },
    );
    receiver(cx, tool, position);
    description(
        cx,
        &tool.attrs.description,
        &tool.func,
        "tool",
        Some("models choose tools by their descriptions"),
    );
    annotations(cx, tool);
    policy(cx, tool);
    confirm(cx, tool);
    app(cx, tool);
    params(
        cx,
        &tool.func,
        ValueWords {
            item: "a tool",
            noun: "tool argument",
            made: "deserialized",
            name_reason: "it becomes the JSON property name",
            rename_frees_pattern: false,
        },
    );
}

fn receiver(cx: &Ctxt, tool: &ToolFn, position: Position) {
    let func = &tool.func;
    if let Some(r) = &func.bad_receiver {
        cx.error_spanned_by(
            r,
            "an `#[mcp_tool]` method takes `&self`; other receivers (`self`, `&mut self`, `self: T`) are not supported because calls run concurrently",
        );
    }
    if position == Position::Free && (func.has_self || func.bad_receiver.is_some()) {
        cx.error_spanned_by(
            &func.sig.ident,
            "an `#[mcp_tool]` method needs `#[mcp_tools]` on its `impl` block, which registers the tools of an instance",
        );
    }
}

fn annotations(cx: &Ctxt, tool: &ToolFn) {
    if let (Some(r), Some(d)) = (&tool.attrs.read_only, &tool.attrs.destructive)
        && r.value
        && d.value
    {
        cx.error_at(
            d.span,
            "a tool cannot be both `read_only` and `destructive`: a read-only tool changes nothing",
        );
    }
}

fn policy(cx: &Ctxt, tool: &ToolFn) {
    let a = &tool.attrs;
    if let Some(cache) = &a.cache {
        let marked = |flag: &Option<Spanned<bool>>| flag.as_ref().is_some_and(|f| f.value);
        let (problem, fix) = match (marked(&a.read_only), marked(&a.idempotent)) {
            (true, true) => return,
            (false, false) => (
                "is neither `read_only` nor `idempotent`",
                "`read_only` and `idempotent` if it is both",
            ),
            (false, true) => ("is not `read_only`", "`read_only` if it is"),
            (true, false) => ("is not `idempotent`", "`idempotent` if it is"),
        };
        cx.error_at(
            cache.span,
            format!("a cached result is only safe for read-only, idempotent tools, and this tool {problem}: mark it {fix}, or remove `cache`"),
        );
    }
}

/// `confirm`'s placeholders name arguments; `unconfirmable` goes with `confirm`.
fn confirm(cx: &Ctxt, tool: &ToolFn) {
    let a = &tool.attrs;
    if let (Some(u), None) = (&a.unconfirmable, &a.confirm) {
        cx.error_at(
            u.span,
            "`unconfirmable` says what a confirmed tool does when the client cannot be asked, and this tool asks nothing: add `confirm`, or remove `unconfirmable`",
        );
    }
    let Some(Spanned {
        value: Some(message),
        span,
    }) = &a.confirm
    else {
        return;
    };
    let arguments: Vec<&str> = tool
        .func
        .params
        .iter()
        .filter_map(|p| match &p.kind {
            crate::ast::ParamKind::Value { name, .. } => Some(name.as_str()),
            crate::ast::ParamKind::Injected => None,
        })
        .collect();
    for name in placeholders(message) {
        if !arguments.contains(&name) {
            let known = if arguments.is_empty() {
                "the tool takes no arguments".to_owned()
            } else {
                format!("its arguments are `{}`", arguments.join("`, `"))
            };
            cx.error_at(
                *span,
                format!("the confirmation message has `{{{name}}}`, which is not an argument of this tool ({known}); write `{{{{` and `}}}}` for a brace"),
            );
        }
    }
}

/// The `{name}` and `{{ name }}` placeholders of a confirmation message (other `{{` and
/// `}}` are braces), by the runtime's rules (`mcp_runtime::tool::Confirm`).
fn placeholders(message: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = message;
    while let Some(i) = rest.find(['{', '}']) {
        let after = &rest[i..];
        // `{{ name }}` (the Jinja spelling) is a placeholder; other doubled braces are braces.
        if let Some(inner) = after.strip_prefix("{{")
            && let Some(end) = inner.find("}}")
            && is_name(inner[..end].trim())
        {
            out.push(inner[..end].trim());
            rest = &inner[end + 2..];
        } else if after.starts_with("{{") || after.starts_with("}}") {
            rest = &after[2..];
        } else if let Some(inner) = after.strip_prefix('{')
            && let Some(end) = inner.find('}')
        {
            out.push(inner[..end].trim());
            rest = &inner[end + 1..];
        } else {
            rest = &after[1..];
        }
    }
    out
}

/// What a placeholder may name (the runtime's `is_placeholder`).
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
}

fn app(cx: &Ctxt, tool: &ToolFn) {
    if let (Some(visibility), None) = (&tool.attrs.visibility, &tool.attrs.app) {
        cx.error_at(
            visibility.span,
            "`visibility` says who may call a tool shown with an MCP Apps view, and this tool names none: add `app = \"ui://…\"`, or remove `visibility`",
        );
    }
}
