//! Parsing `#[mcp_tool(...)]` and the `#[mcp(...)]` / doc attributes of parameters.
//!
//! Parsing records mistakes in the [`Ctxt`] and skips the bad piece, so one compile reports
//! them all. Values are parsed as whole expressions and then interpreted, so a value of the
//! wrong type never derails the parsing of the keys after it.

use crate::ctxt::Ctxt;
use crate::symbol::*;
use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr};

/// A value with the span it was written at.
#[derive(Clone)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// What `#[mcp_tool(...)]` says.
#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) title: Option<Spanned<String>>,
    pub(crate) read_only: Option<Spanned<bool>>,
    pub(crate) destructive: Option<Spanned<bool>>,
    pub(crate) idempotent: Option<Spanned<bool>>,
    pub(crate) open_world: Option<Spanned<bool>>,
    pub(crate) icons: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) additional_properties: Option<Spanned<bool>>,
    pub(crate) schema_dialect: Option<Spanned<bool>>,
    pub(crate) krate: Option<syn::Path>,
}

impl ToolAttrs {
    /// Parses the attribute's arguments, recording every mistake.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Self {
        let mut attrs = ToolAttrs::default();
        let parser = syn::meta::parser(|meta| {
            attrs.parse_one(cx, &meta);
            Ok(())
        });
        if let Err(e) = syn::parse::Parser::parse2(parser, args) {
            cx.syn_error(e);
        }
        attrs
    }

    fn parse_one(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) {
        let key_span = meta
            .path
            .segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span());
        let key = meta
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::");
        // The value, when there is one: parsed whole so a bad one is skipped cleanly.
        let value: Option<Expr> = if meta.input.peek(syn::Token![=]) {
            match meta.value().and_then(|v| v.parse::<Expr>()) {
                Ok(v) => Some(v),
                Err(e) => {
                    cx.syn_error(e);
                    return;
                }
            }
        } else {
            None
        };
        macro_rules! set_once {
            ($field:ident, $v:expr) => {{
                if self.$field.is_some() {
                    cx.error_at(key_span, format!("duplicate mcp_tool attribute `{key}`"));
                } else {
                    self.$field = $v;
                }
            }};
        }
        match key.as_str() {
            NAME => set_once!(name, string_value(cx, &key, key_span, value)),
            DESCRIPTION => set_once!(description, string_value(cx, &key, key_span, value)),
            TITLE => set_once!(title, string_value(cx, &key, key_span, value)),
            READ_ONLY => set_once!(read_only, flag_value(cx, &key, key_span, value)),
            DESTRUCTIVE => set_once!(destructive, flag_value(cx, &key, key_span, value)),
            IDEMPOTENT => set_once!(idempotent, flag_value(cx, &key, key_span, value)),
            OPEN_WORLD => set_once!(open_world, flag_value(cx, &key, key_span, value)),
            ADDITIONAL_PROPERTIES => {
                set_once!(additional_properties, flag_value(cx, &key, key_span, value))
            }
            SCHEMA_DIALECT => set_once!(schema_dialect, flag_value(cx, &key, key_span, value)),
            ICONS => set_once!(icons, icons_value(cx, key_span, value)),
            CRATE => {
                let path = match &value {
                    Some(Expr::Path(p)) => Some(p.path.clone()),
                    Some(Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    })) => match s.parse() {
                        Ok(p) => Some(p),
                        Err(e) => {
                            cx.syn_error(e);
                            None
                        }
                    },
                    _ => {
                        cx.error_at(
                            key_span,
                            "`crate` takes a path to the runtime crate, e.g. `crate = my_reexport::mcp_runtime`",
                        );
                        None
                    }
                };
                if path.is_some() {
                    set_once!(krate, path);
                }
            }
            _ => cx.error_spanned_by(
                &meta.path,
                unknown_key("mcp_tool attribute", &key, TOOL_KEYS),
            ),
        }
    }
}

fn string_value(
    cx: &Ctxt,
    key: &str,
    key_span: Span,
    value: Option<Expr>,
) -> Option<Spanned<String>> {
    match value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Some(Spanned {
            value: s.value(),
            span: s.span(),
        }),
        Some(other) => {
            cx.error_spanned_by(
                other,
                format!("`{key}` takes a string literal, e.g. `{key} = \"...\"`"),
            );
            None
        }
        None => {
            cx.error_at(
                key_span,
                format!("`{key}` needs a value: `{key} = \"...\"`"),
            );
            None
        }
    }
}

fn flag_value(cx: &Ctxt, key: &str, key_span: Span, value: Option<Expr>) -> Option<Spanned<bool>> {
    match value {
        None => Some(Spanned {
            value: true,
            span: key_span,
        }),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        })) => Some(Spanned {
            value: b.value,
            span: key_span,
        }),
        Some(other) => {
            cx.error_spanned_by(
                other,
                format!("`{key}` is a flag: write `{key}`, `{key} = true` or `{key} = false`"),
            );
            None
        }
    }
}

fn icons_value(
    cx: &Ctxt,
    key_span: Span,
    value: Option<Expr>,
) -> Option<Spanned<Vec<Spanned<String>>>> {
    let Some(Expr::Array(array)) = value else {
        cx.error_at(key_span, "`icons` takes an array of icon URIs, e.g. `icons = [\"https://example.com/icon.png\"]`");
        return None;
    };
    let mut icons = Vec::new();
    for element in array.elems {
        match element {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let uri = s.value();
                if uri.starts_with("https://") || uri.starts_with("data:") {
                    icons.push(Spanned {
                        value: uri,
                        span: s.span(),
                    });
                } else {
                    cx.error_spanned_by(
                        &s,
                        "icon URIs must use `https:` or `data:` (the spec allows no other schemes)",
                    );
                }
            }
            other => cx.error_spanned_by(other, "each icon is a string literal URI"),
        }
    }
    Some(Spanned {
        value: icons,
        span: key_span,
    })
}

