//! The project templates embedded from the crate's `templates/` folder (inside the crate, so
//! `cargo package` ships them; the workspace's top-level `templates` links to it), and their
//! rendering.
//!
//! See `templates/README.md` for the rules: `Cargo.toml.tmpl` is edited as TOML, `gitignore`
//! becomes `.gitignore`, and elsewhere only `{{name}}`, `{{crate_name}}` and
//! `{{description}}` are replaced.

use anyhow::{Context as _, Result, anyhow};
use clap::ValueEnum;
use include_dir::{Dir, DirEntry, include_dir};
use std::fmt;
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, InlineTable, Item, Table, value};

/// Every template folder, embedded at build time (`build.rs` reruns on changes).
static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

/// A project template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum Template {
    /// Two tools served over stdio (and HTTP with `--transport http`).
    Stdio,
    /// The same tools set up for Streamable HTTP, with tests of its Origin checks and
    /// legacy mode.
    Http,
    /// Tools on a FileService confined to a directory from arguments or the environment.
    Files,
    /// A tool with an interactive view (MCP Apps): the view in `ui/`, written with the
    /// official `@modelcontextprotocol/ext-apps` `App` class and built by `build.rs` with npm.
    App,
}

impl Template {
    /// Every template.
    pub const ALL: [Template; 4] = [
        Template::Stdio,
        Template::Http,
        Template::Files,
        Template::App,
    ];

    /// The template's folder name under `templates/`.
    pub fn name(self) -> &'static str {
        match self {
            Template::Stdio => "stdio",
            Template::Http => "http",
            Template::Files => "files",
            Template::App => "app",
        }
    }

    /// The template named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    fn dir(self) -> &'static Dir<'static> {
        TEMPLATES
            .get_dir(self.name())
            .expect("every template folder is embedded")
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the generated project gets `mcp-runtime` from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeSource {
    /// A version requirement from the registry (`"0.1.0"`).
    Version(String),
    /// A path dependency on a local crate folder (absolute).
    Path(PathBuf),
}

impl RuntimeSource {
    /// The version of the toolkit this CLI was built from.
    pub fn this_version() -> Self {
        RuntimeSource::Version(crate::VERSION.to_owned())
    }

    /// What a project depends on when neither `--runtime-path` nor `--runtime-version` is
    /// given: the `mcp-runtime` of the checkout this CLI was installed from, when there is
    /// one ([`crate::toolkit_checkout`]), else this CLI's version from crates.io.
    ///
    /// Decision: a CLI built from a checkout pairs with that checkout's runtime. Before the
    /// first release that is the only runtime there is (the README's `cargo mcp new weather`
    /// works as written); after it, a checkout may hold unreleased changes the CLI's
    /// templates already use. `--runtime-version` asks for the registry explicitly.
    pub fn default_source() -> Self {
        match crate::toolkit_checkout() {
            Some(checkout) => {
                let runtime = checkout.join("mcp-runtime");
                RuntimeSource::Path(runtime.canonicalize().unwrap_or(runtime))
            }
            None => Self::this_version(),
        }
    }

    /// A path dependency given `--runtime-path DIR`: `DIR` may be a toolkit checkout (with an
    /// `mcp-runtime/` folder) or the `mcp-runtime` crate folder itself.
    pub fn from_path(dir: &Path) -> Result<Self> {
        let dir = std::path::absolute(dir)
            .with_context(|| format!("cannot resolve --runtime-path {}", dir.display()))?;
        for candidate in [dir.join("mcp-runtime"), dir.clone()] {
            let manifest = candidate.join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let is_runtime = text
                .parse::<DocumentMut>()
                .ok()
                .and_then(|doc| doc.get("package")?.get("name")?.as_str().map(str::to_owned))
                .is_some_and(|name| name == "mcp-runtime");
            if is_runtime {
                let canonical = candidate.canonicalize().unwrap_or(candidate);
                return Ok(RuntimeSource::Path(canonical));
            }
        }
        Err(crate::error::usage(format!(
            "--runtime-path {}: neither it nor its `mcp-runtime/` folder holds the mcp-runtime crate",
            dir.display()
        )))
    }
}

