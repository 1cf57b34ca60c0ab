//! Wire types for both protocol eras: JSON-RPC framing and MCP messages. Serde only, no I/O.

pub mod apps;
pub mod capabilities;
pub mod common;
pub mod completion;
pub mod content;
pub mod error;
pub mod headers;
pub mod input;
pub mod jsonrpc;
pub mod lifecycle;
pub mod meta;
pub mod methods;
pub mod prompts;
pub mod resources;
pub mod skills;
pub mod task;
pub mod tools;
pub mod version;

pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use error::{ErrorCode, McpError};
pub use input::*;
pub use jsonrpc::RequestId;
pub use lifecycle::*;
pub use meta::{LoggingLevel, ProgressToken, RequestMeta};
pub use prompts::*;
pub use resources::*;
pub use tools::*;
pub use version::Era;