/// What a parameter's attributes say.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    pub(crate) docs: Vec<LitStr>,
    pub(crate) inject: Option<Span>,
    pub(crate) arg: Option<Span>,
    /// `#[mcp(default)]` (None inside) or `#[mcp(default = expr)]`.
    pub(crate) default: Option<(Span, Option<Expr>)>,
    pub(crate) rename: Option<Spanned<String>>,
    /// A `#[serde(rename = "...")]` seen on the parameter.
    pub(crate) serde_rename: Option<String>,
    /// `#[serde(...)]` and `#[schemars(...)]` attributes, forwarded to the argument field.
    pub(crate) forwarded: Vec<Attribute>,
    /// Everything else (`cfg`, lint attributes): left on the function's parameter.
    pub(crate) kept: Vec<Attribute>,
}

impl ParamAttrs {
    /// Sorts a parameter's attributes into what the macro reads and what it leaves.
    pub(crate) fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = ParamAttrs::default();
        for attr in attrs {
            if attr.path().is_ident("doc") {
                if let syn::Meta::NameValue(nv) = &attr.meta
                    && let Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) = &nv.value
                {
                    out.docs.push(s.clone());
                }
            } else if attr.path().is_ident("mcp") {
                let r = attr.parse_nested_meta(|meta| {
                    out.parse_one(cx, &meta);
                    Ok(())
                });
                if let Err(e) = r {
                    cx.syn_error(e);
                }
            } else if attr.path().is_ident("serde") || attr.path().is_ident("schemars") {
                if attr.path().is_ident("serde") {
                    out.serde_rename = serde_rename(attr).or(out.serde_rename.take());
                }
                out.forwarded.push(attr.clone());
            } else {
                out.kept.push(attr.clone());
            }
        }
        out
    }

    fn parse_one(&mut self, cx: &Ctxt, meta: &ParseNestedMeta<'_>) {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let span = meta
            .path
            .segments
            .first()
            .map_or_else(Span::call_site, |s| s.ident.span());
        let value: Option<Expr> = if meta.input.peek(syn::Token![=]) {
            match meta.value().and_then(|v| v.parse::<Expr>()) {
                Ok(v) => Some(v),
                Err(e) => {
                    cx.syn_error(e);
                    return;
                }
            }
        } else {
            None
        };
        let duplicate = |cx: &Ctxt| cx.error_at(span, format!("duplicate mcp attribute `{key}`"));
        match key.as_str() {
            INJECT | ARG => {
                if let Some(v) = value {
                    cx.error_spanned_by(v, format!("`{key}` takes no value"));
                }
                let slot = if key == INJECT {
                    &mut self.inject
                } else {
                    &mut self.arg
                };
                if slot.is_some() {
                    duplicate(cx);
                } else {
                    *slot = Some(span);
                }
            }
            DEFAULT => {
                if self.default.is_some() {
                    duplicate(cx);
                } else {
                    self.default = Some((span, value));
                }
            }
            RENAME => match value {
                Some(Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                })) => {
                    if self.rename.is_some() {
                        duplicate(cx);
                    } else {
                        self.rename = Some(Spanned {
                            value: s.value(),
                            span: s.span(),
                        });
                    }
                }
                _ => cx.error_at(
                    span,
                    "`rename` takes a string literal: `rename = \"jsonName\"`",
                ),
            },
            _ => cx.error_spanned_by(
                &meta.path,
                unknown_key("mcp parameter attribute", &key, PARAM_KEYS),
            ),
        }
    }
}

/// The `rename = "..."` of a `#[serde(...)]` attribute, if it has one.
fn serde_rename(attr: &Attribute) -> Option<String> {
    let mut found = None;
    let _ = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("rename") && meta.input.peek(syn::Token![=]) {
            let s: LitStr = meta.value()?.parse()?;
            found = Some(s.value());
        } else if meta.input.peek(syn::Token![=]) {
            let _: Expr = meta.value()?.parse()?;
        } else if meta.input.peek(syn::token::Paren) {
            let _ = meta.parse_nested_meta(|_| Ok(()));
        }
        Ok(())
    });
    found
}

/// Joins doc-comment lines the way rustdoc shows them: one leading space dropped per line,
/// outer blank lines trimmed.
pub(crate) fn join_docs(docs: &[LitStr]) -> String {
    let lines: Vec<String> = docs
        .iter()
        .flat_map(|d| d.value().lines().map(str::to_owned).collect::<Vec<_>>())
        .map(|l| l.strip_prefix(' ').map(str::to_owned).unwrap_or(l))
        .collect();
    lines.join("\n").trim().to_owned()
}

/// "unknown … `x`; did you mean `y`? expected one of …"
fn unknown_key(what: &str, key: &str, valid: &[&str]) -> String {
    let list = valid
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let closest = valid
        .iter()
        .map(|k| (edit_distance(key, k), k))
        .filter(|(d, k)| *d <= 2 || k.replace('_', "") == key.replace('_', ""))
        .min_by_key(|(d, _)| *d);
    match closest {
        Some((_, k)) => {
            format!("unknown {what} `{key}`; did you mean `{k}`? expected one of {list}")
        }
        None => format!("unknown {what} `{key}`; expected one of {list}"),
    }
}

/// Levenshtein distance, for "did you mean" (keys are a handful of short ASCII words).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
