//! The model of an annotated function, built from the parsed item: what every attribute
//! shares ([`Function`], [`Param`]) and one type per attribute ([`ToolFn`], [`ResourceFn`],
//! [`PromptFn`]). Records shape mistakes it cannot model (receivers, attribute syntax) and
//! leaves rule checks to `check`.

use crate::attr::{ParamAttrs, PromptAttrs, ResourceAttrs, Spanned, ToolAttrs, docs_of};
use crate::ctxt::Ctxt;
use crate::symbol::{
    CONTEXT_TYPE, INJECTED_TYPES, PROMPT_PARAM_KEYS, RESOURCE_PARAM_KEYS, TOOL_PARAM_KEYS,
};
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned as _;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, Signature, Type, Visibility,
};

/// A function under one of the attributes.
pub(crate) struct Function {
    /// The function's own attributes, minus the macro's.
    pub(crate) fn_attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    /// The signature as it will be emitted: macro-only parameter attributes removed.
    pub(crate) sig: Signature,
    pub(crate) block: Box<syn::Block>,
    /// The doc comment, joined.
    pub(crate) docs: String,
    pub(crate) params: Vec<Param>,
    /// Whether the function takes `&self`.
    pub(crate) has_self: bool,
    /// The receiver, when it is not `&self` (an error to report).
    pub(crate) bad_receiver: Option<syn::Receiver>,
}

/// One non-receiver parameter.
pub(crate) struct Param {
    pub(crate) ty: Type,
    pub(crate) pat: Pat,
    pub(crate) attrs: ParamAttrs,
    pub(crate) kind: ParamKind,
    pub(crate) span: Span,
}

/// Where a parameter's value comes from.
pub(crate) enum ParamKind {
    /// From the client: a tool argument, a template variable, a prompt argument. `ident` is
    /// the parameter's name when it is a plain one, `name` the name the client uses.
    Value { ident: Option<Ident>, name: String },
    /// From the server, built by `FromContext`.
    Injected,
}

/// How a value parameter's type is written: the macro reads `Option<T>` and `Vec<T>` by
/// their spelling (an alias of either is taken as one value, whose `FromStr` bound then
/// fails to compile, so the guess is never silently wrong).
pub(crate) enum Shape<'a> {
    One(&'a Type),
    Optional(&'a Type),
    List(&'a Type),
}

impl Function {
    /// Builds the model of `f`; `param_keys` are the `#[mcp(...)]` keys the attribute accepts.
    pub(crate) fn new(cx: &Ctxt, f: syn::ItemFn, param_keys: &[&str]) -> Self {
        let syn::ItemFn {
            attrs: fn_attrs,
            vis,
            mut sig,
            block,
        } = f;
        let docs = docs_of(&fn_attrs);
        let mut params = Vec::new();
        let mut has_self = false;
        let mut bad_receiver = None;
        for input in sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => {
                    let ok =
                        r.reference.is_some() && r.mutability.is_none() && r.colon_token.is_none();
                    if ok {
                        has_self = true;
                    } else {
                        bad_receiver = Some(r.clone());
                    }
                }
                FnArg::Typed(pt) => {
                    let attrs = ParamAttrs::parse(cx, &pt.attrs, param_keys);
                    // Emit only what rustc accepts on parameters.
                    pt.attrs = attrs.kept.clone();
                    params.push(Param::new(attrs, pt));
                }
            }
        }
        Function {
            fn_attrs,
            vis,
            sig,
            block,
            docs,
            params,
            has_self,
            bad_receiver,
        }
    }

    /// The value parameters (not injected), with their names.
    pub(crate) fn values(&self) -> impl Iterator<Item = (&Param, &str)> {
        self.params.iter().filter_map(|p| match &p.kind {
            ParamKind::Value { name, .. } => Some((p, name.as_str())),
            ParamKind::Injected => None,
        })
    }
}

