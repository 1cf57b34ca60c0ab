#![doc = include_str!("README.md")]

mod access;
mod auth;
mod fleet;
mod headers;
mod limits;
mod options;
mod post;
mod resource_metadata;
mod response;
mod security;
mod server;
mod service;
mod session;
mod session_methods;
mod state;
mod traced;

pub use access::{Access, AccessError, MIN_TOKEN_LEN, TOKEN_ENV};
pub use auth::{AuthError, Authenticator, BearerTokens, Identity};
pub use options::{DEFAULT_MAX_BODY_BYTES, HttpOptions, LegacyMode};
pub use resource_metadata::{ProtectedResource, RESOURCE_METADATA_PATH};
pub use server::{HttpServer, serve_http};
pub use service::McpHttpService;

/// The `http` crate (1.x, the one axum and hyper use), for [`Authenticator`] implementations.
pub use ::http;
/// The boxed future an [`Authenticator`] returns.
pub use futures::future::BoxFuture;
