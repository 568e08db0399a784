//! What says a file changed: its size, inode, modification and change
//! time. The change time is what nobody can set back: an edit that keeps
//! the size and restores the modification time (`touch -d`) still moves
//! it, and a file replaced by a rename has a new inode. The one stamp the
//! store compares files by (the search index, a purge's kept answers, a
//! fork's check that its original did not change, OpenCode's database).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One file's stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStamp {
    /// Size in bytes.
    pub size: u64,
    /// Inode.
    pub ino: u64,
    /// Modification time in nanoseconds.
    pub mtime_ns: i128,
    /// Change time (of the inode) in nanoseconds.
    pub ctime_ns: i128,
}

impl FileStamp {
    /// The stamp of a file as `st` (from an open descriptor) describes it.
    pub fn of(st: &rustix::fs::Stat) -> FileStamp {
        FileStamp {
            size: st.st_size as u64,
            ino: st.st_ino,
            mtime_ns: nanos(st.st_mtime, st.st_mtime_nsec as i64),
            ctime_ns: nanos(st.st_ctime, st.st_ctime_nsec as i64),
        }
    }

    /// The stamp of the entry at `path` itself (a link is not followed),
    /// if there is one.
    pub fn at(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        Some(FileStamp {
            size: meta.len(),
            ino: meta.ino(),
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
        })
    }
}

fn nanos(seconds: i64, nanoseconds: i64) -> i128 {
    seconds as i128 * 1_000_000_000 + nanoseconds as i128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_restores_the_size_and_time_still_changes_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "one").unwrap();
        let before = FileStamp::at(&path).unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, "two").unwrap();
        let f = std::fs::File::options().append(true).open(&path).unwrap();
        f.set_modified(modified).unwrap();
        let after = FileStamp::at(&path).unwrap();
        assert_eq!((after.size, after.mtime_ns), (before.size, before.mtime_ns));
        assert_ne!(after, before, "the change time moved");
        let st = rustix::fs::stat(&path).unwrap();
        assert_eq!(FileStamp::of(&st), after);
        assert_eq!(FileStamp::at(&dir.path().join("gone")), None);
    }
}
