//! From a requested path to an open directory handle and a name in it, confined by the kernel.
//!
//! 1. [`Core::locate`] applies the lexical rules ([`super::path`]) and picks the root: a
//!    relative path belongs to the first allowed directory; an absolute one to the root whose
//!    spelling is its longest *component-wise* prefix (so `/x/allowed_evil` is not under
//!    `/x/allowed`). This selects a root; it confines nothing.
//! 2. [`Core::open_target`] opens the parent directory beneath the root's handle with cap-std
//!    (openat2 `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` on Linux, a checked component walk
//!    elsewhere): symlinks are followed while they stay inside the root, and a path that
//!    would leave it fails in the kernel, whatever races around it.
//! 3. If the operation follows a final symlink, its target is read and resolved again from the
//!    root (the link's directory path as walked, joined with the link text, so `..` in a link
//!    is resolved physically by the kernel), at most 40 times. Absolute link targets are
//!    refused, as `RESOLVE_BENEATH` refuses them in the middle of a path.
//!
//! The result is a directory handle plus a final name with no `/`: every later step is a
//! single-component `*at` call on that handle (`O_NOFOLLOW` where it opens), never the path
//! string again.

use super::error::{FsError, FsErrorKind, FsResult};
use super::path::{FsPath, Request, parse};
use super::policy::FsPolicy;
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// How many symlinks one resolution follows at the final component (Linux's limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// An allowed directory, opened once.
#[derive(Debug)]
pub(crate) struct Root {
    pub(crate) dir: Dir,
    /// The path shown for the root: as given (made absolute, without `.` or `//`), or its
    /// canonical form when the given spelling had `..`.
    pub(crate) display: Arc<Path>,
    /// Spellings an absolute request may use: the one shown and the canonical one.
    spellings: Vec<Vec<OsString>>,
    /// Windows: where the root's handle really is, to confirm every handle opened beneath
    /// it lies there too (see [`Core::confirm_beneath`]).
    #[cfg(windows)]
    real: OsString,
}

impl Root {
    /// Opens a root. A missing or non-directory root is a startup error (its path may be
    /// shown: it is the operator's own configuration).
    pub(crate) fn open(given: &Path) -> FsResult<Self> {
        let config = |what: &str, e: Option<io::Error>| {
            let err = FsError::new(
                FsErrorKind::Config,
                format!("allowed directory {}: {what}", given.display()),
            );
            match e {
                Some(e) => err.with_source(e),
                None => err,
            }
        };
        let absolute = std::path::absolute(given).map_err(|e| config("invalid path", Some(e)))?;
        let dir = Dir::open_ambient_dir(&absolute, ambient_authority()).map_err(|e| {
            let what = match e.kind() {
                io::ErrorKind::NotFound => "does not exist",
                io::ErrorKind::NotADirectory => "is not a directory",
                _ => "cannot be opened",
            };
            config(what, Some(e))
        })?;
        // The canonical spelling names the root; it guards nothing (the handle does). It lets
        // an absolute path written through the real location (e.g. /private/tmp for /tmp)
        // find its root.
        let canonical = std::fs::canonicalize(&absolute).ok();
        let given_components = components(&absolute);
        let display: PathBuf = match (&given_components, &canonical) {
            (Some(_), _) => absolute.clone(),
            (None, Some(c)) => c.clone(),
            (None, None) => absolute.clone(),
        };
        let mut spellings = Vec::new();
        spellings.extend(given_components);
        if let Some(c) = canonical.as_deref().and_then(components)
            && !spellings.contains(&c)
        {
            spellings.push(c);
        }
        #[cfg(windows)]
        let real = {
            use std::os::windows::io::AsHandle as _;
            crate::windows::root_path(dir.as_handle())
                .map_err(|e| config("cannot be opened", Some(e)))?
        };
        Ok(Self {
            dir,
            display: Arc::from(display),
            spellings,
            #[cfg(windows)]
            real,
        })
    }
}

