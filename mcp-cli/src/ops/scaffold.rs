//! `new` and `init`: render a template into a project, place it, and fit it into an
//! enclosing cargo workspace.
//!
//! `new` writes everything into a temporary folder beside the destination and renames it
//! into place, so a failure leaves nothing behind. `init` writes into an existing folder:
//! it lists the files it would overwrite and refuses unless forced, and restores what it
//! changed if a write fails. Nothing here prompts.

use super::name;
use super::template::{self, RenderedFile, RuntimeSource, Template, Vars};
use super::workspace::{Membership, Workspace, WorkspaceChange};
use super::write::{self, Mode};
use crate::error::{refused, usage};
use anyhow::{Context as _, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Version control for a new project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Vcs {
    /// `git init` (unless already inside a git work tree, when not asked explicitly).
    Git,
    /// No repository.
    None,
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct ProjectOptions {
    /// The project folder (created by `new`, existing for `init`).
    pub path: PathBuf,
    /// The package name (default: the folder's name).
    pub name: Option<String>,
    /// The template.
    pub template: Template,
    /// The one-line description.
    pub description: Option<String>,
    /// Where `mcp-runtime` comes from.
    pub runtime: RuntimeSource,
    /// Version control: `None` means git when available and not already in a repository.
    pub vcs: Option<Vcs>,
    /// Stand alone inside an enclosing workspace instead of joining its `members`.
    pub standalone: bool,
}

/// A generated project.
#[derive(Debug, Clone)]
pub struct Created {
    /// Its folder (absolute).
    pub dir: PathBuf,
    /// The package name.
    pub name: String,
    /// The template it came from.
    pub template: Template,
    /// The files written, relative to `dir`.
    pub files: Vec<PathBuf>,
    /// Files that existed and were overwritten (`init --force`).
    pub overwritten: Vec<PathBuf>,
    /// What happened to an enclosing workspace.
    pub workspace: WorkspaceChange,
    /// Whether a git repository was initialized.
    pub git_initialized: bool,
    /// Where the project gets `mcp-runtime` from.
    pub runtime: RuntimeSource,
    /// `init` merged the template into an existing `Cargo.toml`: the copy of the old one.
    pub merged_manifest: Option<PathBuf>,
}

struct Plan {
    dir: PathBuf,
    name: String,
    files: Vec<RenderedFile>,
    workspace: Option<Workspace>,
    join_workspace: bool,
    change: WorkspaceChange,
}

fn plan(options: &ProjectOptions, dir: PathBuf) -> Result<Plan> {
    let name = match &options.name {
        Some(name) => name.clone(),
        None => dir
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_owned)
            .ok_or_else(|| {
                usage(format!(
                    "cannot take a package name from {}; pass --name",
                    dir.display()
                ))
            })?,
    };
    name::validate(&name).map_err(|e| {
        let origin = if options.name.is_some() {
            ""
        } else {
            " (the folder's name)"
        };
        usage(format!("invalid package name{origin}: {e}"))
    })?;
    let description = options
        .description
        .clone()
        .unwrap_or_else(|| format!("{name}: an MCP server"));
    if description.chars().any(char::is_control) {
        return Err(usage("--description must be one line of text"));
    }
    let parent = dir.parent().unwrap_or(&dir);
    let workspace = Workspace::find_enclosing(parent)?;
    let (join_workspace, change) = match &workspace {
        None => (false, WorkspaceChange::None),
        Some(ws) if options.standalone => (false, WorkspaceChange::Standalone(ws.root.clone())),
        Some(ws) => match ws.membership(&dir) {
            Membership::Member | Membership::Excluded => {
                (false, WorkspaceChange::AlreadyCovered(ws.root.clone()))
            }
            Membership::Outside => (true, WorkspaceChange::AddedMember(ws.root.clone())),
        },
    };
    let vars = Vars {
        name: name.clone(),
        description,
        runtime: options.runtime.clone(),
        standalone: options.standalone && workspace.is_some(),
        // Joining now, or already a member through `members`: the workspace's profiles rule.
        member: join_workspace
            || (!options.standalone
                && workspace
                    .as_ref()
                    .is_some_and(|ws| matches!(ws.membership(&dir), Membership::Member))),
    };
    let files = template::render(options.template, &vars)?;
    Ok(Plan {
        dir,
        name,
        files,
        workspace,
        join_workspace,
        change,
    })
}

/// The project's real place: absolute, with `..` and symlinks resolved through the part of
/// the path that exists. Without this, `../weather` typed inside a workspace looks like a
/// folder below it (lexically `workspace/../weather`), and the workspace would wrongly take
/// it as a member.
fn absolute(path: &Path) -> Result<PathBuf> {
    let abs =
        std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))?;
    let mut existing = abs.as_path();
    let mut missing = Vec::new();
    while !existing.exists() {
        let Some(parent) = existing.parent() else {
            break;
        };
        missing.push(existing.components().next_back());
        existing = parent;
    }
    let mut real = existing
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", existing.display()))?;
    for component in missing.into_iter().rev().flatten() {
        match component {
            std::path::Component::ParentDir => {
                real.pop();
            }
            std::path::Component::CurDir => {}
            other => real.push(other),
        }
    }
    Ok(real)
}

