//! The MCP Apps extension (SEP-1865, `io.modelcontextprotocol/ui`, stable since 2026-01-26):
//! a tool names an interactive HTML view that the host renders in a sandboxed iframe.
//!
//! - A tool's definition carries `_meta.ui = { resourceUri, visibility? }`
//!   ([`ToolUi`]; set with [`ToolDefinition::with_app`]). The flat
//!   `_meta["ui/resourceUri"]` of the drafts is deprecated and will be removed before GA;
//!   this crate writes only the nested form and reads both.
//! - The view is a resource with a `ui://` URI and the MIME type [`APP_MIME_TYPE`], whose
//!   read contents carry `_meta.ui` ([`ResourceUi`]: the CSP domains the host allows,
//!   the browser permissions it grants, a dedicated origin, a border preference).
//! - A client that renders views declares
//!   `capabilities.extensions["io.modelcontextprotocol/ui"] = { mimeTypes: [...] }`
//!   ([`client_supports_apps`]); a server that serves them declares the same key with the
//!   MIME types it serves.
//! - `visibility` says who may call a tool: `model` (the agent) and/or `app` (the view,
//!   through the host). The host enforces it between the two; a server only learns whether
//!   the client renders apps at all, so this crate lists an app-only tool (and lets it be
//!   called) only to a client that declared the extension, and to any other client it is
//!   absent and refused as an unknown tool is.

use super::capabilities::ClientCapabilities;
use super::common::JsonObject;
use super::tools::ToolDefinition;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The extension identifier, the key under `capabilities.extensions`.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP App view (an HTML5 document).
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme every view's URI has.
pub const UI_SCHEME: &str = "ui://";

/// The deprecated flat key of a tool's view, read for compatibility only.
const FLAT_RESOURCE_URI: &str = "ui/resourceUri";

/// Who may call a tool that has a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The agent: the tool is in the model's tool list.
    Model,
    /// The view: the app may call it through the host's bridge.
    App,
}

/// A tool's `_meta.ui`: the view it is shown with and who may call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUi {
    /// The view's `ui://` URI, served as a resource by the same server.
    pub resource_uri: String,
    /// Who may call the tool; absent means both (`["model", "app"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
}

impl ToolUi {
    /// A view for a tool both the model and the app may call.
    pub fn new(resource_uri: impl Into<String>) -> Self {
        Self {
            resource_uri: resource_uri.into(),
            visibility: None,
        }
    }

    /// Whether only the app may call the tool (`visibility` without `model`).
    pub fn app_only(&self) -> bool {
        self.visibility
            .as_ref()
            .is_some_and(|v| !v.contains(&Visibility::Model))
    }

    /// What is wrong with this declaration, if anything: a URI that is not `ui://`, an
    /// empty `visibility` (no one could call the tool).
    pub fn problem(&self) -> Option<String> {
        if !self.resource_uri.starts_with(UI_SCHEME) || self.resource_uri.len() == UI_SCHEME.len() {
            return Some(format!(
                "the view {:?} is not a `ui://` URI (MCP Apps serve views as `ui://` resources)",
                self.resource_uri
            ));
        }
        if self.visibility.as_ref().is_some_and(Vec::is_empty) {
            return Some(
                "an empty `visibility` lets no one call the tool; list `model`, `app` or both"
                    .to_owned(),
            );
        }
        None
    }
}

/// A view's `_meta.ui` on its `resources/read` contents (and its listing): what the host
/// lets the sandboxed document do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceUi {
    /// The origins the host adds to the iframe's Content Security Policy. Without it the
    /// host applies the spec's restrictive default: no network access, inline scripts and
    /// styles only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<Csp>,
    /// The browser permissions the view asks for (the host may refuse them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// A dedicated origin for the view, in the host's own format (for APIs that allow-list
    /// an origin); hosts may ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border and background around the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// The origins a view may reach, each becoming CSP sources in the host's iframe.
///
/// Origins are written like `https://api.example.com` (a wildcard subdomain
/// `https://*.example.com` is allowed by CSP); an empty list is the same as none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Csp {
    /// `fetch`, XHR and WebSocket targets (`connect-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    /// Images, scripts, styles, fonts and media (`img-src`, `script-src`, `style-src`,
    /// `font-src`, `media-src`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    /// Nested iframes (`frame-src`); without it the view may not embed frames.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    /// Document base URIs (`base-uri`); without it only the view's own origin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