impl Param {
    fn new(attrs: ParamAttrs, pt: &syn::PatType) -> Self {
        let injected = match (attrs.inject, attrs.arg) {
            (Some(_), _) => true,
            (None, Some(_)) => false,
            (None, None) => type_name_is(&pt.ty, INJECTED_TYPES),
        };
        let kind = if injected {
            ParamKind::Injected
        } else {
            let ident = match &*pt.pat {
                Pat::Ident(pi) if pi.subpat.is_none() => Some(pi.ident.clone()),
                _ => None,
            };
            let name = attrs
                .rename
                .as_ref()
                .map(|r| r.value.clone())
                .or_else(|| attrs.serde_rename.clone())
                .or_else(|| ident.as_ref().map(unraw))
                .unwrap_or_default();
            ParamKind::Value { ident, name }
        };
        Param {
            span: pt.span(),
            ty: (*pt.ty).clone(),
            pat: (*pt.pat).clone(),
            attrs,
            kind,
        }
    }

    /// Whether the parameter is the request context.
    pub(crate) fn is_context(&self) -> bool {
        matches!(self.kind, ParamKind::Injected) && type_name_is(&self.ty, &[CONTEXT_TYPE])
    }

    /// Whether `#[mcp(arg)]` makes this a value whatever its type.
    pub(crate) fn forced_value(&self) -> bool {
        self.attrs.arg.is_some()
    }

    /// `Option<T>`, `Vec<T>`, or one value, as written.
    pub(crate) fn shape(&self) -> Shape<'_> {
        match single_argument(&self.ty, "Option") {
            Some(inner) => Shape::Optional(inner),
            None => match single_argument(&self.ty, "Vec") {
                Some(inner) => Shape::List(inner),
                None => Shape::One(&self.ty),
            },
        }
    }
}

/// `T` when `ty` is written `Name<T>` (also `std::option::Option<T>`, …).
fn single_argument<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(tp) = ty else {
        return match ty {
            Type::Group(g) => single_argument(&g.elem, name),
            Type::Paren(p) => single_argument(&p.elem, name),
            _ => None,
        };
    };
    let last = tp.path.segments.last()?;
    if tp.qself.is_some() || last.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

/// One `#[mcp_tool]` function or method.
pub(crate) struct ToolFn {
    pub(crate) attrs: ToolAttrs,
    pub(crate) func: Function,
}

