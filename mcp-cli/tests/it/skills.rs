//! `list` and `read` against a server of skills (the skills extension): `conformance-server`
//! serving `examples/skills/` over stdio, in both eras.

use crate::support::*;
use serde_json::Value;
use std::process::Output;

fn target() -> Vec<String> {
    let bin = mcp_tests::example_bin("conformance-server");
    let skills = mcp_tests::workspace_root().join("examples/skills");
    vec![
        "--command".into(),
        bin.to_string_lossy().into_owned(),
        "--skills-dir".into(),
        skills.to_string_lossy().into_owned(),
    ]
}

fn run(args: &[&str], era: &str) -> Output {
    output(cargo_mcp().args(args).args(["--era", era]).args(target()))
}

#[test]
fn list_shows_the_skills_and_read_reads_their_files() {
    let skills = mcp_tests::workspace_root().join("examples/skills");
    let forms = std::fs::read_to_string(skills.join("pdf-processing/references/FORMS.md")).unwrap();
    let skill_md = std::fs::read_to_string(skills.join("pdf-processing/SKILL.md")).unwrap();
    for era in ["legacy", "modern"] {
        let out = run(&["list"], era);
        assert!(out.status.success(), "{era}: {}", show(&out));
        let text = stdout(&out);
        assert!(text.contains(", 2 skills (protocol "), "{era}: {text}");
        assert!(text.contains("\nSkills:\nURI "), "{era}: {text}");
        let section = text.split("\nSkills:\n").nth(1).unwrap_or_default();
        let row = |uri: &str| {
            section
                .lines()
                .find(|l| l.starts_with(uri))
                .unwrap_or_else(|| panic!("{era}: no {uri} row in {text}"))
                .split_whitespace()
                .skip(1)
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(row("skill://pdf-processing/SKILL.md"), "3 files,", "{era}");
        assert_eq!(
            row("skill://acme/release-notes/SKILL.md"),
            "2 files,",
            "{era}"
        );

        let out = run(&["list", "--json"], era);
        let json: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        let uris: Vec<&str> = json["skills"]
            .as_array()
            .unwrap_or_else(|| panic!("{era}: no skills in {json}"))
            .iter()
            .map(|s| s["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            [
                "skill://acme/release-notes/SKILL.md",
                "skill://pdf-processing/SKILL.md"
            ]
        );
        assert!(
            json["skills"][1]["resources"][0]["digest"]
                .as_str()
                .is_some_and(|d| d.starts_with("sha256:") && d.len() == 71),
            "{json}"
        );

        let out = run(&["read", "skill://pdf-processing/references/FORMS.md"], era);
        assert!(out.status.success(), "{era}: {}", show(&out));
        assert_eq!(stdout(&out).trim_end(), forms.trim_end(), "{era}");
        let out = run(&["read", "skill://pdf-processing/SKILL.md"], era);
        assert_eq!(stdout(&out).trim_end(), skill_md.trim_end(), "{era}");

        // A file no skill has is "no such resource" (exit 2), like any other URI.
        let out = run(&["read", "skill://pdf-processing/nope.md"], era);
        assert_eq!(out.status.code(), Some(2), "{era}: {}", show(&out));
        assert!(
            stderr(&out).contains("templates and skills"),
            "{}",
            show(&out)
        );
    }
}
