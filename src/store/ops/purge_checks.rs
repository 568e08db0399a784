//! What a purge found of each session's conversation, kept for the next
//! purge's preview: reading session.json and the whole active context to
//! know that they load (and whether the session is active) was a large
//! share of a purge's time (docs/PERFORMANCE.md), for answers that rarely
//! change.
//!
//! An answer is kept with the stamps (size, inode, modification and change
//! time) the purge's walk saw of session.json and of the active context
//! *before* it read them, and is used only while both files still have
//! those stamps: any write to a file moves its change time, which nobody
//! can set back, so a file written since is read again (the search index
//! decides what changed by the same rule). Only conversations that loaded
//! are kept: a damaged one is read every time, so its message names what
//! is wrong now. The preview alone uses them: applying a purge reads each
//! removal's conversation again (`purge_facts::candidate`).
//!
//! The file is one of our sealed side files (`fs/sealed.rs`): one truncated, altered or of
//! another format is not used (every conversation is read, and the file
//! written again).

use crate::store::format::SESSION_FILE;
use crate::store::fs::sealed;
use std::collections::HashMap;
use std::path::PathBuf;

/// The file's name in the search index's slot.
pub const FILE: &str = "purge-checks";
/// The first bytes of the file (its format: a new one is a new magic).
const MAGIC: &[u8; 8] = b"LSPCHK2\n";
/// No such file is bigger (a million sessions); a bigger one is not read.
pub const LIMIT: u64 = 256 << 20;

pub use crate::store::fs::stamp::FileStamp;

/// The stamps of the regular files of a conversation directory, by name,
/// as the purge's walk saw them.
pub type Seen = HashMap<Vec<u8>, FileStamp>;

/// One session's kept answer: its conversation loaded, and this is
/// whether it is active.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Check {
    /// session.json's stamp.
    session: FileStamp,
    /// The active context's file name and stamp (None: it names none).
    context: Option<(Vec<u8>, FileStamp)>,
    /// `is_active` in session.json.
    pub is_active: bool,
}

impl Check {
    /// The answer `is_active` for a conversation whose session.json and
    /// active context (`context`, a file name) had the stamps in `seen`
    /// before they were read; None when the walk did not see one of them.
    pub fn made(seen: &Seen, context: Option<&str>, is_active: bool) -> Option<Check> {
        let session = *seen.get(SESSION_FILE.as_bytes())?;
        let context = match context {
            Some(name) => {
                let name = name.as_bytes().to_vec();
                let stamp = *seen.get(&name)?;
                Some((name, stamp))
            }
            None => None,
        };
        Some(Check {
            session,
            context,
            is_active,
        })
    }

    /// True when the files are as they were when this was decided.
    pub fn holds(&self, seen: &Seen) -> bool {
        seen.get(SESSION_FILE.as_bytes()) == Some(&self.session)
            && self
                .context
                .as_ref()
                .is_none_or(|(name, stamp)| seen.get(name) == Some(stamp))
    }
}

/// The answers kept for a store, by session id.
#[derive(Debug, Default)]
pub struct PurgeChecks {
    path: Option<PathBuf>,
    kept: HashMap<String, Check>,
}

impl PurgeChecks {
    /// No file: every conversation is read.
    pub fn none() -> PurgeChecks {
        PurgeChecks::default()
    }

    /// The answers in the file at `path` (which need not exist; its folder
    /// must be a private one the caller made safe): none when it is
    /// missing, damaged or of another format.
    pub fn load(path: PathBuf) -> PurgeChecks {
        let kept: HashMap<String, Check> =
            sealed::read::<Vec<(String, Check)>>(&path, MAGIC, LIMIT)
                .map(|entries| entries.into_iter().collect())
                .unwrap_or_default();
        PurgeChecks {
            path: Some(path),
            kept,
        }
    }

    /// Answers kept in memory only (for tests that plant one).
    #[cfg(test)]
    pub fn holding(entries: Vec<(String, Check)>) -> PurgeChecks {
        PurgeChecks {
            path: None,
            kept: entries.into_iter().collect(),
        }
    }

