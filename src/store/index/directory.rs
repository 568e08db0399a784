//! tantivy's files on disk, kept as private as the sessions they quote: an
//! `MmapDirectory` whose files are made 0600 (tantivy makes them with the
//! umask's mode, 0644 as a rule), whose small files are read without
//! following a link, without waiting on a FIFO and only up to a size the
//! index can have, and whose other files are opened only when they are
//! regular files.

use crate::store::format::jsonfile;
use crate::store::fs::atomic::FILE_MODE;
use std::fs::{OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

/// The largest `meta.json` (and other file read whole) tantivy may have:
/// it lists the segments and the schema, a few kilobytes as a rule.
pub const SMALL_FILE_LIMIT: u64 = 16 << 20;

/// tantivy's directory with private files.
#[derive(Clone, Debug)]
pub struct PrivateDirectory {
    inner: MmapDirectory,
    root: PathBuf,
}

impl PrivateDirectory {
    /// Opens `root`, which must be a directory.
    pub fn open(root: &Path) -> Result<PrivateDirectory, OpenDirectoryError> {
        Ok(PrivateDirectory {
            inner: MmapDirectory::open(root)?,
            root: root.to_path_buf(),
        })
    }

    fn private(&self, path: &Path) -> io::Result<()> {
        std::fs::set_permissions(self.root.join(path), Permissions::from_mode(FILE_MODE))
    }
}

impl Directory for PrivateDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        // Mapping a FIFO would wait for a writer, a link would lead out.
        let full = self.root.join(path);
        match std::fs::symlink_metadata(&full) {
            Ok(m) if !m.is_file() => {
                let why = io::Error::other(format!("{} is not a regular file", full.display()));
                return Err(OpenReadError::wrap_io_error(why, path.to_path_buf()));
            }
            _ => {}
        }
        self.inner.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let writer = self.inner.open_write(path)?;
        self.private(path)
            .map_err(|e| OpenWriteError::wrap_io_error(e, path.to_path_buf()))?;
        Ok(writer)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let full = self.root.join(path);
        jsonfile::read_no_follow_at_most(&full, SMALL_FILE_LIMIT).map_err(|e| {
            if e.is_not_found() {
                OpenReadError::FileDoesNotExist(path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(io::Error::other(e.to_string()), path.to_path_buf())
            }
        })
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        // A temp file (0600, tempfile's mode) renamed over the target.
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        // tantivy creates a missing lock file with the umask's mode: made
        // here first, private, never through a link.
        let made = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(self.root.join(&lock.filepath));
        made.map_err(LockError::wrap_io_error)?;
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}
