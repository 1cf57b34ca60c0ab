//! Code generation for checked tool functions. Expansion reports no user mistakes: it runs
//! only after `check` found none.

use crate::ast::{ParamKind, ToolFn};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Ident, ReturnType, Type};

/// The path generated code uses to reach the runtime: `::mcp_runtime` unless overridden
/// with `crate = ...`.
pub(crate) fn runtime_path(tool: Option<&ToolFn>) -> TokenStream {
    match tool.and_then(|t| t.attrs.krate.as_ref()) {
        Some(path) => quote!(#path),
        None => quote!(::mcp_runtime),
    }
}

/// The compile-time check of the tool's name: a `const` that evaluates the runtime's own
/// name rule (`tool_name_problem`) and fails to compile, with a message saying what to fix,
/// when the name breaks it. Every token is spanned on the name (the `name = "..."` literal,
/// or the function's name when that is the tool's), so the error points there. Emitted at
/// module level (not inside a `const _` block, where rustc would call it `_::_`) and never
/// inside an `impl` block, where a `const` needs a name.
pub(crate) fn name_check(tool: &ToolFn) -> TokenStream {
    let name = tool.tool_name();
    let (span, assert) = match &tool.attrs.name {
        Some(n) => (n.span, "assert_tool_name"),
        None => (tool.sig.ident.span(), "assert_fn_tool_name"),
    };
    let rt = respan(runtime_path(Some(tool)), span);
    let assert = Ident::new(assert, span);
    quote_spanned! {span=>
        const _: () = #rt::__private::#assert(#name);
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = group.into();
            }
            tt.set_span(span);
            tt
        })
        .collect()
}

