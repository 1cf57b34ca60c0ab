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
    // Policies, spanned on their key.
    /// `timeout = "30s"`, in milliseconds (above zero).
    pub(crate) timeout: Option<Spanned<u64>>,
    /// `concurrency = 4` (above zero).
    pub(crate) concurrency: Option<Spanned<usize>>,
    /// `rate_limit = "10/s"`.
    pub(crate) rate_limit: Option<Spanned<Rate>>,
    /// `cache = "60s"`, in milliseconds (above zero).
    pub(crate) cache: Option<Spanned<u64>>,
    /// `scopes = ["files:write"]` (at least one, each an OAuth scope token).
    pub(crate) scopes: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) krate: Option<syn::Path>,
}

/// `rate_limit = "N/s"`: `count` calls (above zero) per `period_secs` seconds.
#[derive(Clone, Copy)]
pub(crate) struct Rate {
    pub(crate) count: u32,
    pub(crate) period_secs: u64,
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
            TIMEOUT => set_once!(timeout, duration_value(cx, &key, key_span, value)),
            CONCURRENCY => set_once!(concurrency, concurrency_value(cx, key_span, value)),
            RATE_LIMIT => set_once!(rate_limit, rate_value(cx, key_span, value)),
            CACHE => set_once!(cache, duration_value(cx, &key, key_span, value)),
            SCOPES => set_once!(scopes, scopes_value(cx, key_span, value)),
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

/// The accepted forms of a duration (`timeout`, `cache`), shown by every error about one.
const DURATION_FORMS: &str = "a whole number above zero followed by `ms`, `s`, `m` or `h`: \"250ms\", \"30s\", \"2m\", \"1h\"";

/// The accepted forms of a rate (`rate_limit`), shown by every error about one.
const RATE_FORMS: &str = "a whole number of calls above zero, `/`, and a period `s`, `m` or `h`: \"10/s\", \"100/m\", \"1000/h\"";

/// The string literal a policy key takes; `forms` and `example` show what it should be.
fn policy_string(
    cx: &Ctxt,
    key: &str,
    key_span: Span,
    value: Option<Expr>,
    forms: &str,
    example: &str,
) -> Option<LitStr> {
    match value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Some(s),
        Some(other) => {
            cx.error_spanned_by(
                other,
                format!("`{key}` takes a string literal, e.g. `{key} = {example}`; write {forms}"),
            );
            None
        }
        None => {
            cx.error_at(
                key_span,
                format!("`{key}` needs a value, e.g. `{key} = {example}`; write {forms}"),
            );
            None
        }
    }
}

/// `timeout = "30s"` or `cache = "60s"`: the duration in milliseconds.
fn duration_value(
    cx: &Ctxt,
    key: &str,
    key_span: Span,
    value: Option<Expr>,
) -> Option<Spanned<u64>> {
    let example = if key == CACHE { "\"60s\"" } else { "\"30s\"" };
    let s = policy_string(cx, key, key_span, value, DURATION_FORMS, example)?;
    let problem = match parse_duration_ms(&s.value()) {
        Ok(0) if key == CACHE => "a cache lifetime of zero caches nothing".to_owned(),
        Ok(0) => format!("a {key} of zero would fail every call"),
        Ok(ms) => {
            return Some(Spanned {
                value: ms,
                span: key_span,
            });
        }
        Err(problem) => problem,
    };
    cx.error_spanned_by(
        &s,
        format!(
            "invalid `{key}` {:?}: {problem}; write {DURATION_FORMS}",
            s.value()
        ),
    );
    None
}

/// The milliseconds in a duration written like `"30s"` (zero included, for the caller to
/// explain). The syntax of `mcp_runtime::tool::parse_duration`, which this crate cannot call.
fn parse_duration_ms(s: &str) -> Result<u64, String> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = s.split_at(digits);
    if number.is_empty() {
        return Err("it does not start with a whole number".to_owned());
    }
    let factor: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "" => return Err("it has no unit".to_owned()),
        _ if unit.starts_with(['.', ',']) => {
            return Err("the number must be whole (use a smaller unit)".to_owned());
        }
        _ if unit.starts_with(char::is_whitespace) => {
            return Err("the unit must follow the number without a space".to_owned());
        }
        _ => return Err(format!("{unit:?} is not a unit")),
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .ok_or_else(|| "it is too long to count in milliseconds".to_owned())
}

/// `concurrency = 4`: an integer literal above zero.
fn concurrency_value(cx: &Ctxt, key_span: Span, value: Option<Expr>) -> Option<Spanned<usize>> {
    const WHAT: &str = "the most calls of this tool that run at once, a whole number above zero, e.g. `concurrency = 4`";
    match value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(n), ..
        })) if !matches!(n.suffix(), "" | "usize") => cx.error_spanned_by(
            &n,
            format!(
                "`concurrency` is a `usize`: drop the `{}` suffix",
                n.suffix()
            ),
        ),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Int(n), ..
        })) => match n.base10_parse::<usize>() {
            Ok(0) => cx.error_spanned_by(
                &n,
                format!("a concurrency limit of zero would refuse every call; write {WHAT}"),
            ),
            Ok(limit) => {
                return Some(Spanned {
                    value: limit,
                    span: key_span,
                });
            }
            Err(_) => cx.error_spanned_by(
                &n,
                format!("`concurrency` is a `usize` and {n} does not fit; write {WHAT}"),
            ),
        },
        Some(other) => cx.error_spanned_by(
            other,
            format!("`concurrency` takes an integer literal: {WHAT}"),
        ),
        None => cx.error_at(key_span, format!("`concurrency` needs a value: {WHAT}")),
    }
    None
}

