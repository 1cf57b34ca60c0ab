//! The model of one tool function, built from the parsed item. Records shape mistakes it
//! cannot model (patterns, receivers) and leaves rule checks to `check`.

use crate::attr::{ParamAttrs, ToolAttrs, join_docs};
use crate::ctxt::Ctxt;
use crate::symbol::{CONTEXT_TYPE, INJECTED_TYPES};
use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Attribute, FnArg, Ident, Pat, Signature, Type, Visibility};

/// One `#[mcp_tool]` function or method.
pub(crate) struct ToolFn {
    pub(crate) attrs: ToolAttrs,
    /// The function's own attributes, minus `#[mcp_tool]`.
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

/// Whether a parameter comes from the JSON arguments or from the context.
pub(crate) enum ParamKind {
    /// From `arguments`; `ident` is the field name, `json_name` the property name.
    Argument {
        ident: Option<Ident>,
        json_name: String,
    },
    /// Built by `FromContext`.
    Injected,
}

impl ToolFn {
    /// Builds the model from a function's parts.
    pub(crate) fn new(
        cx: &Ctxt,
        attrs: ToolAttrs,
        fn_attrs: Vec<Attribute>,
        vis: Visibility,
        mut sig: Signature,
        block: Box<syn::Block>,
    ) -> Self {
        let docs = join_docs(
            &fn_attrs
                .iter()
                .filter(|a| a.path().is_ident("doc"))
                .filter_map(|a| match &a.meta {
                    syn::Meta::NameValue(nv) => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(s.clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .collect::<Vec<_>>(),
        );
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
                    let attrs = ParamAttrs::parse(cx, &pt.attrs);
                    // Emit only what rustc accepts on parameters.
                    pt.attrs = attrs.kept.clone();
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
                        let json_name = attrs
                            .rename
                            .as_ref()
                            .map(|r| r.value.clone())
                            .or_else(|| attrs.serde_rename.clone())
                            .or_else(|| ident.as_ref().map(unraw))
                            .unwrap_or_default();
                        ParamKind::Argument { ident, json_name }
                    };
                    params.push(Param {
                        span: pt.span(),
                        ty: (*pt.ty).clone(),
                        pat: (*pt.pat).clone(),
                        attrs,
                        kind,
                    });
                }
            }
        }
        ToolFn {
            attrs,
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

    /// The tool's name: explicit, or the function's name.
    pub(crate) fn tool_name(&self) -> String {
        self.attrs
            .name
            .as_ref()
            .map(|n| n.value.clone())
            .unwrap_or_else(|| unraw(&self.sig.ident))
    }

    /// The tool's description: explicit, or the doc comment.
    pub(crate) fn description(&self) -> String {
        self.attrs
            .description
            .as_ref()
            .map(|d| d.value.clone())
            .unwrap_or_else(|| self.docs.clone())
    }

    /// Whether a parameter is the request context.
    pub(crate) fn is_context(param: &Param) -> bool {
        type_name_is(&param.ty, &[CONTEXT_TYPE])
    }
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
