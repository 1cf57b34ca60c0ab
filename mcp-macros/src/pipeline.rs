//! The pipeline every attribute runs (after serde_derive and thiserror-impl): parse the
//! item, model it (`ast`, reading the attribute's arguments with `attr`), check it
//! (`check`, every mistake recorded in one `Ctxt`), then expand it (`expand`), or, when
//! checking found mistakes, fall back (`fallback`) to the user's code plus the errors.

use crate::ast::{ImplBlock, PromptFn, ResourceFn, ToolFn};
use crate::check::{self, Position};
use crate::ctxt::Ctxt;
use crate::{expand, fallback};
use proc_macro2::TokenStream;
use quote::quote;

/// An attribute on a function, by its stages.
pub(crate) trait FnItem: Sized {
    /// The error for an attribute on anything but a function.
    const NOT_A_FUNCTION: &'static str;
    fn model(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self;
    fn check(&self, cx: &Ctxt);
    fn expand(&self) -> TokenStream;
    fn fallback(&self, errors: syn::Error) -> TokenStream;
}

/// Runs the attribute `F` on `item`.
pub(crate) fn function<F: FnItem>(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::Item = match syn::parse2(item) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let syn::Item::Fn(f) = item else {
        let error = syn::Error::new_spanned(&item, F::NOT_A_FUNCTION).to_compile_error();
        return quote!(#error #item);
    };
    let cx = Ctxt::new();
    let model = F::model(&cx, args, f);
    model.check(&cx);
    match cx.check() {
        Ok(()) => model.expand(),
        Err(errors) => model.fallback(errors),
    }
}

/// Runs `#[mcp_tools]` on an impl block.
pub(crate) fn impl_block(args: TokenStream, item: TokenStream) -> TokenStream {
    let block: syn::ItemImpl = match syn::parse2(item) {
        Ok(b) => b,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_tools]` goes on an inherent `impl` block")
                .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    let model = ImplBlock::new(&cx, args, block);
    check::impl_block(&cx, &model);
    match cx.check() {
        Ok(()) => expand::impl_block(&model),
        Err(errors) => fallback::impl_block(&model, errors),
    }
}

impl FnItem for ToolFn {
    const NOT_A_FUNCTION: &'static str =
        "`#[mcp_tool]` goes on an `async fn` (or on methods inside an `#[mcp_tools]` impl block)";

    fn model(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self {
        ToolFn::new(cx, args, f)
    }

    fn check(&self, cx: &Ctxt) {
        check::tool(cx, self, Position::Free);
    }

    fn expand(&self) -> TokenStream {
        expand::tool(self)
    }

    fn fallback(&self, errors: syn::Error) -> TokenStream {
        fallback::tool(self, errors)
    }
}

impl FnItem for ResourceFn {
    const NOT_A_FUNCTION: &'static str = "`#[mcp_resource]` goes on an `async fn`";

    fn model(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self {
        ResourceFn::new(cx, args, f)
    }

    fn check(&self, cx: &Ctxt) {
        check::resource(cx, self);
    }

    fn expand(&self) -> TokenStream {
        expand::resource(self)
    }

    fn fallback(&self, errors: syn::Error) -> TokenStream {
        fallback::resource(self, errors)
    }
}

impl FnItem for PromptFn {
    const NOT_A_FUNCTION: &'static str = "`#[mcp_prompt]` goes on an `async fn`";

    fn model(cx: &Ctxt, args: TokenStream, f: syn::ItemFn) -> Self {
        PromptFn::new(cx, args, f)
    }

    fn check(&self, cx: &Ctxt) {
        check::prompt(cx, self);
    }

    fn expand(&self) -> TokenStream {
        expand::prompt(self)
    }

    fn fallback(&self, errors: syn::Error) -> TokenStream {
        fallback::prompt(self, errors)
    }
}