/// `rate_limit = "10/s"`.
fn rate_value(cx: &Ctxt, key_span: Span, value: Option<Expr>) -> Option<Spanned<Rate>> {
    let s = policy_string(cx, RATE_LIMIT, key_span, value, RATE_FORMS, "\"10/s\"")?;
    match parse_rate(&s.value()) {
        Ok(rate) => Some(Spanned {
            value: rate,
            span: key_span,
        }),
        Err(problem) => {
            cx.error_spanned_by(
                &s,
                format!(
                    "invalid `rate_limit` {:?}: {problem}; write {RATE_FORMS}",
                    s.value()
                ),
            );
            None
        }
    }
}

/// A rate written like `"10/s"`: the syntax of `mcp_runtime::tool::Rate`'s `FromStr`.
fn parse_rate(s: &str) -> Result<Rate, String> {
    let Some((count, period)) = s.split_once('/') else {
        return Err("it has no `/` between the number of calls and the period".to_owned());
    };
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{count:?} is not a whole number"));
    }
    let count: u32 = count
        .parse()
        .map_err(|_| format!("the number of calls is above {}", u32::MAX))?;
    if count == 0 {
        return Err("a rate of zero calls would refuse every call".to_owned());
    }
    let period_secs = match period {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("{period:?} is not a period")),
    };
    Ok(Rate { count, period_secs })
}

/// `scopes = ["files:write", ...]`: at least one, each an RFC 6749 scope token.
fn scopes_value(
    cx: &Ctxt,
    key_span: Span,
    value: Option<Expr>,
) -> Option<Spanned<Vec<Spanned<String>>>> {
    const WHAT: &str = "an array of the OAuth scopes a caller's token must carry, e.g. `scopes = [\"files:write\"]`";
    let array = match value {
        Some(Expr::Array(array)) => array,
        Some(other) => {
            cx.error_spanned_by(other, format!("`scopes` takes {WHAT}"));
            return None;
        }
        None => {
            cx.error_at(key_span, format!("`scopes` needs a value: {WHAT}"));
            return None;
        }
    };
    if array.elems.is_empty() {
        cx.error_spanned_by(
            &array,
            format!("`scopes` lists no scope; write {WHAT}, or remove `scopes`"),
        );
        return None;
    }
    let mut scopes = Vec::new();
    for element in array.elems {
        match element {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let scope = s.value();
                match scope_problem(&scope) {
                    None => scopes.push(Spanned {
                        value: scope,
                        span: s.span(),
                    }),
                    Some(problem) => cx.error_spanned_by(
                        &s,
                        format!(
                            "{scope:?} is not an OAuth scope: {problem}; a scope is printable ASCII without spaces, `\"` or `\\` (RFC 6749 scope-token), e.g. \"files:write\""
                        ),
                    ),
                }
            }
            other => cx.error_spanned_by(
                other,
                "each scope is a string literal, e.g. `\"files:write\"`",
            ),
        }
    }
    Some(Spanned {
        value: scopes,
        span: key_span,
    })
}

/// What keeps `scope` from being an RFC 6749 §3.3 `scope-token` (`1*( %x21 / %x23-5B /
/// %x5D-7E )`, as `mcp_runtime::tool::is_scope_token` checks), if anything.
fn scope_problem(scope: &str) -> Option<String> {
    if scope.is_empty() {
        return Some("it is empty".to_owned());
    }
    let bad = scope.chars().find(|&c| {
        !(c == '\x21' || ('\x23'..='\x5B').contains(&c) || ('\x5D'..='\x7E').contains(&c))
    })?;
    Some(match bad {
        ' ' => "it contains a space".to_owned(),
        '"' => "it contains a quote".to_owned(),
        '\\' => "it contains a backslash".to_owned(),
        c => format!("it contains {c:?}"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_the_runtime() {
        assert_eq!(parse_duration_ms("250ms"), Ok(250));
        assert_eq!(parse_duration_ms("30s"), Ok(30_000));
        assert_eq!(parse_duration_ms("2m"), Ok(120_000));
        assert_eq!(parse_duration_ms("1h"), Ok(3_600_000));
        assert_eq!(parse_duration_ms("0s"), Ok(0));
        for bad in [
            "",
            "s",
            "30",
            "1.5s",
            "30 s",
            "3d",
            "-1s",
            "+1s",
            "1S",
            "99999999999999999999h",
        ] {
            assert!(parse_duration_ms(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rates_parse_like_the_runtime() {
        let rate = |s| parse_rate(s).map(|r| (r.count, r.period_secs));
        assert_eq!(rate("10/s"), Ok((10, 1)));
        assert_eq!(rate("100/m"), Ok((100, 60)));
        assert_eq!(rate("4294967295/h"), Ok((u32::MAX, 3600)));
        for bad in [
            "",
            "10",
            "0/s",
            "10/d",
            "-1/s",
            "+1/s",
            "10/ s",
            "1.5/s",
            "4294967296/s",
        ] {
            assert!(rate(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scopes_are_rfc_6749_scope_tokens() {
        for good in ["files:write", "admin", "https://x.example/a!#$[]~"] {
            assert_eq!(scope_problem(good), None, "{good}");
        }
        for bad in ["", "files write", "a\"b", "a\\b", "tab\there", "caf\u{e9}"] {
            assert!(scope_problem(bad).is_some(), "{bad:?}");
        }
    }
}