fn is_empty_dir(path: &Path) -> Result<bool> {
    Ok(std::fs::read_dir(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .next()
        .is_none())
}

/// Writes the files below `root`; `init` writes into a folder that may hold planted links,
/// so each is replaced (never written through) and must resolve inside `root`.
fn write_files(root: &Path, files: &[RenderedFile]) -> Result<()> {
    for file in files {
        let path = root.join(&file.path);
        write::replace_inside(root, &path, &file.contents, Mode::Default)?;
    }
    Ok(())
}

/// Whether `dir` is inside a git work tree.
fn inside_git_work_tree(dir: &Path) -> bool {
    Command::new("git")
        .args(["rev-parse", "--is-inside-work-tree"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether to `git init`, as cargo decides: when asked, or by default when git is there
/// and the project is not already inside a work tree.
fn wants_git(vcs: Option<Vcs>, parent: &Path) -> Result<bool> {
    match vcs {
        Some(Vcs::None) => Ok(false),
        Some(Vcs::Git) => {
            if !git_available() {
                bail!("--vcs git: the `git` command is not available");
            }
            Ok(true)
        }
        None => Ok(git_available() && !inside_git_work_tree(parent)),
    }
}

fn git_init(dir: &Path) -> Result<()> {
    let out = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git init failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn join_workspace(plan: &mut Plan) -> Result<()> {
    if plan.join_workspace
        && let Some(ws) = &mut plan.workspace
    {
        ws.add_member(&plan.dir).with_context(|| {
            format!(
                "cannot add the project to the workspace at {} (or pass --standalone)",
                ws.root.display()
            )
        })?;
    }
    Ok(())
}

/// `cargo mcp new`: creates `options.path` (which must not exist, or be an empty folder).
pub fn new_project(options: &ProjectOptions) -> Result<Created> {
    let dir = absolute(&options.path)?;
    let shown = options.path.display();
    if dir.exists() {
        if !dir.is_dir() {
            return Err(refused(format!("`{shown}` exists and is not a folder")));
        }
        if !is_empty_dir(&dir)? {
            return Err(refused(format!(
                "`{shown}` already exists and is not empty; use `cargo mcp init {shown}` to add a server to it"
            )));
        }
    }
    let mut plan = plan(options, dir.clone())?;
    let parent = dir
        .parent()
        .context("the project folder has no parent")?
        .to_path_buf();
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let git = wants_git(options.vcs, &parent)?;

    // Everything is written to a temporary folder beside the destination (same file
    // system), then renamed into place: a failure up to the rename leaves nothing.
    let mut staging = tempfile::Builder::new();
    staging.prefix(".cargo-mcp-new-");
    // Temporary folders are private (0700) by default; the project gets the usual mode
    // (0777 less the umask), as `mkdir` would give it.
    #[cfg(unix)]
    staging.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o777));
    let staging = staging
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a temporary folder in {}", parent.display()))?;
    write_files(staging.path(), &plan.files)?;
    if git {
        git_init(staging.path())?;
    }
    if dir.exists() {
        std::fs::remove_dir(&dir).with_context(|| format!("cannot replace {}", dir.display()))?;
    }
    std::fs::rename(staging.path(), &dir)
        .with_context(|| format!("cannot move the project into {}", dir.display()))?;
    // The folder now lives at `dir`; nothing is left to clean up at the old path.
    let _ = staging.keep();

    if let Err(e) = join_workspace(&mut plan) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(e);
    }
    Ok(Created {
        dir,
        name: plan.name,
        template: options.template,
        files: plan.files.into_iter().map(|f| f.path).collect(),
        overwritten: Vec::new(),
        workspace: plan.change,
        git_initialized: git,
        runtime: options.runtime.clone(),
        merged_manifest: None,
    })
}

/// The files of `options.path` that `init` would overwrite.
pub fn init_conflicts(options: &ProjectOptions) -> Result<Vec<PathBuf>> {
    let dir = absolute(&options.path)?;
    let dir = dir.canonicalize().unwrap_or(dir);
    let plan = plan(options, dir.clone())?;
    Ok(plan
        .files
        .iter()
        .filter(|f| dir.join(&f.path).exists())
        .map(|f| f.path.clone())
        .collect())
}

/// `cargo mcp init`: generates into the existing folder `options.path`, refusing to
/// overwrite files unless `force`.
pub fn init_project(options: &ProjectOptions, force: bool) -> Result<Created> {
    let dir = absolute(&options.path)?;
    // `.` and the like name no folder: take the real one.
    let dir = dir.canonicalize().unwrap_or(dir);
    let shown = options.path.display();
    if !dir.is_dir() {
        return Err(usage(format!(
            "`{shown}` is not a folder; create it first, or use `cargo mcp new {shown}`"
        )));
    }
    let manifest = dir.join("Cargo.toml");
    if let Ok(text) = std::fs::read_to_string(&manifest)
        && text
            .parse::<toml_edit::DocumentMut>()
            .is_ok_and(|d| d.contains_key("workspace") && !d.contains_key("package"))
    {
        return Err(refused(format!(
            "`{shown}` is the root of a cargo workspace; create the server in a folder below it with `cargo mcp new`"
        )));
    }
    // An existing package keeps its name (the generated code names its crate), unless
    // --name says otherwise; its Cargo.toml is merged into, not replaced (with --force).
    let existing_manifest = std::fs::read_to_string(&manifest).ok();
    let existing_name = existing_manifest
        .as_deref()
        .and_then(|text| text.parse::<toml_edit::DocumentMut>().ok())
        .and_then(|doc| doc.get("package")?.get("name")?.as_str().map(str::to_owned));
    let named;
    let options = match (&options.name, existing_name) {
        (None, Some(name)) => {
            named = ProjectOptions {
                name: Some(name),
                ..options.clone()
            };
            &named
        }
        _ => options,
    };
    let mut plan = plan(options, dir.clone())?;
    let overwritten: Vec<PathBuf> = plan
        .files
        .iter()
        .filter(|f| dir.join(&f.path).exists())
        .map(|f| f.path.clone())
        .collect();
    if !overwritten.is_empty() && !force {
        let list: Vec<String> = overwritten
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        return Err(refused(format!(
            "would overwrite {} file{} in `{shown}`: {}; pass --force to overwrite {}",
            list.len(),
            if list.len() == 1 { "" } else { "s" },
            list.join(", "),
            if list.len() == 1 { "it" } else { "them" },
        )));
    }
    let git = wants_git(options.vcs, &dir)? && !dir.join(".git").exists();
    let merged_manifest = match &existing_manifest {
        Some(existing) => {
            let file = plan
                .files
                .iter_mut()
                .find(|f| f.path == Path::new("Cargo.toml"))
                .expect("every template has a Cargo.toml");
            let generated = String::from_utf8_lossy(&file.contents).into_owned();
            let merged = template::merge_manifest(existing, &generated)
                .with_context(|| format!("cannot merge into {}", manifest.display()))?;
            file.contents = merged.into_bytes();
            let backup = super::install::backup_path(&manifest);
            write::replace_inside(&dir, &backup, existing.as_bytes(), Mode::Default)
                .with_context(|| format!("cannot write the backup {}", backup.display()))?;
            Some(backup)
        }
        None => None,
    };

    // Keep what is replaced, to put it back if a later write fails.
    let mut previous = Vec::new();
    for file in &plan.files {
        let path = dir.join(&file.path);
        previous.push((path.clone(), std::fs::read(&path).ok()));
    }
    let restore = |previous: &[(PathBuf, Option<Vec<u8>>)]| {
        for (path, old) in previous {
            match old {
                Some(bytes) => {
                    let _ = write::replace(path, bytes, Mode::Default);
                }
                None => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
    };
    let written = write_files(&dir, &plan.files)
        .and_then(|()| join_workspace(&mut plan))
        .and_then(|()| if git { git_init(&dir) } else { Ok(()) });
    if let Err(e) = written {
        restore(&previous);
        return Err(e);
    }
    Ok(Created {
        dir,
        name: plan.name,
        template: options.template,
        files: plan.files.into_iter().map(|f| f.path).collect(),
        overwritten,
        workspace: plan.change,
        git_initialized: git,
        runtime: options.runtime.clone(),
        merged_manifest,
    })
}

/// What to do next, as printed after generating.
pub fn next_steps(created: &Created, cwd: &Path) -> String {
    let shown = created
        .dir
        .strip_prefix(cwd)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| created.dir.clone());
    // `init` in the current folder: say which one, not an empty path.
    let place = if shown.as_os_str().is_empty() {
        format!("the current folder ({})", created.dir.display())
    } else {
        shown.display().to_string()
    };
    let mut out = format!(
        "Created `{}` ({} template) in {place}\n",
        created.name, created.template
    );
    match &created.workspace {
        WorkspaceChange::AddedMember(root) => out.push_str(&format!(
            "Added it to the workspace members in {}\n",
            root.join("Cargo.toml").display()
        )),
        WorkspaceChange::Standalone(root) => out.push_str(&format!(
            "It stands alone (its own empty [workspace]) inside the workspace at {}\n",
            root.display()
        )),
        WorkspaceChange::AlreadyCovered(_) | WorkspaceChange::None => {}
    }
    match &created.runtime {
        RuntimeSource::Path(path) => out.push_str(&format!(
            "It depends on mcp-runtime at {} (a path; `--runtime-version` picks crates.io)\n",
            path.display()
        )),
        RuntimeSource::Version(version) => out.push_str(&format!(
            "It depends on mcp-runtime {version} from crates.io\n"
        )),
    }
    let dir_arg = if created.template == Template::Files {
        " -- DIR"
    } else {
        ""
    };
    let mut steps: Vec<(String, &str)> = Vec::new();
    if !shown.as_os_str().is_empty() {
        steps.push((format!("cd {}", shown.display()), ""));
    }
    steps.push(("cargo test".into(), "the generated tests pass as they are"));
    if created.template == Template::Files {
        steps.push((
            "cargo run -- DIR".into(),
            "serve DIR on stdio (Ctrl-D quits)",
        ));
    } else {
        steps.push(("cargo run".into(), "serve on stdio (Ctrl-D quits)"));
    }
    if created.template == Template::Http {
        steps.push((
            "cargo run -- --transport http --bind 127.0.0.1:8000".into(),
            "serve http://127.0.0.1:8000/mcp",
        ));
    }
    steps.push((
        format!("cargo mcp list{dir_arg}"),
        "build, start and list its tools",
    ));
    steps.push((
        format!("cargo mcp install claude-desktop{dir_arg}"),
        "connect a client (also claude-code, cursor, vscode)",
    ));
    let width = steps.iter().map(|(c, _)| c.len()).max().unwrap_or(0) + 2;
    out.push_str("\nNext steps:\n");
    for (command, comment) in steps {
        if comment.is_empty() {
            out.push_str(&format!("  {command}\n"));
        } else {
            out.push_str(&format!("  {command:<width$}# {comment}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(path: PathBuf) -> ProjectOptions {
        ProjectOptions {
            path,
            name: None,
            template: Template::Stdio,
            description: None,
            runtime: RuntimeSource::Version("0.1.0".into()),
            vcs: Some(Vcs::None),
            standalone: false,
        }
    }

    #[test]
    fn a_sibling_of_a_workspace_is_not_below_it() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let real = absolute(&ws.join("../weather")).unwrap();
        assert_eq!(real, tmp.path().canonicalize().unwrap().join("weather"));
        let real = absolute(&ws.join("new/../deeper/x")).unwrap();
        assert_eq!(real, ws.canonicalize().unwrap().join("deeper/x"));
    }

    #[test]
    fn new_creates_the_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let created = new_project(&options(tmp.path().join("weather"))).unwrap();
        assert_eq!(created.name, "weather");
        assert!(tmp.path().join("weather/src/lib.rs").is_file());
        assert_eq!(created.workspace, WorkspaceChange::None);
        // No staging folder is left behind.
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }

    #[test]
    fn new_refuses_a_non_empty_folder_and_a_bad_name() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("taken")).unwrap();
        std::fs::write(tmp.path().join("taken/x"), "").unwrap();
        let err = new_project(&options(tmp.path().join("taken"))).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), crate::error::code::REFUSED);
        assert!(err.to_string().contains("not empty"), "{err}");

        let err = new_project(&options(tmp.path().join("1st"))).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), crate::error::code::USAGE);
        assert!(format!("{err:#}").contains("--name mcp-1st"), "{err:#}");
        assert!(!tmp.path().join("1st").exists(), "nothing is left behind");

        // An empty folder is fine.
        std::fs::create_dir(tmp.path().join("empty")).unwrap();
        new_project(&options(tmp.path().join("empty"))).unwrap();
    }

    #[test]
    fn a_failed_workspace_edit_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        // `members` is not an array: the edit fails after the rename.
        std::fs::write(tmp.path().join("Cargo.toml"), "[workspace]\nmembers = 3\n").unwrap();
        let err = new_project(&options(tmp.path().join("srv"))).unwrap_err();
        assert!(format!("{err:#}").contains("--standalone"), "{err:#}");
        assert!(!tmp.path().join("srv").exists());
    }

    #[test]
    fn init_lists_what_it_would_overwrite() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("existing");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("README.md"), "mine").unwrap();
        std::fs::write(dir.join("src/lib.rs"), "mine").unwrap();
        std::fs::write(dir.join("notes.txt"), "kept").unwrap();
        let err = init_project(&options(dir.clone()), false).unwrap_err();
        assert_eq!(crate::error::exit_code(&err), crate::error::code::REFUSED);
        assert!(
            err.to_string().contains("would overwrite 2 files in"),
            "{err}"
        );
        assert!(err.to_string().contains("README.md, src/lib.rs"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.join("README.md")).unwrap(),
            "mine"
        );

        let created = init_project(&options(dir.clone()), true).unwrap();
        assert_eq!(created.overwritten.len(), 2);
        assert_ne!(
            std::fs::read_to_string(dir.join("README.md")).unwrap(),
            "mine"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
            "kept"
        );
    }

    #[test]
    fn workspace_membership_is_decided_like_cargo() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("Cargo.toml"),
            "[workspace]\nmembers = []\nexclude = [\"scratch\"]\n",
        )
        .unwrap();
        let joined = new_project(&options(tmp.path().join("a"))).unwrap();
        assert_eq!(
            joined.workspace,
            WorkspaceChange::AddedMember(tmp.path().to_path_buf())
        );
        let text = std::fs::read_to_string(tmp.path().join("Cargo.toml")).unwrap();
        assert!(text.contains("members = [\"a\"]"), "{text}");

        let mut standalone = options(tmp.path().join("b"));
        standalone.standalone = true;
        let created = new_project(&standalone).unwrap();
        assert!(matches!(created.workspace, WorkspaceChange::Standalone(_)));
        let manifest = std::fs::read_to_string(tmp.path().join("b/Cargo.toml")).unwrap();
        assert!(manifest.contains("\n[workspace]\n"), "{manifest}");

        let excluded = new_project(&options(tmp.path().join("scratch/c"))).unwrap();
        assert!(matches!(
            excluded.workspace,
            WorkspaceChange::AlreadyCovered(_)
        ));
    }
}
