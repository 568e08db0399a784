//! What a session's files looked like when it was indexed: each file's
//! name and its stamp (`fs::stamp`: size, modification time, change time
//! and inode), kept in the index's manifest. A session whose
//! stamp differs from the one the index recorded is read again; the others
//! are not. The change time is what a user cannot set back: an edit that
//! keeps the size and restores the modification time (`touch -d`) still
//! moves it.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// One file of a session as the index stamped it: its name and stamp.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StampedFile {
    /// The file name.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds.
    pub mtime_ns: i128,
    /// Change time (of the inode) in nanoseconds.
    pub ctime_ns: i128,
    /// Inode: a file replaced by rename has a new one even at the same size and time.
    pub ino: u64,
}

/// What a stamp says of a file, whether owned ([`StampedFile`]) or borrowed
/// from the manifest's bytes.
pub trait Stamp {
    /// The file name.
    fn name(&self) -> &str;
    /// The stamp itself.
    fn file_stamp(&self) -> crate::store::fs::stamp::FileStamp;
    /// True when `st` describes the file as stamped: the same size, inode,
    /// modification and change time.
    fn matches(&self, st: &rustix::fs::Stat) -> bool {
        crate::store::fs::stamp::FileStamp::of(st) == self.file_stamp()
    }
}

impl Stamp for StampedFile {
    fn name(&self) -> &str {
        &self.name
    }

    fn file_stamp(&self) -> crate::store::fs::stamp::FileStamp {
        crate::store::fs::stamp::FileStamp {
            size: self.size,
            ino: self.ino,
            mtime_ns: self.mtime_ns,
            ctime_ns: self.ctime_ns,
        }
    }
}

/// The stamp of one file, if it exists.
pub fn file(path: &Path) -> Option<StampedFile> {
    let stamp = crate::store::fs::stamp::FileStamp::at(path)?;
    Some(StampedFile {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        size: stamp.size,
        mtime_ns: stamp.mtime_ns,
        ctime_ns: stamp.ctime_ns,
        ino: stamp.ino,
    })
}

/// The stamps of a conversation directory: the directory itself (a new or
/// removed file changes it) and each visible file in it, sorted by name.
pub fn conversation(dir: &Path) -> Vec<StampedFile> {
    let mut out: Vec<StampedFile> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter_map(|e| file(&e.path()))
                .collect()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(mut itself) = file(dir) {
        itself.name = ".".into();
        out.insert(0, itself);
    }
    out
}

/// The stamps of another agent's session files, each named by its path
/// relative to `folder` (the agent's folder), in the order given. A file
/// outside the folder or gone has no stamp.
pub fn files(folder: &Path, paths: &[std::path::PathBuf]) -> Vec<StampedFile> {
    paths
        .iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(folder).ok()?;
            let mut stamp = file(p)?;
            stamp.name = rel.to_string_lossy().into_owned();
            Some(stamp)
        })
        .collect()
}

/// Checks stamps against the files fast: every path is looked up relative
/// to the session folder, opened once, and a conversation is listed only
/// when its directory's own stamp changed (a file came or went).
pub struct Checker {
    folder: Option<rustix::fd::OwnedFd>,
}

impl Checker {
    /// A checker for the sessions in `folder`.
    pub fn new(folder: &Path) -> Checker {
        use rustix::fs::{CWD, Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Checker {
            folder: rustix::fs::openat(CWD, folder, flags, Mode::empty()).ok(),
        }
    }

    /// True when `files` (a conversation's stamps, the directory first, as
    /// [`conversation`] makes them) and `meta` still describe session `id`,
    /// whose conversation is `conversation` and meta file `meta_file`
    /// (paths relative to the folder).
    pub fn unchanged<S: Stamp>(
        &self,
        conversation: &Path,
        files: &[S],
        meta_file: Option<&Path>,
        meta: Option<&S>,
    ) -> bool {
        self.meta_unchanged(meta_file, meta) && self.conversation_unchanged(conversation, files)
    }

    /// True when the conversation's files are as `files` recorded.
    pub fn conversation_unchanged<S: Stamp>(&self, conversation: &Path, files: &[S]) -> bool {
        let Some((dir, rest)) = files.split_first() else {
            return false;
        };
        self.same(conversation, dir)
            && rest
                .iter()
                .all(|f| self.same(&conversation.join(f.name()), f))
    }

    /// True when every file of `files` (stamps named by their path in the
    /// folder, as [`files`] makes them) is as recorded. A subagent's file
    /// that appears later is not seen here; its session's own file changes
    /// with it (the call that started the subagent is written there).
    pub fn files_unchanged<S: Stamp>(&self, files: &[S]) -> bool {
        self.files_unchanged_seen(files, &|_| None)
    }

    /// [`Checker::files_unchanged`], a file whose stamp `seen` gives (a
    /// listing looked at it a moment ago) compared with that stamp
    /// rather than looked at again.
    pub fn files_unchanged_seen<S: Stamp>(
        &self,
        files: &[S],
        seen: &dyn Fn(&str) -> Option<crate::store::fs::stamp::FileStamp>,
    ) -> bool {
        !files.is_empty()
            && files.iter().all(|f| match seen(f.name()) {
                Some(stamp) => stamp == f.file_stamp(),
                None => self.same(Path::new(f.name()), f),
            })
    }

    /// True when meta.json is as `meta` recorded (both absent counts).
    pub fn meta_unchanged<S: Stamp>(&self, meta_file: Option<&Path>, meta: Option<&S>) -> bool {
        match (meta_file, meta) {
            (Some(path), Some(stamp)) => self.same(path, stamp),
            (None, None) => true,
            (Some(path), None) => self.stat(path).is_none(),
            (None, Some(_)) => false,
        }
    }

    fn stat(&self, path: &Path) -> Option<rustix::fs::Stat> {
        let folder = self.folder.as_ref()?;
        rustix::fs::statat(folder, path, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()
    }

    fn same<S: Stamp>(&self, path: &Path, stamp: &S) -> bool {
        self.stat(path).is_some_and(|st| stamp.matches(&st))
    }
}
