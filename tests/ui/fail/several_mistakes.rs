use mcp_runtime::prelude::*;

#[mcp_tool(read_only, colour = "blue", name = "paint it")]
fn paint((r, g): (u8, u8), text: &'static str) -> String {
    format!("{r}{g}{text}")
}

fn main() {}