impl Csp {
    /// Adds origins the view may `fetch` or open a WebSocket to.
    pub fn connect<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.connect_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins the view may load images, scripts, styles, fonts and media from.
    pub fn resources<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.resource_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins the view may embed in frames.
    pub fn frames<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.frame_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins the view may use as its document base.
    pub fn base_uris<I: IntoIterator<Item = S>, S: Into<String>>(mut self, origins: I) -> Self {
        self.base_uri_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }
}

/// Browser permissions a view asks for; each granted one becomes the iframe's
/// `allow` attribute entry. On the wire each is an empty object when asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Permissions {
    /// The camera.
    pub camera: bool,
    /// The microphone.
    pub microphone: bool,
    /// The location.
    pub geolocation: bool,
    /// Writing to the clipboard.
    pub clipboard_write: bool,
}

impl Permissions {
    /// The wire names of the permissions asked for, in the spec's order.
    fn asked(&self) -> impl Iterator<Item = &'static str> {
        [
            (self.camera, "camera"),
            (self.microphone, "microphone"),
            (self.geolocation, "geolocation"),
            (self.clipboard_write, "clipboardWrite"),
        ]
        .into_iter()
        .filter_map(|(asked, name)| asked.then_some(name))
    }

    /// Asks for the camera.
    pub fn camera(mut self) -> Self {
        self.camera = true;
        self
    }

    /// Asks for the microphone.
    pub fn microphone(mut self) -> Self {
        self.microphone = true;
        self
    }

    /// Asks for the location.
    pub fn geolocation(mut self) -> Self {
        self.geolocation = true;
        self
    }

    /// Asks to write to the clipboard.
    pub fn clipboard_write(mut self) -> Self {
        self.clipboard_write = true;
        self
    }
}

impl Serialize for Permissions {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for name in self.asked() {
            map.serialize_entry(name, &JsonObject::new())?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Permissions {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Present (as `{}`, or anything else a lenient host wrote) means asked for; unknown
        // permissions of later revisions are ignored.
        let map = JsonObject::deserialize(deserializer)?;
        let asked = |name: &str| map.get(name).is_some_and(|v| !v.is_null());
        Ok(Self {
            camera: asked("camera"),
            microphone: asked("microphone"),
            geolocation: asked("geolocation"),
            clipboard_write: asked("clipboardWrite"),
        })
    }
}

/// Whether a client declared that it renders MCP Apps: the extension is in its
/// capabilities and, when it lists the MIME types it renders, [`APP_MIME_TYPE`] is one.
pub fn client_supports_apps(capabilities: &ClientCapabilities) -> bool {
    let Some(settings) = capabilities
        .extensions
        .as_ref()
        .and_then(|e| e.get(UI_EXTENSION))
    else {
        return false;
    };
    match settings.get("mimeTypes").and_then(Value::as_array) {
        Some(types) => types.iter().any(|t| t.as_str() == Some(APP_MIME_TYPE)),
        None => true,
    }
}

/// The `extensions` entry a server declares: the MIME types of the views it serves.
pub fn server_extension_settings() -> Value {
    serde_json::json!({ "mimeTypes": [APP_MIME_TYPE] })
}

impl ToolDefinition {
    /// Shows the tool with the view at `resource_uri` (a `ui://` URI that the same server
    /// serves): sets `_meta.ui.resourceUri`, keeping the rest of `_meta`.
    ///
    /// ```
    /// use mcp_runtime::protocol::ToolDefinition;
    /// use mcp_runtime::protocol::apps::Visibility;
    /// use serde_json::json;
    ///
    /// let tool = ToolDefinition::new("forecast", "The forecast.", json!({"type": "object"}))
    ///     .with_app("ui://weather/forecast")
    ///     .with_app_visibility([Visibility::App]);
    /// assert_eq!(
    ///     serde_json::to_value(&tool).unwrap()["_meta"]["ui"],
    ///     json!({"resourceUri": "ui://weather/forecast", "visibility": ["app"]})
    /// );
    /// assert!(tool.app().unwrap().app_only());
    /// ```
    pub fn with_app(mut self, resource_uri: impl Into<String>) -> Self {
        let mut ui = self.app().unwrap_or_else(|| ToolUi::new(""));
        ui.resource_uri = resource_uri.into();
        self.set_app(ui);
        self
    }

