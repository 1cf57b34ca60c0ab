use mcp_runtime::prelude::*;

/// Renders a report, as a task when the client supports tasks.
#[mcp_tool(task = "optional", timeout = "10m")]
async fn render(cx: RequestContext, pages: u32) -> String {
    cx.become_task().await;
    format!("{pages} pages")
}

/// Exports everything (only ever a task).
#[mcp_tool(task = "required")]
async fn export() -> &'static str {
    "exported"
}

fn main() {
    let server = Server::builder("t", "1.0.0")
        .tool(render::tool())
        .tool(export::tool())
        .build()
        .unwrap();
    assert!(server.capabilities().extensions.is_some());
}
