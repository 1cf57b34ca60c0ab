//! Parsing the attributes: `#[mcp_tool(...)]`, `#[mcp_resource(...)]`, `#[mcp_prompt(...)]`
//! (one module each), and what every one shares: the key/value walk, the value kinds, the
//! `#[mcp(...)]` / doc attributes of parameters.
//!
//! Parsing records mistakes in the [`Ctxt`] and skips the bad piece, so one compile reports
//! them all. Values are parsed as whole expressions and then interpreted, so a value of the
//! wrong type never derails the parsing of the keys after it.

mod prompt;
mod resource;
mod tool;

pub(crate) use prompt::PromptAttrs;
pub(crate) use resource::ResourceAttrs;
pub(crate) use tool::{TaskSupport, ToolAttrs};

use crate::ctxt::Ctxt;
use crate::symbol::*;
use proc_macro2::{Span, TokenStream};
use syn::{Attribute, Expr, ExprLit, Lit, LitStr};

/// A value with the span it was written at.
#[derive(Clone)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// One `key` or `key = value` of an attribute's arguments.
pub(crate) struct Key {
    /// The key as written (`a::b` for a path).
    pub(crate) name: String,
    /// The key's first segment: where errors about the key point.
    pub(crate) span: Span,
    pub(crate) path: syn::Path,
    /// The value, parsed whole so a bad one is skipped cleanly.
    pub(crate) value: Option<Expr>,
}

/// Walks `args` (`key`, `key = value`, …), calling `one` for each key; a syntax error is
/// recorded and ends the walk.
pub(crate) fn parse_keys(cx: &Ctxt, args: TokenStream, mut one: impl FnMut(Key)) {
    let parser = syn::meta::parser(|meta| {
        if let Some(key) = key_of(cx, &meta) {
            one(key);
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(e);
    }
}

fn key_of(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta<'_>) -> Option<Key> {
    let span = meta
        .path
        .segments
        .first()
        .map_or_else(Span::call_site, |s| s.ident.span());
    let name = meta
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    let value = if meta.input.peek(syn::Token![=]) {
        match meta.value().and_then(|v| v.parse::<Expr>()) {
            Ok(v) => Some(v),
            Err(e) => {
                cx.syn_error(e);
                return None;
            }
        }
    } else {
        None
    };
    Some(Key {
        name,
        span,
        path: meta.path.clone(),
        value,
    })
}

/// Stores `value` in `slot`, or reports the key as a duplicate (at its second occurrence).
pub(crate) fn set_once<T>(
    cx: &Ctxt,
    what: &str,
    key: &Key,
    slot: &mut Option<T>,
    value: Option<T>,
) {
    if slot.is_some() {
        cx.error_at(
            key.span,
            format!("duplicate {what} attribute `{}`", key.name),
        );
    } else {
        *slot = value;
    }
}

/// `key = "..."`.
pub(crate) fn string_value(cx: &Ctxt, key: &Key) -> Option<Spanned<String>> {
    let k = &key.name;
    match &key.value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Some(Spanned {
            value: s.value(),
            span: s.span(),
        }),
        Some(other) => {
            cx.error_spanned_by(
                other,
                format!("`{k}` takes a string literal, e.g. `{k} = \"...\"`"),
            );
            None
        }
        None => {
            cx.error_at(key.span, format!("`{k}` needs a value: `{k} = \"...\"`"));
            None
        }
    }
}

/// `key`, `key = true` or `key = false`.
pub(crate) fn flag_value(cx: &Ctxt, key: &Key) -> Option<Spanned<bool>> {
    let k = &key.name;
    match &key.value {
        None => Some(Spanned {
            value: true,
            span: key.span,
        }),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        })) => Some(Spanned {
            value: b.value,
            span: key.span,
        }),
        Some(other) => {
            cx.error_spanned_by(
                other,
                format!("`{k}` is a flag: write `{k}`, `{k} = true` or `{k} = false`"),
            );
            None
        }
    }
}

/// `icons = ["https://…", "data:…"]`.
pub(crate) fn icons_value(cx: &Ctxt, key: &Key) -> Option<Spanned<Vec<Spanned<String>>>> {
    let Some(Expr::Array(array)) = &key.value else {
        cx.error_at(key.span, "`icons` takes an array of icon URIs, e.g. `icons = [\"https://example.com/icon.png\"]`");
        return None;
    };
    let mut icons = Vec::new();
    for element in &array.elems {
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
                        s,
                        "icon URIs must use `https:` or `data:` (the spec allows no other schemes)",
                    );
                }
            }
            other => cx.error_spanned_by(other, "each icon is a string literal URI"),
        }
    }
    Some(Spanned {
        value: icons,
        span: key.span,
    })
}

