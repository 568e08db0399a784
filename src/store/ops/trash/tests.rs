//! Deleting trash entries for good: only those named.

use super::*;

/// An entry named `name` in `state`, with one stored file.
fn planted(trash: &Path, name: &str, state: &str, trashed_at: f64) {
    std::fs::create_dir_all(trash.join(name).join("files")).unwrap();
    std::fs::write(trash.join(name).join("files").join("s.jsonl"), b"{}\n").unwrap();
    write_entry(
        trash,
        &TrashEntry {
            entry: name.into(),
            agent: Agent::Claude,
            id: format!("id-{name}"),
            title: String::new(),
            trashed_at,
            bytes: 3,
            moves: vec![Move {
                from: trash.join("gone").join(format!("{name}.jsonl")),
                stored: "s.jsonl".into(),
            }],
            root: Some(trash.join("gone")),
            state: state.into(),
        },
    )
    .unwrap();
}

fn names(trash: &Path) -> Vec<String> {
    list(trash).into_iter().map(|e| e.entry).collect()
}

#[test]
fn only_the_entries_named_are_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let trash = dir.path();
    planted(trash, "asked", "trashed", 1.0);
    planted(trash, "since", "trashed", 2.0);
    // "since" was trashed after the question; "unknown" is not there.
    let gone = delete_for_good(trash, &["asked".to_string(), "unknown".into()]).unwrap();
    assert_eq!(
        gone.iter().map(|e| e.entry.as_str()).collect::<Vec<_>>(),
        ["asked"]
    );
    assert!(!trash.join("asked").exists());
    assert_eq!(names(trash), ["since"], "trashed since: kept");
    assert!(
        std::fs::read_dir(trash)
            .unwrap()
            .flatten()
            .all(|d| !d.file_name().to_string_lossy().starts_with(".removing-")),
        "nothing half removed"
    );
}

#[test]
fn trash_empty_chooses_by_age_as_the_pane_does() {
    let entries: Vec<TrashEntry> = [10.0, 100.0, 1_000.0]
        .into_iter()
        .map(|ago| TrashEntry {
            entry: format!("e{ago}"),
            agent: Agent::Codex,
            id: String::new(),
            title: String::new(),
            trashed_at: 2_000.0 - ago,
            bytes: 0,
            moves: Vec::new(),
            root: None,
            state: "trashed".into(),
        })
        .collect();
    let by = |older_than| {
        trashed_before(&entries, older_than, 2_000.0)
            .into_iter()
            .map(|e| e.entry.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(by(None), ["e10", "e100", "e1000"]);
    assert_eq!(by(Some(100.0)), ["e100", "e1000"], "at least the age");
    assert_eq!(by(Some(5_000.0)), Vec::<String>::new());
}

/// A Gemini CLI session file under `chats`, with the folder it keeps
/// beside it.
fn gemini_session(chats: &Path, id: &str) -> SessionRecord {
    let path = chats.join(format!("session-{id}.jsonl"));
    std::fs::write(&path, format!("{{\"sessionId\":\"{id}\"}}\n")).unwrap();
    std::fs::create_dir_all(chats.join(id)).unwrap();
    std::fs::write(chats.join(id).join("tool.json"), b"{}").unwrap();
    SessionRecord {
        agent: Agent::Gemini,
        id: id.into(),
        path,
        conversation_dir: chats.to_path_buf(),
        ..SessionRecord::default()
    }
}

#[test]
fn a_listing_meanwhile_never_breaks_a_move_into_the_trash() {
    let dir = tempfile::tempdir().unwrap();
    let (trash, chats) = (dir.path().join("trash"), dir.path().join("chats"));
    std::fs::create_dir_all(&chats).unwrap();
    let records: Vec<SessionRecord> = (0..60)
        .map(|n| gemini_session(&chats, &format!("s{n:03}")))
        .collect();
    // Not busy: "now" is long after every file was written.
    let later = crate::store::now_seconds() + 10.0 * BUSY_SECONDS;
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Another process listing the trash all along (each listing
        // finishes what looks half moved, when nobody holds the trash).
        scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = list(&trash);
            }
        });
        // Each move's answer, asserted once the lister has stopped.
        let moved: Vec<_> = records
            .iter()
            .map(|r| trash_unless_busy(&trash, &chats, r, later, false, AskedBy::Purge))
            .collect();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        moved
    })
    .into_iter()
    .zip(&records)
    .for_each(|(moved, record)| {
        assert!(matches!(moved, Ok(Ok(_))), "{}: {moved:?}", record.id);
    });
    let entries = list(&trash);
    assert_eq!(entries.len(), records.len());
    assert!(entries.iter().all(|e| e.state == "trashed"));
    assert_eq!(
        std::fs::read_dir(&chats).unwrap().count(),
        0,
        "every file moved"
    );
}

