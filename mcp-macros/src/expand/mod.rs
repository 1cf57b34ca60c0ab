//! Code generation for checked functions. Expansion reports no user mistakes: it runs only
//! after `check` found none (`fallback` covers the other case).
//!
//! What every attribute shares is here: the runtime path, the user's function as written,
//! the compile-time name checks, the return-type conversion spanned on the user's type, and
//! the parameters (injected ones extracted through `FromContext`, value ones checked not to
//! be injectable). One module per attribute generates the rest.
//!
//! Generated items are `#[automatically_derived]` trait impls inside a `const _: () = { … }`
//! block, where their helpers (`__mcp_make`, the type assertions) cannot clash with the
//! user's names; the one public item is the type named after the function.

mod impl_block;
mod prompt;
mod resource;
mod tool;

pub(crate) use impl_block::expand as impl_block;
pub(crate) use prompt::{expand as prompt, prompt_name_check};
pub(crate) use resource::{expand as resource, template_check};
pub(crate) use tool::{Callee, expand as tool, tool_items, tool_name_check};

use crate::ast::{Function, Param, ParamKind};
use crate::attr::Spanned;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{Ident, ReturnType};

/// The path generated code uses to reach the runtime: `::mcp_runtime` unless overridden
/// with `crate = ...`.
pub(crate) fn runtime_path(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path),
        None => quote!(::mcp_runtime),
    }
}

/// The compile-time check of a name: a `const` that evaluates the runtime's own name rule
/// and fails to compile, with a message saying what to fix, when the name breaks it. Every
/// token is spanned on the name (the `name = "..."` literal, or the function's name when
/// that is the item's), so the error points there. Emitted at module level (not inside a
/// `const _` block, where rustc would call it `_::_`) and never inside an `impl` block,
/// where a `const` needs a name. `asserts` are the runtime's functions for an explicit name
/// and for a function's name (`assert_tool_name`, `assert_fn_tool_name`).
pub(crate) fn name_check(
    krate: Option<&syn::Path>,
    explicit: &Option<Spanned<String>>,
    func: &Function,
    name: &str,
    asserts: [&str; 2],
) -> TokenStream {
    let (span, assert) = match explicit {
        Some(n) => (n.span, asserts[0]),
        None => (func.sig.ident.span(), asserts[1]),
    };
    let rt = respan(runtime_path(krate), span);
    let assert = Ident::new(assert, span);
    quote_spanned! {span=>
        const _: () = #rt::__private::#assert(#name);
    }
}

