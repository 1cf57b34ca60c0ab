//! The file tools: the reference `@modelcontextprotocol/server-filesystem` server's tools over
//! a [`FileService`], with the same names, argument names and result shapes, so a client
//! configured for the reference can use ours unchanged.
//!
//! # The contract kept
//!
//! - Every tool but `read_media_file` declares the output schema `{content: string}` and
//!   answers `{content: [{type: "text", text: T}], structuredContent: {content: T}}`;
//!   `read_media_file` answers one image, audio or embedded-resource block, repeated in
//!   `structuredContent.content`. A failure is `{content: [{type: "text", text: message}],
//!   isError: true}`.
//! - Argument names, types and which are required are the reference's. The input schemas
//!   follow our portable profile (2020-12, `additionalProperties: false`) instead of the
//!   reference's draft-07; `head`/`tail` are integers ≥ 0 (the reference says `number`), and
//!   0 means "not given", as in the reference.
//! - Titles and annotations are the reference's (`openWorldHint: false` on all); descriptions
//!   are ours and carry the same information.
//! - Result texts are the reference's, byte for byte, for successes.
//!
//! # Deliberate differences
//!
//! - **Error texts** are [`FsError`]'s: they help a model correct its call and never reveal
//!   paths or content outside the allowed directories (the reference's do).
//! - **Order**: listings, trees and searches are sorted by name (byte order); the reference
//!   returns directory order. `list_directory_with_sizes` sorts as the reference does, except
//!   that with `sortBy: "size"` directories count as size 0 (the reference uses their inode's
//!   size, which depends on the file system).
//! - **Symlinks** are followed only inside their allowed directory; walks never follow them
//!   and report their own size (`0 B` in sized listings), not their target's.
//! - **`tail`** treats a final newline as the end of the last line (`tail -n`); the
//!   reference counts an empty line after it. Neither `head` nor `tail` converts `\r\n`.
//! - **Limits**: reads and writes are capped by the policy; walks that stop at a limit say
//!   so in a second text block (the first stays the reference's text).
//! - **Times** in `get_file_info` are always printed in UTC; the reference uses the server's
//!   time zone. A birth time the file system does not record prints as the epoch, as Node's.
//! - **Unknown arguments** are refused (`additionalProperties: false`); the reference ignores
//!   them.
//! - **`read_multiple_files`** stops reading once the files read total more than the read
//!   limit; the remaining paths report that instead of their content.

use super::edit::TextEdit;
use super::error::{FsError, FsErrorKind, FsResult};
use super::format::{self, SizeOrder};
use super::read::{LineRange, MediaKind};
use super::service::FileService;
use super::tool_io::{EditOperation, LineCount, MediaResult, SortBy, TextResult};
use crate::context::{Extensions, FromContext, MissingState, RequestContext, State};
use crate::mcp_tools;
use crate::protocol::{BlobResourceContents, Content, EmbeddedResource, ResourceContents};
use crate::tool::Tool;
use futures::StreamExt as _;
use std::sync::Arc;

/// The reference filesystem server's tools, bound to one [`FileService`].
///
/// Register all of them with [`mcp_tools`](Self::mcp_tools), a selection with
/// [`tools_named`](Self::tools_named), or those that suit the service's policy (no writing
/// tools when it is read-only) with [`tools_for_policy`](Self::tools_for_policy). They are
/// methods of an instance, so a program-wide
/// [`collected_tools`](crate::ServerBuilder::collected_tools) does not pick them up.
///
/// ```
/// use mcp_runtime::fs::{FileService, FileTools, FsPolicy};
/// use mcp_runtime::prelude::*;
/// use std::sync::Arc;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let files = FileService::new(FsPolicy::new().allow_dir(dir.path()))?;
/// let tools = Arc::new(FileTools::new(files));
///
/// // All fourteen tools.
/// let server = Server::builder("files", "1.0.0").tools(tools.mcp_tools()).build()?;
/// assert!(server.tools().names().contains(&"read_text_file".to_owned()));
///
/// // Or only some.
/// let server = Server::builder("notes", "1.0.0")
///     .tools(tools.tools_named(&["read_text_file", "write_file"])?)
///     .build()?;
/// assert_eq!(server.tools().names(), ["read_text_file", "write_file"]);
/// assert!(tools.tools_named(&["delete_everything"]).is_err());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FileTools {
    service: FileService,
}

