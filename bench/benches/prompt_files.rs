//! Loading a directory of 1,000 prompt files with `PromptTemplates::from_dir`: reading,
//! parsing (JSON, YAML and Markdown in equal parts), meta-validating and compiling each
//! input schema, compiling every template and checking its variables. A server pays this
//! once at start-up (and per changed file when watching); the target is well under a second.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::prompt::PromptTemplates;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

const FILES: usize = 1_000;

/// Writes `FILES` prompt files, a third of each format, each with three typed arguments,
/// several messages and a few template constructs.
fn write_files(dir: &Path) {
    for i in 0..FILES {
        let (name, text) = match i % 3 {
            0 => (
                format!("p{i:04}.json"),
                format!(
                    r#"{{
  // Generated prompt {i}.
  "name": "json_{i}",
  "description": "Summarizes document {i}.",
  "inputSchema": {{
    "type": "object",
    "properties": {{
      "topic": {{"type": "string", "description": "What to focus on"}},
      "words": {{"type": "integer", "minimum": 10, "maximum": 500, "default": 100}},
      "tone": {{"type": "string", "enum": ["plain", "formal", "friendly"]}}
    }},
    "required": ["topic"]
  }},
  "messages": [
    {{"role": "system", "content": [{{"type": "text", "text": "You summarize text."}}]}},
    {{"role": "user", "content": [
      {{"type": "text", "text": "Summarize {{{{ topic }}}} in {{{{ words }}}} words{{% if tone is defined %}}, {{{{ tone }}}}{{% endif %}}."}},
      {{"type": "resource_link", "uri": "docs://{i}/{{{{ topic }}}}", "name": "doc {i}"}}
    ]}}
  ]
}}"#
                ),
            ),
            1 => (
                format!("p{i:04}.yaml"),
                format!(
                    "name: yaml_{i}\ndescription: Reviews change {i}.\ninputSchema:\n  type: object\n  properties:\n    diff: {{type: string, description: The change}}\n    strict: {{type: boolean, default: false}}\n    focus: {{type: array, items: {{type: string}}}}\n  required: [diff]\nmessages:\n  - role: user\n    content: |\n      Review this change{{% if strict %}} strictly{{% endif %}}:\n\n      {{{{ diff }}}}\n      {{% for f in focus | default([]) %}}\n      - focus on {{{{ f }}}}\n      {{% endfor %}}\n  - role: assistant\n    content: I will review change {i}.\n"
                ),
            ),
            _ => (
                format!("p{i:04}.md"),
                format!(
                    "---\nname: md_{i}\ndescription: Explains topic {i}.\narguments:\n  - name: subject\n    description: The subject\n    required: true\n  - name: audience\n  - name: length\n---\n\nExplain {{{{ subject }}}}{{% if audience is defined %}} to {{{{ audience }}}}{{% endif %}}.\n{{% if length is defined %}}Keep it to {{{{ length }}}}.{{% endif %}}\n"
                ),
            ),
        };
        std::fs::write(dir.join(name), text).expect("write a prompt file");
    }
}

fn load(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write_files(dir.path());

    // Once, cold-ish (files just written, so in the page cache), as a server starts.
    let start = Instant::now();
    let templates = PromptTemplates::from_dir(dir.path()).expect("the generated files load");
    let once = start.elapsed();
    assert_eq!(templates.len(), FILES);
    eprintln!("prompt_files: {FILES} files loaded and validated once in {once:.2?}");

    let mut group = c.benchmark_group("prompt_files");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("from_dir_1000", |b| {
        b.iter(|| black_box(PromptTemplates::from_dir(black_box(dir.path())).expect("loads")))
    });
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
