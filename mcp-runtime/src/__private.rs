//! What the code `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]` generate names: the
//! crates it derives with, the compile-time checks that put rustc's errors on the user's
//! tokens, and the conversions of parameters. Not a public API: anything here may change in
//! any release.
//!
//! **Which parameters are injected.** A macro sorts the parameters before any type is known:
//! it takes a parameter as injected when it is marked `#[mcp(inject)]` or its type is spelled
//! `RequestContext` or `State<…>`, and as a value (tool argument, template variable, prompt
//! argument) otherwise. Both guesses are checked through the types' traits, so neither can
//! be silently wrong: an injected parameter goes through [`injector`], which needs
//! `FromContext`; a value (unless forced with `#[mcp(arg)]`) goes through
//! [`assert_value_parameter`], which refuses a type that implements `FromContext`, with a
//! message asking for `#[mcp(inject)]`. So `type Ctx = RequestContext;` or a `FileService`
//! parameter without `#[mcp(inject)]` is a compile error, not an argument. Deciding from the
//! trait alone (autoref specialization) cannot work for tools: the arguments struct, with its
//! derived `Deserialize` and `JsonSchema`, is laid out by the macro, before any trait is
//! known.

pub use futures::future::BoxFuture;
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::prompt::prompt_factory::PromptFactory;
pub use crate::resource::resource_factory::ResourceFactory;
pub use crate::resource::template_factory::TemplateFactory;
pub use crate::resource::uri_template::error::assert_uri_template;
pub use crate::tool::name::{
    assert_fn_prompt_name, assert_fn_tool_name, assert_prompt_name, assert_tool_name,
};
pub use crate::tool::tool_factory::ToolFactory;

use crate::completion::schema_values;
use crate::context::{Extensions, FromContext, MissingState, RequestContext};
use crate::prompt::{FromArgument, PromptArguments, PromptError};
use crate::protocol::Completion;
use crate::resource::{FromVariable, ResourceError, Variables};
use std::marker::PhantomData;

/// Lands "not a tool argument" errors on the parameter's type.
pub fn assert_argument<T: crate::tool::ToolArgument>() {}

/// What generated code needs of an injected parameter's type `T`.
#[allow(missing_debug_implementations)]
pub struct Injector<T> {
    /// Extracts the parameter, or the text of its rejection (the item then does not run:
    /// a tool answers an `isError` result with it, a resource or prompt fails with it).
    pub extract: fn(&RequestContext) -> Result<T, String>,
    /// What the parameter needs from the server's state ([`FromContext::missing_state`]).
    pub missing_state: fn(&Extensions) -> Vec<MissingState>,
}

/// The one way generated code reaches `FromContext`, named spanned on the parameter's
/// type: a type that is not injectable gets one error there (rustc merges the identical
/// ones), and the rejection's type, a projection through the missing impl, never appears
/// in generated code, where it would raise another error on the attribute.
pub fn injector<T: FromContext>() -> Injector<T> {
    Injector {
        extract: |cx| T::from_context(cx).map_err(|rejection| rejection.to_string()),
        missing_state: T::missing_state,
    }
}

/// Asks, by autoref specialization, whether `T` implements `FromContext`:
/// `(&&InjectProbe::<T>::new()).injection()` is an [`Injectable`] when it does (the impl
/// for `&InjectProbe<T>` is tried first and applies), a [`NotInjectable`] otherwise.
#[allow(missing_debug_implementations)]
pub struct InjectProbe<T>(PhantomData<T>);

impl<T> InjectProbe<T> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

/// The type implements `FromContext`.
#[allow(missing_debug_implementations)]
pub struct Injectable;

/// The type does not implement `FromContext`.
#[allow(missing_debug_implementations)]
pub struct NotInjectable;

/// The probe's answer for `FromContext` types.
pub trait ProbeInjectable {
    /// [`Injectable`].
    fn injection(&self) -> Injectable {
        Injectable
    }
}

impl<T: FromContext> ProbeInjectable for &InjectProbe<T> {}