impl FileTools {
    /// The tools over `service`. Each call's audit event names its tool.
    pub fn new(service: FileService) -> Self {
        Self { service }
    }

    /// The service the tools work through.
    pub fn service(&self) -> &FileService {
        &self.service
    }

    /// The tools with these names, in the order given. An unknown name is an error of kind
    /// [`FsErrorKind::Config`] that lists the known ones.
    pub fn tools_named(self: &Arc<Self>, names: &[&str]) -> FsResult<Vec<Arc<dyn Tool>>> {
        let all = self.mcp_tools();
        names
            .iter()
            .map(|name| {
                all.iter()
                    .find(|t| t.definition().name == *name)
                    .cloned()
                    .ok_or_else(|| {
                        let known: Vec<String> = all.iter().map(|t| t.definition().name).collect();
                        FsError::new(
                            FsErrorKind::Config,
                            format!(
                                "there is no file tool named {name:?}; the file tools are: {}",
                                known.join(", ")
                            ),
                        )
                    })
            })
            .collect()
    }

    /// The tools that change nothing (those annotated `readOnlyHint: true`).
    pub fn read_only_tools(self: &Arc<Self>) -> Vec<Arc<dyn Tool>> {
        self.mcp_tools()
            .into_iter()
            .filter(|t| {
                t.definition()
                    .annotations
                    .is_some_and(|a| a.read_only_hint == Some(true))
            })
            .collect()
    }

    /// Every tool, or only the [read-only ones](Self::read_only_tools) when the service's
    /// policy is read-only (the others would only ever fail).
    pub fn tools_for_policy(self: &Arc<Self>) -> Vec<Arc<dyn Tool>> {
        if self.service.policy().is_read_only() {
            self.read_only_tools()
        } else {
            self.mcp_tools()
        }
    }

    /// The service, with audit events naming `tool`.
    fn files(&self, tool: &'static str) -> FileService {
        self.service.for_tool(tool)
    }

    async fn read_text(
        &self,
        tool: &'static str,
        path: String,
        head: Option<LineCount>,
        tail: Option<LineCount>,
    ) -> FsResult<TextResult> {
        let lines = match (LineCount::given(head), LineCount::given(tail)) {
            (Some(_), Some(_)) => {
                return Err(FsError::invalid_argument(
                    "Cannot specify both head and tail parameters simultaneously",
                ));
            }
            (Some(n), None) => LineRange::Head(n),
            (None, Some(n)) => LineRange::Tail(n),
            (None, None) => LineRange::All,
        };
        let text = self.files(tool).read_text_file(&path, lines).await?;
        Ok(TextResult::new(text))
    }
}

/// An injected [`FileService`]: a tool parameter of this type, marked `#[mcp(inject)]`,
/// receives the one given to [`ServerBuilder::state`](crate::ServerBuilder::state), for
/// writing file tools of your own. (Without the attribute, the macro refuses it at compile
/// time: only `RequestContext` and `State<T>` are injected by their spelling.)
///
/// ```
/// use mcp_runtime::fs::{FileService, FsError, FsPolicy, LineRange};
/// use mcp_runtime::prelude::*;
///
/// /// Counts the lines of a text file in the allowed directories.
/// #[mcp_tool(read_only)]
/// async fn count_lines(#[mcp(inject)] files: FileService, path: String) -> Result<String, FsError> {
///     let text = files.read_text_file(&path, LineRange::All).await?;
///     Ok(text.lines().count().to_string())
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let files = FileService::new(FsPolicy::new().allow_dir(dir.path()))?;
/// let server = Server::builder("lines", "1.0.0")
///     .state(files.for_tool("count_lines"))
///     .tool(count_lines::tool())
///     .build()?;
/// # let _ = server;
/// # Ok(())
/// # }
/// ```
impl FromContext for FileService {
    type Rejection = MissingState;

    // The service is shared state like any other: read, and required, as `State<FileService>`.
    fn from_context(cx: &RequestContext) -> Result<Self, MissingState> {
        State::<FileService>::from_context(cx).map(|State(files)| files)
    }