    /// The kept answer of session `id`, if its files are as they were.
    pub fn get(&self, id: &str, seen: &Seen) -> Option<&Check> {
        self.kept.get(id).filter(|check| check.holds(seen))
    }

    /// Keeps `now` (every session's answer of this purge, in the store's
    /// order) in place of what was kept, when it differs: a session gone
    /// leaves, a changed one is replaced. A cache: a failure to write only
    /// means reading again next time.
    pub fn save(&self, now: Vec<(String, Check)>) {
        let Some(path) = &self.path else { return };
        let same =
            now.len() == self.kept.len() && now.iter().all(|(id, c)| self.kept.get(id) == Some(c));
        if !same {
            let _ = sealed::write(path, MAGIC, &now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn stamp(n: u64) -> FileStamp {
        FileStamp {
            size: n,
            ino: n + 1,
            mtime_ns: n as i128 * 1_000,
            ctime_ns: n as i128 * 2_000,
        }
    }

    fn seen(pairs: &[(&str, FileStamp)]) -> Seen {
        pairs
            .iter()
            .map(|(n, s)| (n.as_bytes().to_vec(), *s))
            .collect()
    }

    #[test]
    fn an_answer_holds_only_while_both_files_are_as_they_were() {
        let walk = seen(&[("session.json", stamp(1)), ("c1.json", stamp(2))]);
        let check = Check::made(&walk, Some("c1"), true);
        assert_eq!(check, None, "c1 is not a file name the walk saw");
        let check = Check::made(&walk, Some("c1.json"), true).unwrap();
        assert!(check.holds(&walk));
        let changed = |name: &str| {
            let mut w = walk.clone();
            w.get_mut(name.as_bytes()).unwrap().ctime_ns += 1;
            w
        };
        assert!(!check.holds(&changed("session.json")));
        assert!(!check.holds(&changed("c1.json")));
        // Another file of the conversation changing does not matter.
        let mut more = walk.clone();
        more.insert(b"c2.json".to_vec(), stamp(9));
        assert!(check.holds(&more));
        // A conversation naming no active context needs only session.json.
        let bare = Check::made(&walk, None, false).unwrap();
        assert!(bare.holds(&seen(&[("session.json", stamp(1))])));
        assert!(!bare.holds(&seen(&[("c1.json", stamp(2))])));
    }

    #[test]
    fn round_trip_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        assert!(PurgeChecks::load(path.clone()).kept.is_empty(), "missing");
        let walk = seen(&[("session.json", stamp(1)), ("c1.json", stamp(2))]);
        let a = Check::made(&walk, Some("c1.json"), true).unwrap();
        let b = Check::made(&walk, None, false).unwrap();
        let entries = vec![("s1".to_string(), a.clone()), ("s2".to_string(), b.clone())];
        PurgeChecks::load(path.clone()).save(entries.clone());
        let loaded = PurgeChecks::load(path.clone());
        assert_eq!(loaded.get("s1", &walk), Some(&a));
        assert_eq!(loaded.get("s2", &walk), Some(&b));
        assert_eq!(loaded.get("s3", &walk), None);
        // The same answers again: nothing is written (a write is a new file).
        let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let before = inode(&path);
        loaded.save(entries);
        assert_eq!(inode(&path), before);
        // Any byte changed, or the file cut short, and nothing is used.
        let good = std::fs::read(&path).unwrap();
        for at in [0, 9, 12, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 1;
            std::fs::write(&path, &bad).unwrap();
            assert!(PurgeChecks::load(path.clone()).kept.is_empty(), "byte {at}");
        }
        std::fs::write(&path, &good[..good.len() - 5]).unwrap();
        assert!(PurgeChecks::load(path.clone()).kept.is_empty(), "truncated");
        // A session gone leaves the file.
        std::fs::write(&path, &good).unwrap();
        let loaded = PurgeChecks::load(path.clone());
        loaded.save(vec![("s2".to_string(), b)]);
        assert_eq!(PurgeChecks::load(path).kept.len(), 1);
    }
}
