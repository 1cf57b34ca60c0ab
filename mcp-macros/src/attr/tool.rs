//! `#[mcp_tool(...)]`: names, annotations, schema switches, and the policies the server
//! enforces (durations, rates and scopes are checked with the runtime's own syntax).

use super::{
    Key, Spanned, crate_value, flag_value, icons_value, parse_keys, set_once, string_value,
    unknown_key,
};
use crate::ctxt::Ctxt;
use crate::symbol::*;
use proc_macro2::{Span, TokenStream};
use syn::{Expr, ExprLit, Lit, LitStr};

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
    /// `task = "optional" | "required" | "explicit"`.
    pub(crate) task: Option<Spanned<TaskSupport>>,
    /// `app = "ui://weather/forecast"`: the MCP Apps view the tool is shown with.
    pub(crate) app: Option<Spanned<String>>,
    /// `visibility = ["model", "app"]`: who may call a tool that has a view (at least one).
    pub(crate) visibility: Option<Spanned<Vec<String>>>,
    /// `confirm` or `confirm = "Delete {path}?"`: ask the user before every call (the
    /// message, when given; `None` inside for the default question).
    pub(crate) confirm: Option<Spanned<Option<String>>>,
    /// `unconfirmable = "run" | "refuse"`: `true` to run when the client cannot be asked.
    pub(crate) unconfirmable: Option<Spanned<bool>>,
    pub(crate) krate: Option<syn::Path>,
}

/// `task = "..."`: whether calls may run as tasks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskSupport {
    Optional,
    Required,
    Explicit,
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
        parse_keys(cx, args, |key| attrs.parse_one(cx, &key));
        attrs
    }

    fn parse_one(&mut self, cx: &Ctxt, key: &Key) {
        const WHAT: &str = "mcp_tool";
        match key.name.as_str() {
            NAME => set_once(cx, WHAT, key, &mut self.name, string_value(cx, key)),
            DESCRIPTION => set_once(cx, WHAT, key, &mut self.description, string_value(cx, key)),
            TITLE => set_once(cx, WHAT, key, &mut self.title, string_value(cx, key)),
            READ_ONLY => set_once(cx, WHAT, key, &mut self.read_only, flag_value(cx, key)),
            DESTRUCTIVE => set_once(cx, WHAT, key, &mut self.destructive, flag_value(cx, key)),
            IDEMPOTENT => set_once(cx, WHAT, key, &mut self.idempotent, flag_value(cx, key)),
            OPEN_WORLD => set_once(cx, WHAT, key, &mut self.open_world, flag_value(cx, key)),
            ADDITIONAL_PROPERTIES => set_once(
                cx,
                WHAT,
                key,
                &mut self.additional_properties,
                flag_value(cx, key),
            ),
            SCHEMA_DIALECT => {
                set_once(cx, WHAT, key, &mut self.schema_dialect, flag_value(cx, key))
            }
            ICONS => set_once(cx, WHAT, key, &mut self.icons, icons_value(cx, key)),
            TIMEOUT => set_once(cx, WHAT, key, &mut self.timeout, duration_value(cx, key)),
            CONCURRENCY => set_once(
                cx,
                WHAT,
                key,
                &mut self.concurrency,
                concurrency_value(cx, key),
            ),
            RATE_LIMIT => set_once(cx, WHAT, key, &mut self.rate_limit, rate_value(cx, key)),
            CACHE => set_once(cx, WHAT, key, &mut self.cache, duration_value(cx, key)),
            SCOPES => set_once(cx, WHAT, key, &mut self.scopes, scopes_value(cx, key)),
            TASK => set_once(cx, WHAT, key, &mut self.task, task_value(cx, key)),
            APP => set_once(cx, WHAT, key, &mut self.app, app_value(cx, key)),
            VISIBILITY => set_once(
                cx,
                WHAT,
                key,
                &mut self.visibility,
                visibility_value(cx, key),
            ),
            CONFIRM => set_once(cx, WHAT, key, &mut self.confirm, confirm_value(cx, key)),
            UNCONFIRMABLE => set_once(
                cx,
                WHAT,
                key,
                &mut self.unconfirmable,
                unconfirmable_value(cx, key),
            ),
            CRATE => {
                let path = crate_value(cx, key);
                if path.is_some() {
                    set_once(cx, WHAT, key, &mut self.krate, path);
                }
            }
            other => cx.error_spanned_by(
                &key.path,
                unknown_key("mcp_tool attribute", other, TOOL_KEYS),
            ),
        }
    }
}

/// `confirm` (the default question) or `confirm = "Delete {path}?"`.
fn confirm_value(cx: &Ctxt, key: &Key) -> Option<Spanned<Option<String>>> {
    match &key.value {
        None => Some(Spanned {
            value: None,
            span: key.span,
        }),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Some(Spanned {
            value: Some(s.value()),
            span: s.span(),
        }),
        Some(other) => {
            cx.error_spanned_by(
                other,
                "`confirm` is written `confirm` (the default question) or `confirm = \"Delete {path}?\"` (a question over the arguments)",
            );
            None
        }
    }
}

