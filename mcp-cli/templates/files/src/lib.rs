//! {{description}}
//!
//! The tools live here as plain async functions marked `#[mcp_tool]`. They reach files only
//! through a [`FileService`], which confines every path to the directories the server was
//! started with: `..`, absolute paths elsewhere and symlinks that lead out are refused by
//! the kernel (openat2 `RESOLVE_BENEATH` on Linux), not by string checks. The same
//! directories are also served as `file://` resources (a bounded listing, and the
//! `file:///{+path}` template), read through the same `FileService`. The prompts are
//! template files in `prompts/`; one embeds a served file, read through those resources.
//! The skills are folders in `skills/`.

use mcp_runtime::fs::{
    EntryKind, FileResources, FileService, FsError, FsPolicy, LineRange, format_size,
};
use mcp_runtime::prelude::*;
use mcp_runtime::server::BuildError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable naming the directories to serve when no argument does
/// (several are separated like `PATH`).
pub const DIRS_ENV: &str = "MCP_FILES_DIR";

/// Reads a text file inside the served directory.
#[mcp_tool(read_only, idempotent, open_world = false)]
pub async fn read_file(
    State(files): State<FileService>,
    /// The file's path, relative to the served directory (or absolute inside it)
    path: String,
) -> Result<String, FsError> {
    files
        .for_tool("read_file")
        .read_text_file(&path, LineRange::All)
        .await
}

/// Lists a directory inside the served directory: one entry per line, `[DIR]`, `[FILE]`
/// (with its size) or `[LINK]`.
#[mcp_tool(read_only, idempotent, open_world = false)]
pub async fn list_directory(
    State(files): State<FileService>,
    /// The directory, relative to the served directory (default: the served directory itself)
    path: Option<String>,
) -> Result<String, FsError> {
    let path = path.unwrap_or_else(|| ".".to_owned());
    let listing = files
        .for_tool("list_directory")
        .list_directory(&path)
        .await?;
    let lines: Vec<String> = listing
        .entries
        .iter()
        .map(|entry| match (entry.kind, entry.size) {
            (EntryKind::Directory, _) => format!("[DIR]  {}", entry.name),
            (EntryKind::File, Some(size)) => {
                format!("[FILE] {} ({})", entry.name, format_size(size))
            }
            (EntryKind::File, None) => format!("[FILE] {}", entry.name),
            (EntryKind::Symlink, _) => format!("[LINK] {}", entry.name),
            (_, _) => format!("[OTHER] {}", entry.name),
        })
        .collect();
    Ok(if lines.is_empty() {
        format!("{path} is empty")
    } else {
        lines.join("\n")
    })
}

/// The directories to serve: the command-line arguments, or else [`DIRS_ENV`].
pub fn directories(args: Vec<PathBuf>, env: Option<OsString>) -> Result<Vec<PathBuf>, String> {
    if !args.is_empty() {
        return Ok(args);
    }
    match env {
        Some(value) if !value.is_empty() => Ok(std::env::split_paths(&value).collect()),
        _ => Err(format!(
            "no directory to serve: pass it as an argument (`{} DIR`) or set {DIRS_ENV}=DIR",
            env!("CARGO_PKG_NAME")
        )),
    }
}

/// Opens the directories once, read-only. To let tools write, drop `.read_only(true)` and
/// use `FileService::write_file` / `edit_file` (atomic, confined the same way).
pub fn file_service(dirs: &[PathBuf]) -> Result<FileService, FsError> {
    FileService::new(FsPolicy::new().allow_dirs(dirs).read_only(true))
}

/// Where the prompt templates are read from: `MCP_PROMPTS_DIR` when set, else this
/// project's `prompts/` folder. One file per prompt (JSON, YAML, or Markdown with front
/// matter); add a file and it is served at the next start.
pub fn prompts_dir() -> PathBuf {
    std::env::var_os("MCP_PROMPTS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts"),
        PathBuf::from,
    )
}

/// Where the skills are read from: `MCP_SKILLS_DIR` when set, else this project's
/// `skills/` folder. One folder per skill: a `SKILL.md` (front matter with `name`, the
/// folder's name, and `description`, then instructions) and the files it refers to, served
/// to clients that support skills (`skills/list`, `skill://` resources).
pub fn skills_dir() -> PathBuf {
    std::env::var_os("MCP_SKILLS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"),
        PathBuf::from,
    )
}

/// The server: its name and version come from `Cargo.toml`, its tools from this file, its
/// prompts from [`prompts_dir`], its skills from [`skills_dir`].
pub fn server(files: FileService) -> Result<Server, BuildError> {
    server_with_prompts(files, prompts_dir())
}

/// The server, with the prompt templates of `prompts` and the skills of [`skills_dir`] (a
/// problem in any file is reported by `build()`, with the file and line).
pub fn server_with_prompts(
    files: FileService,
    prompts: impl AsRef<Path>,
) -> Result<Server, BuildError> {
    let builder = Server::builder(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .instructions(
            "Use `list_directory` to see what the served directory holds and `read_file` to read a text file.",
        )
        .state(files.clone())
        .tool(read_file::tool())
        .tool(list_directory::tool())
        .prompt_dir(prompts)
        .skills_dir(skills_dir());
    // The files as resources too: clients that browse resources see them listed (the
    // listing is taken now; `FileResources::refresh` updates it) and read them by URI.
    FileResources::new(files).register(builder).build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> (tempfile::TempDir, FileService) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hello.txt"), "hello, files").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let files = file_service(&[dir.path().to_path_buf()]).unwrap();
        (dir, files)
    }

    // A tool is still an ordinary function: call it directly.

    #[tokio::test]
    async fn read_file_reads() {
        let (_dir, files) = served();
        let text = read_file(State(files), "hello.txt".into()).await.unwrap();
        assert_eq!(text, "hello, files");
    }

    #[tokio::test]
    async fn list_directory_lists() {
        let (_dir, files) = served();
        let listing = list_directory(State(files), None).await.unwrap();
        assert_eq!(listing, "[FILE] hello.txt (12 B)\n[DIR]  sub");
    }

    #[test]
    fn directories_come_from_arguments_or_the_environment() {
        let from_args = directories(vec!["a".into()], Some("b".into())).unwrap();
        assert_eq!(from_args, [PathBuf::from("a")]);
        let from_env = directories(vec![], Some("b".into())).unwrap();
        assert_eq!(from_env, [PathBuf::from("b")]);
        assert!(directories(vec![], None).is_err());
    }
}