/// What a template is rendered with.
#[derive(Debug, Clone)]
pub struct Vars {
    /// The package name.
    pub name: String,
    /// The one-line description.
    pub description: String,
    /// Where `mcp-runtime` comes from.
    pub runtime: RuntimeSource,
    /// Write an empty `[workspace]` so the project stands alone inside a workspace.
    pub standalone: bool,
    /// The project joins an enclosing workspace's `members`: cargo takes profiles from the
    /// workspace's root only (and warns about a member's), so the template's are left out.
    pub member: bool,
}

/// One file of a rendered project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// Path relative to the project root.
    pub path: PathBuf,
    /// The contents.
    pub contents: Vec<u8>,
}

/// Renders `template` into the files of a project (paths relative to its root, sorted).
pub fn render(template: Template, vars: &Vars) -> Result<Vec<RenderedFile>> {
    let root = template.dir();
    let mut files = Vec::new();
    collect(root, &mut |file| {
        let relative = file
            .path()
            .strip_prefix(root.path())
            .expect("files live under their template folder");
        let text = file.contents_utf8().ok_or_else(|| {
            anyhow!(
                "template file {}/{} is not UTF-8",
                template,
                relative.display()
            )
        })?;
        let (path, contents) = match relative.to_str() {
            Some("Cargo.toml.tmpl") => (
                PathBuf::from("Cargo.toml"),
                manifest(text, template, vars).with_context(|| {
                    format!("template {template}: Cargo.toml.tmpl is not valid TOML")
                })?,
            ),
            Some("gitignore") => (PathBuf::from(".gitignore"), text.to_owned()),
            _ => (relative.to_path_buf(), substitute(text, vars)),
        };
        files.push(RenderedFile {
            path,
            contents: contents.into_bytes(),
        });
        Ok(())
    })?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn collect(
    dir: &'static Dir<'static>,
    f: &mut dyn FnMut(&'static include_dir::File<'static>) -> Result<()>,
) -> Result<()> {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(d) => collect(d, f)?,
            DirEntry::File(file) => f(file)?,
        }
    }
    Ok(())
}

/// Replaces the three placeholders; nothing else.
fn substitute(text: &str, vars: &Vars) -> String {
    text.replace("{{name}}", &vars.name)
        .replace("{{crate_name}}", &super::name::crate_name(&vars.name))
        .replace("{{description}}", &vars.description)
}

/// The project's `Cargo.toml`: the template's, with the name, description, runtime
/// dependency, metadata and (for `--standalone`) an empty `[workspace]` set.
fn manifest(text: &str, template: Template, vars: &Vars) -> Result<String> {
    let mut doc: DocumentMut = text.parse()?;
    doc["package"]["name"] = value(vars.name.as_str());
    doc["package"]["description"] = value(vars.description.as_str());
    // What the template asks of the runtime stays: its features (the `http` template's
    // `redis`) and whether the runtime's defaults are off (the `stdio` template's: a stdio
    // server does not compile the HTTP stack).
    let asked = |key: &str| {
        doc["dependencies"]
            .get("mcp-runtime")
            .and_then(|d| d.get(key))
            .and_then(Item::as_value)
            .cloned()
    };
    let (features, default_features) = (asked("features"), asked("default-features"));
    let runtime = match (&vars.runtime, features) {
        (RuntimeSource::Version(v), None) if default_features.is_none() => value(v.as_str()),
        (source, features) => {
            let mut table = InlineTable::new();
            match source {
                RuntimeSource::Version(v) => {
                    table.insert("version", v.as_str().into());
                }
                // Forward slashes read the same on every platform TOML is edited on.
                RuntimeSource::Path(p) => {
                    table.insert("path", p.to_string_lossy().replace('\\', "/").into());
                }
            }
            if let Some(default_features) = default_features {
                table.insert("default-features", default_features);
            }
            if let Some(features) = features {
                table.insert("features", features);
            }
            value(table)
        }
    };
    doc["dependencies"]["mcp-runtime"] = runtime;
    let metadata = &mut doc["package"]["metadata"]["mcp"];
    metadata["template"] = value(template.name());
    metadata["cli-version"] = value(crate::VERSION);
    if vars.member {
        doc.remove("profile");
    }
    if vars.standalone {
        let mut workspace = Table::new();
        workspace.decor_mut().set_prefix(
            "\n# Not a member of the enclosing workspace: this project builds on its own.\n",
        );
        doc.insert("workspace", Item::Table(workspace));
    }
    Ok(doc.to_string())
}

