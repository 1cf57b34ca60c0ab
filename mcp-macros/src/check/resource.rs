//! The rules of `#[mcp_resource]`: exactly one of `uri` and `template`; metadata that fits
//! the kind; and, for a template, a parameter for every variable and a variable for every
//! value parameter, of a type that can hold what the URI gives (one value, maybe none, a
//! list). The template's own syntax is the runtime's rule, checked in a `const`.

use super::{
    SignatureWords, ValueWords, description, no_receiver, no_serde_attributes, params, signature,
};
use crate::ast::{ResourceFn, Shape};
use crate::ctxt::Ctxt;

/// Checks every rule, recording each violation.
pub(crate) fn check(cx: &Ctxt, res: &ResourceFn) {
    signature(
        cx,
        &res.func,
        &SignatureWords {
            what: "mcp_resource",
            fixed: "what each variable parses into",
            hidden: "how it converts to resource contents",
        },
    );
    no_receiver(cx, &res.func, "mcp_resource");
    description(cx, &res.attrs.description, &res.func, "resource", None);
    params(
        cx,
        &res.func,
        ValueWords {
            item: "a resource",
            noun: "template variable",
            made: "parsed",
            name_reason: "it is the variable's name in the template",
            rename_frees_pattern: true,
        },
    );
    no_serde_attributes(cx, &res.func, "template variable");
    metadata(cx, res);
    match (&res.attrs.uri, &res.attrs.template) {
        (Some(_), Some(template)) => cx.error_at(
            template.span,
            "give `uri` (one resource at a fixed URI) or `template` (the resources a URI template names), not both",
        ),
        (None, None) => cx.error_spanned_by(
            &res.func.sig.ident,
            "this resource has no URI: add `uri = \"scheme://...\"` for one resource at a fixed URI, or `template = \"scheme://{var}\"` for a URI template whose variables are the function's parameters",
        ),
        (Some(uri), None) => fixed(cx, res, &uri.value, uri.span),
        (None, Some(_)) => template(cx, res),
    }
}

fn metadata(cx: &Ctxt, res: &ResourceFn) {
    let a = &res.attrs;
    if let Some(name) = &a.name
        && name.value.trim().is_empty()
    {
        cx.error_at(
            name.span,
            "the resource name is empty; clients list resources by name",
        );
    }
    if let Some(mime) = &a.mime_type
        && !is_mime_type(&mime.value)
    {
        cx.error_at(
            mime.span,
            format!("{:?} is not a MIME type: write `type/subtype`, e.g. \"application/json\" or \"text/markdown\"", mime.value),
        );
    }
    if let (Some(size), Some(_)) = (&a.size, &a.template) {
        cx.error_at(
            size.span,
            "`size` is the size of one resource, and a template names many: remove it, or give `uri` instead",
        );
    }
    if let (Some(allow), Some(_)) = (&a.allow_dot_segments, &a.uri) {
        cx.error_at(
            allow.span,
            "`allow_dot_segments` is about values read from a template's variables, and a fixed URI has none: remove it",
        );
    }
}

/// `type/subtype`: two non-empty parts of visible ASCII without spaces (parameters after
/// `;` allowed).
fn is_mime_type(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default();
    let visible = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic() && b != b'/');
    matches!(essence.split_once('/'), Some((t, s)) if visible(t) && visible(s))
}

/// A resource with a fixed URI: a URI a read can name, and no values from the client.
fn fixed(cx: &Ctxt, res: &ResourceFn, uri: &str, span: proc_macro2::Span) {
    if uri.contains('{') {
        cx.error_at(
            span,
            "`uri` is one fixed URI; for a URI with variables write `template = \"...\"`",
        );
    } else if let Some(problem) = uri_problem(uri) {
        cx.error_at(span, format!("{uri:?} is not a resource URI: {problem}"));
    }
    for (param, name) in res.func.values() {
        cx.error_spanned_by(
            &param.pat,
            format!("a resource at a fixed URI reads nothing from the client, so `{name}` has nowhere to come from: for a value in the URI, use `template = \"...\"` with a variable `{{{name}}}`; for one the server provides, mark the parameter `#[mcp(inject)]`"),
        );
    }
}

/// What keeps `uri` from being read (the rule `resources/read` applies), if anything.
fn uri_problem(uri: &str) -> Option<&'static str> {
    if uri.is_empty() {
        return Some("it is empty");
    }
    if uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("a URI has no spaces or control characters");
    }
    let scheme = uri.split_once(':').map(|(s, _)| s);
    let valid_scheme = scheme.is_some_and(|s| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    (!valid_scheme).then_some("a URI starts with a scheme (`file:`, `config:`, …)")
}

/// A template: each variable has one parameter of a fitting shape, each value parameter
/// has a variable.
fn template(cx: &Ctxt, res: &ResourceFn) {
    let Some(template) = &res.attrs.template else {
        return;
    };
    // Unreadable: the const check of the syntax reports it, better than guesses here.
    let Some(variables) = &res.variables else {
        return;
    };
    let listed = || {
        if variables.is_empty() {
            "it has none".to_owned()
        } else {
            let names: Vec<String> = variables.iter().map(|v| format!("`{}`", v.name)).collect();
            format!("its variables are {}", names.join(", "))
        }
    };
    for (param, name) in res.func.values() {
        let Some(variable) = res.variable(name) else {
            cx.error_spanned_by(
                &param.pat,
                format!("the template {:?} has no variable `{name}` ({}): name the parameter after a variable (or `#[mcp(rename = \"...\")]` it), or, if the server provides it, mark it `#[mcp(inject)]`", template.value, listed()),
            );
            continue;
        };
        match param.shape() {
            Shape::List(_) if !variable.explode => cx.error_spanned_by(
                &param.ty,
                format!("`{{{name}}}` matches one value; a `Vec` parameter takes an exploded variable (`{{/{name}*}}`, `{{?{name}*}}`)"),
            ),
            Shape::One(_) | Shape::Optional(_) if variable.explode => cx.error_spanned_by(
                &param.ty,
                format!("`{{{name}*}}` is exploded: it matches a list, so take `Vec<String>` (or `Vec<T>` of a type implementing `FromStr`)"),
            ),
            Shape::One(_) if variable.optional => cx.error_spanned_by(
                &param.ty,
                format!("a URI may leave out `{name}` (it is in an optional expression, `{{?…}}`, `{{/…}}`, `{{.…}}` or `{{#…}}`, or follows another variable of its expression), so take `Option<…>`"),
            ),
            _ => {}
        }
    }
    for variable in variables {
        if !res.func.values().any(|(_, name)| name == variable.name) {
            let ty = if variable.explode {
                "Vec<String>"
            } else if variable.optional {
                "Option<String>"
            } else {
                "String"
            };
            cx.error_at(
                template.span,
                format!("the template variable `{}` has no parameter: add `{}: {ty}` (or another type implementing `FromStr`) to the function", variable.name, variable.name),
            );
        }
    }
}
