//! The facts a purge plan is decided on, gathered with I/O: size on disk,
//! `is_active`, the lock, whether the conversation can be read, mounts, and
//! a fingerprint that the apply step compares against.
//!
//! A purge gathers them for every session of the store, so one walk of the
//! session directory gives the size, the mounts, the lock and the
//! fingerprint together (it used to be four passes: the size walk, a lock
//! taken on a second descriptor, then the folder, meta.json and each file of
//! the conversation looked up again). The walk's answers are the ones the
//! separate look-ups give; where it cannot give one (the conversation is
//! not a plain directory inside the session, the session directory cannot
//! be opened), that look-up is made on its own as before.

use crate::store::fs::disk;
use crate::store::fs::lock::SessionLock;
use crate::store::ops::conversation::conversation_state_read;
use crate::store::ops::purge_checks::{Check, FileStamp, PurgeChecks, Seen};
use crate::store::ops::purge_plan::{Candidate, Fingerprint};
use crate::store::parallel;
use crate::store::sources::layout::META_FILE;
use crate::store::sources::record::SessionRecord;
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, CWD, FileType, FlockOperation, Mode, OFlags, Stat};
use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Gathers the facts about every record, in parallel, for a preview: the
/// conversations `kept` knows as they are are not read again, and what
/// was read is kept for the next preview.
pub fn gather_candidates(records: Vec<SessionRecord>, kept: &PurgeChecks) -> Vec<Candidate> {
    // The records are borrowed by the workers and moved into the candidates
    // after (not copied: 10,000 of them).
    let facts = parallel::map_ordered(&records, |r| facts_of(r, Some(kept)));
    let checks = records
        .iter()
        .zip(&facts)
        .filter_map(|(r, f)| Some((r.id.to_string(), f.check.clone()?)))
        .collect();
    kept.save(checks);
    records
        .into_iter()
        .zip(facts)
        .map(|(record, facts)| facts.into_candidate(record))
        .collect()
}

/// The facts about one session, its conversation read (the apply step's
/// check before a removal: nothing kept is trusted there).
pub fn candidate(record: SessionRecord) -> Candidate {
    facts_of(&record, None).into_candidate(record)
}

/// What a candidate holds besides its record.
struct Facts {
    walked: Walked,
    is_active: bool,
    unreadable_conversation: Option<String>,
    /// What may be kept of the conversation's answer for the next preview.
    check: Option<Check>,
}

impl Facts {
    fn into_candidate(self, record: SessionRecord) -> Candidate {
        Candidate {
            record,
            bytes: self.walked.bytes,
            is_active: self.is_active,
            locked: self.walked.locked,
            unreadable_conversation: self.unreadable_conversation,
            crosses_filesystems: self.walked.crosses_filesystems,
            fingerprint: self.walked.fingerprint,
        }
    }
}

fn facts_of(record: &SessionRecord, kept: Option<&PurgeChecks>) -> Facts {
    let check_lock = record.is_readable();
    // The fingerprint and the stamps are taken before the conversation is
    // read: whatever changes after, the apply step and the next preview see
    // changed.
    let mut walked = walk(record, check_lock).unwrap_or_else(|| look_up_apart(record, check_lock));
    let seen = walked.conversation_files.take();
    if let (Some(kept), Some(seen)) = (kept, &seen)
        && let Some(check) = kept.get(&record.id, seen)
    {
        return Facts {
            walked,
            is_active: check.is_active,
            unreadable_conversation: None,
            check: Some(check.clone()),
        };
    }
    // A session whose conversation cannot be read is spared: deleting what
    // we failed to read could lose work.
    match conversation_state_read(record) {
        Ok(state) => Facts {
            walked,
            is_active: state.is_active,
            unreadable_conversation: None,
            check: match (kept, &seen, &state.files) {
                (Some(_), Some(seen), Some(context)) => {
                    Check::made(seen, context.as_deref(), state.is_active)
                }
                _ => None,
            },
        },
        Err(e) => Facts {
            walked,
            is_active: false,
            unreadable_conversation: Some(e.to_string()),
            check: None,
        },
    }
}

