//! Moving files within a folder that must contain them, checked on the
//! opened directories rather than on strings.
//!
//! A delete, a purge and a restore move another agent's files between its
//! folder and our trash. Their paths are built from what files say, and a
//! folder on the way may have been replaced by a link since it was listed.
//! So a path is reached from its root one component at a time, each
//! directory opened relative to the last without following a link
//! (`O_NOFOLLOW | O_DIRECTORY`), `..` and `.` refused; the move itself is a
//! `renameat` between the two opened parents that never replaces what is
//! there (`RENAME_NOREPLACE`). What lies outside the root cannot be reached.

use crate::store::error::{Result, StoreError};
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// A root folder the paths handled must lie beneath.
#[derive(Debug)]
pub struct Beneath {
    root: PathBuf,
    fd: OwnedFd,
}

/// A directory opened beneath a root, with the path it was reached by.
#[derive(Debug)]
pub struct OpenDir {
    path: PathBuf,
    fd: OwnedFd,
}

/// What a name in an [`OpenDir`] is, read without following a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Anything else: a link, a FIFO, a device, a socket.
    Other,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

fn refused(path: &Path, why: &str) -> StoreError {
    StoreError::Invalid(format!("{}: {why}; nothing was moved", path.display()))
}

impl Beneath {
    /// Opens `root` (which the person's configuration names, so it may be
    /// reached through a link of theirs).
    pub fn open(root: &Path) -> Result<Beneath> {
        let fd = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| StoreError::io("open", root, e.into()))?;
        Ok(Beneath {
            root: root.to_path_buf(),
            fd,
        })
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The plain names leading from the root to `path`; refused when
    /// `path` is not beneath the root, or climbs (`..`) or names itself.
    pub fn names<'p>(&self, path: &'p Path) -> Result<Vec<&'p OsStr>> {
        let rest = path
            .strip_prefix(&self.root)
            .map_err(|_| refused(path, &format!("it is not inside {}", self.root.display())))?;
        rest.components()
            .map(|c| match c {
                Component::Normal(n) => Ok(n),
                _ => Err(refused(path, "its path climbs or names a folder twice")),
            })
            .collect()
    }

    /// The directory `path` beneath the root, each folder on the way
    /// opened without following a link; with `create`, missing ones are
    /// made (private) as they are met.
    pub fn dir(&self, path: &Path, create: bool) -> Result<OpenDir> {
        let mut fd =
            rustix::io::dup(&self.fd).map_err(|e| StoreError::io("open", &self.root, e.into()))?;
        let mut at = self.root.clone();
        for name in self.names(path)? {
            at.push(name);
            let opened = match rustix::fs::openat(&fd, name, DIR_FLAGS, Mode::empty()) {
                Err(rustix::io::Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, name, Mode::from_raw_mode(0o700)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                        Err(e) => return Err(StoreError::io("create", &at, e.into())),
                    }
                    let _ = rustix::fs::fsync(&fd);
                    rustix::fs::openat(&fd, name, DIR_FLAGS, Mode::empty())
                }
                other => other,
            };
            fd = opened.map_err(|e| match e {
                rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR => {
                    refused(&at, "it is a link or not a folder, and is not followed")
                }
                e => StoreError::io("open", &at, e.into()),
            })?;
        }
        Ok(OpenDir {
            path: path.to_path_buf(),
            fd,
        })
    }

    /// The folder holding `path` (opened as [`Beneath::dir`] does) and
    /// `path`'s own name in it.
    pub fn parent_of<'p>(&self, path: &'p Path, create: bool) -> Result<(OpenDir, &'p OsStr)> {
        let name = self
            .names(path)?
            .pop()
            .ok_or_else(|| refused(path, "it is the root folder itself"))?;
        let parent = path.parent().unwrap_or(&self.root);
        Ok((self.dir(parent, create)?, name))
    }
}