/// The probe's answer for every other type.
pub trait ProbeNotInjectable {
    /// [`NotInjectable`].
    fn injection(&self) -> NotInjectable {
        NotInjectable
    }
}

impl<T> ProbeNotInjectable for InjectProbe<T> {}

/// Holds for [`NotInjectable`] only: a value parameter whose type is injectable was meant to
/// be injected.
#[diagnostic::on_unimplemented(
    message = "this parameter's type implements `FromContext`: it is provided by the server, not by the client",
    label = "mark this parameter `#[mcp(inject)]`",
    note = "only `RequestContext` and `State<T>` are injected without the attribute; write `#[mcp(arg)]` instead to read this type from the client anyway"
)]
pub trait ValueParameter {}

impl ValueParameter for NotInjectable {}

/// Lands "this should be injected" errors on the parameter's type.
pub fn assert_value_parameter<K: ValueParameter>(_: K) {}

/// The short name of `T` for messages: `u32`, `Color`, `Vec<String>`.
fn short_type_name<T>() -> String {
    let full = std::any::type_name::<T>();
    let mut out = String::with_capacity(full.len());
    let mut segment = String::new();
    let mut chars = full.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            segment.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            segment.clear();
        } else {
            out.push_str(&segment);
            segment.clear();
            out.push(c);
        }
    }
    out.push_str(&segment);
    out
}

fn parse_variable<T: FromVariable>(name: &str, text: &str) -> Result<T, ResourceError> {
    T::from_variable(text).map_err(|e| {
        ResourceError::InvalidUri(format!(
            "the variable `{name}` is {text:?}, which is not a valid `{}`: {e}",
            short_type_name::<T>()
        ))
    })
}

/// The template variable `name`, parsed.
pub fn variable<T: FromVariable>(variables: &Variables, name: &str) -> Result<T, ResourceError> {
    match variables.get_list(name) {
        Some([text]) => parse_variable(name, text),
        Some(_) => Err(ResourceError::InvalidUri(format!(
            "the variable `{name}` holds a list where one value was expected"
        ))),
        None => Err(ResourceError::InvalidUri(format!(
            "the URI gives no value for the variable `{name}`"
        ))),
    }
}

/// The template variable `name`, parsed, if the URI gives it.
pub fn optional_variable<T: FromVariable>(
    variables: &Variables,
    name: &str,
) -> Result<Option<T>, ResourceError> {
    match variables.get_value(name) {
        None => Ok(None),
        Some(_) => variable(variables, name).map(Some),
    }
}

/// The items of the (exploded) template variable `name`, parsed; none if the URI gives none.
pub fn list_variable<T: FromVariable>(
    variables: &Variables,
    name: &str,
) -> Result<Vec<T>, ResourceError> {
    variables
        .get_list(name)
        .unwrap_or_default()
        .iter()
        .map(|text| parse_variable(name, text))
        .collect()
}

fn parse_argument<T: FromArgument>(name: &str, text: &str) -> Result<T, PromptError> {
    T::from_argument(text).map_err(|e| {
        PromptError::InvalidArguments(format!(
            "the argument `{name}` is {text:?}, which is not a valid `{}`: {e}",
            short_type_name::<T>()
        ))
    })
}

/// The prompt argument `name`, parsed.
pub fn argument<T: FromArgument>(
    arguments: &PromptArguments,
    name: &str,
) -> Result<T, PromptError> {
    match arguments.get(name) {
        Some(text) => parse_argument(name, text),
        None => Err(PromptError::InvalidArguments(format!(
            "the argument `{name}` is required"
        ))),
    }
}

/// The prompt argument `name`, parsed, if given.
pub fn optional_argument<T: FromArgument>(
    arguments: &PromptArguments,
    name: &str,
) -> Result<Option<T>, PromptError> {
    arguments
        .get(name)
        .map(|text| parse_argument(name, text))
        .transpose()
}

/// Asks, by autoref specialization, for the values `T`'s JSON Schema lists:
/// `(&&EnumProbe::<T>::new()).enum_values()` reads them from the schema when `T` implements
/// `JsonSchema`, and finds none otherwise.
#[allow(missing_debug_implementations)]
pub struct EnumProbe<T>(PhantomData<T>);

