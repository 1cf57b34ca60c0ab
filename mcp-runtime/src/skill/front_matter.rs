//! A `SKILL.md`'s YAML front matter: parsed with the prompt files' parser (saphyr, with a
//! position on every node), checked against the Agent Skills rules the extension relies
//! on, and turned into the JSON object `skills/list` shows verbatim.

use crate::prompt::LoadProblem;
use crate::prompt::templates::source::{self, Pos, Val};
use crate::protocol::JsonObject;
use std::path::Path;

/// The prefix of `metadata` keys reserved for MCP extensions (none defined yet).
const RESERVED_METADATA_PREFIX: &str = "io.modelcontextprotocol/";

/// The longest skill name (Agent Skills specification).
const MAX_NAME_LEN: usize = 64;

/// Why `name` breaks the Agent Skills naming rules: 1 to 64 characters, lowercase ASCII
/// letters, digits and hyphens, no hyphen first, last or twice in a row.
pub(crate) fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Some("a skill name has 1 to 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("a skill name has only lowercase letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some("a skill name has no hyphen first, last, or twice in a row");
    }
    None
}

/// The front matter of the `SKILL.md` at `file` (its text), checked: an object with a
/// `name` (equal to `folder_name`, the skill's folder, when it has one) and a
/// `description`.
pub(crate) fn parse(
    file: &Path,
    text: &str,
    folder_name: Option<&str>,
) -> Result<JsonObject, Vec<LoadProblem>> {
    let at = |pos: Pos, message: String| LoadProblem::at(file, pos, message);
    let markdown = source::split_markdown(text).map_err(|e| vec![at(e.pos, e.message)])?;
    let Some((yaml, offset)) = markdown.front_matter.filter(|(y, _)| !y.trim().is_empty()) else {
        return Err(vec![at(
            Pos::START,
            "SKILL.md has no YAML front matter: it must begin with a `---` line, then \
             `name:` and `description:` lines, then a `---` line"
                .into(),
        )]);
    };
    let root = source::parse_yaml(yaml, offset).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| at(e.pos, e.message))
            .collect::<Vec<_>>()
    })?;
    if !matches!(root.value, Val::Object(_)) {
        return Err(vec![at(
            root.pos,
            format!(
                "the front matter is {}, not a mapping with `name` and `description`",
                root.kind()
            ),
        )]);
    }
    let mut problems = Vec::new();
    match root.get("name") {
        None => problems.push(at(
            root.pos,
            match folder_name {
                Some(f) => format!("the front matter has no `name` (the skill's folder is `{f}`, so `name: {f}`)"),
                None => "the front matter has no `name`".to_owned(),
            },
        )),
        Some(entry) => match &entry.value.value {
            Val::Str(s) if folder_name.is_none_or(|f| s.text == f) => {
                if let Some(why) = name_problem(&s.text) {
                    problems.push(at(entry.value.pos, format!("invalid skill name {:?}: {why}", s.text)));
                }
            }
            Val::Str(s) => problems.push(at(
                entry.value.pos,
                format!(
                    "the skill's name is {:?} but its folder is `{}`; they must be equal (the last segment of the skill's URI is its name)",
                    s.text,
                    folder_name.unwrap_or_default()
                ),
            )),
            _ => problems.push(at(
                entry.value.pos,
                format!("`name` is {}, not a string", entry.value.kind()),
            )),
        },
    }
    match root.get("description") {
        None => problems.push(at(
            root.pos,
            "the front matter has no `description` (what the skill does and when to use it)".into(),
        )),
        Some(entry) => match &entry.value.value {
            Val::Str(s) if !s.text.trim().is_empty() => {}
            _ => problems.push(at(
                entry.value.pos,
                "`description` must be a non-empty string".into(),
            )),
        },
    }
    if let Some(metadata) = root.get("metadata")
        && let Val::Object(entries) = &metadata.value.value
    {
        for e in entries
            .iter()
            .filter(|e| e.key.starts_with(RESERVED_METADATA_PREFIX))
        {
            problems.push(at(
                e.key_pos,
                format!(
                    "metadata key `{}`: keys under `{RESERVED_METADATA_PREFIX}` are reserved for MCP extensions",
                    e.key
                ),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    match root.to_json() {
        serde_json::Value::Object(map) => Ok(map),
        _ => unreachable!("checked to be a mapping above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        parse(Path::new("s/pdf/SKILL.md"), text, Some("pdf"))
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn a_front_matter_becomes_the_entry_object() {
        let fm = parse(
            Path::new("s/pdf/SKILL.md"),
            "---\nname: pdf\ndescription: Fills PDF forms.\nmetadata:\n  author: me\n---\n# PDF\n",
            Some("pdf"),
        )
        .unwrap();
        assert_eq!(
            serde_json::Value::Object(fm),
            serde_json::json!({"name": "pdf", "description": "Fills PDF forms.", "metadata": {"author": "me"}})
        );
    }

    #[test]
    fn every_problem_has_its_place() {
        assert_eq!(
            problems("# No front matter\n"),
            [
                "s/pdf/SKILL.md:1:1: SKILL.md has no YAML front matter: it must begin with a `---` line, then `name:` and `description:` lines, then a `---` line"
            ]
        );
        let found = problems("---\nname: pdf-tools\ndescription: \"\"\n---\n");
        assert!(
            found[0].starts_with(
                "s/pdf/SKILL.md:2:7: the skill's name is \"pdf-tools\" but its folder is `pdf`"
            ),
            "{found:?}"
        );
        assert!(
            found[1].starts_with("s/pdf/SKILL.md:3:14: `description` must be"),
            "{found:?}"
        );
        let found = problems("---\nname: [pdf\n---\n");
        assert!(found[0].starts_with("s/pdf/SKILL.md:"), "{found:?}");
        assert!(found[0].contains("invalid YAML"), "{found:?}");
        let found = problems(
            "---\nname: pdf\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: 1\n---\n",
        );
        assert!(
            found[0].starts_with("s/pdf/SKILL.md:5:3: metadata key"),
            "{found:?}"
        );
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for good in ["pdf", "pdf-processing", "a1", "x"] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in ["", "PDF", "-pdf", "pdf-", "pd--f", "pdf_x", &"a".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
    }
}
