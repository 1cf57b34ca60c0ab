//! [`IntoToolResult`]: what a tool may return.

use crate::context::Json;
use crate::protocol::{CallToolResult, Content};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Display;

/// Turns a tool's return value into a `CallToolResult`.
///
/// Implemented for text (`String`, `&str`), numbers and `bool` (as text), `()` (no
/// content), [`Content`], `Vec<Content>`, [`CallToolResult`], [`Json<T>`] (structured
/// output with a text copy) and `Result<T, E>` where `E: Display` (an `Err` becomes an
/// `isError` result carrying the error's text, so the model can act on it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this type does not implement `IntoToolResult`",
    note = "return text (`String`), `Json<T>` for structured output, `Content`, `Vec<Content>`, `CallToolResult`, `()`, or `Result<T, E>` with `E: Display`"
)]
pub trait IntoToolResult {
    /// The conversion.
    fn into_tool_result(self) -> CallToolResult;

    /// The `outputSchema` this type promises, if it returns structured content.
    fn output_schema() -> Option<Value>
    where
        Self: Sized,
    {
        None
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> CallToolResult {
        self
    }
}

impl IntoToolResult for Content {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::text(self)
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> CallToolResult {
        CallToolResult::success(Vec::new())
    }
}

macro_rules! display_as_text {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> CallToolResult {
                CallToolResult::text(self.to_string())
            }
        }
    )*};
}
display_as_text!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, char
);

impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> CallToolResult {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => CallToolResult::error(e.to_string()),
        }
    }

    fn output_schema() -> Option<Value> {
        T::output_schema()
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn output_schema() -> Option<Value> {
        Some(super::schema::output_schema_for::<T>())
    }

    fn into_tool_result(self) -> CallToolResult {
        match serde_json::to_value(&self.0) {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => {
                CallToolResult::error(format!("the tool's output could not be serialized: {e}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(5.0f64.into_tool_result().first_text(), Some("5"));
        assert_eq!(3.75f64.into_tool_result().first_text(), Some("3.75"));
        let err: Result<String, String> = Err("no such city".into());
        let r = err.into_tool_result();
        assert!(r.is_error());
        assert_eq!(r.first_text(), Some("no such city"));
        let r = Json(serde_json::json!({"t": 1})).into_tool_result();
        assert_eq!(r.structured_content, Some(serde_json::json!({"t": 1})));
        assert_eq!(r.first_text(), Some(r#"{"t":1}"#));
        assert!(().into_tool_result().content.is_empty());
    }
}
