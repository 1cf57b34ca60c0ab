//! Loading a skills folder of 100 skills of 20 files each (`ServerBuilder::skills_dir`):
//! finding the skill folders, listing and reading every file through each skill's confined
//! `FileService`, parsing and checking each `SKILL.md`'s front matter, and computing every
//! file's SHA-256 digest and size; then building the server. A server pays this once at
//! start-up (and per change when watching); the target is under one second.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::Server;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

const SKILLS: usize = 100;
const FILES_PER_SKILL: usize = 20;

/// Writes `SKILLS` skills, each a `SKILL.md` and 19 more files (references, scripts and
/// templates in three subfolders) of a few KiB.
fn write_skills(dir: &Path) {
    let paragraph = "Fill each field from the source document; leave unknown ones empty.\n";
    for i in 0..SKILLS {
        let name = format!("skill-{i:03}");
        let root = dir.join(&name);
        for sub in ["references", "scripts", "templates"] {
            std::fs::create_dir_all(root.join(sub)).expect("a skill folder");
        }
        std::fs::write(
            root.join("SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Handles documents of kind {i}. Use when asked about kind {i}.\nlicense: Apache-2.0\nmetadata:\n  author: bench\n  version: \"1.{i}\"\n---\n\n# Kind {i}\n\nRead references/ first, then run scripts/.\n"
            ),
        )
        .expect("a SKILL.md");
        for f in 1..FILES_PER_SKILL {
            let sub = ["references", "scripts", "templates"][f % 3];
            let text = paragraph.repeat(20 + f * 5);
            std::fs::write(root.join(sub).join(format!("file-{f:02}.md")), text)
                .expect("a skill file");
        }
    }
}

fn load(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write_skills(dir.path());

    // Once, as a server starts (files just written, so in the page cache).
    let start = Instant::now();
    let server = Server::builder("bench", "1.0.0")
        .skills_dir(dir.path())
        .build()
        .expect("the generated skills load");
    let once = start.elapsed();
    assert_eq!(server.skills().uris().len(), SKILLS);
    eprintln!(
        "skills: {SKILLS} skills of {FILES_PER_SKILL} files loaded, checked and digested once in {once:.2?}"
    );

    let mut group = c.benchmark_group("skills");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("skills_dir_100x20", |b| {
        b.iter(|| {
            black_box(
                Server::builder("bench", "1.0.0")
                    .skills_dir(black_box(dir.path()))
                    .build()
                    .expect("loads"),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