impl ToolFn {
    /// Models `f` under `#[mcp_tool(args)]`.
    pub(crate) fn new(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self {
        let attrs = ToolAttrs::parse(cx, args);
        let func = Function::new(cx, f, TOOL_PARAM_KEYS);
        ToolFn { attrs, func }
    }

    /// The tool's name: explicit, or the function's name.
    pub(crate) fn tool_name(&self) -> String {
        explicit_or_fn_name(&self.attrs.name, &self.func)
    }

    /// The tool's description: explicit, or the doc comment.
    pub(crate) fn description(&self) -> String {
        explicit_or_docs(&self.attrs.description, &self.func)
    }
}

/// One `#[mcp_resource]` function.
pub(crate) struct ResourceFn {
    pub(crate) attrs: ResourceAttrs,
    pub(crate) func: Function,
    /// The variables of `template = "..."`, when it is given and could be read.
    pub(crate) variables: Option<Vec<TemplateVariable>>,
}

/// A variable of a URI template, as far as matching it to a parameter goes.
pub(crate) struct TemplateVariable {
    pub(crate) name: String,
    /// Written `{x*}`: its value is a list.
    pub(crate) explode: bool,
    /// A URI may leave it out: it is in an optional expression (`{?x}`, `{/x}`, `{.x}`,
    /// `{#x}`), or not the first of its expression (`{a,b}` may match a value for `a` only).
    pub(crate) optional: bool,
}

impl ResourceFn {
    /// Models `f` under `#[mcp_resource(args)]`.
    pub(crate) fn new(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self {
        let attrs = ResourceAttrs::parse(cx, args);
        let func = Function::new(cx, f, RESOURCE_PARAM_KEYS);
        let variables = attrs
            .template
            .as_ref()
            .and_then(|t| template_variables(&t.value));
        ResourceFn {
            attrs,
            func,
            variables,
        }
    }

    /// The resource's name: explicit, or the function's name.
    pub(crate) fn resource_name(&self) -> String {
        explicit_or_fn_name(&self.attrs.name, &self.func)
    }

    /// The resource's description: explicit, or the doc comment (may be empty).
    pub(crate) fn description(&self) -> String {
        explicit_or_docs(&self.attrs.description, &self.func)
    }

    /// The variable a parameter named `name` takes its value from.
    pub(crate) fn variable(&self, name: &str) -> Option<&TemplateVariable> {
        self.variables.iter().flatten().find(|v| v.name == name)
    }
}

/// The variables of a template, each once, as far as the macro needs them: names, lists,
/// optional ones. Lenient: the template's syntax is checked by the runtime's own rules at
/// compile time (`uri_template::validate`, evaluated in a `const`); `None` when the
/// expressions cannot even be found, so no parameter is reported against a misread template.
pub(crate) fn template_variables(template: &str) -> Option<Vec<TemplateVariable>> {
    let mut variables: Vec<TemplateVariable> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let body = &after[..close];
        if body.contains('{') || rest[..open].contains('}') {
            return None;
        }
        let (operator, list) = match body.chars().next() {
            Some(c @ ('+' | '#' | '.' | '/' | '?' | '&')) => (Some(c), &body[1..]),
            _ => (None, body),
        };
        let optional_expression = matches!(operator, Some('#' | '.' | '/' | '?' | '&'));
        for (i, spec) in list.split(',').enumerate() {
            let spec = spec.split(':').next().unwrap_or_default();
            let (name, explode) = match spec.strip_suffix('*') {
                Some(name) => (name, true),
                None => (spec, false),
            };
            if name.is_empty() {
                continue;
            }
            let optional = optional_expression || i > 0;
            match variables.iter_mut().find(|v| v.name == name) {
                // A variable written twice matches the same value; it is there when any
                // of its expressions must be.
                Some(seen) => {
                    seen.explode |= explode;
                    seen.optional &= optional;
                }
                None => variables.push(TemplateVariable {
                    name: name.to_owned(),
                    explode,
                    optional,
                }),
            }
        }
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    Some(variables)
}

/// One `#[mcp_prompt]` function.
pub(crate) struct PromptFn {
    pub(crate) attrs: PromptAttrs,
    pub(crate) func: Function,
}

impl PromptFn {
    /// Models `f` under `#[mcp_prompt(args)]`.
    pub(crate) fn new(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self {
        let attrs = PromptAttrs::parse(cx, args);
        let func = Function::new(cx, f, PROMPT_PARAM_KEYS);
        PromptFn { attrs, func }
    }

    /// The prompt's name: explicit, or the function's name.
    pub(crate) fn prompt_name(&self) -> String {
        explicit_or_fn_name(&self.attrs.name, &self.func)
    }

    /// The prompt's description: explicit, or the doc comment.
    pub(crate) fn description(&self) -> String {
        explicit_or_docs(&self.attrs.description, &self.func)
    }
}

/// An `#[mcp_tools]` impl block: the block as it will be emitted (the `#[mcp_tool]`
/// attributes and the macro's parameter attributes removed) and its tools.
pub(crate) struct ImplBlock {
    /// `#[mcp_tools(...)]`'s arguments (it takes none).
    pub(crate) args: TokenStream,
    pub(crate) block: syn::ItemImpl,
    pub(crate) tools: Vec<ToolFn>,
}

impl ImplBlock {
    /// Models `block` under `#[mcp_tools(args)]`.
    pub(crate) fn new(cx: &Ctxt, args: TokenStream, mut block: syn::ItemImpl) -> Self {
        let mut tools = Vec::new();
        for item in block.items.iter_mut() {
            let syn::ImplItem::Fn(method) = item else {
                continue;
            };
            let Some(pos) = method
                .attrs
                .iter()
                .position(|a| a.path().is_ident("mcp_tool"))
            else {
                continue;
            };
            let tool_attr = method.attrs.remove(pos);
            let tool_args = match &tool_attr.meta {
                syn::Meta::Path(_) => TokenStream::new(),
                syn::Meta::List(list) => list.tokens.clone(),
                syn::Meta::NameValue(nv) => {
                    cx.error_spanned_by(nv, "write `#[mcp_tool]` or `#[mcp_tool(...)]`");
                    TokenStream::new()
                }
            };
            let f = syn::ItemFn {
                attrs: method.attrs.clone(),
                vis: method.vis.clone(),
                sig: method.sig.clone(),
                block: Box::new(method.block.clone()),
            };
            let tool = ToolFn::new(cx, tool_args, f);
            // Emit the method as written, minus the macro's parameter attributes.
            method.sig = tool.func.sig.clone();
            tools.push(tool);
        }
        ImplBlock { args, block, tools }
    }