/// What the walk of a session directory gives a purge.
struct Walked {
    bytes: u64,
    crosses_filesystems: bool,
    locked: bool,
    fingerprint: Fingerprint,
    /// The stamps of the conversation's regular files, when the walk
    /// listed its directory whole.
    conversation_files: Option<Seen>,
}

/// The facts of [`Walked`] each looked up on its own: for a session
/// directory the walk cannot open.
fn look_up_apart(record: &SessionRecord, check_lock: bool) -> Walked {
    let facts = disk::tree_facts(&record.path).unwrap_or_default();
    let locked = check_lock && SessionLock::is_held_elsewhere(&record.path).unwrap_or(false);
    let dev_ino = fs::symlink_metadata(&record.path).map_or((0, 0), |m| (m.dev(), m.ino()));
    Walked {
        bytes: facts.bytes,
        crosses_filesystems: facts.crosses_filesystems,
        locked,
        fingerprint: Fingerprint {
            dev_ino,
            meta_mtime_ns: mtime_ns(&record.path.join(META_FILE)),
            conversation_mtime_ns: newest_mtime_ns(&record.conversation_dir),
        },
        conversation_files: None,
    }
}

/// One directory of the walk: its descriptor and its path in the session.
struct Pending {
    fd: OwnedFd,
    relative: PathBuf,
    mtime_ns: i128,
}

/// Walks the session directory once, as [`disk::tree_facts`] does (links
/// not followed, other filesystems not entered, an unreadable subdirectory
/// counted as empty), and notes on the way what the fingerprint needs: the
/// directory's device and inode, meta.json's time, and the newest time of
/// the conversation directory and of every entry in it. `None` when the
/// session directory cannot be opened.
fn walk(record: &SessionRecord, check_lock: bool) -> Option<Walked> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let top = rustix::fs::openat(CWD, &record.path, flags, Mode::empty()).ok()?;
    let top_stat = rustix::fs::fstat(&top).ok()?;
    let device = top_stat.st_dev;
    let locked = check_lock && held_elsewhere(&top);
    let conversation = record.conversation_dir.strip_prefix(&record.path).ok();
    let meta_name = CString::new(META_FILE).ok()?;
    let mut walked = Walked {
        bytes: 0,
        crosses_filesystems: false,
        locked,
        fingerprint: Fingerprint {
            dev_ino: (top_stat.st_dev, top_stat.st_ino),
            ..Fingerprint::default()
        },
        conversation_files: None,
    };
    // The conversation's newest time, once its directory was read whole.
    let mut newest: Option<i128> = None;
    let mut stack = vec![Pending {
        fd: top,
        relative: PathBuf::new(),
        mtime_ns: stat_mtime_ns(&top_stat),
    }];
    while let Some(Pending {
        fd,
        relative,
        mtime_ns,
    }) = stack.pop()
    {
        let is_top = relative.as_os_str().is_empty();
        let is_conversation = conversation == Some(relative.as_path());
        let Ok(mut listing) = rustix::fs::Dir::new(fd) else {
            continue;
        };
        let mut children = Vec::new();
        let mut files = Vec::new();
        // Entries that are neither: only their times are wanted, and only here.
        let mut others = Vec::new();
        let mut listed_whole = true;
        loop {
            let entry = match listing.read() {
                Some(Ok(entry)) => entry,
                Some(Err(_)) => {
                    listed_whole = false;
                    break;
                }
                None => break,
            };
            let name = entry.file_name();
            if name.to_bytes() == b"." || name.to_bytes() == b".." {
                continue;
            }
            let timed = is_conversation || (is_top && name == meta_name.as_c_str());
            match entry.file_type() {
                FileType::Directory => children.push(name.to_owned()),
                // Unknown: the filesystem does not say; the lookup will.
                FileType::RegularFile | FileType::Unknown => files.push(name.to_owned()),
                _ if timed => others.push(name.to_owned()),
                _ => {}
            }
        }
        let Ok(parent) = listing.fd() else { continue };
        // The newest time among this directory's entries, for the conversation.
        let mut entries_newest = mtime_ns;
        let mut seen = Seen::new();
        let mut note = |name: &std::ffi::CStr, st: &Stat| {
            let t = stat_mtime_ns(st);
            if is_conversation {
                entries_newest = entries_newest.max(t);
            }
            if is_top && name == meta_name.as_c_str() {
                walked.fingerprint.meta_mtime_ns = t;
            }
        };
        for name in files {
            let Ok(st) = rustix::fs::statat(parent, &name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            note(&name, &st);
            match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => {
                    walked.bytes += st.st_size as u64;
                    if is_conversation {
                        seen.insert(name.into_bytes(), FileStamp::of(&st));
                    }
                }
                FileType::Directory => children.push(name),
                _ => {}
            }
        }
        for name in others {
            if let Ok(st) = rustix::fs::statat(parent, &name, AtFlags::SYMLINK_NOFOLLOW) {
                note(&name, &st);
            }
        }
        for name in children {
            let timed = is_conversation || (is_top && name == meta_name);
            let Ok(child) = rustix::fs::openat(parent, &name, flags, Mode::empty()) else {
                // Not entered; its own time still counts.
                if timed
                    && let Ok(st) = rustix::fs::statat(parent, &name, AtFlags::SYMLINK_NOFOLLOW)
                {
                    note(&name, &st);
                }
                continue;
            };
            let Ok(st) = rustix::fs::fstat(&child) else {
                continue;
            };
            note(&name, &st);
            if st.st_dev == device {
                stack.push(Pending {
                    fd: child,
                    relative: relative.join(std::ffi::OsStr::from_bytes(name.to_bytes())),
                    mtime_ns: stat_mtime_ns(&st),
                });
            } else {
                walked.crosses_filesystems = true;
            }
        }
        if is_conversation && listed_whole {
            newest = Some(entries_newest);
            walked.conversation_files = Some(seen);
        }
    }
    // A conversation the walk did not read (a link, another filesystem,
    // outside the session) is looked at on its own, as before.
    walked.fingerprint.conversation_mtime_ns =
        newest.unwrap_or_else(|| newest_mtime_ns(&record.conversation_dir));
    Some(walked)
}