/// The components of an absolute path as requests spell them (see `path.rs`), or `None` if
/// it has `..` or (Windows) does not start with a drive: `C:\x` and `\\?\C:\x` are
/// `["C:", "x"]`; a root on a UNC share is reached by relative paths only.
fn components(path: &Path) -> Option<Vec<OsString>> {
    use std::path::Prefix;
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::RootDir | Component::CurDir => {}
            Component::Normal(n) => out.push(n.to_owned()),
            Component::Prefix(p) => match p.kind() {
                Prefix::Disk(d) | Prefix::VerbatimDisk(d) => {
                    out.push(format!("{}:", d.to_ascii_uppercase() as char).into());
                }
                _ => return None,
            },
            Component::ParentDir => return None,
        }
    }
    Some(out)
}

/// Whether a root's component and a request's name the same thing: byte for byte on Unix;
/// on Windows, whose file systems ignore case, case-insensitively (this only picks a root;
/// the handle confines).
fn same_component(root: &OsStr, requested: &str) -> bool {
    if cfg!(windows) {
        root.to_str()
            .is_some_and(|r| r.to_lowercase() == requested.to_lowercase())
    } else {
        root == OsStr::new(requested)
    }
}

/// The service's state: the roots and the policy.
#[derive(Debug)]
pub(crate) struct Core {
    pub(crate) roots: Vec<Root>,
    pub(crate) policy: FsPolicy,
}

/// A requested path placed under a root; no I/O yet.
#[derive(Debug, Clone)]
pub(crate) struct Location {
    pub(crate) raw: String,
    pub(crate) root: usize,
    /// Components below the root.
    pub(crate) rel: Vec<String>,
    pub(crate) trailing_slash: bool,
}

impl Location {
    /// Refuses a trailing `/` where a file is meant (`x.txt/`).
    pub(crate) fn require_file_syntax(&self) -> FsResult<()> {
        if self.trailing_slash {
            return Err(FsError::new(
                FsErrorKind::NotAFile,
                format!(
                    "{} ends with '/', which names a directory; remove the '/' to name a file",
                    super::error::Quoted(&self.raw)
                ),
            ));
        }
        Ok(())
    }

    /// The final requested name, if the location is not a root itself.
    pub(crate) fn name(&self) -> Option<&str> {
        self.rel.last().map(String::as_str)
    }
}

/// An open directory and a name in it (`None`: the directory itself is the target).
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) dir: Dir,
    pub(crate) name: Option<OsString>,
}

impl Core {
    pub(crate) fn fs_path(&self, loc: &Location) -> FsPath {
        FsPath::new(self.roots[loc.root].display.clone(), &loc.rel)
    }

    /// Lexical rules and root choice.
    pub(crate) fn locate(&self, raw: &str) -> FsResult<Location> {
        let Request {
            absolute,
            components,
            trailing_slash,
        } = parse(raw)?;
        let (root, skip) = if absolute {
            self.root_of_absolute(&components)
                .ok_or_else(|| FsError::outside(raw))?
        } else {
            (0, 0)
        };
        Ok(Location {
            raw: raw.to_owned(),
            root,
            rel: components[skip..].to_vec(),
            trailing_slash,
        })
    }

