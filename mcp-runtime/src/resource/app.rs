//! MCP Apps views: the `ui://` resources a tool's `_meta.ui.resourceUri` names
//! (see [`protocol::apps`](crate::protocol::apps) for the extension itself).
//!
//! An [`AppView`] is a [`Resource`] with the MIME type `text/html;profile=mcp-app` and a
//! typed `_meta.ui` ([`ResourceUi`]: CSP domains, permissions, domain, border) on both its
//! listing and its read contents. Its document comes from an [`Html`] source:
//!
//! - [`Html::inline`]: a string (a small view, or one generated at start-up);
//! - [`Html::file`]: a file read at every `resources/read`, so an edit shows at the next
//!   render (development, or a view shipped beside the binary);
//! - [`Html::folder`]: the output folder of the front-end's build (`dist/`), whose
//!   `index.html` is served;
//! - [`app_html!`](crate::app_html): a file embedded in the binary by release builds and
//!   read from disk by debug builds (`cargo mcp dev` picks up a rebuilt view without
//!   restarting the server).
//!
//! Hosts render one HTML document in a sandboxed iframe (`srcdoc`, or a blob on a
//! different origin): relative `<script src>` and `<link href>` have nothing to load from.
//! Build the view into a single file (Vite with `vite-plugin-singlefile`, as the official
//! `ext-apps` examples do), or load assets from origins listed in
//! [`Csp::resource_domains`](crate::protocol::apps::Csp::resource_domains).
//!
//! ```
//! use mcp_runtime::prelude::*;
//! use mcp_runtime::protocol::apps::Csp;
//! use mcp_runtime::resource::{AppView, Html};
//! use serde_json::json;
//!
//! let view = AppView::new("ui://weather/forecast", Html::inline("<!doctype html><p>Sunny</p>"))
//!     .with_title("Forecast")
//!     .with_csp(Csp::default().connect(["https://api.weather.example"]));
//! let forecast = tool_fn(
//!     ToolDefinition::new("forecast", "Tomorrow's weather.", json!({"type": "object"}))
//!         .with_app("ui://weather/forecast"),
//!     |_args, _cx| async { "Sunny, 21 °C" },
//! );
//! let server = Server::builder("weather", "1.0.0").resource(view).tool(forecast).build().unwrap();
//! let extensions = server.capabilities().extensions.as_ref().unwrap();
//! assert_eq!(extensions["io.modelcontextprotocol/ui"]["mimeTypes"][0], "text/html;profile=mcp-app");
//! ```

use super::{Resource, ResourceError};
use crate::context::RequestContext;
use crate::protocol::apps::{APP_MIME_TYPE, Csp, Permissions, ResourceUi, UI_SCHEME};
use crate::protocol::{JsonObject, ResourceContents, ResourceDefinition, TextResourceContents};
use futures::future::BoxFuture;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// Where a view's HTML document comes from.
#[derive(Clone)]
pub struct Html(Source);

#[derive(Clone)]
enum Source {
    Inline(Arc<str>),
    File(PathBuf),
}

impl Html {
    /// The document itself.
    pub fn inline(html: impl Into<Arc<str>>) -> Self {
        Self(Source::Inline(html.into()))
    }

    /// A file, read at every `resources/read` (an edit shows at the next render). A missing
    /// or unreadable file fails that read with a message naming the path; the server keeps
    /// serving.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self(Source::File(path.into()))
    }

    /// The `index.html` of a folder built by the front-end's tooling (`ui/dist`), read at
    /// every `resources/read`.
    pub fn folder(dir: impl Into<PathBuf>) -> Self {
        Self(Source::File(dir.into().join("index.html")))
    }

    /// The file it is read from, if it is read from one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match &self.0 {
            Source::Inline(_) => None,
            Source::File(path) => Some(path),
        }
    }

    async fn load(&self) -> Result<Arc<str>, ResourceError> {
        match &self.0 {
            Source::Inline(html) => Ok(html.clone()),
            Source::File(path) => {
                let bytes = read_file(path.clone()).await.map_err(|e| {
                    ResourceError::failed(format!(
                        "the view {} cannot be read: {e}",
                        path.display()
                    ))
                })?;
                String::from_utf8(bytes).map(Into::into).map_err(|_| {
                    ResourceError::failed(format!("the view {} is not UTF-8", path.display()))
                })
            }
        }
    }
}

