//! The MCP Registry's `server.json` for a cargo project, and the README line the registry
//! reads to check that the crate belongs to the server.
//!
//! Decisions:
//!
//! - **Schema 2025-12-11** ([`SCHEMA_URL`], the registry's current one): `$schema` names it,
//!   and the tests validate against a vendored copy (`mcp-cli/tests/fixtures/registry/`).
//! - **One `cargo` package**: `registryType: "cargo"`, `registryBaseUrl: "https://crates.io"`
//!   (the only cargo registry the MCP Registry accepts), `identifier` the crate, `version`
//!   the crate's, `transport: stdio`, no `runtimeHint` (there is no `npx` for cargo: users
//!   `cargo install` once and clients run the binary). With `--bundle-url`, an `mcpb` package
//!   beside it, with the bundle's `fileSha256` (required for mcpb).
//! - **The name** is `io.github.<owner>/<crate>` when `repository` is on GitHub (the
//!   namespace `mcp-publisher login github` grants), else it must be given (`--name`); either
//!   way it is checked against the schema's pattern and length before anything is built.
//! - **The description** is Cargo.toml's; longer than the schema's 100 characters is an error
//!   (exit 2) naming `--description`, not a silent cut: a truncated sentence is what every
//!   registry browser would show.
//! - **An existing `server.json` is updated, not replaced**: the fields this command owns
//!   (`$schema`, `name`, `version`, `description`, the cargo and mcpb packages' identity) are
//!   set; everything a person added (`title`, `icons`, `environmentVariables`,
//!   `packageArguments`, `remotes`, other packages) is kept. A different `name` is a refusal
//!   (exit 4) unless `--force`: renaming a server is a new registry entry.
//! - **The `mcp-name:` line is visible text**, not an HTML comment: the registry checks the
//!   crate's README as crates.io renders it, and crates.io strips HTML comments (unlike PyPI
//!   and NuGet; the registry's `package-types` docs call this out). A comment with the right
//!   name is therefore turned into the visible line; a line naming another server is refused
//!   (exit 4) unless `--force`; a missing line is appended.

use super::package_info::{PackageInfo, github_repository};
use crate::error::{refused, usage};
use anyhow::Result;
use serde_json::{Map, Value, json};

/// `$schema` of the `server.json` written: the registry's current schema.
pub const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The only cargo registry the MCP Registry accepts.
pub const CRATES_IO: &str = "https://crates.io";

/// The schema's limit on `description`.
pub const DESCRIPTION_MAX: usize = 100;

/// The token the registry looks for in the README.
pub const MCP_NAME_TOKEN: &str = "mcp-name:";

/// The server's registry name: `explicit`, else `io.github.<owner>/<crate>` from a GitHub
/// `repository`; checked against the schema's pattern.
pub fn server_name(package: &PackageInfo, explicit: Option<&str>) -> Result<String> {
    let name = match explicit {
        Some(name) => name.to_owned(),
        None => match package.repository.as_deref().and_then(github_repository) {
            Some((owner, _)) => format!("io.github.{owner}/{}", package.name),
            None => {
                return Err(usage(format!(
                    "cannot derive the registry name of `{}`: Cargo.toml has no GitHub `repository`; \
                     pass --name (e.g. --name io.github.<you>/{}, or a reverse-DNS name of a domain you own)",
                    package.name, package.name
                )));
            }
        },
    };
    check_server_name(&name)?;
    Ok(name)
}

/// Checks `name` as the schema does: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to 200 characters.
pub fn check_server_name(name: &str) -> Result<()> {
    let valid_chars = |s: &str, extra: &[char]| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || extra.contains(&c))
    };
    let shaped = match name.split_once('/') {
        Some((namespace, rest)) => valid_chars(namespace, &[]) && valid_chars(rest, &['_']),
        None => false,
    };
    if !shaped || !(3..=200).contains(&name.len()) {
        return Err(usage(format!(
            "`{name}` is not a valid registry server name: it must look like `io.github.owner/server` \
             (reverse-DNS namespace of letters, digits, `.` and `-`; one `/`; a name of letters, digits, \
             `.`, `_` and `-`; 3 to 200 characters)"
        )));
    }
    Ok(())
}