    /// The root whose spelling is the longest component-wise prefix, and that prefix's length.
    fn root_of_absolute(&self, components: &[String]) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, root) in self.roots.iter().enumerate() {
            for spelling in &root.spellings {
                let is_prefix = spelling.len() <= components.len()
                    && spelling
                        .iter()
                        .zip(components)
                        .all(|(a, b)| same_component(a, b));
                if is_prefix && best.is_none_or(|(_, len)| spelling.len() > len) {
                    best = Some((i, spelling.len()));
                }
            }
        }
        best
    }

    /// Opens the directory holding the target, following a final symlink if asked.
    pub(crate) fn open_target(&self, loc: &Location, follow_final: bool) -> FsResult<Target> {
        let target = self.open_target_unconfirmed(loc, follow_final)?;
        self.confirm_beneath(loc, &target.dir)?;
        Ok(target)
    }

    /// Windows: refuses a handle that is not at or below its root's real location, by the
    /// path Windows reports for the open handle (every link resolved). cap-std's resolution
    /// there goes by paths, not handles; this closes what a rename racing with it, or a link
    /// Windows does not report as one (a Unix symbolic link under Wine), could open outside.
    /// Elsewhere the kernel (or cap-std's handle-relative walk) already guarantees it.
    #[cfg(windows)]
    pub(crate) fn confirm_beneath(
        &self,
        loc: &Location,
        handle: &impl std::os::windows::io::AsHandle,
    ) -> FsResult<()> {
        let root = &self.roots[loc.root].real;
        match crate::windows::is_beneath(root, handle.as_handle()) {
            Ok(true) => Ok(()),
            Ok(false) => Err(FsError::escapes(&loc.raw)),
            Err(e) => Err(FsError::io(&loc.raw, e)),
        }
    }

    /// Windows only (see there); the kernel confines here.
    #[cfg(not(windows))]
    #[inline]
    pub(crate) fn confirm_beneath<H>(&self, _: &Location, _: &H) -> FsResult<()> {
        Ok(())
    }

    fn open_target_unconfirmed(&self, loc: &Location, follow_final: bool) -> FsResult<Target> {
        let root = &self.roots[loc.root].dir;
        let io_err = |e| FsError::io(&loc.raw, e);
        let Some((last, parents)) = loc.rel.split_last() else {
            return Ok(Target {
                dir: root.try_clone().map_err(io_err)?,
                name: None,
            });
        };
        let mut dir_path: PathBuf = parents.iter().collect();
        let mut dir = open_dir_beneath(root, &dir_path).map_err(io_err)?;
        let mut name = OsString::from(last);
        if !follow_final {
            return Ok(Target {
                dir,
                name: Some(name),
            });
        }
        for _ in 0..MAX_SYMLINK_HOPS {
            match dir.symlink_metadata(&name) {
                Ok(m) if m.file_type().is_symlink() => {}
                Ok(_) => {
                    return Ok(Target {
                        dir,
                        name: Some(name),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Ok(Target {
                        dir,
                        name: Some(name),
                    });
                }
                Err(e) => return Err(io_err(e)),
            }
            // cap-std refuses absolute targets here (an escape), and names none in its error.
            let link = dir.read_link(&name).map_err(io_err)?;
            let joined = dir_path.join(&link);
            match joined.components().next_back() {
                Some(Component::Normal(n)) => {
                    name = n.to_owned();
                    dir_path = joined.parent().map(Path::to_path_buf).unwrap_or_default();
                    dir = open_dir_beneath(root, &dir_path).map_err(io_err)?;
                }
                // The link names a directory (`..`, `.`): the target is that directory.
                _ => {
                    return Ok(Target {
                        dir: open_dir_beneath(root, &joined).map_err(io_err)?,
                        name: None,
                    });
                }
            }
        }
        Err(FsError::new(
            FsErrorKind::SymlinkLoop,
            format!(
                "{}: too many levels of symbolic links",
                super::error::Quoted(&loc.raw)
            ),
        ))
    }

    /// Opens the target as a directory (the root itself, or a name in its parent).
    pub(crate) fn open_dir_target(&self, loc: &Location) -> FsResult<Dir> {
        let target = self.open_target(loc, true)?;
        let Some(name) = &target.name else {
            return Ok(target.dir);
        };
        let dir = open_dir_nofollow(&target.dir, name).map_err(|e| {
            if super::error::OsErrorClass::of(&e) == Some(super::error::OsErrorClass::NotADirectory)
            {
                FsError::new(
                    FsErrorKind::NotADirectory,
                    format!("{} is not a directory", super::error::Quoted(&loc.raw)),
                )
            } else {
                FsError::io(&loc.raw, e)
            }
        })?;
        self.confirm_beneath(loc, &dir)?;
        Ok(dir)
    }

    /// Checks the extension of the name asked for and of the name it resolved to.
    pub(crate) fn check_extension(&self, loc: &Location, resolved: &OsStr) -> FsResult<()> {
        let asked = loc.name().map(OsStr::new).unwrap_or(resolved);
        for name in [asked, resolved] {
            if !self.policy.extension_allowed(name) {
                return Err(self.policy.extension_error(&loc.raw, Path::new(resolved)));
            }
        }
        Ok(())
    }
}

/// Opens `path` (relative, possibly with `..` from a symlink's text) beneath `root`.
fn open_dir_beneath(root: &Dir, path: &Path) -> io::Result<Dir> {
    if path.as_os_str().is_empty() {
        root.try_clone()
    } else {
        root.open_dir(path)
    }
}

/// Opens a single name in `dir` as a directory without following a symlink there.
///
/// On Windows the opened directory must also lie below `dir` by the paths Windows reports for
/// both handles (every link resolved): a link Windows does not report as one, or a rename
/// racing with the open, gives an escape error (see [`Core::confirm_beneath`]).
pub(crate) fn open_dir_nofollow(dir: &Dir, name: &OsStr) -> io::Result<Dir> {
    use cap_fs_ext::DirExt;
    let sub = dir.open_dir_nofollow(name)?;
    #[cfg(windows)]
    {
        use std::os::windows::io::AsHandle as _;
        let parent = crate::windows::root_path(dir.as_handle())?;
        if !crate::windows::is_beneath(&parent, sub.as_handle())? {
            // As cap-std reports an escape: permission denied, no OS code (`is_escape`).
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "a directory outside its parent",
            ));
        }
    }
    Ok(sub)
}

