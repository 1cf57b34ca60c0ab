//! `#[mcp_resource(...)]`: the URI or URI template, the listed metadata, and annotations.

use super::{
    Key, Spanned, crate_value, flag_value, icons_value, parse_keys, set_once, string_value,
    unknown_key,
};
use crate::ctxt::Ctxt;
use crate::symbol::*;
use proc_macro2::TokenStream;
use syn::{Expr, ExprLit, Lit};

/// What `#[mcp_resource(...)]` says.
#[derive(Default)]
pub(crate) struct ResourceAttrs {
    /// `uri = "config://app"`: a resource with a fixed URI.
    pub(crate) uri: Option<Spanned<String>>,
    /// `template = "users://{id}/profile"`: a resource template.
    pub(crate) template: Option<Spanned<String>>,
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) title: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) mime_type: Option<Spanned<String>>,
    /// `audience = ["user", "assistant"]`: the protocol's `Role` variants, by name.
    pub(crate) audience: Option<Spanned<Vec<&'static str>>>,
    /// `priority = 0.8`, from 0 to 1.
    pub(crate) priority: Option<Spanned<f64>>,
    /// `size = 1024`, in bytes (fixed resources).
    pub(crate) size: Option<Spanned<u64>>,
    pub(crate) icons: Option<Spanned<Vec<Spanned<String>>>>,
    /// `allow_dot_segments` (templates).
    pub(crate) allow_dot_segments: Option<Spanned<bool>>,
    /// `scopes = ["files:read"]`: who may see it (at least one, each an OAuth scope token).
    pub(crate) scopes: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) krate: Option<syn::Path>,
}

impl ResourceAttrs {
    /// Parses the attribute's arguments, recording every mistake.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Self {
        let mut attrs = ResourceAttrs::default();
        parse_keys(cx, args, |key| attrs.parse_one(cx, &key));
        attrs
    }

    fn parse_one(&mut self, cx: &Ctxt, key: &Key) {
        const WHAT: &str = "mcp_resource";
        match key.name.as_str() {
            URI => set_once(cx, WHAT, key, &mut self.uri, string_value(cx, key)),
            TEMPLATE => set_once(cx, WHAT, key, &mut self.template, string_value(cx, key)),
            NAME => set_once(cx, WHAT, key, &mut self.name, string_value(cx, key)),
            TITLE => set_once(cx, WHAT, key, &mut self.title, string_value(cx, key)),
            DESCRIPTION => set_once(cx, WHAT, key, &mut self.description, string_value(cx, key)),
            MIME_TYPE => set_once(cx, WHAT, key, &mut self.mime_type, string_value(cx, key)),
            AUDIENCE => set_once(cx, WHAT, key, &mut self.audience, audience_value(cx, key)),
            PRIORITY => set_once(cx, WHAT, key, &mut self.priority, priority_value(cx, key)),
            SIZE => set_once(cx, WHAT, key, &mut self.size, size_value(cx, key)),
            ICONS => set_once(cx, WHAT, key, &mut self.icons, icons_value(cx, key)),
            ALLOW_DOT_SEGMENTS => set_once(
                cx,
                WHAT,
                key,
                &mut self.allow_dot_segments,
                flag_value(cx, key),
            ),
            SCOPES => set_once(
                cx,
                WHAT,
                key,
                &mut self.scopes,
                super::tool::scopes_value(cx, key),
            ),
            CRATE => {
                let path = crate_value(cx, key);
                if path.is_some() {
                    set_once(cx, WHAT, key, &mut self.krate, path);
                }
            }
            other => cx.error_spanned_by(
                &key.path,
                unknown_key("mcp_resource attribute", other, RESOURCE_KEYS),
            ),
        }
    }
}

/// `audience = ["user", "assistant"]`.
fn audience_value(cx: &Ctxt, key: &Key) -> Option<Spanned<Vec<&'static str>>> {
    const WHAT: &str = "who the resource is meant for, e.g. `audience = [\"user\"]` or `audience = [\"user\", \"assistant\"]`";
    let Some(Expr::Array(array)) = &key.value else {
        cx.error_at(
            key.span,
            format!("`audience` takes an array of roles: {WHAT}"),
        );
        return None;
    };
    let mut roles = Vec::new();
    for element in &array.elems {
        match element {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => match s.value().as_str() {
                "user" => roles.push("User"),
                "assistant" => roles.push("Assistant"),
                other => cx.error_spanned_by(
                    s,
                    format!("{other:?} is not a role: the roles are \"user\" and \"assistant\""),
                ),
            },
            other => cx.error_spanned_by(
                other,
                "each role is a string literal: \"user\" or \"assistant\"",
            ),
        }
    }
    Some(Spanned {
        value: roles,
        span: key.span,
    })
}

/// `priority = 0.8`: a number from 0 (least important) to 1 (most).
fn priority_value(cx: &Ctxt, key: &Key) -> Option<Spanned<f64>> {
    const WHAT: &str =
        "a number from 0 (least important) to 1 (most important), e.g. `priority = 0.8`";
    let parsed = match &key.value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        })) => f.base10_parse::<f64>().ok(),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        })) => i.base10_parse::<f64>().ok(),
        Some(other) => {
            cx.error_spanned_by(other, format!("`priority` takes {WHAT}"));
            return None;
        }
        None => {
            cx.error_at(key.span, format!("`priority` needs a value: {WHAT}"));
            return None;
        }
    };
    match parsed {
        Some(p) if (0.0..=1.0).contains(&p) => Some(Spanned {
            value: p,
            span: key.span,
        }),
        _ => {
            cx.error_spanned_by(
                key.value.as_ref(),
                format!("`priority` is out of range: write {WHAT}"),
            );
            None
        }
    }
}

/// `size = 1024`: the resource's size in bytes.
fn size_value(cx: &Ctxt, key: &Key) -> Option<Spanned<u64>> {
    const WHAT: &str = "the resource's size in bytes, e.g. `size = 1024`";
    match &key.value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(n), ..
        })) => match n.base10_parse::<u64>() {
            Ok(size) => Some(Spanned {
                value: size,
                span: key.span,
            }),
            Err(_) => {
                cx.error_spanned_by(n, format!("`size` does not fit a `u64`: write {WHAT}"));
                None
            }
        },
        Some(other) => {
            cx.error_spanned_by(other, format!("`size` takes an integer literal: {WHAT}"));
            None
        }
        None => {
            cx.error_at(key.span, format!("`size` needs a value: {WHAT}"));
            None
        }
    }
}