impl<T> EnumProbe<T> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

/// The probe's answer for `JsonSchema` types.
pub trait EnumValuesFromSchema {
    /// The values the schema lists.
    fn enum_values(&self) -> Vec<String>;
}

impl<T: schemars::JsonSchema> EnumValuesFromSchema for &EnumProbe<T> {
    fn enum_values(&self) -> Vec<String> {
        schema_values(schemars::schema_for!(T).as_value())
    }
}

/// The probe's answer for every other type.
pub trait NoEnumValues {
    /// None.
    fn enum_values(&self) -> Vec<String> {
        Vec::new()
    }
}

impl<T> NoEnumValues for EnumProbe<T> {}

/// The default completion of a parameter: its type's listed values that match `typed`.
pub fn complete_from_values(values: Vec<String>, typed: &str) -> BoxFuture<'static, Completion> {
    Box::pin(std::future::ready(crate::completion::matching(
        values, typed,
    )))
}

/// A `#[mcp(complete = f)]` completion, spanned on `f`: a function of the wrong shape gets
/// its error there.
pub fn complete_with<F: crate::completion::CompleteFn>(
    f: F,
    value: &str,
    chosen: &std::collections::BTreeMap<String, String>,
) -> BoxFuture<'static, Completion> {
    f.suggest(value, chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_type_names() {
        assert_eq!(short_type_name::<u32>(), "u32");
        assert_eq!(short_type_name::<String>(), "String");
        assert_eq!(short_type_name::<Vec<String>>(), "Vec<String>");
        assert_eq!(
            short_type_name::<std::collections::BTreeMap<String, u8>>(),
            "BTreeMap<String, u8>"
        );
    }

    #[test]
    fn variables_parse_and_name_the_variable() {
        let mut vars = Variables::new();
        vars.insert("id", "42");
        vars.insert("bad", "x1");
        vars.insert_list("path", ["a", "b"]);
        assert_eq!(variable::<u32>(&vars, "id"), Ok(42));
        assert_eq!(
            variable::<u32>(&vars, "bad"),
            Err(ResourceError::InvalidUri(
                "the variable `bad` is \"x1\", which is not a valid `u32`: invalid digit found in string".into()
            ))
        );
        assert_eq!(optional_variable::<u32>(&vars, "none"), Ok(None));
        assert_eq!(optional_variable::<u32>(&vars, "id"), Ok(Some(42)));
        assert_eq!(
            list_variable::<String>(&vars, "path"),
            Ok(vec!["a".into(), "b".into()])
        );
        assert_eq!(list_variable::<String>(&vars, "none"), Ok(vec![]));
        assert!(variable::<String>(&vars, "path").is_err());
        assert!(variable::<String>(&vars, "none").is_err());
    }

    #[test]
    fn arguments_parse_and_name_the_argument() {
        let args: PromptArguments = [("n".to_owned(), "three".to_owned())].into();
        let error = argument::<u8>(&args, "n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the argument `n` is \"three\", which is not a valid `u8`: invalid digit found in string"
        );
        assert_eq!(optional_argument::<u8>(&args, "m"), Ok(None));
        assert_eq!(argument::<String>(&args, "n"), Ok("three".to_owned()));
    }

    // The borrows are the probe: autoref specialization picks the impl by how many there are.
    #[test]
    #[allow(clippy::needless_borrow)]
    fn probes_answer_by_trait() {
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        enum Unit {
            Celsius,
            Fahrenheit,
        }
        struct Opaque;
        assert_eq!(
            (&&EnumProbe::<Unit>::new()).enum_values(),
            ["Celsius", "Fahrenheit"]
        );
        assert!((&&EnumProbe::<String>::new()).enum_values().is_empty());
        assert!((&&EnumProbe::<Opaque>::new()).enum_values().is_empty());
        let _: Injectable = (&&InjectProbe::<RequestContext>::new()).injection();
        let _: NotInjectable = (&&InjectProbe::<String>::new()).injection();
    }
}