/// `crate = path` (or `crate = "path"`): the runtime crate, when it is re-exported.
pub(crate) fn crate_value(cx: &Ctxt, key: &Key) -> Option<syn::Path> {
    match &key.value {
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
                key.span,
                "`crate` takes a path to the runtime crate, e.g. `crate = my_reexport::mcp_runtime`",
            );
            None
        }
    }
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
    /// `#[mcp(description = "...")]` (prompt arguments).
    pub(crate) description: Option<Spanned<String>>,
    /// `#[mcp(complete = path)]` (template variables and prompt arguments): the function that
    /// suggests values, spanned on the key.
    pub(crate) complete: Option<(Span, syn::Path)>,
    /// A `#[serde(rename = "...")]` seen on the parameter.
    pub(crate) serde_rename: Option<String>,
    /// `#[serde(...)]` and `#[schemars(...)]` attributes, forwarded to a tool's argument field.
    pub(crate) forwarded: Vec<Attribute>,
    /// Everything else (`cfg`, lint attributes): left on the function's parameter.
    pub(crate) kept: Vec<Attribute>,
}

impl ParamAttrs {
    /// Sorts a parameter's attributes into what the macro reads and what it leaves; `keys`
    /// are the `#[mcp(...)]` keys the attribute accepts (others are reported).
    pub(crate) fn parse(cx: &Ctxt, attrs: &[Attribute], keys: &[&str]) -> Self {
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
                    if let Some(key) = key_of(cx, &meta) {
                        out.parse_one(cx, key, keys);
                    }
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

    fn parse_one(&mut self, cx: &Ctxt, key: Key, keys: &[&str]) {
        let k = key.name.as_str();
        if !keys.contains(&k) {
            cx.error_spanned_by(&key.path, unknown_key("mcp parameter attribute", k, keys));
            return;
        }
        match k {
            INJECT | ARG => {
                if let Some(v) = &key.value {
                    cx.error_spanned_by(v, format!("`{k}` takes no value"));
                }
                let value = Some(key.span);
                let slot = if k == INJECT {
                    &mut self.inject
                } else {
                    &mut self.arg
                };
                set_once(cx, "mcp", &key, slot, value);
            }
            DEFAULT => {
                let value = Some((key.span, key.value.clone()));
                set_once(cx, "mcp", &key, &mut self.default, value);
            }
            RENAME => {
                let value = string_value(cx, &key);
                if value.is_some() {
                    set_once(cx, "mcp", &key, &mut self.rename, value);
                }
            }
            DESCRIPTION => {
                let value = string_value(cx, &key);
                if value.is_some() {
                    set_once(cx, "mcp", &key, &mut self.description, value);
                }
            }
            COMPLETE => {
                let value = match &key.value {
                    Some(Expr::Path(p)) if p.qself.is_none() => Some((key.span, p.path.clone())),
                    Some(other) => {
                        cx.error_spanned_by(
                            other,
                            "`complete` names a function: `complete = suggest_cities`",
                        );
                        None
                    }
                    None => {
                        cx.error_at(
                            key.span,
                            "`complete` needs a function: `complete = suggest_cities`, where `fn suggest_cities(value: &str, chosen: &BTreeMap<String, String>) -> Vec<String>`",
                        );
                        None
                    }
                };
                if value.is_some() {
                    set_once(cx, "mcp", &key, &mut self.complete, value);
                }
            }
            _ => unreachable!("every key in `keys` is handled"),
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

/// The doc comment of an item, joined (see [`join_docs`]).
pub(crate) fn docs_of(attrs: &[Attribute]) -> String {
    join_docs(
        &attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect::<Vec<_>>(),
    )
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
pub(crate) fn unknown_key(what: &str, key: &str, valid: &[&str]) -> String {
    let list = valid
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    // A key that starts the other (`mime` for `mime_type`) is the likeliest meaning; then
    // the nearest by edit distance.
    let extended = valid
        .iter()
        .find(|k| key.len() >= 3 && (k.starts_with(key) || key.starts_with(*k)));
    let closest = extended.or_else(|| {
        valid
            .iter()
            .map(|k| (edit_distance(key, k), k))
            .filter(|(d, k)| *d <= 2 || k.replace('_', "") == key.replace('_', ""))
            .min_by_key(|(d, _)| *d)
            .map(|(_, k)| k)
    });
    match closest {
        Some(k) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_suggest_the_likeliest() {
        let keys = RESOURCE_KEYS;
        assert!(unknown_key("k", "mime", keys).contains("did you mean `mime_type`?"));
        assert!(unknown_key("k", "templat", keys).contains("did you mean `template`?"));
        assert!(unknown_key("k", "nmae", keys).contains("did you mean `name`?"));
        assert!(unknown_key("k", "readonly", TOOL_KEYS).contains("did you mean `read_only`?"));
        assert!(!unknown_key("k", "colour", TOOL_KEYS).contains("did you mean"));
    }
}