/// The user's function, as written minus the macro's own parameter attributes.
pub(crate) fn user_fn(tool: &ToolFn) -> TokenStream {
    let attrs = &tool.fn_attrs;
    let vis = &tool.vis;
    let sig = &tool.sig;
    let block = &tool.block;
    quote! { #(#attrs)* #vis #sig #block }
}

/// How the generated `call` reaches the function.
pub(crate) enum Callee<'a> {
    /// A free function: called by name.
    Free,
    /// A method: called on the instance the tool holds.
    Method { self_ty: &'a Type },
}

/// The items behind one tool: its arguments struct, its `Tool` impl on `tool_ty`, and the
/// compile-time checks that land trait errors on the user's tokens.
pub(crate) fn tool_items(tool: &ToolFn, tool_ty: &Ident, callee: &Callee<'_>) -> TokenStream {
    let rt = runtime_path(Some(tool));
    let args_ty = format_ident!("__McpArgs_{}", tool.sig.ident, span = Span::mixed_site());
    let serde_path = format!("{}::__private::serde", quote!(#rt));
    let schemars_path = format!("{}::__private::schemars", quote!(#rt));
    let deny_unknown = if tool
        .attrs
        .additional_properties
        .as_ref()
        .is_some_and(|a| a.value)
    {
        quote!()
    } else {
        quote!(#[serde(deny_unknown_fields)])
    };

    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    let mut extract = Vec::new();
    let mut call_args = Vec::new();
    let mut asserts = Vec::new();
    let mut requirements = Vec::new();
    for (i, param) in tool.params.iter().enumerate() {
        let ty = &param.ty;
        match &param.kind {
            ParamKind::Argument { ident, .. } => {
                let ident = ident.as_ref().expect("checked: arguments have a name");
                let docs = param.attrs.docs.iter().map(|d| quote!(#[doc = #d]));
                let forwarded = &param.attrs.forwarded;
                let rename = param.attrs.rename.as_ref().map(|r| {
                    let name = &r.value;
                    quote!(#[serde(rename = #name)])
                });
                let default = match &param.attrs.default {
                    None => quote!(),
                    Some((_, None)) => quote!(#[serde(default)]),
                    Some((_, Some(expr))) => {
                        let f = format_ident!("__mcp_default_{}_{}", tool.sig.ident, i);
                        let f_name = f.to_string();
                        default_fns.push(quote! {
                            #[allow(non_snake_case)]
                            fn #f() -> #ty { #expr }
                        });
                        quote!(#[serde(default = #f_name)])
                    }
                };
                fields.push(quote! { #(#docs)* #(#forwarded)* #rename #default #ident: #ty });
                call_args.push(quote!(__args.#ident));
                asserts
                    .push(quote_spanned! {ty.span()=> #rt::__private::assert_argument::<#ty>(); });
            }
            ParamKind::Injected => {
                let var = format_ident!("__injected_{}", i);
                // Through `injector`, spanned on the type: see its docs in the runtime.
                let injector = quote_spanned! {ty.span()=> #rt::__private::injector::<#ty>() };
                extract.push(quote! {
                    let #var = match (#injector.extract)(&__cx) {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(rejected) => {
                            return ::std::boxed::Box::pin(::core::future::ready(rejected));
                        }
                    };
                });
                requirements
                    .push(quote! { __missing.extend((#injector.missing_state)(__extensions)); });
                call_args.push(quote!(#var));
            }
        }
    }

    let ret_ty = match &tool.sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => quote!(#ty),
    };
    let ret_span = match &tool.sig.output {
        ReturnType::Default => tool.sig.ident.span(),
        ReturnType::Type(_, ty) => ty.span(),
    };
    // Both uses of the return type name it through the trait, spanned on the user's type,
    // so a type that is not `IntoToolResult` gets one diagnostic (rustc merges identical
    // ones), on the return type.
    let output = quote_spanned! {ret_span=> <#ret_ty as #rt::tool::IntoToolResult> };

    let name = tool.tool_name();
    let description = tool.description();
    let dialect = tool.attrs.schema_dialect.as_ref().is_some_and(|d| d.value);
    let title = tool.attrs.title.as_ref().map(|t| {
        let t = &t.value;
        quote!(definition.title = ::core::option::Option::Some(::std::string::String::from(#t));)
    });
    let hint = |flag: &Option<crate::attr::Spanned<bool>>| match flag {
        Some(f) => {
            let v = f.value;
            quote!(::core::option::Option::Some(#v))
        }
        None => quote!(::core::option::Option::None),
    };
    let a = &tool.attrs;
    let annotations = (a.read_only.is_some()
        || a.destructive.is_some()
        || a.idempotent.is_some()
        || a.open_world.is_some())
    .then(|| {
        let (r, d, i, o) = (
            hint(&a.read_only),
            hint(&a.destructive),
            hint(&a.idempotent),
            hint(&a.open_world),
        );
        quote! {
            definition.annotations = ::core::option::Option::Some(#rt::protocol::ToolAnnotations {
                read_only_hint: #r,
                destructive_hint: #d,
                idempotent_hint: #i,
                open_world_hint: #o,
                ..::core::default::Default::default()
            });
        }
    });
    let icons = a.icons.as_ref().map(|icons| {
        let srcs = icons.value.iter().map(|i| &i.value);
        quote! {
            definition.icons = ::core::option::Option::Some(::std::vec![#(#rt::protocol::Icon {
                src: ::std::string::String::from(#srcs),
                mime_type: ::core::option::Option::None,
                sizes: ::core::option::Option::None,
                theme: ::core::option::Option::None,
            }),*]);
        }
    });

    let policy = policy_fn(tool, &rt);
    // What the injected parameters need from the server's state; the trait's default (nothing)
    // when there are none.
    let missing_state = (!requirements.is_empty()).then(|| {
        quote! {
            fn missing_state(
                &self,
                __extensions: &#rt::tool::Extensions,
            ) -> ::std::vec::Vec<#rt::tool::MissingState> {
                let mut __missing = ::std::vec::Vec::new();
                #(#requirements)*
                __missing
            }
        }
    });

    let fn_ident = &tool.sig.ident;
    let (invoke, this_clone) = match callee {
        Callee::Free => (quote!(#fn_ident(#(#call_args),*).await), quote!()),
        Callee::Method { self_ty } => {
            if tool.has_self {
                (
                    quote!(__this.#fn_ident(#(#call_args),*).await),
                    quote!(let __this = ::std::sync::Arc::clone(&self.this);),
                )
            } else {
                (
                    quote!(<#self_ty>::#fn_ident(#(#call_args),*).await),
                    quote!(),
                )
            }
        }
    };
    let assert_fn = format_ident!("__mcp_assert_types_{}", tool.sig.ident);
    let error_prefix = format!("Invalid arguments for tool `{name}`: ");

    quote! {
        #[derive(#rt::__private::serde::Deserialize, #rt::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #deny_unknown
        #[allow(non_camel_case_types)]
        struct #args_ty {
            #(#fields,)*
        }

        #(#default_fns)*

        #[allow(dead_code, non_snake_case, clippy::all)]
        fn #assert_fn() {
            #(#asserts)*
        }

        #[automatically_derived]
        impl #rt::tool::Tool for #tool_ty {
            fn definition(&self) -> #rt::protocol::ToolDefinition {
                let mut definition = #rt::protocol::ToolDefinition::new(
                    #name,
                    #description,
                    #rt::__private::serde_json::Value::Object(
                        #rt::tool::schema::input_schema_for::<#args_ty>(#dialect),
                    ),
                );
                definition.output_schema = #output::output_schema();
                #title
                #annotations
                #icons
                definition
            }

            #policy

            #missing_state

            #[allow(unused_variables, clippy::let_unit_value)]
            fn call(
                &self,
                arguments: #rt::protocol::JsonObject,
                __cx: #rt::tool::RequestContext,
            ) -> #rt::__private::BoxFuture<'static, #rt::protocol::CallToolResult> {
                let __args: #args_ty = match #rt::__private::serde_json::from_value(
                    #rt::__private::serde_json::Value::Object(arguments),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(e) => {
                        return ::std::boxed::Box::pin(::core::future::ready(
                            #rt::protocol::CallToolResult::error(::std::format!("{}{}", #error_prefix, e)),
                        ));
                    }
                };
                #(#extract)*
                #this_clone
                ::std::boxed::Box::pin(async move {
                    #output::into_tool_result(#invoke)
                })
            }
        }
    }
}

/// `fn policy`, when the attribute declares any policy; the trait's default (no policy)
/// otherwise.
fn policy_fn(tool: &ToolFn, rt: &TokenStream) -> Option<TokenStream> {
    let a = &tool.attrs;
    if a.timeout.is_none()
        && a.concurrency.is_none()
        && a.rate_limit.is_none()
        && a.cache.is_none()
        && a.scopes.is_none()
    {
        return None;
    }
    let millis = |ms: u64| {
        let ms = Literal::u64_unsuffixed(ms);
        quote!(::core::time::Duration::from_millis(#ms))
    };
    let timeout = a.timeout.as_ref().map(|t| {
        let d = millis(t.value);
        quote!(.timeout(#d))
    });
    let concurrency = a.concurrency.as_ref().map(|c| {
        let limit = Literal::usize_unsuffixed(c.value);
        quote!(.concurrency(#limit))
    });
    let rate_limit = a.rate_limit.as_ref().map(|r| {
        let count = Literal::u32_unsuffixed(r.value.count);
        let secs = Literal::u64_unsuffixed(r.value.period_secs);
        quote!(.rate_limit(#rt::tool::Rate::new(#count, ::core::time::Duration::from_secs(#secs))))
    });
    let cache = a.cache.as_ref().map(|c| {
        let d = millis(c.value);
        quote!(.cache(#d))
    });
    let scopes = a.scopes.iter().flat_map(|s| &s.value).map(|s| {
        let s = &s.value;
        quote!(.scope(#s))
    });
    Some(quote! {
        fn policy(&self) -> #rt::tool::ToolPolicy {
            #rt::tool::ToolPolicy::new()
                #timeout
                #concurrency
                #rate_limit
                #cache
                #(#scopes)*
        }
    })
}

/// Everything a free `#[mcp_tool]` function expands to.
pub(crate) fn free_fn(tool: &ToolFn) -> TokenStream {
    let rt = runtime_path(Some(tool));
    let user_fn = user_fn(tool);
    let ident = &tool.sig.ident;
    let vis = &tool.vis;
    let items = tool_items(tool, ident, &Callee::Free);
    let name_check = name_check(tool);
    let doc = format!(
        "The MCP tool `{}`, generated by `#[mcp_tool]` from the function of the same name.",
        tool.tool_name()
    );
    quote! {
        #user_fn

        #name_check

        #[doc = #doc]
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #ident {}

        impl #ident {
            /// The tool, to register with `ServerBuilder::tool`.
            #[allow(dead_code)]
            #vis fn tool() -> Self {
                #ident {}
            }
        }

        const _: () = {
            #items

            fn __mcp_make() -> ::std::sync::Arc<dyn #rt::tool::Tool> {
                ::std::sync::Arc::new(#ident {})
            }

            #rt::__private::inventory::submit! {
                #rt::tool::ToolFactory { make: __mcp_make }
            }
        };
    }
}

/// What a free function expands to when it has mistakes: the function unchanged (so its
/// uses still resolve), a stand-in tool type, the errors, and the name check (a bad name is
/// reported with the other mistakes when the compiler gets as far as evaluating constants).
pub(crate) fn free_fn_fallback(tool: &ToolFn, errors: syn::Error) -> TokenStream {
    let user_fn = user_fn(tool);
    let ident = &tool.sig.ident;
    let vis = &tool.vis;
    let errors = errors.to_compile_error();
    // A method (inside an impl without `#[mcp_tools]`) cannot be followed by a struct.
    let stand_in = (!tool.has_self && tool.bad_receiver.is_none()).then(|| {
        quote! {
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #ident {}
        }
    });
    // A method (inside an impl without `#[mcp_tools]`) cannot be followed by a `const _`.
    let name_check = stand_in.is_some().then(|| name_check(tool));
    quote! {
        #errors
        #user_fn
        #stand_in
        #name_check
    }
}