// Symbolic links as Unix makes them (Windows needs a privilege for them).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn core(dirs: &[&Path]) -> Core {
        Core {
            roots: dirs.iter().map(|d| Root::open(d).unwrap()).collect(),
            policy: FsPolicy::new(),
        }
    }

    #[test]
    fn absolute_paths_pick_the_longest_component_prefix() {
        let t = tempfile::tempdir().unwrap();
        let a = t.path().join("allowed");
        let nested = a.join("nested");
        let evil = t.path().join("allowed_evil");
        for d in [&a, &nested, &evil] {
            std::fs::create_dir(d).unwrap();
        }
        let c = core(&[&a, &nested]);
        let s = |p: &Path| p.to_str().unwrap().to_owned();
        let loc = c.locate(&s(&nested.join("f.txt"))).unwrap();
        assert_eq!(
            (loc.root, loc.rel.as_slice()),
            (1, &["f.txt".to_owned()][..])
        );
        let loc = c.locate(&s(&a.join("x/y"))).unwrap();
        assert_eq!((loc.root, loc.rel.len()), (0, 2));
        assert_eq!(c.locate(&s(&a)).unwrap().rel.len(), 0);
        for outside in [evil.join("f.txt"), t.path().to_path_buf(), "/".into()] {
            let e = c.locate(&s(&outside)).unwrap_err();
            assert_eq!(e.kind(), FsErrorKind::OutsideRoots, "{outside:?}");
        }
        assert_eq!(c.locate("rel/x").unwrap().root, 0);
    }

    #[test]
    fn missing_root_is_a_startup_error() {
        let t = tempfile::tempdir().unwrap();
        let e = Root::open(&t.path().join("nope")).unwrap_err();
        assert_eq!(e.kind(), FsErrorKind::Config);
        assert!(e.to_string().contains("does not exist"));
        std::fs::write(t.path().join("file"), "").unwrap();
        let e = Root::open(&t.path().join("file")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
    }

    #[test]
    fn final_symlinks_are_followed_inside_only() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().join("r");
        std::fs::create_dir_all(r.join("d/e")).unwrap();
        std::fs::write(r.join("d/e/t.txt"), "x").unwrap();
        symlink("d/e/t.txt", r.join("l1")).unwrap();
        symlink("../../l1", r.join("d/e/l2")).unwrap();
        symlink("/etc/passwd", r.join("abs")).unwrap();
        symlink("../outside", r.join("rel_out")).unwrap();
        symlink("loop", r.join("loop")).unwrap();
        symlink("d/..", r.join("dirlink")).unwrap();
        let c = core(&[&r]);
        let open = |p: &str| c.open_target(&c.locate(p).unwrap(), true);
        let t2 = open("d/e/l2").unwrap();
        assert_eq!(t2.name.as_deref(), Some(OsStr::new("t.txt")));
        assert_eq!(open("abs").unwrap_err().kind(), FsErrorKind::OutsideRoots);
        assert_eq!(
            open("rel_out").unwrap_err().kind(),
            FsErrorKind::OutsideRoots
        );
        assert_eq!(open("loop").unwrap_err().kind(), FsErrorKind::SymlinkLoop);
        assert!(open("dirlink").unwrap().name.is_none());
        // Without following, the link itself is the target.
        let t3 = c.open_target(&c.locate("abs").unwrap(), false).unwrap();
        assert_eq!(t3.name.as_deref(), Some(OsStr::new("abs")));
    }
}
