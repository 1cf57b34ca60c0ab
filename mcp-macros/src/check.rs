//! The rules a tool function must follow. Checking reports; it never generates code.
//!
//! The tool name is the exception: its rule lives in the runtime
//! (`mcp_runtime::tool::tool_name_problem`), which a proc-macro crate cannot call, so
//! expansion emits a compile-time assertion that evaluates it (see `expand::name_check`)
//! rather than this module keeping a copy that could drift from registration's.

use crate::ast::{ParamKind, ToolFn};
use crate::attr::Spanned;
use crate::ctxt::Ctxt;
use std::collections::HashMap;
use syn::spanned::Spanned as _;
use syn::{ReturnType, Type};

/// Where the function stands: a free function, or a method in an `#[mcp_tools]` impl.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    Free,
    Method,
}

/// Checks every rule, recording each violation.
pub(crate) fn check(cx: &Ctxt, tool: &ToolFn, position: Position) {
    check_signature(cx, tool, position);
    check_description(cx, tool);
    check_annotations(cx, tool);
    check_policy(cx, tool);
    check_params(cx, tool);
}

fn check_signature(cx: &Ctxt, tool: &ToolFn, position: Position) {
    let sig = &tool.sig;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(
            sig.fn_token,
            "an `#[mcp_tool]` function must be `async`: write `async fn`",
        );
    }
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, "an `#[mcp_tool]` function cannot be `const`");
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(u, "an `#[mcp_tool]` function cannot be `unsafe`: a model cannot uphold its safety contract");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(abi, "an `#[mcp_tool]` function cannot have an `extern` ABI");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "an `#[mcp_tool]` function cannot be variadic");
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            "an `#[mcp_tool]` function cannot be generic: the input schema is fixed at compile time; use concrete types",
        );
    }
    if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(w, "an `#[mcp_tool]` function cannot have a `where` clause");
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = &**ty
    {
        cx.error_spanned_by(
            ty,
            "an `#[mcp_tool]` function must name its return type; `impl Trait` hides whether it returns structured output",
        );
    }
    if let Some(r) = &tool.bad_receiver {
        cx.error_spanned_by(
            r,
            "an `#[mcp_tool]` method takes `&self`; other receivers (`self`, `&mut self`, `self: T`) are not supported because calls run concurrently",
        );
    }
    if position == Position::Free && (tool.has_self || tool.bad_receiver.is_some()) {
        cx.error_spanned_by(
            &sig.ident,
            "an `#[mcp_tool]` method needs `#[mcp_tools]` on its `impl` block, which registers the tools of an instance",
        );
    }
}

fn check_description(cx: &Ctxt, tool: &ToolFn) {
    match &tool.attrs.description {
        Some(d) if d.value.trim().is_empty() => {
            cx.error_at(d.span, "the tool description is empty; models choose tools by their descriptions");
        }
        Some(_) => {}
        None if tool.docs.is_empty() => cx.error_spanned_by(
            &tool.sig.ident,
            "this tool has no description: add a doc comment (`/// What the tool does.`) or `description = \"...\"`; models choose tools by their descriptions",
        ),
        None => {}
    }
}

fn check_annotations(cx: &Ctxt, tool: &ToolFn) {
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

fn check_policy(cx: &Ctxt, tool: &ToolFn) {
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

fn check_params(cx: &Ctxt, tool: &ToolFn) {
    let mut json_names: HashMap<String, ()> = HashMap::new();
    let mut contexts = 0;
    for param in &tool.params {
        if let (Some(i), Some(a)) = (param.attrs.inject, param.attrs.arg) {
            cx.error_at(
                a,
                "a parameter is either `#[mcp(inject)]` or `#[mcp(arg)]`, not both",
            );
            let _ = i;
        }
        if let Type::ImplTrait(_) = &param.ty {
            cx.error_spanned_by(
                &param.ty,
                "`impl Trait` parameters are not supported: name a concrete type",
            );
            continue;
        }
        match &param.kind {
            ParamKind::Injected => {
                if ToolFn::is_context(param) {
                    contexts += 1;
                    if contexts == 2 {
                        cx.error_spanned_by(
                            &param.ty,
                            "a tool takes at most one `RequestContext` parameter; remove this one",
                        );
                    }
                }
                if let Some((span, _)) = &param.attrs.default {
                    cx.error_at(*span, "`default` applies to arguments; an injected parameter comes from the context");
                }
                if let Some(r) = &param.attrs.rename {
                    cx.error_at(
                        r.span,
                        "`rename` applies to arguments; an injected parameter has no JSON name",
                    );
                }
            }
            ParamKind::Argument { ident, json_name } => {
                if ident.is_none() {
                    cx.error_spanned_by(
                        &param.pat,
                        "a tool argument needs a plain name (it becomes the JSON property name); destructure it inside the function",
                    );
                    continue;
                }
                if let Type::Reference(r) = &param.ty {
                    cx.error_spanned_by(
                        r,
                        "tool arguments are deserialized into owned values: use an owned type (`String` instead of `&str`, `Vec<T>` instead of `&[T]`)",
                    );
                }
                if json_names.insert(json_name.clone(), ()).is_some() {
                    cx.error_at(
                        param.span.span(),
                        format!("two arguments have the JSON name `{json_name}`; rename one with `#[mcp(rename = \"...\")]`"),
                    );
                }
            }
        }
    }
}