/// True when another process holds the session's lock: the lock of
/// [`SessionLock`] tried on the walk's descriptor. Taken, it goes with the
/// descriptor, once the session directory is listed (a writer asking
/// meanwhile waits a moment and asks again, as `SessionLock::acquire` does).
fn held_elsewhere(dir: &impl AsFd) -> bool {
    match rustix::fs::flock(dir, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => false,
        Err(e) => e == rustix::io::Errno::WOULDBLOCK,
    }
}

fn stat_mtime_ns(st: &Stat) -> i128 {
    st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128
}

fn mtime_ns(path: &Path) -> i128 {
    fs::symlink_metadata(path).map_or(0, |m| {
        m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128
    })
}

/// The newest modification among the conversation's files: an agent that
/// appends a message changes it even if it does not touch meta.json.
fn newest_mtime_ns(dir: &Path) -> i128 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| mtime_ns(&e.path()))
        .max()
        .unwrap_or(0)
        .max(mtime_ns(dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::time::{Duration, SystemTime};

    fn record(path: &Path, conversation: &Path) -> SessionRecord {
        SessionRecord {
            id: "s".into(),
            path: path.to_path_buf(),
            conversation_dir: conversation.to_path_buf(),
            ..SessionRecord::default()
        }
    }

    fn set_mtime(path: &Path, secs_ago: u64) {
        let when = SystemTime::now() - Duration::from_secs(secs_ago);
        // Read-only: a directory's time is set the same way.
        fs::File::open(path).unwrap().set_modified(when).unwrap();
    }

    /// The one walk answers what the separate look-ups answer, for a
    /// conversation with every kind of entry, one that is a link, and a
    /// bare session whose folder is its conversation; and a file of the
    /// conversation made newer changes the fingerprint.
    #[test]
    fn the_walk_gives_the_facts_of_the_separate_look_ups() {
        let root = tempfile::tempdir().unwrap();
        let session = root.path().join("s");
        let memory = session.join("memory");
        fs::create_dir_all(memory.join("sub")).unwrap();
        fs::create_dir_all(session.join("workspace")).unwrap();
        fs::write(session.join(META_FILE), "{}").unwrap();
        fs::write(memory.join("session.json"), "{}").unwrap();
        fs::write(memory.join(".hidden"), "x").unwrap();
        fs::write(session.join("workspace/notes.md"), "notes").unwrap();
        symlink("/nowhere", memory.join("link")).unwrap();
        let elsewhere = root.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        fs::write(elsewhere.join("c.json"), "[]").unwrap();
        symlink(&elsewhere, session.join("linked")).unwrap();
        for (path, secs_ago) in [
            (session.join(META_FILE), 500),
            (memory.join("session.json"), 400),
            (memory.join(".hidden"), 100),
            (session.join("workspace/notes.md"), 50),
            (elsewhere.join("c.json"), 10),
            (memory.clone(), 900),
            (session.clone(), 900),
            (elsewhere.clone(), 900),
        ] {
            set_mtime(&path, secs_ago);
        }
        let cases = [
            record(&session, &memory),
            record(&session, &session.join("linked")),
            record(&session, &session),
            record(&session, &root.path().join("elsewhere")),
        ];
        for r in &cases {
            let walked = walk(r, true).expect("the session folder opens");
            let apart = look_up_apart(r, true);
            assert_eq!(
                walked.fingerprint, apart.fingerprint,
                "{:?}",
                r.conversation_dir
            );
            assert_eq!(
                (walked.bytes, walked.crosses_filesystems, walked.locked),
                (apart.bytes, apart.crosses_filesystems, apart.locked)
            );
            assert!(walked.fingerprint.meta_mtime_ns > 0);
        }
        // A file of the conversation rewritten in place, meta.json untouched.
        let before = walk(&cases[0], true).unwrap().fingerprint;
        set_mtime(&memory.join("session.json"), 0);
        let after = walk(&cases[0], true).unwrap().fingerprint;
        assert_ne!(before, after);
        assert_eq!(before.meta_mtime_ns, after.meta_mtime_ns);
        // A lock held by another descriptor (another process's, as flock sees it).
        let held = SessionLock::try_acquire(&session).unwrap().unwrap();
        assert!(walk(&cases[0], true).unwrap().locked);
        assert!(!walk(&cases[0], false).unwrap().locked);
        drop(held);
        assert!(!walk(&cases[0], true).unwrap().locked);
        // A session folder that is a link is not walked.
        let link = root.path().join("link");
        symlink(&session, &link).unwrap();
        assert!(walk(&record(&link, &link.join("memory")), true).is_none());
    }

    /// A kept answer is used by a preview only: applying reads again. The
    /// answer planted here says a damaged conversation loads, with the
    /// stamps its files have now, so only where it is used does it show.
    #[test]
    fn a_kept_answer_is_used_by_a_preview_and_never_by_the_apply_step() {
        let root = tempfile::tempdir().unwrap();
        let session = root.path().join("s");
        let memory = session.join("memory");
        fs::create_dir_all(&memory).unwrap();
        fs::write(session.join(META_FILE), "{}").unwrap();
        fs::write(
            memory.join("session.json"),
            r#"{"active_context_id": "c1", "is_active": false}"#,
        )
        .unwrap();
        fs::write(memory.join("c1.json"), "{ not json").unwrap();
        let r = record(&session, &memory);
        let seen = walk(&r, false).unwrap().conversation_files.unwrap();
        let planted = Check::made(&seen, Some("c1.json"), false).unwrap();
        let kept = PurgeChecks::holding(vec![("s".into(), planted)]);
        let previewed = gather_candidates(vec![r.clone()], &kept);
        assert_eq!(
            previewed[0].unreadable_conversation, None,
            "the kept answer"
        );
        let read = gather_candidates(vec![r.clone()], &PurgeChecks::none());
        assert!(read[0].unreadable_conversation.is_some());
        let applied = candidate(r);
        let why = applied.unreadable_conversation.expect("read again");
        assert!(why.contains("c1.json"), "{why}");
    }
}
