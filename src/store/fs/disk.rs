//! Facts about directories on disk: size, mount points, ownership, identity.

use crate::store::error::{Result, StoreError};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What a walk of a session directory found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeFacts {
    /// The session's size: the apparent bytes (`st_size`) of every regular
    /// file inside, symbolic links not followed, other filesystems not
    /// entered. The one figure the list, the preview, `show`, the purge
    /// preview and the delete report all give.
    pub bytes: u64,
    /// True when some directory inside lies on another filesystem.
    pub crosses_filesystems: bool,
}

/// Walks `dir` once, without following symbolic links and without entering
/// a directory on another filesystem (noted instead): the session's size and
/// whether a mount point lies inside. Directories are opened relative to
/// their parent and their entries' types come from the listing, so only
/// files and directories are looked up: a small session costs a few dozen
/// system calls. An unreadable subdirectory counts as empty.
pub fn tree_facts(dir: &Path) -> Result<TreeFacts> {
    use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let top = rustix::fs::openat(CWD, dir, flags, Mode::empty())
        .map_err(|e| StoreError::io("inspect", dir, e.into()))?;
    let device = rustix::fs::fstat(&top)
        .map_err(|e| StoreError::io("inspect", dir, e.into()))?
        .st_dev;
    let mut facts = TreeFacts::default();
    let mut stack = vec![top];
    while let Some(fd) = stack.pop() {
        let Ok(mut listing) = rustix::fs::Dir::new(fd) else {
            continue;
        };
        let mut children = Vec::new();
        let mut files = Vec::new();
        while let Some(Ok(entry)) = listing.read() {
            let name = entry.file_name();
            if name.to_bytes() == b"." || name.to_bytes() == b".." {
                continue;
            }
            match entry.file_type() {
                FileType::Directory => children.push(name.to_owned()),
                // Unknown: the filesystem does not say; the lookup will.
                FileType::RegularFile | FileType::Unknown => files.push(name.to_owned()),
                _ => {}
            }
        }
        let Ok(parent) = listing.fd() else { continue };
        for name in files {
            let Ok(st) = rustix::fs::statat(parent, &name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => facts.bytes += st.st_size as u64,
                FileType::Directory => children.push(name),
                _ => {}
            }
        }
        for name in children {
            let Ok(child) = rustix::fs::openat(parent, &name, flags, Mode::empty()) else {
                continue;
            };
            match rustix::fs::fstat(&child) {
                Ok(st) if st.st_dev == device => stack.push(child),
                Ok(_) => facts.crosses_filesystems = true,
                Err(_) => {}
            }
        }
    }
    Ok(facts)
}

/// Every regular file below `dir`, sorted (links and oddities left out).
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(listing) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in listing.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push(e.path()),
                Ok(t) if t.is_file() => out.push(e.path()),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// The effective uid of this process.
pub fn current_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Refuses a path that exists and belongs to another user.
pub fn check_owned_by_us(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.uid() != current_uid() => Err(StoreError::Unsafe {
            path: path.to_path_buf(),
            reason: format!(
                "it belongs to uid {} and this process runs as uid {}; loki-sessions only touches its own user's tree",
                meta.uid(),
                current_uid()
            ),
        }),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StoreError::io("inspect", path, e)),
    }
}

/// The name of the OS user running this process.
pub fn os_user_name() -> Option<String> {
    for var in ["USER", "LOGNAME"] {
        if let Ok(name) = std::env::var(var)
            && !name.is_empty()
        {
            return Some(name);
        }
    }
    passwd_name(current_uid())
}

fn passwd_name(uid: u32) -> Option<String> {
    let mut buf = vec![0 as libc::c_char; 4096];
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: all pointers are valid for the duration of the call and buf's
    // length is passed; on success pw_name points into buf.
    let rc = unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr(), buf.len(), &mut result) };
    if rc != 0 || result.is_null() {
        return None;
    }
    // SAFETY: pw_name is a NUL-terminated string inside buf.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_add_up_and_symlinks_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("big"), vec![1u8; 1 << 20]).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/f"), vec![1u8; 10_000]).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        fs::write(dir.path().join("g"), vec![1u8; 5_000]).unwrap();
        fs::create_dir_all(dir.path().join("sub/deeper/empty")).unwrap();
        fs::write(dir.path().join("sub/deeper/h"), b"abc").unwrap();
        std::os::unix::fs::symlink(outside.path().join("big"), dir.path().join("file-link"))
            .unwrap();
        let facts = tree_facts(dir.path()).unwrap();
        assert_eq!(facts.bytes, 10_000 + 5_000 + 3, "apparent file bytes only");
        assert!(!facts.crosses_filesystems);
        assert!(tree_facts(&dir.path().join("missing")).is_err());
    }
}
