//! Writing files in folders someone else may have filled.
//!
//! A cloned repository can ship `.vscode/mcp.json` or a `Cargo.toml`, and with them links
//! planted to make an edit land elsewhere (`.vscode/mcp.json.bak -> ~/.ssh/authorized_keys`).
//! Every file the CLI writes into a project or a client's configuration goes through here:
//!
//! - [`replace`] never opens an existing file: it writes a fresh temporary file in the
//!   folder (created exclusively) and renames it over the path. A rename replaces a link;
//!   it never writes to what the link points to.
//! - [`resolve`] says where a path really is, and refuses a file of the project
//!   ([`Scope::Project`]) that is, or lies in a folder that is, a link leading out of the
//!   project or to nothing (exit code 4, nothing written). A user's own file
//!   ([`Scope::User`]: `~/.claude.json`) that is a link (a dotfile manager's) is followed, so
//!   its target is edited in place and the link stays a link rather than silently becoming a
//!   copy.
//!
//! The check resolves links with `canonicalize` before the write. That is no guard against a
//! process racing the CLI between the check and the rename (these are the user's own files,
//! edited by the user's own command); it is against content planted in advance, which does
//! not move. The server's file service, which does face concurrent callers, confines with
//! directory handles instead.

use crate::error::refused;
use anyhow::{Context as _, Result, anyhow};
use std::fs::Permissions;
use std::path::{Path, PathBuf};

/// Whose file a path is, which decides the links a write may follow (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// A file of the project in this folder: every folder and link on the way must resolve
    /// inside it.
    Project(&'a Path),
    /// The user's own file: links are followed.
    User,
}

/// Where reads and writes of `path` go: `path` with every existing link on the way
/// resolved. Refuses (exit code 4) a link that resolves to nothing, and in
/// [`Scope::Project`] anything that resolves outside the project.
pub fn resolve(path: &Path, scope: Scope<'_>) -> Result<PathBuf> {
    let absolute =
        std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))?;
    let link_refusal = |what: &Path| {
        let points_to = std::fs::read_link(what)
            .map(|to| format!(" (it points to {})", to.display()))
            .unwrap_or_default();
        refused(format!(
            "{} leads through the link {}, which does not resolve{points_to}; nothing was written",
            path.display(),
            what.display()
        ))
    };
    let target = match std::fs::symlink_metadata(&absolute) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(&absolute).map_err(|_| link_refusal(&absolute))?
        }
        Ok(_) => real_parent(&absolute).map_err(|at| link_refusal(&at))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            real_parent(&absolute).map_err(|at| link_refusal(&at))?
        }
        Err(e) => return Err(anyhow!(e).context(format!("cannot read {}", path.display()))),
    };
    if let Scope::Project(root) = scope {
        require_inside(root, path, &target)?;
    }
    Ok(target)
}

/// Refuses `target` (what `path` resolved to) unless it is inside `root`.
fn require_inside(root: &Path, path: &Path, target: &Path) -> Result<()> {
    let root = root
        .canonicalize()
        .with_context(|| format!("cannot resolve the project folder {}", root.display()))?;
    if target.starts_with(&root) {
        return Ok(());
    }
    Err(refused(format!(
        "{} is in the project but resolves to {}, outside it (a link on the way leads out); \
         nothing was written: remove the link, or name the file you mean",
        path.display(),
        target.display()
    )))
}

/// [`replace`]s the file at `path`, a file of the project in `root`: a link there is
/// replaced by the file, but every folder on the way must resolve inside `root`.
pub fn replace_inside(root: &Path, path: &Path, bytes: &[u8], mode: Mode) -> Result<()> {
    let absolute =
        std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))?;
    let target = real_parent(&absolute).map_err(|at| {
        refused(format!(
            "{} leads through the link {}, which does not resolve; nothing was written",
            path.display(),
            at.display()
        ))
    })?;
    require_inside(root, path, &target)?;
    replace(&target, bytes, mode)
}

