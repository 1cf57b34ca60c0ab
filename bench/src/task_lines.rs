//! The requests the task benchmarks (`benches/tasks.rs`, `benches/redis.rs`) send: a
//! modern `tools/call` of `echo`, with or without the tasks extension, and a `tasks/get`.

use serde_json::json;

/// The text `echo` is called with.
pub const TEXT: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A modern `tools/call` of `echo` with [`TEXT`]; `tasks`: from a client with the tasks
/// extension.
pub fn call(id: u64, tasks: bool) -> Vec<u8> {
    let capabilities = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "echo", "arguments": {"text": TEXT},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities
            }
        }
    }))
    .expect("JSON")
}

/// A modern `tasks/get` of `task`.
pub fn get(task: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{{"taskId":"{task}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
    )
    .into_bytes()
}