/// Reads a view's file off the runtime's threads. A plain read: the path is the server
/// author's, not a client's, so `FileService` confinement does not apply.
async fn read_file(path: PathBuf) -> std::io::Result<Vec<u8>> {
    match tokio::task::spawn_blocking(move || std::fs::read(path)).await {
        Ok(read) => read,
        Err(join) => Err(std::io::Error::other(join)),
    }
}

impl fmt::Debug for Html {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::Inline(html) => write!(f, "Html::inline({} bytes)", html.len()),
            Source::File(path) => write!(f, "Html::file({})", path.display()),
        }
    }
}

/// Embeds a view's HTML file (a path relative to the crate's `Cargo.toml`) in release
/// builds, and reads it from disk at every render in debug builds, so a rebuilt front-end
/// shows without rebuilding the server. Expands to an [`Html`].
///
/// ```ignore
/// let view = AppView::new("ui://weather/forecast", mcp_runtime::app_html!("ui/dist/index.html"));
/// ```
#[macro_export]
macro_rules! app_html {
    ($path:literal) => {{
        #[cfg(debug_assertions)]
        let html = $crate::resource::Html::file(
            ::std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join($path),
        );
        #[cfg(not(debug_assertions))]
        let html = $crate::resource::Html::inline(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/",
            $path
        )));
        html
    }};
}

/// An MCP Apps view: a `ui://` resource served as `text/html;profile=mcp-app` with its
/// `_meta.ui`. Register it like any resource (`ServerBuilder::resource`); its URI must start
/// with `ui://` (checked when it is registered).
#[derive(Debug, Clone)]
pub struct AppView {
    definition: ResourceDefinition,
    ui: ResourceUi,
    html: Html,
}

impl AppView {
    /// The view at `uri` (`ui://…`), named after the URI's path.
    pub fn new(uri: impl Into<String>, html: Html) -> Self {
        let uri = uri.into();
        let name = uri.strip_prefix(UI_SCHEME).unwrap_or(&uri).to_owned();
        Self {
            definition: ResourceDefinition::new(uri, name).with_mime_type(APP_MIME_TYPE),
            ui: ResourceUi::default(),
            html,
        }
    }

    /// With a programmatic name (by default, the URI without `ui://`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.definition.name = name.into();
        self
    }

    /// With a display title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.definition = self.definition.with_title(title);
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.definition = self.definition.with_description(description);
        self
    }

    /// With what the host lets the view do (CSP domains, permissions, domain, border), all
    /// at once.
    pub fn with_ui(mut self, ui: ResourceUi) -> Self {
        self.ui = ui;
        self
    }

    /// With the origins the host's Content Security Policy lets the view reach.
    pub fn with_csp(mut self, csp: Csp) -> Self {
        self.ui.csp = Some(csp);
        self
    }

    /// With the browser permissions the view asks for.
    pub fn with_permissions(mut self, permissions: Permissions) -> Self {
        self.ui.permissions = Some(permissions);
        self
    }

    /// With a dedicated origin for the view, in the host's format.
    pub fn with_domain(mut self, domain: impl Into<String>) -> Self {
        self.ui.domain = Some(domain.into());
        self
    }

    /// With whether the host should draw a border and background around the view.
    pub fn with_prefers_border(mut self, prefers_border: bool) -> Self {
        self.ui.prefers_border = Some(prefers_border);
        self
    }

    /// The view's `_meta.ui`.
    pub fn ui(&self) -> &ResourceUi {
        &self.ui
    }

    /// The view's URI.
    pub fn uri(&self) -> &str {
        &self.definition.uri
    }

    fn meta(&self) -> Option<JsonObject> {
        let ui = serde_json::to_value(&self.ui).expect("a ResourceUi serializes");
        let empty = ui.as_object().is_some_and(JsonObject::is_empty);
        (!empty).then(|| JsonObject::from_iter([("ui".to_owned(), ui)]))
    }
}

impl Resource for AppView {
    fn definition(&self) -> ResourceDefinition {
        let mut definition = self.definition.clone();
        definition.meta = self.meta();
        definition
    }

    fn read(
        &self,
        _cx: RequestContext,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, ResourceError>> {
        let html = self.html.clone();
        let uri = self.definition.uri.clone();
        let meta = self.meta();
        Box::pin(async move {
            let text = html.load().await?;
            let mut contents = TextResourceContents::new(uri, &*text).with_mime_type(APP_MIME_TYPE);
            contents.meta = meta;
            Ok(vec![contents.into()])
        })
    }
}