/// `tokens` with every span set to `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
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
pub(crate) fn user_fn(func: &Function) -> TokenStream {
    let attrs = &func.fn_attrs;
    let vis = &func.vis;
    let sig = &func.sig;
    let block = &func.block;
    quote! { #(#attrs)* #vis #sig #block }
}

/// `<Ret as Trait>`, spanned on the user's return type, for every use of the return type:
/// a type that does not implement the conversion gets one diagnostic (rustc merges
/// identical ones), on the return type.
pub(crate) fn output(func: &Function, conversion: TokenStream) -> TokenStream {
    let (ret_ty, ret_span) = match &func.sig.output {
        ReturnType::Default => (quote!(()), func.sig.ident.span()),
        ReturnType::Type(_, ty) => (quote!(#ty), ty.span()),
    };
    quote_spanned! {ret_span=> <#ret_ty as #conversion> }
}

/// `Some(String::from(value))` or `None`.
pub(crate) fn some_string(value: Option<&str>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(::std::string::String::from(#v))),
        None => quote!(::core::option::Option::None),
    }
}

/// `definition.icons = Some(vec![...]);`, when the attribute lists icons.
pub(crate) fn icons(
    rt: &TokenStream,
    icons: &Option<Spanned<Vec<Spanned<String>>>>,
) -> Option<TokenStream> {
    icons.as_ref().map(|icons| {
        let srcs = icons.value.iter().map(|i| &i.value);
        quote! {
            definition.icons = ::core::option::Option::Some(::std::vec![
                #(#rt::protocol::Icon::new(#srcs)),*
            ]);
        }
    })
}

/// The code behind a function's parameters, in their order.
#[derive(Default)]
pub(crate) struct ParamCode {
    /// Statements that produce each parameter's value before the call (returning early
    /// when one cannot be produced).
    pub(crate) prepare: Vec<TokenStream>,
    /// The call's arguments.
    pub(crate) call_args: Vec<TokenStream>,
    /// What the injected parameters need from the server's state (`missing_state`).
    pub(crate) requirements: Vec<TokenStream>,
    /// Statements of the type-assertion function: rustc's errors about a parameter's type
    /// land on that type.
    pub(crate) asserts: Vec<TokenStream>,
}

impl ParamCode {
    /// Builds the code of `func`'s parameters. Injected ones are extracted from `__cx`, and
    /// `reject` turns the rejection's text (`rejection`, a `String`) into the early return of
    /// the caller; `value` gives a value parameter's preparation (if any) and call argument.
    pub(crate) fn new(
        func: &Function,
        rt: &TokenStream,
        reject: TokenStream,
        mut value: impl FnMut(usize, &Param, &str, &mut ParamCode) -> TokenStream,
    ) -> Self {
        let mut code = ParamCode::default();
        for (i, param) in func.params.iter().enumerate() {
            let ty = &param.ty;
            match &param.kind {
                ParamKind::Injected => {
                    let var = format_ident!("__injected_{}", i);
                    // Through `injector`, spanned on the type: see its docs in the runtime.
                    let injector = quote_spanned! {ty.span()=> #rt::__private::injector::<#ty>() };
                    code.prepare.push(quote! {
                        let #var = match (#injector.extract)(&__cx) {
                            ::core::result::Result::Ok(v) => v,
                            ::core::result::Result::Err(rejection) => return #reject,
                        };
                    });
                    code.requirements.push(
                        quote! { __missing.extend((#injector.missing_state)(__extensions)); },
                    );
                    code.call_args.push(quote!(#var));
                }
                ParamKind::Value { name, .. } => {
                    if !param.forced_value() {
                        code.asserts.push(quote_spanned! {ty.span()=>
                            #rt::__private::assert_value_parameter(
                                (&&#rt::__private::InjectProbe::<#ty>::new()).injection(),
                            );
                        });
                    }
                    let arg = value(i, param, name, &mut code);
                    code.call_args.push(arg);
                }
            }
        }
        code
    }

    /// The type-assertion function, named after the user's function.
    pub(crate) fn assert_fn(&self, func: &Function, rt: &TokenStream) -> TokenStream {
        let assert_fn = format_ident!("__mcp_assert_types_{}", func.sig.ident);
        let asserts = &self.asserts;
        quote! {
            #[allow(dead_code, non_snake_case, clippy::all)]
            fn #assert_fn() {
                #[allow(unused_imports)]
                use #rt::__private::{ProbeInjectable as _, ProbeNotInjectable as _};
                #(#asserts)*
            }
        }
    }

    /// `fn missing_state`, when an injected parameter needs state; the trait's default
    /// (nothing) otherwise.
    pub(crate) fn missing_state_fn(&self, rt: &TokenStream) -> Option<TokenStream> {
        let requirements = &self.requirements;
        (!requirements.is_empty()).then(|| {
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
        })
    }
}

/// `fn complete` of a template or prompt: each value parameter completes with its
/// `#[mcp(complete = f)]`, or else from the values its type's JSON Schema lists (none for
/// most types). The same for `ResourceTemplate::complete` and `Prompt::complete`, whose
/// first parameter names the variable or the argument.
pub(crate) fn complete_fn(func: &Function, rt: &TokenStream) -> TokenStream {
    let arms = func.values().map(|(param, name)| {
        let suggestions = match &param.attrs.complete {
            // Spanned on the function's path: a wrong signature is reported there.
            Some((_, path)) => {
                quote_spanned! {path.span()=> #rt::__private::complete_with(#path, __value, __chosen) }
            }
            None => {
                let inner = match param.shape() {
                    crate::ast::Shape::One(t)
                    | crate::ast::Shape::Optional(t)
                    | crate::ast::Shape::List(t) => t,
                };
                quote! {
                    #rt::__private::complete_from_values(
                        (&&#rt::__private::EnumProbe::<#inner>::new()).enum_values(),
                        __value,
                    )
                }
            }
        };
        quote!(#name => #suggestions,)
    });
    quote! {
        // The borrows of the probe are autoref specialization, not needless.
        #[allow(clippy::needless_borrow)]
        fn complete(
            &self,
            __name: &str,
            __value: &str,
            __chosen: &::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
        ) -> #rt::__private::BoxFuture<'static, #rt::protocol::Completion> {
            #[allow(unused_imports)]
            use #rt::__private::{EnumValuesFromSchema as _, NoEnumValues as _};
            match __name {
                #(#arms)*
                _ => ::std::boxed::Box::pin(::core::future::ready(
                    <#rt::protocol::Completion as ::core::default::Default>::default(),
                )),
            }
        }
    }
}

/// `fn scopes` of a resource, template or prompt declaring `scopes = [...]` (the traits'
/// default, none, otherwise).
pub(crate) fn scopes_fn(scopes: &Option<Spanned<Vec<Spanned<String>>>>) -> Option<TokenStream> {
    let scopes = scopes.as_ref()?.value.iter().map(|s| &s.value);
    Some(quote! {
        fn scopes(&self) -> ::std::vec::Vec<::std::string::String> {
            ::std::vec![#(::std::string::String::from(#scopes)),*]
        }
    })
}
