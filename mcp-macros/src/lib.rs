//! Procedural macros for `mcp-runtime`.
//!
//! The `#[mcp_tool]` attribute is built on the runtime's `Tool` trait; until it lands,
//! tools are written against that trait directly (see `mcp_runtime::tool::tool_fn`).