/// `init --force` on a folder that has a `Cargo.toml`: the generated manifest merged into
/// the existing one instead of replacing it. The existing file wins wherever both speak:
/// its `[package]` (name, version, edition, …) and every dependency it already has stay as
/// they are, except that a dependency's `features` gain those the template's code needs.
/// What it lacks is added: dependencies, dev-dependencies, the description, the dev
/// profile, and `[package.metadata.mcp]` (always the template's). Comments and layout of the
/// existing file are kept (`toml_edit`).
pub fn merge_manifest(existing: &str, generated: &str) -> Result<String> {
    let mut doc: DocumentMut = existing
        .parse()
        .context("the existing Cargo.toml is not valid TOML")?;
    let generated: DocumentMut = generated.parse()?;
    for section in ["dependencies", "dev-dependencies"] {
        let Some(wanted) = generated.get(section).and_then(Item::as_table_like) else {
            continue;
        };
        if doc.get(section).is_none() {
            doc.insert(section, Item::Table(Table::new()));
        }
        let have = doc[section]
            .as_table_like_mut()
            .with_context(|| format!("`{section}` in the existing Cargo.toml is not a table"))?;
        for (name, item) in wanted.iter() {
            match have.get_mut(name) {
                None => {
                    have.insert(name, item.clone());
                }
                Some(existing) => add_features(existing, item),
            }
        }
    }
    let package = doc
        .get_mut("package")
        .and_then(Item::as_table_like_mut)
        .context("the existing Cargo.toml has no [package]")?;
    if package.get("description").is_none()
        && let Some(description) = generated["package"].get("description")
    {
        package.insert("description", description.clone());
    }
    let mut metadata = Table::new();
    metadata.set_implicit(true);
    if package.get("metadata").is_none() {
        package.insert("metadata", Item::Table(metadata));
    }
    if let Some(mcp) = generated["package"]
        .get("metadata")
        .and_then(|m| m.get("mcp"))
    {
        package
            .get_mut("metadata")
            .and_then(Item::as_table_like_mut)
            .context("`package.metadata` in the existing Cargo.toml is not a table")?
            .insert("mcp", mcp.clone());
    }
    if doc.get("profile").is_none()
        && let Some(profile) = generated.get("profile")
    {
        doc.insert("profile", profile.clone());
    }
    Ok(doc.to_string())
}