/// The description for the registry: `explicit`, else Cargo.toml's; at most
/// [`DESCRIPTION_MAX`] characters.
pub fn description(package: &PackageInfo, explicit: Option<&str>) -> Result<String> {
    let text = explicit
        .map(|d| d.trim().to_owned())
        .or_else(|| package.description.clone())
        .filter(|d| !d.is_empty())
        .ok_or_else(|| {
            usage(format!(
                "`{}` has no description; set `description` in Cargo.toml or pass --description",
                package.name
            ))
        })?;
    let length = text.chars().count();
    if length > DESCRIPTION_MAX {
        return Err(usage(format!(
            "the description is {length} characters; the registry allows {DESCRIPTION_MAX}. \
             Shorten `description` in Cargo.toml or pass a shorter --description"
        )));
    }
    Ok(text)
}

/// A published bundle to list beside the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleEntry {
    /// Where the `.mcpb` will be downloadable (a GitHub or GitLab release asset).
    pub url: String,
    /// The bundle's SHA-256, lowercase hex.
    pub sha256: String,
}

/// Checks a `--bundle-url`: HTTPS, and containing `mcp` (the registry requires both).
pub fn check_bundle_url(url: &str) -> Result<()> {
    if !url.starts_with("https://") {
        return Err(usage(format!(
            "--bundle-url must be an https:// URL, not `{url}`"
        )));
    }
    if !url.contains("mcp") {
        return Err(usage(format!(
            "--bundle-url `{url}` must contain `mcp` (the registry requires it; a `.mcpb` file name does)"
        )));
    }
    Ok(())
}

/// What [`server_json`] was asked to write.
#[derive(Debug, Clone)]
pub struct ServerJsonInput<'a> {
    /// The package.
    pub package: &'a PackageInfo,
    /// The registry name.
    pub name: &'a str,
    /// The description.
    pub description: &'a str,
    /// A bundle to list as an `mcpb` package.
    pub bundle: Option<&'a BundleEntry>,
}

/// The `server.json` document: `existing` (a parsed previous file) updated, or a new one.
/// Refuses (exit 4) when `existing` names another server, unless `force`.
pub fn server_json(
    input: &ServerJsonInput<'_>,
    existing: Option<Value>,
    force: bool,
) -> Result<Value> {
    let mut doc = match existing {
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(refused(
                "server.json is not a JSON object; fix or remove it",
            ));
        }
        None => Map::new(),
    };
    if let Some(old) = doc.get("name").and_then(Value::as_str)
        && old != input.name
        && !force
    {
        return Err(refused(format!(
            "server.json names `{old}`, not `{}`; pass --force to rename the server (a new registry entry)",
            input.name
        )));
    }
    let package = input.package;
    doc.insert("$schema".into(), json!(SCHEMA_URL));
    doc.insert("name".into(), json!(input.name));
    doc.insert("description".into(), json!(input.description));
    doc.insert("version".into(), json!(package.version));
    if let Some(url) = &package.repository
        && !doc.contains_key("repository")
        && let Some((owner, repo)) = github_repository(url)
    {
        doc.insert(
            "repository".into(),
            json!({"url": format!("https://github.com/{owner}/{repo}"), "source": "github"}),
        );
    }
    if let Some(home) = &package.homepage
        && !doc.contains_key("websiteUrl")
        && home.starts_with("https://")
    {
        doc.insert("websiteUrl".into(), json!(home));
    }
    let mut packages = match doc.remove("packages") {
        Some(Value::Array(list)) => list,
        _ => Vec::new(),
    };
    upsert_package(
        &mut packages,
        "cargo",
        json!({
            "registryType": "cargo",
            "registryBaseUrl": CRATES_IO,
            "identifier": package.name,
            "version": package.version,
        }),
    );
    if let Some(bundle) = input.bundle {
        upsert_package(
            &mut packages,
            "mcpb",
            json!({
                "registryType": "mcpb",
                "identifier": bundle.url,
                "version": package.version,
                "fileSha256": bundle.sha256,
            }),
        );
    }
    doc.insert("packages".into(), Value::Array(packages));
    Ok(Value::Object(doc))
}

/// Sets `fields` on the first package of `registry_type` (keeping its other fields, and a
/// transport given by hand), or appends a new stdio one.
fn upsert_package(packages: &mut Vec<Value>, registry_type: &str, fields: Value) {
    let found = packages
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .find(|p| p.get("registryType").and_then(Value::as_str) == Some(registry_type));
    let entry = match found {
        Some(entry) => entry,
        None => {
            packages.push(Value::Object(Map::new()));
            packages
                .last_mut()
                .and_then(Value::as_object_mut)
                .expect("just pushed an object")
        }
    };
    if let Value::Object(fields) = fields {
        entry.extend(fields);
    }
    entry
        .entry("transport")
        .or_insert_with(|| json!({"type": "stdio"}));
}

