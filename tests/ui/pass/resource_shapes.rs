//! The shapes `#[mcp_resource]` accepts: every return conversion, template parameters of
//! `FromStr` types, `Option` and `Vec`, renamed and injected parameters, completion
//! functions of each return kind, and the metadata keys.

use mcp_runtime::completion::IntoCompletion;
use mcp_runtime::prelude::*;
use mcp_runtime::protocol::{Completion, TextResourceContents};
use std::collections::BTreeMap;
use std::net::IpAddr;

/// Text.
#[mcp_resource(uri = "a://text", title = "Text", mime_type = "text/markdown", size = 5)]
async fn text() -> &'static str {
    "hello"
}

/// Bytes.
#[mcp_resource(uri = "a://bytes", audience = ["assistant"], priority = 1)]
async fn bytes() -> Vec<u8> {
    vec![1, 2, 3]
}

/// JSON.
#[mcp_resource(uri = "a://json", icons = ["https://example.com/icon.png"])]
async fn json(cx: RequestContext) -> Json<Vec<String>> {
    Json(vec![cx.era().to_string()])
}

/// Contents made by hand.
#[mcp_resource(uri = "a://contents", name = "contents")]
async fn contents() -> Vec<ResourceContents> {
    vec![ResourceContents::Text(TextResourceContents::new("a://contents", "x"))]
}

#[derive(Clone)]
struct Db;

/// A fallible read with state.
#[mcp_resource(template = "db://{table}/{id}{?columns*}")]
async fn row(
    State(_db): State<Db>,
    table: String,
    #[mcp(complete = ids)] id: u64,
    columns: Vec<String>,
) -> Result<String, ResourceError> {
    Ok(format!("{table}/{id}: {columns:?}"))
}

fn ids(value: &str, _chosen: &BTreeMap<String, String>) -> Completion {
    Completion::from_all([format!("{value}0"), format!("{value}1")])
}

/// Hosts, by address.
#[mcp_resource(template = "hosts://{address}{/port}{#section}", allow_dot_segments = false)]
async fn host(
    #[mcp(rename = "address", complete = addresses)] ip: IpAddr,
    port: Option<u16>,
    section: Option<String>,
) -> std::io::Result<String> {
    Ok(format!("{ip}:{port:?}#{section:?}"))
}

fn addresses(
    value: &str,
    _chosen: &BTreeMap<String, String>,
) -> mcp_runtime::__private::BoxFuture<'static, Vec<String>> {
    let value = value.to_owned();
    Box::pin(async move { vec![format!("{value}127.0.0.1")] })
}

/// Completion returns convert.
fn _returns_convert(v: Vec<&'static str>) -> impl IntoCompletion {
    v
}

fn main() {
    let _server = Server::builder("pass", "1")
        .state(Db)
        .resource(text::resource())
        .resource(bytes::resource())
        .resource(json::resource())
        .resource(contents::resource())
        .resource_template(row::template())
        .resource_template(host::template())
        .build()
        .unwrap();
    let _ = Server::builder("pass", "1").state(Db).collected();
}
