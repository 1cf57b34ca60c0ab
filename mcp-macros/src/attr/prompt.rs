//! `#[mcp_prompt(...)]`: the prompt's name, title, description and icons.

use super::{
    Key, Spanned, crate_value, icons_value, parse_keys, set_once, string_value, unknown_key,
};
use crate::ctxt::Ctxt;
use crate::symbol::*;
use proc_macro2::TokenStream;

/// What `#[mcp_prompt(...)]` says.
#[derive(Default)]
pub(crate) struct PromptAttrs {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) title: Option<Spanned<String>>,
    pub(crate) description: Option<Spanned<String>>,
    pub(crate) icons: Option<Spanned<Vec<Spanned<String>>>>,
    /// `scopes = ["files:read"]`: who may see it (at least one, each an OAuth scope token).
    pub(crate) scopes: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) krate: Option<syn::Path>,
}

impl PromptAttrs {
    /// Parses the attribute's arguments, recording every mistake.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Self {
        let mut attrs = PromptAttrs::default();
        parse_keys(cx, args, |key| attrs.parse_one(cx, &key));
        attrs
    }

    fn parse_one(&mut self, cx: &Ctxt, key: &Key) {
        const WHAT: &str = "mcp_prompt";
        match key.name.as_str() {
            NAME => set_once(cx, WHAT, key, &mut self.name, string_value(cx, key)),
            TITLE => set_once(cx, WHAT, key, &mut self.title, string_value(cx, key)),
            DESCRIPTION => set_once(cx, WHAT, key, &mut self.description, string_value(cx, key)),
            ICONS => set_once(cx, WHAT, key, &mut self.icons, icons_value(cx, key)),
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
                unknown_key("mcp_prompt attribute", other, PROMPT_KEYS),
            ),
        }
    }
}