    /// Says who may call the tool (see [`Visibility`]); without it, both. Call after
    /// [`with_app`](Self::with_app).
    pub fn with_app_visibility(mut self, visibility: impl IntoIterator<Item = Visibility>) -> Self {
        let mut ui = self.app().unwrap_or_else(|| ToolUi::new(""));
        ui.visibility = Some(visibility.into_iter().collect());
        self.set_app(ui);
        self
    }

    /// The tool's view, if it has one: `_meta.ui`, or the deprecated flat
    /// `_meta["ui/resourceUri"]`.
    pub fn app(&self) -> Option<ToolUi> {
        let meta = self.meta.as_ref()?;
        if let Some(ui) = meta.get("ui") {
            return serde_json::from_value(ui.clone()).ok();
        }
        let flat = meta.get(FLAT_RESOURCE_URI)?.as_str()?;
        Some(ToolUi::new(flat))
    }

    fn set_app(&mut self, ui: ToolUi) {
        let meta = self.meta.get_or_insert_with(JsonObject::new);
        meta.remove(FLAT_RESOURCE_URI);
        meta.insert(
            "ui".to_owned(),
            serde_json::to_value(ui).expect("a ToolUi serializes"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn permissions_are_empty_objects_on_the_wire() {
        let p = Permissions::default().camera().clipboard_write();
        assert_eq!(
            serde_json::to_value(p).unwrap(),
            json!({"camera": {}, "clipboardWrite": {}})
        );
        let back: Permissions =
            serde_json::from_value(json!({"microphone": {}, "future": {}})).unwrap();
        assert_eq!(back, Permissions::default().microphone());
    }

    #[test]
    fn resource_ui_is_camel_case_and_skips_what_is_unset() {
        let ui = ResourceUi {
            csp: Some(Csp::default().connect(["https://api.example.com"])),
            prefers_border: Some(true),
            ..ResourceUi::default()
        };
        assert_eq!(
            serde_json::to_value(ui).unwrap(),
            json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
        );
    }

    #[test]
    fn a_client_supports_apps_when_it_declares_the_extension_with_the_type() {
        let caps = |ext: Value| ClientCapabilities {
            extensions: Some(serde_json::from_value(ext).unwrap()),
            ..ClientCapabilities::default()
        };
        assert!(!client_supports_apps(&ClientCapabilities::default()));
        assert!(client_supports_apps(&caps(json!({UI_EXTENSION: {}}))));
        assert!(client_supports_apps(&caps(
            json!({UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}})
        )));
        assert!(!client_supports_apps(&caps(
            json!({UI_EXTENSION: {"mimeTypes": ["text/html"]}})
        )));
        assert!(!client_supports_apps(&caps(json!({"io.example/x": {}}))));
    }

    #[test]
    fn the_flat_key_is_read_and_replaced_by_the_nested_one() {
        let mut tool = ToolDefinition::new("t", "T.", json!({"type": "object"}));
        tool.meta = Some(serde_json::from_value(json!({"ui/resourceUri": "ui://a"})).unwrap());
        assert_eq!(tool.app(), Some(ToolUi::new("ui://a")));
        let tool = tool.with_app_visibility([Visibility::Model, Visibility::App]);
        assert_eq!(
            serde_json::to_value(&tool).unwrap()["_meta"],
            json!({"ui": {"resourceUri": "ui://a", "visibility": ["model", "app"]}})
        );
    }

    #[test]
    fn problems_name_a_bad_uri_and_an_empty_visibility() {
        assert!(
            ToolUi::new("https://x/y")
                .problem()
                .unwrap()
                .contains("ui://")
        );
        assert!(ToolUi::new("ui://").problem().is_some());
        assert_eq!(ToolUi::new("ui://w/f").problem(), None);
        let nobody = ToolUi {
            visibility: Some(vec![]),
            ..ToolUi::new("ui://w/f")
        };
        assert!(nobody.problem().unwrap().contains("visibility"));
    }
}