/// `unconfirmable = "run" | "refuse"`: `true` for `run`.
fn unconfirmable_value(cx: &Ctxt, key: &Key) -> Option<Spanned<bool>> {
    const WHAT: &str = "what the tool does when the client cannot be asked: `unconfirmable = \"refuse\"` (the default) or `unconfirmable = \"run\"`";
    match &key.value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => match s.value().as_str() {
            "run" => Some(Spanned {
                value: true,
                span: key.span,
            }),
            "refuse" => Some(Spanned {
                value: false,
                span: key.span,
            }),
            _ => {
                cx.error_spanned_by(s, format!("`unconfirmable` takes {WHAT}"));
                None
            }
        },
        Some(other) => {
            cx.error_spanned_by(other, format!("`unconfirmable` takes {WHAT}"));
            None
        }
        None => {
            cx.error_at(key.span, format!("`unconfirmable` needs a value: {WHAT}"));
            None
        }
    }
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
fn duration_value(cx: &Ctxt, k: &Key) -> Option<Spanned<u64>> {
    let (key, key_span, value) = (k.name.as_str(), k.span, k.value.clone());
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

/// What `task` takes, shown by every error about it.
const TASK_FORMS: &str = "`task = \"optional\"` (a task when the client supports tasks and the call does not finish at once), `task = \"required\"` (only ever a task) or `task = \"explicit\"` (a task when the client supports tasks and the tool calls `cx.become_task()`)";

/// `task = "optional"`, `task = "required"` or `task = "explicit"`.
fn task_value(cx: &Ctxt, k: &Key) -> Option<Spanned<TaskSupport>> {
    let s = policy_string(
        cx,
        TASK,
        k.span,
        k.value.clone(),
        TASK_FORMS,
        "\"optional\"",
    )?;
    let value = match s.value().as_str() {
        "optional" => TaskSupport::Optional,
        "required" => TaskSupport::Required,
        "explicit" => TaskSupport::Explicit,
        other => {
            cx.error_spanned_by(&s, format!("invalid `task` {other:?}: write {TASK_FORMS}"));
            return None;
        }
    };
    Some(Spanned {
        value,
        span: k.span,
    })
}

/// What `app` takes, shown by every error about it.
const APP_FORMS: &str = "the `ui://` URI of the MCP Apps view the tool is shown with, served by a resource of the same server, e.g. `app = \"ui://weather/forecast\"`";

/// `app = "ui://…"`: a `ui://` URI with something after the scheme.
fn app_value(cx: &Ctxt, k: &Key) -> Option<Spanned<String>> {
    let s = policy_string(
        cx,
        APP,
        k.span,
        k.value.clone(),
        APP_FORMS,
        "\"ui://weather/forecast\"",
    )?;
    let uri = s.value();
    match uri.strip_prefix("ui://") {
        Some(rest) if !rest.is_empty() && !rest.contains(char::is_whitespace) => Some(Spanned {
            value: uri,
            span: k.span,
        }),
        Some(_) => {
            cx.error_spanned_by(&s, format!("invalid `app` {uri:?}: write {APP_FORMS}"));
            None
        }
        None => {
            cx.error_spanned_by(
                &s,
                format!(
                    "invalid `app` {uri:?}: MCP Apps views are `ui://` resources; write {APP_FORMS}"
                ),
            );
            None
        }
    }
}

/// What `visibility` takes, shown by every error about it.
const VISIBILITY_FORMS: &str = "an array of who may call the tool: `\"model\"` (the agent) and/or `\"app\"` (its view), e.g. `visibility = [\"app\"]`";

/// `visibility = ["model", "app"]`: at least one, each once.
fn visibility_value(cx: &Ctxt, k: &Key) -> Option<Spanned<Vec<String>>> {
    let array = match k.value.clone() {
        Some(Expr::Array(array)) => array,
        Some(other) => {
            cx.error_spanned_by(other, format!("`visibility` takes {VISIBILITY_FORMS}"));
            return None;
        }
        None => {
            cx.error_at(
                k.span,
                format!("`visibility` needs a value: {VISIBILITY_FORMS}"),
            );
            return None;
        }
    };
    if array.elems.is_empty() {
        cx.error_spanned_by(
            &array,
            format!("an empty `visibility` lets no one call the tool; write {VISIBILITY_FORMS}"),
        );
        return None;
    }
    let mut seen = Vec::new();
    for element in &array.elems {
        match element {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) if matches!(s.value().as_str(), "model" | "app") => {
                if seen.contains(&s.value()) {
                    cx.error_spanned_by(s, format!("{:?} is listed twice", s.value()));
                } else {
                    seen.push(s.value());
                }
            }
            other => {
                cx.error_spanned_by(other, format!("not a visibility; write {VISIBILITY_FORMS}"))
            }
        }
    }
    Some(Spanned {
        value: seen,
        span: k.span,
    })
}

/// `concurrency = 4`: an integer literal above zero.
fn concurrency_value(cx: &Ctxt, k: &Key) -> Option<Spanned<usize>> {
    let (key_span, value) = (k.span, k.value.clone());
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
fn rate_value(cx: &Ctxt, k: &Key) -> Option<Spanned<Rate>> {
    let (key_span, value) = (k.span, k.value.clone());
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
pub(crate) fn scopes_value(cx: &Ctxt, k: &Key) -> Option<Spanned<Vec<Spanned<String>>>> {
    let (key_span, value) = (k.span, k.value.clone());
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