/// What [`readme_with_mcp_name`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadmeChange {
    /// The visible line is there already.
    Present,
    /// The line was appended (the file is new when there was no README).
    Added,
    /// A hidden `<!-- mcp-name: … -->` (invisible on crates.io) became the visible line.
    MadeVisible,
    /// A line naming another server was replaced (`--force`).
    Replaced(String),
}

/// The visible README line for `name`.
pub fn mcp_name_line(name: &str) -> String {
    format!("{MCP_NAME_TOKEN} {name}")
}

/// Every `mcp-name:` in `text`: the name after it, and whether it sits inside an HTML
/// comment; with the byte range of the token and name (the whole comment when hidden).
fn mcp_names(text: &str) -> Vec<(String, bool, std::ops::Range<usize>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(MCP_NAME_TOKEN).map(|i| i + from) {
        let after = at + MCP_NAME_TOKEN.len();
        let rest = &text[after..];
        let skipped = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let name_start = after + skipped;
        let name_len = text[name_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "._-/".contains(c)))
            .unwrap_or(text.len() - name_start);
        let name = text[name_start..name_start + name_len].to_owned();
        let open = text[..at].rfind("<!--");
        let close = text[..at].rfind("-->");
        let hidden = match (open, close) {
            (Some(o), Some(c)) => o > c,
            (Some(_), None) => true,
            _ => false,
        };
        let range = match (hidden, open, text[at..].find("-->")) {
            (true, Some(o), Some(end)) => o..at + end + 3,
            _ => at..name_start + name_len,
        };
        found.push((name, hidden, range));
        from = name_start + name_len.max(1);
    }
    found
}

