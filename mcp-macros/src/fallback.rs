//! What an item expands to when it has mistakes (after thiserror's `fallback.rs`): the
//! errors, the user's function unchanged (so its callers still resolve), and a stand-in for
//! what the macro would have defined (the type named after the function, its constructor,
//! and a trait impl whose bodies are never compiled into a running program), so that one
//! mistake does not bury the file under errors about names that no longer exist.
//!
//! The compile-time checks that do not depend on the mistakes (the name rule, the template
//! syntax) are still emitted: their errors belong with the others, in the same compile.

use crate::ast::{Function, ImplBlock, PromptFn, ResourceFn, ToolFn};
use crate::expand::{self, runtime_path, user_fn};
use proc_macro2::TokenStream;
use quote::quote;

/// Whether the function can be followed by a type of its name: a method (inside an impl
/// block without `#[mcp_tools]`) cannot.
fn free(func: &Function) -> bool {
    !func.has_self && func.bad_receiver.is_none()
}

/// A stand-in type named after the function, with `constructor` and `imp` (an impl of the
/// trait the item would implement) when the function is free.
fn stand_in(func: &Function, constructor: &str, imp: TokenStream) -> Option<TokenStream> {
    if !free(func) {
        return None;
    }
    let ident = &func.sig.ident;
    let vis = &func.vis;
    let constructor = syn::Ident::new(constructor, proc_macro2::Span::call_site());
    Some(quote! {
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #[allow(dead_code)]
        impl #ident {
            #vis fn #constructor() -> Self {
                #ident {}
            }
        }

        const _: () = {
            #[allow(unused_variables)]
            #imp
        };
    })
}

/// The body of every stand-in method.
fn unreachable() -> TokenStream {
    quote!(::core::unreachable!("this item has compile errors"))
}

/// A free `#[mcp_tool]` function with mistakes.
pub(crate) fn tool(tool: &ToolFn, errors: syn::Error) -> TokenStream {
    let rt = runtime_path(tool.attrs.krate.as_ref());
    let ident = &tool.func.sig.ident;
    let body = unreachable();
    let stand_in = stand_in(
        &tool.func,
        "tool",
        quote! {
            impl #rt::tool::Tool for #ident {
                fn definition(&self) -> #rt::protocol::ToolDefinition { #body }
                fn call(
                    &self,
                    arguments: #rt::protocol::JsonObject,
                    cx: #rt::tool::RequestContext,
                ) -> #rt::__private::BoxFuture<'static, #rt::protocol::CallToolResult> { #body }
            }
        },
    );
    let name_check = free(&tool.func).then(|| expand::tool_name_check(tool));
    emit(errors, &tool.func, stand_in, name_check)
}

/// An `#[mcp_resource]` function with mistakes.
pub(crate) fn resource(res: &ResourceFn, errors: syn::Error) -> TokenStream {
    let rt = runtime_path(res.attrs.krate.as_ref());
    let ident = &res.func.sig.ident;
    let body = unreachable();
    let result = quote! {
        #rt::__private::BoxFuture<
            'static,
            ::core::result::Result<::std::vec::Vec<#rt::protocol::ResourceContents>, #rt::resource::ResourceError>,
        >
    };
    let stand_in = if res.attrs.template.is_some() {
        stand_in(
            &res.func,
            "template",
            quote! {
                impl #rt::resource::ResourceTemplate for #ident {
                    fn definition(&self) -> #rt::protocol::ResourceTemplateDefinition { #body }
                    fn read(
                        &self,
                        uri: ::std::string::String,
                        variables: #rt::resource::Variables,
                        cx: #rt::tool::RequestContext,
                    ) -> #result { #body }
                }
            },
        )
    } else {
        stand_in(
            &res.func,
            "resource",
            quote! {
                impl #rt::resource::Resource for #ident {
                    fn definition(&self) -> #rt::protocol::ResourceDefinition { #body }
                    fn read(&self, cx: #rt::tool::RequestContext) -> #result { #body }
                }
            },
        )
    };
    let template_check = expand::template_check(res);
    emit(errors, &res.func, stand_in, template_check)
}

/// An `#[mcp_prompt]` function with mistakes.
pub(crate) fn prompt(prompt: &PromptFn, errors: syn::Error) -> TokenStream {
    let rt = runtime_path(prompt.attrs.krate.as_ref());
    let ident = &prompt.func.sig.ident;
    let body = unreachable();
    let stand_in = stand_in(
        &prompt.func,
        "prompt",
        quote! {
            impl #rt::prompt::Prompt for #ident {
                fn definition(&self) -> #rt::protocol::PromptDefinition { #body }
                fn get(
                    &self,
                    arguments: #rt::prompt::PromptArguments,
                    cx: #rt::tool::RequestContext,
                ) -> #rt::__private::BoxFuture<
                    'static,
                    ::core::result::Result<#rt::protocol::GetPromptResult, #rt::prompt::PromptError>,
                > { #body }
            }
        },
    );
    let name_check = free(&prompt.func).then(|| expand::prompt_name_check(prompt));
    emit(errors, &prompt.func, stand_in, name_check)
}

fn emit(
    errors: syn::Error,
    func: &Function,
    stand_in: Option<TokenStream>,
    checks: Option<TokenStream>,
) -> TokenStream {
    let errors = errors.to_compile_error();
    let user_fn = user_fn(func);
    quote! {
        #errors
        #user_fn
        #stand_in
        #checks
    }
}

/// An `#[mcp_tools]` block with mistakes: the block as written, the name checks, and an
/// empty `mcp_tools` so its callers still resolve.
pub(crate) fn impl_block(model: &ImplBlock, errors: syn::Error) -> TokenStream {
    let rt = runtime_path(model.krate());
    let errors = errors.to_compile_error();
    let block = &model.block;
    let self_ty = &block.self_ty;
    let name_checks = model.tools.iter().map(expand::tool_name_check);
    quote! {
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
    }
}
