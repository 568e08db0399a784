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
