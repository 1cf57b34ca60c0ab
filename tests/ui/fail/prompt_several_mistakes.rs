use mcp_runtime::prelude::*;

#[mcp_prompt(tittle = "Review", name = "")]
fn review((code, lang): (String, String), #[mcp(inject)] #[mcp(description = "x")] cx: RequestContext) -> String {
    format!("{code}{lang}{}", cx.era())
}

fn main() {
    let _ = review::prompt();
}
