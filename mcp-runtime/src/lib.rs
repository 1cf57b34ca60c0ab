//! # mcp-runtime
//!
//! Model Context Protocol servers in Rust, for both protocol eras from one definition:
//! the 2025 handshake era (`initialize`, negotiating 2025-11-25, 2025-06-18, 2025-03-26
//! and 2024-11-05) and the stateless 2026-07-28 era (`server/discover`, a `_meta` envelope
//! on every request).
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//! use serde_json::json;
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     let add = tool_fn(
//!         ToolDefinition::new(
//!             "add",
//!             "Adds two numbers.",
//!             json!({
//!                 "type": "object",
//!                 "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
//!                 "required": ["a", "b"]
//!             }),
//!         ),
//!         |args, _cx| async move { args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0) },
//!     );
//!     let server = Server::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
//!         .tool(add)
//!         .build()
//!         .expect("valid tools");
//!     serve_stdio(server).await
//! }
//! ```
//!
//! ## Layers
//!
//! Modules follow the protocol's layers, and every reference between them points down:
//! [`protocol`] (wire types, no I/O) ← [`context`] (what a request carries: the
//! [`RequestContext`](context::RequestContext), the caller, the extractors, the [`Peer`](context::Peer) and
//! the input channel, [`input`]) ← the primitives, siblings over it: [`tool`], [`resource`],
//! [`prompt`], and [`completion`] (what their parameters' suggestions come from) ←
//! [`pipeline`] (the layers every call passes through: validation, panic isolation, output
//! checks, audit, timeouts, concurrency and rate limits, user layers) ← [`server`] (the
//! builder; the registry, one catalog per primitive; era classification and dispatch; the
//! contract a transport implements) ← [`transport`] (stdio, Streamable HTTP, in-memory; users
//! of the public contract, and of the pipeline's rate limiter for the HTTP per-caller
//! budget). [`fs`] confines file access for the file tools and
//! resources, and registers them through the seams of [`resource`]; `net` (a feature) fetches URLs for tools and refuses
//! the server's own network; `tls` (the `tls` feature, which `net`, `client-https` and `otel` turn on) is the TLS client
//! configuration they and the OTLP exporters use; `command` (a feature) runs allowlisted programs without a shell; `skill` serves Agent Skills folders
//! through it; [`client`] talks to any server; [`launch`]
//! sits on top: a server binary's command line and `main`. [`telemetry`], over the
//! context, is what the pipeline, the dispatcher, the transports and the launcher tell
//! operators: the audit trail's sink and (the `otel` feature) OpenTelemetry's spans,
//! metrics and exporters, the same calls doing nothing without it. What instances of one server share is
//! behind one trait per concern in the layer that uses it (spent nonces in `context`, rate
//! budgets and cached results in `pipeline`, the bus and legacy sessions in `server`, tasks
//! in `task`; [`server::sharing`] lists them); `shared` implements them all for Redis (the
//! `redis` feature), above the server. [`testing`] helps tests. [`targets`], below them all, names each `tracing`
//! target the runtime logs to once (the audit trail, request spans, Redis, prompt and
//! skill reloads).
//!
//! This table is the rule; the workspace's layering test (`tests/layering.rs` in the tests
//! package) reads it with every path resolved (`crate::`, `super::`, `self::`,
//! `mcp_runtime::`, `use` groups, and names a module imports: `crate::input` is `context`)
//! and fails on a reference outside test code that it does not allow, on a permission that
//! nothing uses, and on a cycle among the modules of any folder, at any depth. The last
//! column is debt, allowed until it is paid (none is left: `fs`'s `FileResources`
//! registers and refreshes through `resource`'s `ResourceSink` and `ResourceCatalog`, the
//! transports' telemetry is [`telemetry`]'s, the Redis fleet is behind [`server::sharing`]'s
//! seams).
//!
//! <!-- layering:start -->
//! | module | may use | uses against the design, to go |
//! | --- | --- | --- |
//! | `protocol` |  |  |
//! | `targets` |  |  |
//! | `tls` |  |  |
//! | `windows` |  |  |
//! | `task` | `protocol` |  |
//! | `completion` | `protocol` |  |
//! | `context` | `protocol` `task` `targets` |  |
//! | `tool` | `protocol` `context` `task` |  |
//! | `resource` | `protocol` `context` |  |
//! | `prompt` | `protocol` `context` `tool` `targets` |  |
//! | `telemetry` | `protocol` `context` `tls` `targets` |  |
//! | `pipeline` | `protocol` `context` `tool` `resource` `prompt` `telemetry` `targets` |  |
//! | `server` | `protocol` `context` `tool` `resource` `prompt` `pipeline` `task` `telemetry` `targets` |  |
//! | `shared` | `protocol` `context` `task` `pipeline` `server` `targets` |  |
//! | `transport` | `protocol` `context` `tool` `pipeline` `server` `telemetry` `targets` |  |
//! | `fs` | `protocol` `context` `tool` `resource` `windows` `targets` |  |
//! | `skill` | `protocol` `prompt` `fs` `server` `targets` |  |
//! | `net` | `context` `tls` `targets` |  |
//! | `command` | `context` `fs` `windows` `targets` |  |
//! | `oauth` | `context` `net` `transport` |  |
//! | `collect` | `prompt` `resource` `server` |  |
//! | `__private` | `protocol` `context` `completion` `tool` `resource` `prompt` |  |
//! | `prelude` | `protocol` `context` `tool` `resource` `prompt` `server` `transport` |  |
//! | `client` | `protocol` `server` `transport` `tls` |  |
//! | `testing` | `client` `server` |  |
//! | `proxy` | `protocol` `context` `tool` `resource` `prompt` `server` `task` `skill` `client` |  |
//! | `launch` | `tool` `server` `transport` `shared` `oauth` `telemetry` `targets` |  |
//! | `fuzzing` | `protocol` `context` `prompt` `resource` `server` `transport` `fs` `prelude` |  |
//! <!-- layering:end -->
//!
//! The attributes make each primitive from an async function: [`mcp_tool`] (and
//! [`mcp_tools`] on an impl block), [`mcp_resource`] and [`mcp_prompt`]; every one of them
//! in the program is added by `ServerBuilder::collected()`.
//!
//! ## What is stable
//!
//! This is 0.1: a minor release may still break things, and each says what it breaks. What
//! is meant to last, and is kept compatible within a minor series:
//!
//! - the attributes and their keys, [`Server`] and [`ServerBuilder`], the [`Tool`](tool::Tool),
//!   [`Resource`](resource::Resource) and [`Prompt`](prompt::Prompt) traits and their `*_fn`
//!   constructors, the [`context`] layer (the request context, the caller, the extractors),
//!   [`serve_stdio`], `serve_http`, `launch` and [`fs`]'s `FileService`;
//! - the [`protocol`] types. The spec adds fields and kinds as it goes, so the structs and
//!   most enums are `#[non_exhaustive]`: build them with their constructors and `with_*`
//!   builders (or `Default` and field assignment), and give a `match` on an enum a wildcard
//!   arm. Exhaustive on purpose, because their sets are fixed: [`Era`](protocol::Era), the
//!   JSON-RPC framing types and [`RequestId`](protocol::RequestId), `ProgressToken`,
//!   [`LoggingLevel`](protocol::LoggingLevel) (RFC 5424's eight levels), `Role`,
//!   `SamplingRole` and [`ResourceContents`](protocol::ResourceContents) (text or blob).
//!
//! Public but not settled yet: the transport contract ([`server::Connection`] and the types
//! [`transport`] names from it), the request pipeline's types ([`pipeline`]: what a layer
//! sees and returns), the registries behind a built server, [`client`] (made for tests, the
//! CLI and benchmarks) and [`testing`]. No public signature names a third-party type that
//! is pinned exactly (a schema compiles into this crate's own
//! [`Validator`](tool::schema::Validator)). `__private` (what the macros' expansions name)
//! and the `fuzzing` feature are no API at all.
//!
//! The whole public API, every item with its signature, is listed in `public-api.txt` beside
//! this crate's manifest; a test (`tests/public_api.rs` in the tests package) fails when the
//! code and the listing differ, so every change to the API is a visible change to that file
//! (`UPDATE_SNAPSHOTS=1` rewrites it).
//!
//! ## Cargo features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `server` | on | the server stack: everything but [`protocol`] and [`client`] (the registry, the pipeline, the transports, the macros) |
//! | `client-http` | with `http` | the client's Streamable HTTP transport, `Client::http`, without the server's |
//! | `client-https` | off | the same over `https://` (rustls on ring, Mozilla's roots and `SSL_CERT_FILE`'s) |
//! | `http` | on | Streamable HTTP: `transport::http` (`HttpServer`, a `tower` service), `serve_http`, `Client::http` |
//! | `fs` | on | the file-security service `fs` (`FileService`, `FileTools`) |
//! | `prompt-files` | on | prompts from JSON, YAML or Markdown files: `prompt::PromptTemplates`, `ServerBuilder::prompt_dir` (minijinja, saphyr, jsonc-parser) |
//! | `launch` | on | a server binary's command line: `launch::ServeArgs` (`--transport`, and with `http` `--bind`, `--token-file`, ...), `launcher!().run(server)` for a one-line `main`, logs to stderr (clap, tracing-subscriber) |
//! | `skills` | on | Agent Skills served by the skills extension (SEP-2640): `ServerBuilder::skills_dir`, `ServerBuilder::skill`, `skill::Skill` (needs `fs` and `prompt-files`) |
//! | `fast-start` | on | the JSON Schema meta-validator (it checks each tool's schema at registration) compiled at build time, not at each start: a faster cold start, about 12 s more in a first build on 2 cores (jsonschema's `macros`); `cargo mcp new`'s stdio projects leave it off |
//! | `skills-watch` | off | reloading a skills folder as its files change: `skill::SkillsWatcher` (notify) |
//! | `redis` | off | state shared by many instances of one server, in Redis: `shared::RedisState` behind every seam of `server::sharing` (`ServerBuilder::share_through`), `--redis URL` (tasks, spent `requestState` nonces, the bus, legacy sessions, rate limits, optionally cached results) |
//! | `net` | off | fetching URLs for tools without SSRF: `net::NetService` (public addresses only unless an origin is allowed exactly; bounded; hyper's client with rustls) |
//! | `command` | off | running programs for tools without a shell: `command::CommandService` (allowlisted programs resolved once, option rules, cleared environment, working directories through the `FileService`, process-group kill or a Windows Job object, output caps, resource limits on Unix) |
//! | `otel` | off | OpenTelemetry: [`telemetry`] (a span per request by the MCP semantic conventions joined to the client's trace, request metrics); with `launch`, `init_tracing` exports over OTLP/HTTP (`http://` or `https://`, trusting what `tls` trusts) when the standard `OTEL_*` variables ask |
//! | `oauth` | off | OAuth resource server: `oauth::OAuth` (access tokens verified against the issuer's discovered JWKS, or by introspection, bound to this server's audience; DPoP-bound tokens with their proofs), presets for identity providers (`oauth::providers`), the protected-resource metadata served by `HttpServer`; with `launch`, `--oauth-issuer` and `--oauth-audience` (needs `http` and `net`; jsonwebtoken, ring) |
//! | `tls` | off | the TLS client configuration of every connection the crate opens, `tls::client_config` (rustls on ring, Mozilla's roots and `SSL_CERT_FILE`'s); on with `client-https`, `net` and `otel` |
//! | `otel-grpc` | off | OTLP over gRPC too (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`): opentelemetry-otlp's tonic exporters, run on a one-thread runtime of their own |
//! | `otel-prometheus` | off | a Prometheus scrape endpoint for the request metrics (`OTEL_METRICS_EXPORTER=prometheus`: `/metrics` on `OTEL_EXPORTER_PROMETHEUS_HOST`:`..._PORT`, default localhost:9464) |
//! | `prompt-watch` | off | reloading a prompt directory as its files change: `PromptTemplates::watch` (notify) |
//!
//! A server that only speaks stdio can leave the others out
//! (`mcp-runtime = { version = "0.1", default-features = false, features = ["server"] }`): it
//! then compiles without hyper, axum, cap-std and the template engine (tower's core stays:
//! the request pipeline is made of its layers). Its binary is the same size either way: code
//! a server never calls is dropped at link time. Add `launch` to keep the one-line `main`
//! (`launcher!().run(server)`, clap's cost): without `http` its command line has
//! `--transport stdio` only. A program that only talks to servers (like
//! `cargo mcp`) takes `default-features = false, features = ["client-http"]`: the protocol
//! types and the client, without the server stack.

#![deny(missing_docs)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

// The macros' generated code names `::mcp_runtime::…`; this makes that path resolve inside
// this crate too, for the file tools in `fs`.
extern crate self as mcp_runtime;

pub mod client;
#[cfg(feature = "server")]
mod collect;
#[cfg(feature = "command")]
pub mod command;
#[cfg(feature = "server")]
pub mod completion;
#[cfg(feature = "server")]
pub mod context;
#[cfg(feature = "fs")]
pub mod fs;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
/// Asking the client (elicitation, sampling, roots): the [`context`] layer's input channel.
#[cfg(feature = "server")]
pub use context::input;
#[cfg(feature = "launch")]
pub mod launch;
#[cfg(feature = "net")]
pub mod net;
#[cfg(feature = "oauth")]
pub mod oauth;
#[cfg(feature = "server")]
pub mod pipeline;
#[cfg(feature = "server")]
pub mod prompt;
pub mod protocol;
#[cfg(feature = "server")]
pub mod proxy;
#[cfg(feature = "server")]
pub mod resource;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "server")]
pub mod shared;
#[cfg(feature = "skills")]
pub mod skill;
#[cfg(feature = "server")]
pub mod targets;
#[cfg(feature = "server")]
pub mod task;
#[cfg(feature = "server")]
pub mod telemetry;
#[cfg(all(test, any(feature = "fs", feature = "net", feature = "command")))]
mod test_log;
#[cfg(feature = "server")]
pub mod testing;
#[cfg(feature = "tls")]
pub mod tls;
#[cfg(feature = "server")]
pub mod tool;
#[cfg(feature = "server")]
pub mod transport;
#[cfg(all(windows, feature = "fs"))]
mod windows;