/// `path` (absolute, not itself a link) with its deepest existing folder resolved and the
/// missing rest appended. `Err` names the link on the way that resolves to nothing.
fn real_parent(path: &Path) -> std::result::Result<PathBuf, PathBuf> {
    let mut missing = vec![path.file_name().unwrap_or_default().to_os_string()];
    let mut existing = path.parent().unwrap_or(path);
    while std::fs::symlink_metadata(existing).is_err() {
        let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
            break;
        };
        missing.push(name.to_os_string());
        existing = parent;
    }
    let mut real = existing
        .canonicalize()
        .map_err(|_| existing.to_path_buf())?;
    real.extend(missing.into_iter().rev());
    Ok(real)
}

/// The permissions a file written by [`replace`] gets.
#[derive(Debug, Clone)]
pub enum Mode {
    /// As `std::fs::write` creates a file (0o666 less the umask on Unix): generated sources.
    Default,
    /// Readable by the owner only: a new configuration file, which may hold a token.
    Private,
    /// The same as the file it replaces (`~/.claude.json` stays private).
    Like(Permissions),
}

/// Writes `bytes` to `path` through a fresh temporary file in its folder (created, with the
/// folders above it, as needed) and a rename, so no existing file or link is ever opened for
/// writing.
pub fn replace(path: &Path, bytes: &[u8], mode: Mode) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    if let Mode::Default = mode {
        // The umask applies to the mode a file is created with, as for `std::fs::write`.
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    }
    // Elsewhere a temporary file is private to its owner already.
    let mut temp = builder
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    std::io::Write::write_all(&mut temp, bytes)
        .with_context(|| format!("cannot write {}", temp.path().display()))?;
    if let Mode::Like(permissions) = mode {
        let _ = std::fs::set_permissions(temp.path(), permissions);
    }
    temp.persist(path)
        .map_err(|e| anyhow!(e.error))
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn replace_swaps_a_link_for_a_file_and_leaves_its_target() {
        let tmp = tempfile::tempdir().unwrap();
        let victim = tmp.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let link = tmp.path().join("sub/file.bak");
        std::fs::create_dir(tmp.path().join("sub")).unwrap();
        symlink(&victim, &link).unwrap();
        replace(&link, b"new", Mode::Private).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
    }

    #[test]
    fn modes_are_the_defaults_or_kept() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let mode = |name: &str| {
            std::fs::metadata(tmp.path().join(name))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        std::fs::write(tmp.path().join("plain"), "").unwrap();
        replace(&tmp.path().join("default"), b"", Mode::Default).unwrap();
        assert_eq!(mode("default"), mode("plain"));
        replace(&tmp.path().join("private"), b"", Mode::Private).unwrap();
        assert_eq!(mode("private"), 0o600);
        let like = Permissions::from_mode(0o640);
        replace(&tmp.path().join("like"), b"", Mode::Like(like)).unwrap();
        assert_eq!(mode("like"), 0o640);
    }

    #[test]
    fn project_paths_stay_inside_and_user_links_are_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(root.join("real")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        symlink(&outside, root.join("out")).unwrap();
        symlink(root.join("real"), root.join("in")).unwrap();
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        let project = Scope::Project(&root);
        let root_real = root.canonicalize().unwrap();

        // Missing folders below an inside one are fine, and resolve through the link.
        assert_eq!(
            resolve(&root.join("in/new/file.json"), project).unwrap(),
            root_real.join("real/new/file.json")
        );
        for leads_out in ["out/file.json", "out/new/file.json", "out"] {
            assert!(
                resolve(&root.join(leads_out), project).is_err(),
                "{leads_out}"
            );
        }
        let err = resolve(&root.join("dangling/file.json"), project).unwrap_err();
        assert!(err.to_string().contains("does not resolve"), "{err}");
        // The user's own links are followed wherever they lead.
        assert_eq!(
            resolve(&root.join("out/file.json"), Scope::User).unwrap(),
            outside.canonicalize().unwrap().join("file.json")
        );
    }
}
