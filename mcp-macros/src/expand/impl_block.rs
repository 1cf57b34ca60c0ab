//! `#[mcp_tools]`: the impl block as written, one tool type per `#[mcp_tool]` method
//! (holding the instance), and `fn mcp_tools(self: &Arc<Self>)` returning them.

use super::{Callee, runtime_path, tool::tool_name_check, tool_items};
use crate::ast::ImplBlock;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// Everything a checked `#[mcp_tools]` block expands to.
pub(crate) fn expand(model: &ImplBlock) -> TokenStream {
    let rt = runtime_path(model.krate());
    let block = &model.block;
    let self_ty = &block.self_ty;
    let name_checks = model.tools.iter().map(tool_name_check);
    let mut items = Vec::new();
    let mut makers = Vec::new();
    for tool in &model.tools {
        let tool_ty = format_ident!(
            "__McpTool_{}",
            tool.func.sig.ident,
            span = Span::mixed_site()
        );
        let tool_items = tool_items(tool, &tool_ty, &Callee::Method { self_ty });
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
