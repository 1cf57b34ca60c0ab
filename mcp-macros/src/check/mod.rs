//! The rules an annotated function must follow. Checking reports; it never generates code.
//!
//! What every attribute shares is here: the signature (async, not generic, a named return
//! type, no receiver where none is supported) and the parameters (injected or value, names,
//! owned types). One module per attribute adds its own rules, and one checks `#[mcp_tools]`
//! impl blocks.
//!
//! Two rules live in the runtime instead, because a proc-macro crate cannot call it and a
//! copy here could drift from what registration enforces: the tool- and prompt-name rule
//! (`mcp_runtime::tool::tool_name_problem`) and the URI template syntax
//! (`mcp_runtime::resource::uri_template::validate`). Expansion emits a compile-time
//! assertion that evaluates each (see `expand::name_check` and `expand::resource`).

mod impl_block;
mod prompt;
mod resource;
mod tool;

pub(crate) use impl_block::check as impl_block;
pub(crate) use prompt::check as prompt;
pub(crate) use resource::check as resource;
pub(crate) use tool::{Position, check as tool};

use crate::ast::{Function, ParamKind};
use crate::attr::Spanned;
use crate::ctxt::Ctxt;
use std::collections::HashSet;
use syn::spanned::Spanned as _;
use syn::{ReturnType, Type};

/// How messages about a signature name the attribute and explain its rules.
struct SignatureWords {
    /// The attribute: `mcp_tool`.
    what: &'static str,
    /// Why the types must be concrete.
    fixed: &'static str,
    /// What an `impl Trait` return type would hide.
    hidden: &'static str,
}

/// The rules of a signature that every attribute shares.
fn signature(cx: &Ctxt, func: &Function, words: &SignatureWords) {
    let what = words.what;
    let sig = &func.sig;
    if sig.asyncness.is_none() {
        cx.error_spanned_by(
            sig.fn_token,
            format!("an `#[{what}]` function must be `async`: write `async fn`"),
        );
    }
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, format!("an `#[{what}]` function cannot be `const`"));
    }
    if let Some(u) = &sig.unsafety {
        cx.error_spanned_by(
            u,
            format!("an `#[{what}]` function cannot be `unsafe`: a model cannot uphold its safety contract"),
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned_by(
            abi,
            format!("an `#[{what}]` function cannot have an `extern` ABI"),
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, format!("an `#[{what}]` function cannot be variadic"));
    }
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            format!("an `#[{what}]` function cannot be generic: {} is fixed at compile time; use concrete types", words.fixed),
        );
    }
    if let Some(w) = &sig.generics.where_clause {
        cx.error_spanned_by(
            w,
            format!("an `#[{what}]` function cannot have a `where` clause"),
        );
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && let Type::ImplTrait(_) = &**ty
    {
        cx.error_spanned_by(
            ty,
            format!(
                "an `#[{what}]` function must name its return type; `impl Trait` hides {}",
                words.hidden
            ),
        );
    }
}

/// A function that must not take `self` at all (resources, prompts).
fn no_receiver(cx: &Ctxt, func: &Function, what: &str) {
    if func.has_self || func.bad_receiver.is_some() {
        let receiver = func.sig.inputs.first();
        cx.error_spanned_by(
            receiver,
            format!("an `#[{what}]` function cannot take `self`: write a free function, and take shared state as a `State<T>` parameter"),
        );
    }
}

/// What a value parameter is called in messages.
#[derive(Clone, Copy)]
struct ValueWords {
    /// "a tool"
    item: &'static str,
    /// "tool argument"
    noun: &'static str,
    /// "deserialized"
    made: &'static str,
    /// Why it needs a plain name when it is not renamed.
    name_reason: &'static str,
    /// Whether `#[mcp(rename = "...")]` frees the parameter to be a pattern.
    rename_frees_pattern: bool,
}

/// The rules of parameters that every attribute shares: at most one `RequestContext`,
/// attribute keys that fit the kind of parameter, value names that are names and unique,
/// owned value types.
fn params(cx: &Ctxt, func: &Function, words: ValueWords) {
    let mut names = HashSet::new();
    let mut contexts = 0;
    for param in &func.params {
        if let (Some(_), Some(a)) = (param.attrs.inject, param.attrs.arg) {
            cx.error_at(
                a,
                "a parameter is either `#[mcp(inject)]` or `#[mcp(arg)]`, not both",
            );
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
                if param.is_context() {
                    contexts += 1;
                    if contexts == 2 {
                        cx.error_spanned_by(
                            &param.ty,
                            format!(
                                "{} takes at most one `RequestContext` parameter; remove this one",
                                words.item
                            ),
                        );
                    }
                }
                let not_for_injected = |span, key: &str, why: &str| {
                    cx.error_at(
                        span,
                        format!(
                            "`{key}` applies to {}s; an injected parameter {why}",
                            words.noun
                        ),
                    );
                };
                if let Some((span, _)) = &param.attrs.default {
                    not_for_injected(*span, "default", "comes from the context");
                }
                if let Some(r) = &param.attrs.rename {
                    not_for_injected(r.span, "rename", "has no name the client sees");
                }
                if let Some(d) = &param.attrs.description {
                    not_for_injected(d.span, "description", "is not shown to the client");
                }
                if let Some((span, _)) = &param.attrs.complete {
                    not_for_injected(*span, "complete", "is not filled in by the client");
                }
            }
            ParamKind::Value { ident, name } => {
                let named =
                    ident.is_some() || (words.rename_frees_pattern && param.attrs.rename.is_some());
                if !named {
                    cx.error_spanned_by(
                        &param.pat,
                        format!(
                            "a {} needs a plain name ({}); destructure it inside the function",
                            words.noun, words.name_reason
                        ),
                    );
                    continue;
                }
                if let Type::Reference(r) = &param.ty {
                    cx.error_spanned_by(
                        r,
                        format!("{}s are {} into owned values: use an owned type (`String` instead of `&str`, `Vec<T>` instead of `&[T]`)", words.noun, words.made),
                    );
                }
                if !names.insert(name.clone()) {
                    cx.error_at(
                        param.span.span(),
                        format!("two {}s have the name `{name}`; rename one with `#[mcp(rename = \"...\")]`", words.noun),
                    );
                }
            }
        }
    }
}

/// `#[serde]` / `#[schemars]` on a parameter of an attribute that derives nothing.
fn no_serde_attributes(cx: &Ctxt, func: &Function, noun: &str) {
    for param in &func.params {
        for attr in &param.attrs.forwarded {
            cx.error_spanned_by(
                attr,
                format!("`#[serde]` and `#[schemars]` do nothing on a {noun}, which is parsed with `FromStr`; rename it with `#[mcp(rename = \"...\")]`"),
            );
        }
    }
}

/// An explicit description that is empty, or a missing one where `required` says why one
/// is needed.
fn description(
    cx: &Ctxt,
    explicit: &Option<Spanned<String>>,
    func: &Function,
    what: &str,
    required: Option<&str>,
) {
    match explicit {
        Some(d) if d.value.trim().is_empty() => {
            let fix = match required {
                Some(why) => why.to_owned(),
                None => format!("remove `description` or say what the {what} is"),
            };
            cx.error_at(d.span, format!("the {what} description is empty; {fix}"));
        }
        Some(_) => {}
        None if func.docs.is_empty() => {
            if let Some(why) = required {
                cx.error_spanned_by(
                    &func.sig.ident,
                    format!("this {what} has no description: add a doc comment (`/// What the {what} does.`) or `description = \"...\"`; {why}"),
                );
            }
        }
        None => {}
    }
}