/// Adds to the dependency `existing` the features `wanted` lists that it lacks; a plain
/// version string becomes an inline table for that.
fn add_features(existing: &mut Item, wanted: &Item) {
    let Some(features) = wanted.get("features").and_then(Item::as_array) else {
        return;
    };
    if let Some(version) = existing.as_str().map(str::to_owned) {
        let mut table = InlineTable::new();
        table.insert("version", version.into());
        *existing = value(table);
    }
    let Some(table) = existing.as_table_like_mut() else {
        return;
    };
    if table.get("features").is_none() {
        table.insert("features", value(toml_edit::Array::new()));
    }
    let Some(have) = table.get_mut("features").and_then(Item::as_array_mut) else {
        return;
    };
    for feature in features.iter().filter_map(|f| f.as_str()) {
        if !have.iter().any(|h| h.as_str() == Some(feature)) {
            have.push(feature);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `Cargo.toml` `template` renders with `vars`, parsed.
    fn rendered_manifest(template: Template, vars: &Vars) -> DocumentMut {
        let files = render(template, vars).unwrap();
        let manifest = files
            .iter()
            .find(|f| f.path == Path::new("Cargo.toml"))
            .unwrap();
        std::str::from_utf8(&manifest.contents)
            .unwrap()
            .parse()
            .unwrap()
    }

    fn vars() -> Vars {
        Vars {
            name: "my-server".into(),
            description: "Says \"hi\"".into(),
            runtime: RuntimeSource::Version("0.1.0".into()),
            standalone: false,
            member: false,
        }
    }

    #[test]
    fn every_template_renders_every_placeholder() {
        for template in Template::ALL {
            let files = render(template, &vars()).unwrap();
            let paths: Vec<_> = files.iter().map(|f| f.path.clone()).collect();
            for expected in [
                "Cargo.toml",
                ".gitignore",
                "README.md",
                "src/lib.rs",
                "src/main.rs",
            ] {
                assert!(
                    paths.contains(&PathBuf::from(expected)),
                    "{template}: {expected}"
                );
            }
            for file in &files {
                let text = String::from_utf8(file.contents.clone()).unwrap();
                for placeholder in ["{{name}}", "{{crate_name}}", "{{description}}"] {
                    assert!(
                        !text.contains(placeholder),
                        "{template}: {} keeps {placeholder}",
                        file.path.display()
                    );
                }
            }
        }
    }

    #[test]
    fn the_manifest_is_edited_as_toml() {
        let doc = rendered_manifest(Template::Files, &vars());
        assert_eq!(doc["package"]["name"].as_str(), Some("my-server"));
        assert_eq!(doc["package"]["description"].as_str(), Some("Says \"hi\""));
        // The runtime with the features the template asks for, its defaults (the HTTP
        // stack among them) off.
        assert_eq!(
            doc["dependencies"]["mcp-runtime"]["version"].as_str(),
            Some("0.1.0")
        );
        assert_eq!(
            doc["dependencies"]["mcp-runtime"]["features"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>()),
            Some(vec!["launch", "skills"])
        );
        assert_eq!(
            doc["dependencies"]["mcp-runtime"]["default-features"].as_bool(),
            Some(false)
        );
        let http = rendered_manifest(Template::Http, &vars());
        assert!(
            http["dependencies"]["mcp-runtime"]
                .get("default-features")
                .is_none()
        );
        assert_eq!(
            doc["package"]["metadata"]["mcp"]["template"].as_str(),
            Some("files")
        );
        assert!(doc.get("workspace").is_none());
        assert_eq!(
            doc["profile"]["dev"]["debug"].as_str(),
            Some("line-tables-only")
        );
        let member = Vars {
            member: true,
            ..vars()
        };
        let doc = rendered_manifest(Template::Files, &member);
        assert!(
            doc.get("profile").is_none(),
            "a member's profiles are the workspace's"
        );

        let standalone = Vars {
            standalone: true,
            runtime: RuntimeSource::Path("/x/mcp-runtime".into()),
            ..vars()
        };
        let doc = rendered_manifest(Template::Stdio, &standalone);
        assert!(doc["workspace"].is_table());
        assert_eq!(
            doc["dependencies"]["mcp-runtime"]["path"].as_str(),
            Some("/x/mcp-runtime")
        );
    }

    #[test]
    fn init_merges_into_an_existing_manifest() {
        let existing = "# my crate\n[package]\nname = \"legacy-tool\"\nversion = \"2.3.0\"\nedition = \"2021\"\n\n[dependencies]\nregex = \"1\"\ntokio = \"1.40\"\nserde = { version = \"1.0.200\", features = [\"rc\"] }\n";
        let files = render(Template::Stdio, &vars()).unwrap();
        let generated = files
            .iter()
            .find(|f| f.path == Path::new("Cargo.toml"))
            .unwrap();
        let merged =
            merge_manifest(existing, std::str::from_utf8(&generated.contents).unwrap()).unwrap();
        assert!(merged.starts_with("# my crate\n[package]\nname = \"legacy-tool\"\nversion = \"2.3.0\"\nedition = \"2021\"\n"), "{merged}");
        let doc: DocumentMut = merged.parse().unwrap();
        assert_eq!(doc["dependencies"]["regex"].as_str(), Some("1"));
        assert_eq!(
            doc["dependencies"]["mcp-runtime"]["version"].as_str(),
            Some("0.1.0")
        );
        assert_eq!(
            doc["dependencies"]["tokio"]["version"].as_str(),
            Some("1.40")
        );
        let tokio: Vec<_> = doc["dependencies"]["tokio"]["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.as_str())
            .collect();
        assert!(
            tokio.contains(&"macros") && tokio.contains(&"rt-multi-thread"),
            "{merged}"
        );
        let serde: Vec<_> = doc["dependencies"]["serde"]["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.as_str())
            .collect();
        assert_eq!(serde, ["rc", "derive"]);
        assert_eq!(
            doc["dependencies"]["serde"]["version"].as_str(),
            Some("1.0.200")
        );
        assert_eq!(
            doc["package"]["metadata"]["mcp"]["template"].as_str(),
            Some("stdio")
        );
        assert_eq!(doc["package"]["description"].as_str(), Some("Says \"hi\""));
        assert!(doc["profile"]["dev"].is_table());
    }

    #[test]
    fn template_names_round_trip() {
        for template in Template::ALL {
            assert_eq!(Template::from_name(template.name()), Some(template));
        }
    }
}
