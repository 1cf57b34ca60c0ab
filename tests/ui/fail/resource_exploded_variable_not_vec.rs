use mcp_runtime::prelude::*;

/// A file by its path segments.
#[mcp_resource(template = "tree://{root}{/path*}")]
async fn tree(root: String, path: String) -> String {
    format!("{root}/{path}")
}

fn main() {}
