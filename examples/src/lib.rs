//! What the example servers share beyond their command line (which is the runtime's
//! `mcp_runtime::launch::ServeArgs`, flattened into each binary's own parser, so the
//! examples take exactly the flags a generated project takes).

pub mod conformance_input;
pub mod conformance_tasks;
pub mod page;