impl OpenDir {
    /// What `name` is here, None when nothing has that name.
    pub fn kind_of(&self, name: &OsStr) -> Result<Option<Kind>> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Kind::File,
                FileType::Directory => Kind::Dir,
                _ => Kind::Other,
            })),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(StoreError::io("inspect", &self.path.join(name), e.into())),
        }
    }

    /// Moves `name` of this directory to `to_name` in `to`, never over
    /// something that has that name, then makes both directories durable.
    pub fn move_to(&self, name: &OsStr, to: &OpenDir, to_name: &OsStr) -> Result<()> {
        let from = self.path.join(name);
        let target = to.path.join(to_name);
        match rustix::fs::renameat_with(&self.fd, name, &to.fd, to_name, RenameFlags::NOREPLACE) {
            Ok(()) => {}
            // A filesystem without RENAME_NOREPLACE: look, then rename (we
            // hold the trash's lock; the agent does not make these names).
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                if to.kind_of(to_name)?.is_some() {
                    return Err(StoreError::Invalid(format!(
                        "{} is there already; {} was not moved over it",
                        target.display(),
                        from.display()
                    )));
                }
                rustix::fs::renameat(&self.fd, name, &to.fd, to_name)
                    .map_err(|e| move_error(&from, &target, e))?;
            }
            Err(e) => return Err(move_error(&from, &target, e)),
        }
        for dir in [self, to] {
            rustix::fs::fsync(&dir.fd)
                .map_err(|e| StoreError::io("sync directory", &dir.path, e.into()))?;
        }
        Ok(())
    }
}

fn move_error(from: &Path, to: &Path, e: rustix::io::Errno) -> StoreError {
    let why = match e {
        rustix::io::Errno::XDEV => {
            "the trash is on another filesystem than the session; nothing of it was moved"
                .to_string()
        }
        rustix::io::Errno::EXIST | rustix::io::Errno::NOTEMPTY => {
            format!("{} is there already", to.display())
        }
        e => std::io::Error::from(e).to_string(),
    };
    StoreError::Invalid(format!("cannot move {}: {why}", from.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_path_outside_or_climbing_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("a")).unwrap();
        let beneath = Beneath::open(&root).unwrap();
        assert!(beneath.dir(&root.join("a"), false).is_ok());
        assert!(beneath.dir(tmp.path(), false).is_err());
        assert!(beneath.dir(&root.join("a/../.."), false).is_err());
        assert!(
            beneath.dir(&root.join("a/./."), false).is_ok(),
            "`.` is no component"
        );
        assert!(beneath.parent_of(&root, false).is_err());
    }

    #[test]
    fn a_folder_replaced_by_a_link_is_not_followed_even_to_create() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        symlink(&elsewhere, root.join("project")).unwrap();
        let beneath = Beneath::open(&root).unwrap();
        let err = beneath.dir(&root.join("project/deeper"), true).unwrap_err();
        assert!(err.to_string().contains("not followed"), "{err}");
        assert!(!elsewhere.join("deeper").exists());
    }

    #[test]
    fn a_move_never_replaces_and_missing_folders_are_made() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("from")).unwrap();
        std::fs::write(root.join("from/f"), b"one").unwrap();
        std::fs::write(root.join("from/g"), b"two").unwrap();
        let beneath = Beneath::open(&root).unwrap();
        let from = beneath.dir(&root.join("from"), false).unwrap();
        assert_eq!(from.kind_of(OsStr::new("f")).unwrap(), Some(Kind::File));
        assert_eq!(from.kind_of(OsStr::new("nothing")).unwrap(), None);
        let to = beneath.dir(&root.join("x/y"), true).unwrap();
        from.move_to(OsStr::new("f"), &to, OsStr::new("f")).unwrap();
        assert_eq!(std::fs::read(root.join("x/y/f")).unwrap(), b"one");
        assert!(from.move_to(OsStr::new("g"), &to, OsStr::new("f")).is_err());
        assert_eq!(std::fs::read(root.join("x/y/f")).unwrap(), b"one");
        assert_eq!(std::fs::read(root.join("from/g")).unwrap(), b"two");
    }
}