    fn missing_state(extensions: &Extensions) -> Vec<MissingState> {
        State::<FileService>::missing_state(extensions)
    }
}

// The descriptions are written as one string each (`\` continues a literal without a line
// break), so a model sees sentences, not the source's line wrapping.
#[mcp_tools]
impl FileTools {
    #[mcp_tool(
        title = "Read File (Deprecated)",
        description = "Read a text file's complete contents (or, with `head` or `tail`, only its \
            first or last N lines). DEPRECATED: use read_text_file, which does the same. \
            Only works within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn read_file(
        &self,
        /// The file: absolute inside an allowed directory, or relative to the first one
        path: String,
        /// If provided, returns only the last N lines of the file
        tail: Option<LineCount>,
        /// If provided, returns only the first N lines of the file
        head: Option<LineCount>,
    ) -> FsResult<TextResult> {
        self.read_text("read_file", path, head, tail).await
    }

    #[mcp_tool(
        title = "Read Text File",
        description = "Read the complete contents of a file as text (UTF-8; invalid bytes \
            become U+FFFD), whatever its extension. Use `head` to read only the first N \
            lines or `tail` to read only the last N lines (not both). Errors say what went \
            wrong and how to fix the call. Use this to examine a single file. Only works \
            within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn read_text_file(
        &self,
        /// The file: absolute inside an allowed directory, or relative to the first one
        path: String,
        /// If provided, returns only the last N lines of the file
        tail: Option<LineCount>,
        /// If provided, returns only the first N lines of the file
        head: Option<LineCount>,
    ) -> FsResult<TextResult> {
        self.read_text("read_text_file", path, head, tail).await
    }

    #[mcp_tool(
        title = "Read Media File",
        description = "Read a file and return it base64-encoded with its MIME type (from its \
            extension): images and audio as image or audio content, any other file as an \
            embedded resource. Only works within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn read_media_file(
        &self,
        /// The file: absolute inside an allowed directory, or relative to the first one
        path: String,
    ) -> FsResult<MediaResult> {
        let media = self.files("read_media_file").read_media_file(&path).await?;
        let data = media.data_base64;
        let item = match media.kind {
            MediaKind::Image => Content::image(data, media.mime_type),
            MediaKind::Audio => Content::audio(data, media.mime_type),
            MediaKind::Other => Content::Resource(EmbeddedResource {
                resource: ResourceContents::Blob(BlobResourceContents {
                    uri: media.path.file_uri(),
                    mime_type: Some(media.mime_type.to_owned()),
                    blob: data,
                    meta: None,
                }),
                annotations: None,
                meta: None,
            }),
        };
        Ok(MediaResult(item))
    }

    #[mcp_tool(
        title = "Read Multiple Files",
        description = "Read several files at once, which is faster than one by one when you \
            need to compare or analyse them. Each file's content comes back after its path; \
            a file that cannot be read shows its error there and does not stop the others. \
            Only works within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn read_multiple_files(
        &self,
        /// The files to read (at least one), each within the allowed directories
        #[schemars(length(min = 1))]
        paths: Vec<String>,
    ) -> FsResult<TextResult> {
        let files = self.files("read_multiple_files");
        let budget = files.policy().read_limit();
        // In order, a few at a time; once the files read total more than the read limit,
        // the rest are not read (at most `IN_FLIGHT` reads past it are in memory).
        const IN_FLIGHT: usize = 4;
        let mut reads = futures::stream::iter(paths.clone().into_iter().map(|p| {
            let files = files.clone();
            async move { files.read_text_file(&p, LineRange::All).await }
        }))
        .buffered(IN_FLIGHT);
        let mut parts = Vec::with_capacity(paths.len());
        let mut total: u64 = 0;
        for path in &paths {
            if total > budget {
                parts.push(format!(
                    "{path}: Error - not read: the files before it already total {total} \
                     bytes, over the read limit of {budget} bytes; read it in another call"
                ));
                continue;
            }
            // One result per path, in order.
            let Some(read) = reads.next().await else {
                break;
            };
            match read {
                Ok(text) => {
                    total += text.len() as u64;
                    parts.push(format!("{path}:\n{text}\n"));
                }
                Err(e) => parts.push(format!("{path}: Error - {e}")),
            }
        }
        Ok(TextResult::new(parts.join("\n---\n")))
    }

    #[mcp_tool(
        title = "Write File",
        description = "Create a new file or completely overwrite an existing file with new \
            content, without warning: use with caution. The text is stored as UTF-8, \
            atomically (readers see the old content or the new, never a mix); the parent \
            directory must exist. Only works within allowed directories.",
        read_only = false,
        idempotent,
        destructive,
        open_world = false
    )]
    async fn write_file(
        &self,
        /// The file: absolute inside an allowed directory, or relative to the first one
        path: String,
        /// The complete new content
        content: String,
    ) -> FsResult<TextResult> {
        self.files("write_file").write_file(&path, content).await?;
        Ok(TextResult::new(format!("Successfully wrote to {path}")))
    }

    #[mcp_tool(
        title = "Edit File",
        description = "Make line-based edits to a text file: each edit replaces the first \
            occurrence of oldText (exactly, or failing that line by line ignoring surrounding \
            whitespace, keeping the indentation) with newText, in order. If one edit does not \
            match, nothing is written. Returns a git-style diff of the changes; with dryRun, \
            only previews them. Only works within allowed directories.",
        read_only = false,
        idempotent = false,
        destructive,
        open_world = false
    )]
    async fn edit_file(
        &self,
        /// The file: absolute inside an allowed directory, or relative to the first one
        path: String,
        /// The replacements, applied in order
        edits: Vec<EditOperation>,
        /// Preview changes using git-style diff format
        #[mcp(rename = "dryRun", default)]
        dry_run: bool,
    ) -> FsResult<TextResult> {
        let edits = edits
            .into_iter()
            .map(|e| TextEdit::new(e.old_text, e.new_text))
            .collect();
        let outcome = self
            .files("edit_file")
            .edit_file(&path, edits, dry_run)
            .await?;
        Ok(TextResult::new(outcome.fenced_diff()))
    }

    #[mcp_tool(
        title = "Create Directory",
        description = "Create a new directory, or make sure one exists: missing parent \
            directories are created too, in one operation, and an existing directory is not \
            an error. Useful to set up a project's structure before writing files. Only works \
            within allowed directories.",
        read_only = false,
        idempotent,
        destructive = false,
        open_world = false
    )]
    async fn create_directory(
        &self,
        /// The directory: absolute inside an allowed directory, or relative to the first
        path: String,
    ) -> FsResult<TextResult> {
        self.files("create_directory")
            .create_directory(&path)
            .await?;
        Ok(TextResult::new(format!(
            "Successfully created directory {path}"
        )))
    }

    #[mcp_tool(
        title = "List Directory",
        description = "List the files and directories directly inside a directory, one per \
            line, marked [FILE] or [DIR]. Use it to understand a directory's structure and \
            find files. Only works within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn list_directory(
        &self,
        /// The directory: absolute inside an allowed directory, or relative to the first
        path: String,
    ) -> FsResult<TextResult> {
        let files = self.files("list_directory");
        let listing = files.list_directory(&path).await?;
        let note = format::truncation_note("listing", listing.truncated, files.policy().walk());
        Ok(TextResult::new(format::listing(&listing)).with_note(note))
    }

    #[mcp_tool(
        title = "List Directory with Sizes",
        description = "List the files and directories directly inside a directory with their \
            sizes, marked [FILE] or [DIR], sorted by name or by size (largest first), followed \
            by the number of files and directories and their combined size. Only works within \
            allowed directories.",
        read_only,
        open_world = false
    )]
    async fn list_directory_with_sizes(
        &self,
        /// The directory: absolute inside an allowed directory, or relative to the first
        path: String,
        /// Sort entries by name or size
        #[mcp(rename = "sortBy", default)]
        sort_by: SortBy,
    ) -> FsResult<TextResult> {
        let files = self.files("list_directory_with_sizes");
        let listing = files.list_directory(&path).await?;
        let order = match sort_by {
            SortBy::Name => SizeOrder::Name,
            SortBy::Size => SizeOrder::Size,
        };
        let note = format::truncation_note("listing", listing.truncated, files.policy().walk());
        Ok(TextResult::new(format::listing_with_sizes(&listing, order)).with_note(note))
    }

    #[mcp_tool(
        title = "Directory Tree",
        description = "Get the recursive tree of a directory as JSON, indented by 2 spaces: \
            each entry has 'name' and 'type' ('file' or 'directory'); directories always have \
            a 'children' array (possibly empty), files never do. Entries matching one of \
            excludePatterns (globs) are left out. Symbolic links are listed as files and not \
            followed. Only works within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn directory_tree(
        &self,
        /// The directory: absolute inside an allowed directory, or relative to the first
        path: String,
        /// Globs of entries to leave out; one without `*` also excludes that name at any depth
        #[mcp(rename = "excludePatterns", default)]
        exclude_patterns: Vec<String>,
    ) -> FsResult<TextResult> {
        let files = self.files("directory_tree");
        let tree = files.directory_tree(&path, &exclude_patterns).await?;
        let note = format::truncation_note("tree", tree.truncated, files.policy().walk());
        Ok(TextResult::new(tree.to_json()).with_note(note))
    }

    #[mcp_tool(
        title = "Move File",
        description = "Move or rename a file or directory, within a directory or to another \
            one, in a single operation. Fails if the destination exists: nothing is ever \
            overwritten. Both source and destination must be within allowed directories.",
        read_only = false,
        idempotent = false,
        destructive,
        open_world = false
    )]
    async fn move_file(
        &self,
        /// The path to move: absolute inside an allowed directory, or relative to the first one
        source: String,
        /// The new path, which must not exist yet
        destination: String,
    ) -> FsResult<TextResult> {
        self.files("move_file")
            .move_file(&source, &destination)
            .await?;
        Ok(TextResult::new(format!(
            "Successfully moved {source} to {destination}"
        )))
    }

    #[mcp_tool(
        title = "Search Files",
        description = "Search a directory recursively for files and directories whose path \
            relative to it matches a glob pattern: '*.ext' matches in that directory only, \
            '**/*.ext' in all its subdirectories too. Entries matching one of excludePatterns \
            are skipped with everything below them. Returns the full paths of the matches, \
            one per line. Use it to find files whose location you do not know. Only searches \
            within allowed directories, and never follows symbolic links.",
        read_only,
        open_world = false
    )]
    async fn search_files(
        &self,
        /// Where to search: absolute inside an allowed directory, or relative to the first
        path: String,
        /// Glob pattern matched against paths relative to `path`
        pattern: String,
        /// Glob patterns of entries to skip
        #[mcp(rename = "excludePatterns", default)]
        exclude_patterns: Vec<String>,
    ) -> FsResult<TextResult> {
        let files = self.files("search_files");
        let found = files
            .search_files(&path, &pattern, &exclude_patterns)
            .await?;
        let note = format::truncation_note("search", found.truncated, files.policy().walk());
        Ok(TextResult::new(format::search(&found)).with_note(note))
    }

    #[mcp_tool(
        title = "Get File Info",
        description = "Get the metadata of a file or directory without reading it: size, \
            creation, modification and access times, whether it is a file or a directory, \
            and permissions. Only works within allowed directories.",
        read_only,
        open_world = false
    )]
    async fn get_file_info(
        &self,
        /// The entry: absolute inside an allowed directory, or relative to the first one
        path: String,
    ) -> FsResult<TextResult> {
        let info = self.files("get_file_info").get_file_info(&path).await?;
        Ok(TextResult::new(format::file_info(&info)))
    }

    #[mcp_tool(
        title = "List Allowed Directories",
        description = "List the allowed directories: those this server may access. \
            Everything below them is accessible too, and nothing else; relative paths \
            resolve against the first one. Use this to learn which paths are available \
            before working with files.",
        read_only,
        open_world = false
    )]
    async fn list_allowed_directories(&self) -> TextResult {
        let dirs: Vec<String> = self
            .service
            .allowed_directories()
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
        TextResult::new(format!("Allowed directories:\n{}", dirs.join("\n")))
    }
}

#[cfg(test)]
mod tests;
