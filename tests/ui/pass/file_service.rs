//! An injected `FileService`: marked `#[mcp(inject)]`, taken from the server's state.

use mcp_runtime::fs::{FileService, FsError, FsPolicy, LineRange};
use mcp_runtime::prelude::*;

/// Reads the first line of a file through the injected service.
#[mcp_tool(read_only)]
async fn first_line(#[mcp(inject)] files: FileService, path: String) -> Result<String, FsError> {
    files.read_text_file(&path, LineRange::Head(1)).await
}

fn main() {
    let files = FileService::new(FsPolicy::new().allow_dir(".")).unwrap();
    let _server = Server::builder("pass", "1")
        .state(files)
        .tool(first_line::tool())
        .build()
        .unwrap();
}
