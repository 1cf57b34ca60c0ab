//! The rules of `#[mcp_prompt]`: a description (clients and the conformance suite reject a
//! prompt without one), and arguments that are strings on the wire. The name's rule is the
//! tool-name rule, checked in a `const`.

use super::{
    SignatureWords, ValueWords, description, no_receiver, no_serde_attributes, params, signature,
};
use crate::ast::PromptFn;
use crate::ctxt::Ctxt;

/// Checks every rule, recording each violation.
pub(crate) fn check(cx: &Ctxt, prompt: &PromptFn) {
    signature(
        cx,
        &prompt.func,
        &SignatureWords {
            what: "mcp_prompt",
            fixed: "what each argument parses into",
            hidden: "how it converts to prompt messages",
        },
    );
    no_receiver(cx, &prompt.func, "mcp_prompt");
    description(
        cx,
        &prompt.attrs.description,
        &prompt.func,
        "prompt",
        Some("clients show it when a user picks a prompt, and reject prompts without one"),
    );
    params(
        cx,
        &prompt.func,
        ValueWords {
            item: "a prompt",
            noun: "prompt argument",
            made: "parsed",
            name_reason: "it is the argument's name",
            rename_frees_pattern: true,
        },
    );
    no_serde_attributes(cx, &prompt.func, "prompt argument");
    for (param, _) in prompt.func.values() {
        if let Some(d) = &param.attrs.description
            && d.value.trim().is_empty()
        {
            cx.error_at(d.span, "the argument description is empty; remove `description` or say what the argument is");
        }
    }
}
