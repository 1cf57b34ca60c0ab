use mcp_runtime::prelude::*;

/// Renders a report.
#[mcp_tool(task = true)]
async fn render(pages: u32) -> String {
    format!("{pages} pages")
}

fn main() {}
