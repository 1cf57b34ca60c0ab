//! Entry points: `#[mcp_tool]` on a function, `#[mcp_tools]` on an impl block.

use crate::ast::ToolFn;
use crate::attr::ToolAttrs;
use crate::check::{Position, check};
use crate::ctxt::Ctxt;
use crate::expand::{self, Callee};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{ImplItem, Item};

/// `#[mcp_tool]` on a free function.
pub(crate) fn tool_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: Item = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let Item::Fn(f) = item else {
        let error = syn::Error::new_spanned(
            &item,
            "`#[mcp_tool]` goes on an `async fn` (or on methods inside an `#[mcp_tools]` impl block)",
        )
        .to_compile_error();
        return quote!(#error #item);
    };
    let cx = Ctxt::new();
    let attrs = ToolAttrs::parse(&cx, attr);
    let tool = ToolFn::new(&cx, attrs, f.attrs, f.vis, f.sig, f.block);
    check(&cx, &tool, Position::Free);
    match cx.check() {
        Ok(()) => expand::free_fn(&tool),
        Err(errors) => expand::free_fn_fallback(&tool, errors),
    }
}

/// `#[mcp_tools]` on an impl block.
pub(crate) fn tools_attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: syn::ItemImpl = match syn::parse2(item) {
        Ok(b) => b,
        Err(e) => {
            return syn::Error::new(e.span(), "`#[mcp_tools]` goes on an inherent `impl` block")
                .to_compile_error();
        }
    };
    let cx = Ctxt::new();
    if !attr.is_empty() {
        cx.error_spanned_by(
            &attr,
            "`#[mcp_tools]` takes no arguments; configure each method's `#[mcp_tool(...)]`",
        );
    }
    if let Some((_, path, _)) = &block.trait_ {
        cx.error_spanned_by(
            path,
            "`#[mcp_tools]` goes on an inherent `impl` block, not a trait impl",
        );
    }
    if !block.generics.params.is_empty() {
        cx.error_spanned_by(&block.generics, "`#[mcp_tools]` does not support generic impl blocks; implement the tools on a concrete type");
    }
    let self_ty = (*block.self_ty).clone();
    let mut tools = Vec::new();
    for item in block.items.iter_mut() {
        let ImplItem::Fn(method) = item else { continue };
        let Some(pos) = method
            .attrs
            .iter()
            .position(|a| a.path().is_ident("mcp_tool"))
        else {
            continue;
        };
        let tool_attr = method.attrs.remove(pos);
        let args = match &tool_attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                cx.error_spanned_by(nv, "write `#[mcp_tool]` or `#[mcp_tool(...)]`");
                TokenStream::new()
            }
        };
        let attrs = ToolAttrs::parse(&cx, args);
        let tool = ToolFn::new(
            &cx,
            attrs,
            method.attrs.clone(),
            method.vis.clone(),
            method.sig.clone(),
            Box::new(method.block.clone()),
        );
        check(&cx, &tool, Position::Method);
        // Emit the method as written, minus the macro's parameter attributes.
        method.sig = tool.sig.clone();
        tools.push(tool);
    }
    if tools.is_empty() {
        cx.error_spanned_by(
            &block.self_ty,
            "this `#[mcp_tools]` block has no `#[mcp_tool]` methods",
        );
    }
    let rt = expand::runtime_path(tools.first());
    let name_checks: Vec<TokenStream> = tools.iter().map(expand::name_check).collect();
    if let Err(errors) = cx.check() {
        let errors = errors.to_compile_error();
        return quote! {
            #errors
            #(#name_checks)*
            #block
            impl #self_ty {
                #[allow(dead_code)]
                /// The MCP tools of this impl block (unavailable: the block has errors).
                pub fn mcp_tools(self: &::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #rt::tool::Tool>> {
                    ::std::vec::Vec::new()
                }
            }
        };
    }
    let mut items = Vec::new();
    let mut makers = Vec::new();
    for tool in &tools {
        let tool_ty = format_ident!("__McpTool_{}", tool.sig.ident, span = Span::mixed_site());
        let tool_items = expand::tool_items(tool, &tool_ty, &Callee::Method { self_ty: &self_ty });
        items.push(quote! {
            #[allow(non_camel_case_types)]
            struct #tool_ty {
                this: ::std::sync::Arc<#self_ty>,
            }
            #tool_items
        });
        makers.push(quote! {
            ::std::sync::Arc::new(#tool_ty { this: ::std::sync::Arc::clone(self) }) as ::std::sync::Arc<dyn #rt::tool::Tool>
        });
    }
    quote! {
        #block

        #(#name_checks)*

        const _: () = {
            #(#items)*

            impl #self_ty {
                /// The MCP tools of this impl block, bound to this instance; register them
                /// with `ServerBuilder::tools`.
                pub fn mcp_tools(self: &::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #rt::tool::Tool>> {
                    ::std::vec![#(#makers),*]
                }
            }
        };
    }
}
