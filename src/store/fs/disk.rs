//! Facts about directories on disk: size, mount points, ownership, identity.

use crate::store::error::{IoContext, Result, StoreError};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What a walk of a session directory found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeFacts {
    /// Bytes the tree occupies on disk (allocated blocks, like `du`).
    pub bytes: u64,
    /// True when some directory inside lies on another filesystem.
    pub crosses_filesystems: bool,
}

/// Walks `dir` without following symlinks, summing allocated bytes and
/// noting any directory on another filesystem (never descending into it).
pub fn tree_facts(dir: &Path) -> Result<TreeFacts> {
    let top = fs::symlink_metadata(dir).ctx("inspect", dir)?;
    let mut facts = TreeFacts {
        bytes: top.blocks() * 512,
        crosses_filesystems: false,
    };
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = fs::read_dir(&current) else {
            continue; // unreadable subdirectory: count what we can see
        };
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            facts.bytes += meta.blocks() * 512;
            if meta.is_dir() {
                if meta.dev() == top.dev() {
                    stack.push(entry.path());
                } else {
                    facts.crosses_filesystems = true;
                }
            }
        }
    }
    Ok(facts)
}

/// Bytes the files under `dir` occupy (allocated blocks), without following
/// symlinks. Cheaper than [`tree_facts`], which a purge uses because it also
/// finds mount points: directories are opened relative to their parent,
/// their types come from the listing itself, and only files are looked up,
/// so a small session costs a few dozen system calls.
pub fn file_bytes(dir: &Path) -> u64 {
    use rustix::fs::{AtFlags, CWD, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let Ok(top) = rustix::fs::openat(CWD, dir, flags, Mode::empty()) else {
        return 0;
    };
    let mut bytes = 0;
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
                rustix::fs::FileType::Directory => children.push(name.to_owned()),
                rustix::fs::FileType::RegularFile => files.push(name.to_owned()),
                _ => {}
            }
        }
        let Ok(parent) = listing.fd() else { continue };
        for name in files {
            if let Ok(st) = rustix::fs::statat(parent, &name, AtFlags::SYMLINK_NOFOLLOW) {
                bytes += st.st_blocks as u64 * 512;
            }
        }
        for name in children {
            if let Ok(child) = rustix::fs::openat(parent, &name, flags, Mode::empty()) {
                stack.push(child);
            }
        }
    }
    bytes
}

/// The effective uid of this process.
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
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
    fn file_bytes_counts_files_and_skips_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("big"), vec![1u8; 1 << 20]).unwrap();
        fs::create_dir_all(dir.path().join("a/b")).unwrap();
        fs::write(dir.path().join("a/b/f"), vec![1u8; 10_000]).unwrap();
        fs::write(dir.path().join("g"), vec![1u8; 5_000]).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let bytes = file_bytes(dir.path());
        assert!((15_000..(1 << 20)).contains(&bytes), "{bytes}");
        assert_eq!(file_bytes(&dir.path().join("missing")), 0);
    }

    #[test]
    fn sizes_add_up_and_symlinks_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("big"), vec![1u8; 1 << 20]).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/f"), vec![1u8; 10_000]).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let facts = tree_facts(dir.path()).unwrap();
        assert!(facts.bytes >= 10_000 && facts.bytes < 1 << 20, "{facts:?}");
        assert!(!facts.crosses_filesystems);
    }
}
