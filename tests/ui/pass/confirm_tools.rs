use mcp_runtime::prelude::*;
use mcp_runtime::tool::{Tool as _, Unconfirmable};

/// Deletes a file.
#[mcp_tool(destructive, confirm = "Delete {{ path }}? {{ sure? }}")]
async fn delete(path: String) -> String {
    path
}

/// Archives a file.
#[mcp_tool(confirm, unconfirmable = "run")]
async fn archive(path: String) -> String {
    path
}

fn main() {
    let delete = delete::tool().policy().confirm.unwrap();
    assert_eq!(delete.template(), Some("Delete {{ path }}? {{ sure? }}"));
    assert_eq!(delete.when_unconfirmable(), Unconfirmable::Refuse);
    let archive = archive::tool().policy().confirm.unwrap();
    assert_eq!(archive.template(), None);
    assert_eq!(archive.when_unconfirmable(), Unconfirmable::Run);
}
