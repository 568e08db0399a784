//! Crash-safe file replacement and private directories.
//!
//! A file is never written in place: the new bytes go to a temp file in the
//! same directory, which is synced, renamed over the target and followed by a
//! sync of the directory. A reader sees the old file or the new one, never a
//! torn one. Temp files carry [`TEMP_PREFIX`]: they are hidden, never read as
//! data, and removed by the next writer that holds the session's lock.

use crate::store::error::{IoContext, Result};
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Name prefix of our temp files and directories (hidden, so readers skip them).
pub const TEMP_PREFIX: &str = ".loki-sessions-tmp-";

/// Mode of the directories we create: only the owner may enter.
pub const DIR_MODE: u32 = 0o700;
/// Mode of the files we create: only the owner may read them.
pub const FILE_MODE: u32 = 0o600;

/// Replaces `path` with `bytes` atomically (temp, fsync, rename, fsync dir).
///
/// An existing file keeps its permission bits; a new one gets [`FILE_MODE`].
/// A failure names `path` (the temp file is a detail) and leaves no temp
/// file behind.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_of(path);
    let mode = fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let temp = synced_temp(dir, path, bytes, mode)?;
    temp.persist(path)
        .map_err(|e| e.error)
        .ctx("replace", path)?;
    sync_dir(dir)
}

/// Creates `path` with `bytes` only if it does not exist yet, atomically.
pub fn create_new_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = parent_of(path);
    let temp = synced_temp(dir, path, bytes, None)?;
    temp.persist_noclobber(path)
        .map_err(|e| e.error)
        .ctx("create", path)?;
    sync_dir(dir)
}

/// A hidden temp file in `dir` holding `bytes` meant for `target`, synced
/// to disk, with `mode` (else [`FILE_MODE`]): ready to be renamed over its
/// target. Errors name the target; the temp file goes when it is dropped.
fn synced_temp(
    dir: &Path,
    target: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<tempfile::NamedTempFile> {
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .permissions(fs::Permissions::from_mode(FILE_MODE))
        .tempfile_in(dir)
        .map_err(without_temp_path)
        .ctx("write", target)?;
    if let Some(mode) = mode {
        fs::set_permissions(temp.path(), fs::Permissions::from_mode(mode)).ctx("write", target)?;
    }
    // Through the File, whose errors do not name the temp file.
    temp.as_file_mut().write_all(bytes).ctx("write", target)?;
    temp.as_file().sync_all().ctx("write", target)?;
    Ok(temp)
}

/// tempfile's error without the temp file's path it appends (" at path
/// …"): the error names the target instead.
fn without_temp_path(e: std::io::Error) -> std::io::Error {
    let inner = e
        .get_ref()
        .and_then(|wrapper| wrapper.source())
        .and_then(|source| source.downcast_ref::<std::io::Error>())
        .and_then(std::io::Error::raw_os_error);
    match inner {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => e,
    }
}

/// The file `path` as it is now, held under a hidden name in its folder
/// (a hard link: no byte is copied, no space is needed), so a write that
/// replaces it can be undone by [`put_back`] even on a full disk. None
/// where the filesystem has no hard links.
pub fn hold(path: &Path) -> Option<std::path::PathBuf> {
    let held = parent_of(path).join(format!("{TEMP_PREFIX}held-{}", uuid::Uuid::new_v4()));
    fs::hard_link(path, &held).ok().map(|()| held)
}

/// Puts the file [`hold`] kept back at `path` (a rename, atomic).
pub fn put_back(held: &Path, path: &Path) -> Result<()> {
    fs::rename(held, path).ctx("put back", path)?;
    sync_dir(parent_of(path))
}

/// Removes a file, then syncs its folder.
pub fn remove_synced(path: &Path) -> Result<()> {
    fs::remove_file(path).ctx("remove", path)?;
    sync_dir(parent_of(path))
}

/// Flushes a directory's entries (a rename is durable only after this).
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .ctx("sync directory", dir)
}

/// Creates one directory with mode 0700 (the parent must exist).
pub fn create_private_dir(path: &Path) -> Result<()> {
    DirBuilder::new()
        .mode(DIR_MODE)
        .create(path)
        .ctx("create directory", path)
}

/// Creates a directory and any missing parents, each with mode 0700.
pub fn create_private_dir_all(path: &Path) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)
        .ctx("create directory", path)
}

/// Writes a brand-new file with mode 0600 (used inside a directory that is
/// not visible yet, so atomicity comes from renaming the directory).
pub fn write_private_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(path)
        .ctx("create", path)?;
    file.write_all(bytes).ctx("write", path)?;
    file.sync_all().ctx("sync", path)
}

/// Removes temp files a killed writer left in `dir`. Call it only while
/// holding the lock that every writer of `dir` takes first: under it no
/// temp file is live, whatever its age (so no clock is read here).
pub fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The hidden name of a directory being built before it is renamed into
/// place; it carries the builder's pid so leftovers of a killed builder can
/// be told from work in progress.
pub fn staging_name(kind: &str, id: &str) -> String {
    format!("{TEMP_PREFIX}{kind}-{}-{id}", std::process::id())
}

/// True when the staging entry `name` was left by a process that is gone.
pub fn staging_is_abandoned(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(TEMP_PREFIX) else {
        return false;
    };
    let pid = rest.split('-').nth(1).and_then(|p| p.parse::<i32>().ok());
    match pid {
        // Signal 0 sends nothing: it only asks whether the process exists.
        Some(pid) => rustix::process::Pid::from_raw(pid).is_some_and(|pid| {
            rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
        }),
        None => false,
    }
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        write_atomic(&path, b"one").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o640
        );
        let leftovers = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temp file remains");
    }

    #[test]
    fn create_new_refuses_to_clobber() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        create_new_atomic(&path, b"one").unwrap();
        assert!(create_new_atomic(&path, b"two").is_err());
        assert_eq!(fs::read(&path).unwrap(), b"one");
    }

    #[test]
    fn stale_temps_are_removed_but_data_is_not() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(format!("{TEMP_PREFIX}abc")), b"x").unwrap();
        fs::write(dir.path().join("session.json"), b"{}").unwrap();
        remove_stale_temps(dir.path());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("session.json")]);
    }
}