/// The README text with the visible `mcp-name: <name>` line, and what changed. `None` for
/// `current` means there is no README yet. Refuses (exit 4) when a line names another
/// server, unless `force`.
pub fn readme_with_mcp_name(
    current: Option<&str>,
    name: &str,
    force: bool,
) -> Result<(String, ReadmeChange)> {
    let line = mcp_name_line(name);
    let Some(text) = current else {
        return Ok((format!("{line}\n"), ReadmeChange::Added));
    };
    let names = mcp_names(text);
    if let Some((other, _, _)) = names.iter().find(|(n, _, _)| n != name)
        && !force
    {
        return Err(refused(format!(
            "the README says `{MCP_NAME_TOKEN} {other}`, but this server is `{name}`; \
             pass --force to replace it, or --name {other} if that is the server's name"
        )));
    }
    let visible_ours = names.iter().any(|(n, hidden, _)| n == name && !hidden);
    let replaced = names
        .iter()
        .find(|(n, _, _)| n != name)
        .map(|(n, ..)| n.clone());
    if visible_ours && replaced.is_none() {
        return Ok((text.to_owned(), ReadmeChange::Present));
    }
    // Rewrite back to front so earlier ranges stay valid: every other-named token (forced)
    // and every hidden one becomes the visible line once; later duplicates are dropped.
    let mut out = text.to_owned();
    let mut placed = visible_ours;
    let mut edits: Vec<(std::ops::Range<usize>, bool)> = names
        .iter()
        .filter(|(n, hidden, _)| n != name || *hidden)
        .map(|(_, hidden, range)| (range.clone(), *hidden))
        .collect();
    let count = edits.len();
    for (i, (range, _)) in edits.drain(..).rev().enumerate() {
        let first = i + 1 == count;
        let replacement = if first && !placed {
            placed = true;
            line.clone()
        } else {
            String::new()
        };
        out.replace_range(range, &replacement);
    }
    if !placed {
        if !out.ends_with('\n') && !out.is_empty() {
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&line);
        out.push('\n');
    }
    let change = match replaced {
        Some(other) => ReadmeChange::Replaced(other),
        None if names.iter().any(|(_, hidden, _)| *hidden) => ReadmeChange::MadeVisible,
        None => ReadmeChange::Added,
    };
    Ok((out, change))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{code, exit_code};
    use std::path::PathBuf;

    fn package(repository: Option<&str>) -> PackageInfo {
        PackageInfo {
            name: "weather".into(),
            version: "1.2.3".into(),
            description: Some("Weather for MCP clients".into()),
            authors: vec![],
            repository: repository.map(str::to_owned),
            homepage: None,
            documentation: None,
            license: None,
            keywords: vec![],
            readme: None,
            unpublishable: false,
            root: PathBuf::from("/p"),
            target_directory: PathBuf::from("/p/target"),
        }
    }

    #[test]
    fn the_name_comes_from_a_github_repository_or_must_be_given() {
        let p = package(Some("https://github.com/ada/weather-rs"));
        assert_eq!(server_name(&p, None).unwrap(), "io.github.ada/weather");
        assert_eq!(
            server_name(&p, Some("com.example/w")).unwrap(),
            "com.example/w"
        );
        let e = server_name(&package(None), None).unwrap_err();
        assert_eq!(exit_code(&e), code::USAGE);
        assert!(e.to_string().contains("--name"), "{e}");
        for bad in ["noslash", "a/b/c", "sp ace/x", "/x", "x/", "a_b/x"] {
            let e = check_server_name(bad).unwrap_err();
            assert_eq!(exit_code(&e), code::USAGE, "{bad}");
        }
    }

    #[test]
    fn a_long_description_is_an_error_not_a_cut() {
        let mut p = package(None);
        p.description = Some("x".repeat(101));
        let e = description(&p, None).unwrap_err();
        assert_eq!(exit_code(&e), code::USAGE);
        assert_eq!(description(&p, Some("short")).unwrap(), "short");
        p.description = Some("é".repeat(100));
        assert!(description(&p, None).is_ok(), "characters, not bytes");
    }

    #[test]
    fn an_existing_server_json_keeps_what_a_person_added() {
        let p = package(Some("https://github.com/ada/weather"));
        let input = ServerJsonInput {
            package: &p,
            name: "io.github.ada/weather",
            description: "Weather",
            bundle: None,
        };
        let existing = json!({
            "name": "io.github.ada/weather",
            "title": "Weather",
            "version": "1.0.0",
            "packages": [{
                "registryType": "cargo", "identifier": "weather", "version": "1.0.0",
                "transport": {"type": "stdio"},
                "environmentVariables": [{"name": "API_KEY", "isSecret": true}]
            }]
        });
        let doc = server_json(&input, Some(existing), false).unwrap();
        assert_eq!(doc["title"], "Weather");
        assert_eq!(doc["version"], "1.2.3");
        assert_eq!(doc["packages"].as_array().unwrap().len(), 1);
        assert_eq!(doc["packages"][0]["version"], "1.2.3");
        assert_eq!(
            doc["packages"][0]["environmentVariables"][0]["name"],
            "API_KEY"
        );
        assert_eq!(doc["repository"]["source"], "github");

        let renamed = json!({"name": "io.github.ada/other"});
        let e = server_json(&input, Some(renamed.clone()), false).unwrap_err();
        assert_eq!(exit_code(&e), code::REFUSED);
        assert!(server_json(&input, Some(renamed), true).is_ok());
    }

    #[test]
    fn the_readme_line_is_added_kept_made_visible_or_refused() {
        let name = "io.github.ada/weather";
        let (text, change) = readme_with_mcp_name(Some("# Weather\n"), name, false).unwrap();
        assert_eq!(change, ReadmeChange::Added);
        assert_eq!(text, "# Weather\n\nmcp-name: io.github.ada/weather\n");

        let (again, change) = readme_with_mcp_name(Some(&text), name, false).unwrap();
        assert_eq!(
            (again.as_str(), change),
            (text.as_str(), ReadmeChange::Present)
        );

        let hidden = "# W\n\n<!-- mcp-name: io.github.ada/weather -->\n";
        let (text, change) = readme_with_mcp_name(Some(hidden), name, false).unwrap();
        assert_eq!(change, ReadmeChange::MadeVisible);
        assert_eq!(text, "# W\n\nmcp-name: io.github.ada/weather\n");

        let other = "# W\n\nmcp-name: io.github.bob/weather\n";
        let e = readme_with_mcp_name(Some(other), name, false).unwrap_err();
        assert_eq!(exit_code(&e), code::REFUSED);
        assert!(e.to_string().contains("io.github.bob/weather"), "{e}");
        let (text, change) = readme_with_mcp_name(Some(other), name, true).unwrap();
        assert_eq!(
            change,
            ReadmeChange::Replaced("io.github.bob/weather".into())
        );
        assert_eq!(text, "# W\n\nmcp-name: io.github.ada/weather\n");

        let (text, change) = readme_with_mcp_name(None, name, false).unwrap();
        assert_eq!(
            (text.as_str(), change),
            ("mcp-name: io.github.ada/weather\n", ReadmeChange::Added)
        );
    }
}
