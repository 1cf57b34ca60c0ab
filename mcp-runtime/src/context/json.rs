//! [`Json`]: a value a handler returns as JSON.

/// A value returned as JSON. From a tool, structured output: serialized into
/// `structuredContent`, with the same JSON as a text block for clients that read only
/// `content` (spec tools §Structured Content). From a resource, a text item of type
/// `application/json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);