#[test]
fn a_temp_file_a_kill_left_beside_an_entry_goes_at_the_next_listing() {
    let dir = tempfile::tempdir().unwrap();
    let trash = dir.path();
    planted(trash, "e", "trashed", 1.0);
    // A kill while entry.json was rewritten leaves its temp file behind.
    let temp = trash
        .join("e")
        .join(format!("{}entry", crate::store::fs::atomic::TEMP_PREFIX));
    std::fs::write(&temp, b"").unwrap();
    assert_eq!(names(trash), ["e"]);
    assert!(!temp.exists(), "the temp file was kept");
    assert!(entry_file(trash, "e").exists());
}

#[test]
fn a_person_may_delete_what_changed_moments_ago_once_no_process_has_it_open() {
    let dir = tempfile::tempdir().unwrap();
    let record = gemini_session(dir.path(), "fresh");
    let files = belongings(&record);
    let now = crate::store::now_seconds();
    let seen = Blockers {
        open: OpenFiles {
            open: Vec::new(),
            seen: true,
        },
        ..Blockers::default()
    };
    assert_eq!(
        refusal_of(&record, &files, now, &seen, false, AskedBy::Person),
        None
    );
    assert!(changed_recently(&record, now).is_some());
    let purge = refusal_of(&record, &files, now, &seen, false, AskedBy::Purge).unwrap();
    assert!(purge.contains("may still be writing"), "{purge}");
    // When the processes cannot be seen, nobody holding it proves nothing.
    let unseen = refusal_of(
        &record,
        &files,
        now,
        &Blockers::default(),
        false,
        AskedBy::Person,
    )
    .unwrap();
    assert!(unseen.contains("cannot be seen"), "{unseen}");
    // Held open by a process: refused to everyone, whatever its age.
    let held = Blockers {
        open: OpenFiles {
            open: vec![(42, record.path.canonicalize().unwrap())],
            seen: true,
        },
        ..Blockers::default()
    };
    let later = now + 10.0 * BUSY_SECONDS;
    let why = refusal_of(&record, &files, later, &held, false, AskedBy::Person).unwrap();
    assert!(why.contains("process 42 has it open"), "{why}");
    assert_eq!(changed_recently(&record, later), None);
}

#[test]
fn a_restore_killed_while_its_entry_was_removed_leaves_no_entry_listed() {
    let dir = tempfile::tempdir().unwrap();
    let (trash, sessions) = (dir.path().join("trash"), dir.path().join("sessions"));
    std::fs::create_dir(&sessions).unwrap();
    // Every file back and `files/` removed, entry.json not yet: what a
    // kill inside the old unhidden removal left.
    planted(&trash, "back", "restoring", 1.0);
    let mut back = list(&trash).remove(0);
    back.root = Some(sessions.clone());
    back.moves[0].from = sessions.join("back.jsonl");
    write_entry(&trash, &back).unwrap();
    std::fs::remove_dir_all(trash.join("back").join("files")).unwrap();
    // A kill after the hidden rename: nothing listed, removed next time.
    planted(&trash, "hidden", "trashed", 2.0);
    std::fs::rename(trash.join("hidden"), trash.join(".removing-hidden")).unwrap();
    assert_eq!(names(&trash), Vec::<String>::new());
    assert_eq!(
        std::fs::read_dir(&trash).unwrap().count(),
        0,
        "both finished"
    );
}

#[test]
fn a_child_of_this_program_not_yet_running_its_own_holds_nothing_for_the_check() {
    // A fork of this program (or of a test binary) holds every file we
    // have open until it runs what it was forked for: it is no agent
    // writing to them. Any other program with the file open is.
    let tmp = tempfile::tempdir().unwrap();
    let proc_root = tmp.path().join("proc");
    let session = tmp.path().join("s.jsonl");
    std::fs::write(&session, b"{}\n").unwrap();
    let link = |from: &Path, to: &Path| {
        std::fs::create_dir_all(from.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(to, from).unwrap();
    };
    let us = Path::new("/opt/build/it-0123");
    link(&proc_root.join("self/exe"), us);
    link(&proc_root.join("41/exe"), us);
    link(&proc_root.join("41/fd/7"), &session);
    let open = OpenFiles::scan_in(&proc_root);
    assert_eq!(open.holder(std::slice::from_ref(&session)), None);
    link(&proc_root.join("42/exe"), Path::new("/usr/bin/node"));
    link(&proc_root.join("42/fd/9"), &session);
    let open = OpenFiles::scan_in(&proc_root);
    assert_eq!(open.holder(std::slice::from_ref(&session)), Some(42));
}