#[cfg(feature = "server")]
#[doc = include_str!("docs/mcp_prompt.md")]
pub use mcp_runtime_macros::mcp_prompt;
#[cfg(feature = "server")]
#[doc = include_str!("docs/mcp_resource.md")]
pub use mcp_runtime_macros::mcp_resource;
#[cfg(feature = "server")]
pub use mcp_runtime_macros::{mcp_tool, mcp_tools};
#[cfg(feature = "server")]
pub use server::{Server, ServerBuilder};
#[cfg(feature = "http")]
pub use transport::http::serve_http;
#[cfg(feature = "server")]
pub use transport::stdio::serve_stdio;

/// The names most servers need.
#[cfg(feature = "server")]
pub mod prelude {
    pub use crate::prompt::{IntoPromptResult, Prompt, PromptError};
    pub use crate::protocol::{
        CallToolResult, Content, Era, McpError, ToolAnnotations, ToolDefinition,
    };
    pub use crate::protocol::{GetPromptResult, PromptMessage, ResourceContents};
    pub use crate::resource::{IntoContents, Resource, ResourceError, ResourceTemplate};
    pub use crate::server::{Server, ServerBuilder};
    pub use crate::tool::{IntoToolResult, Json, RequestContext, State, Tool, tool_fn};
    #[cfg(feature = "http")]
    pub use crate::transport::http::serve_http;
    pub use crate::transport::stdio::serve_stdio;
    pub use mcp_runtime_macros::{mcp_prompt, mcp_resource, mcp_tool, mcp_tools};
}

#[cfg(feature = "server")]
#[doc(hidden)]
pub mod __private;

/// The README's Rust examples, compiled as doctests so they cannot drift (with the default
/// features, which they use).
#[doc = include_str!("../../README.md")]
#[cfg(all(doctest, feature = "http", feature = "fs"))]
pub struct ReadmeDoctests;