    /// The runtime path the tools name (the first tool's `crate = ...`, if any).
    pub(crate) fn krate(&self) -> Option<&syn::Path> {
        self.tools.first().and_then(|t| t.attrs.krate.as_ref())
    }
}

/// A parameter's description: `#[mcp(description = "...")]`, or its doc comment.
pub(crate) fn param_description(param: &Param) -> String {
    match &param.attrs.description {
        Some(d) => d.value.clone(),
        None => crate::attr::join_docs(&param.attrs.docs),
    }
}

fn explicit_or_fn_name(name: &Option<Spanned<String>>, func: &Function) -> String {
    name.as_ref()
        .map(|n| n.value.clone())
        .unwrap_or_else(|| unraw(&func.sig.ident))
}

fn explicit_or_docs(description: &Option<Spanned<String>>, func: &Function) -> String {
    description
        .as_ref()
        .map(|d| d.value.clone())
        .unwrap_or_else(|| func.docs.clone())
}

/// The identifier without its `r#` prefix.
pub(crate) fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// Whether the last segment of a path type is one of `names`.
pub(crate) fn type_name_is(ty: &Type, names: &[&str]) -> bool {
    match ty {
        Type::Path(tp) if tp.qself.is_none() => tp
            .path
            .segments
            .last()
            .is_some_and(|s| names.iter().any(|n| s.ident == n)),
        Type::Group(g) => type_name_is(&g.elem, names),
        Type::Paren(p) => type_name_is(&p.elem, names),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(template: &str) -> Option<Vec<(String, bool, bool)>> {
        template_variables(template).map(|vars| {
            vars.into_iter()
                .map(|v| (v.name, v.explode, v.optional))
                .collect()
        })
    }

    #[test]
    fn template_variables_and_what_may_be_absent() {
        let v = |name: &str, explode, optional| (name.to_owned(), explode, optional);
        assert_eq!(
            read("users://{id}/profile{?fields,sort}"),
            Some(vec![
                v("id", false, false),
                v("fields", false, true),
                v("sort", false, true)
            ])
        );
        assert_eq!(
            read("file:///{+path}{/rev}{#line}"),
            Some(vec![
                v("path", false, false),
                v("rev", false, true),
                v("line", false, true)
            ])
        );
        assert_eq!(
            read("x://{a,b}/{/segments*}"),
            Some(vec![
                v("a", false, false),
                v("b", false, true),
                v("segments", true, true)
            ])
        );
        assert_eq!(read("x://{a}/{?a}"), Some(vec![v("a", false, false)]));
        assert_eq!(read("x://{a:3}"), Some(vec![v("a", false, false)]));
        assert_eq!(read("config://app"), Some(vec![]));
        assert_eq!(read("x://{a"), None);
        assert_eq!(read("x://{a{b}"), None);
        assert_eq!(read("x://a}"), None);
    }
}
