//! Transitions of the trash pane: opened from the list or the purge
//! preview, listed newest first, a session put back with a key (the list
//! reads the store again), Esc back where it came from.

use super::*;
use crate::store::{Agent, TrashEntry, TrashMove};
use crate::tui::model::{Confirm, ConfirmAction, Overlay};
use crate::tui::ops::{TrashOp, TrashReply};

fn entry(id: &str, title: &str, hours_ago: f64) -> TrashEntry {
    TrashEntry {
        entry: format!("{id}-entry"),
        agent: Agent::Claude,
        id: id.into(),
        title: title.into(),
        trashed_at: NOW - hours_ago * 3600.0,
        bytes: 2048,
        moves: vec![TrashMove {
            from: PathBuf::from(format!("/home/u/.claude/projects/app/{id}.jsonl")),
            stored: format!("{id}.jsonl"),
        }],
        root: None,
        state: "trashed".into(),
    }
}

#[test]
fn the_trash_lists_restores_and_goes_back_where_it_came_from() {
    let mut m = listed(true);
    let req = only_store!(act(&mut m, Action::Trash), StoreOp::Trash(TrashOp::List));
    assert!(matches!(m.screen, Screen::Trash(_)));
    assert!(m.trash().unwrap().entries.is_none(), "listing");
    let entries = vec![entry("new1", "Fix the login", 1.0), entry("old2", "", 30.0)];
    reply(
        &mut m,
        req,
        TrashReply::Listed {
            result: Ok(entries),
        },
    );
    assert_eq!(m.trash().unwrap().entries.as_ref().unwrap().len(), 2);
    // The second row, whose title is empty: its own entry is restored.
    act(&mut m, Action::Down);
    let (req, name) = only_store!(
        act(&mut m, Action::Restore),
        StoreOp::Trash(TrashOp::Restore { entry }) => entry
    );
    assert_eq!(
        name, "old2-entry",
        "the row's own entry, not the newest of its id"
    );
    assert_eq!(m.trash().unwrap().restoring.as_deref(), Some("old2"));
    assert!(act(&mut m, Action::Restore).is_empty(), "one at a time");
    let restored = Ok(entry("old2", "", 30.0));
    let effects = reply(&mut m, req, TrashReply::Restored { result: restored });
    let status = m.app.status.clone().unwrap();
    assert!(!status.is_error, "{status:?}");
    assert!(
        status.text.contains(
            "restored Claude Code session old2 to /home/u/.claude/projects/app/old2.jsonl"
        ),
        "{}",
        status.text
    );
    // The trash is listed again and the list reads the store again.
    assert!(asks!(&effects, StoreOp::Trash(TrashOp::List)));
    assert!(asks!(&effects, StoreOp::List(ListOp::Scan)));
    // A late reply to the first listing is dropped.
    reply(
        &mut m,
        1,
        TrashReply::Listed {
            result: Ok(Vec::new()),
        },
    );
    assert_eq!(m.trash().unwrap().entries.as_ref().unwrap().len(), 2);
    // Opened from the list: Esc goes back to it.
    act(&mut m, Action::Back);
    assert!(matches!(m.screen, Screen::List));
}

#[test]
fn a_restore_that_fails_says_why_and_the_trash_is_listed_again() {
    let mut m = trash_with(vec![entry("s1", "Refactor", 2.0)]);
    let req = only_store!(act(&mut m, Action::Restore), StoreOp::Trash(_));
    let why = UiError {
        kind: ErrorKind::Refused,
        text: "/home/u/.claude/projects/app/s1.jsonl is there again, so session s1 is not restored over it".into(),
    };
    let effects = reply(&mut m, req, TrashReply::Restored { result: Err(why) });
    let status = m.app.status.clone().unwrap();
    assert!(
        status.is_error && status.text.contains("is there again"),
        "{status:?}"
    );
    only_store!(effects, StoreOp::Trash(TrashOp::List));
}

#[test]
fn from_the_purge_preview_esc_goes_back_to_it_and_an_empty_trash_restores_nothing() {
    let mut m = listed(true);
    act(&mut m, Action::PurgePreview);
    let req = only_store!(act(&mut m, Action::Trash), StoreOp::Trash(_));
    assert_eq!(m.trash().unwrap().from, TrashFrom::Purge(None));
    reply(
        &mut m,
        req,
        TrashReply::Listed {
            result: Ok(Vec::new()),
        },
    );
    assert!(act(&mut m, Action::Restore).is_empty());
    assert!(
        m.app
            .status
            .as_ref()
            .unwrap()
            .text
            .contains("the trash is empty")
    );
    let effects = act(&mut m, Action::Back);
    assert!(matches!(m.screen, Screen::Purge(_)));
    assert!(
        asks!(&effects, StoreOp::Purge(PurgeOp::Gather)),
        "the preview gathers again: a restored session is back in it"
    );
}

/// The trash pane listing `entries`.
fn trash_with(entries: Vec<TrashEntry>) -> Model {
    let mut m = listed(true);
    let req = only_store!(act(&mut m, Action::Trash), StoreOp::Trash(_));
    reply(
        &mut m,
        req,
        TrashReply::Listed {
            result: Ok(entries),
        },
    );
    m
}

fn confirm_entries(m: &Model) -> Vec<String> {
    match &m.app.overlay {
        Some(Overlay::Confirm(Confirm {
            action: ConfirmAction::EmptyTrash { entries },
            ..
        })) => entries.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn emptying_asks_naming_what_goes_and_deletes_only_that() {
    let mut m = trash_with(vec![
        entry("new1", "Fix the login", 1.0),
        entry("mid2", "Billing", 3.0 * 24.0),
        entry("old3", "Port the cron job", 40.0 * 24.0),
    ]);
    // Everything, by default.
    assert!(act(&mut m, Action::Delete).is_empty(), "nothing before yes");
    assert_eq!(
        confirm_entries(&m),
        ["new1-entry", "mid2-entry", "old3-entry"]
    );
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        unreachable!()
    };
    assert_eq!(confirm.title, "Delete 3 sessions for good?");
    assert!(confirm.lines[0].contains("6.0 KiB"), "{:?}", confirm.lines);
    act(&mut m, Action::No);
    assert!(m.app.overlay.is_none());
    // ] twice: only what was trashed over 7 days ago.
    act(&mut m, Action::AgeMore);
    act(&mut m, Action::AgeMore);
    assert_eq!(m.trash().unwrap().older_than_days, 7);
    act(&mut m, Action::Delete);
    assert_eq!(confirm_entries(&m), ["old3-entry"]);
    let (req, entries) = only_store!(
        act(&mut m, Action::Yes),
        StoreOp::Trash(TrashOp::Delete { entries }) => entries
    );
    assert_eq!(entries, ["old3-entry"], "what was asked about, no more");
    assert_eq!(m.trash().unwrap().deleting, Some(1));
    assert!(
        act(&mut m, Action::Restore).is_empty(),
        "one change at a time"
    );
    let deleted = Ok(vec![entry("old3", "Port the cron job", 40.0 * 24.0)]);
    let effects = reply(&mut m, req, TrashReply::Deleted { result: deleted });
    only_store!(effects, StoreOp::Trash(TrashOp::List)); // listed again
    assert_eq!(m.trash().unwrap().deleting, None);
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "deleted 1 session for good, freed 2.0 KiB"
    );
}

#[test]
fn the_age_steps_up_and_down_and_an_age_nothing_is_over_asks_nothing() {
    let mut m = trash_with(vec![entry("new1", "Fix the login", 1.0)]);
    for want in [1, 7, 30, 90, 365, 365] {
        act(&mut m, Action::AgeMore);
        assert_eq!(m.trash().unwrap().older_than_days, want);
    }
    act(&mut m, Action::Delete);
    assert!(m.app.overlay.is_none());
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "nothing in the trash was trashed over 365 days ago"
    );
    for want in [90, 30, 7, 1, 0, 0] {
        act(&mut m, Action::AgeLess);
        assert_eq!(m.trash().unwrap().older_than_days, want);
    }
    act(&mut m, Action::Delete);
    assert_eq!(confirm_entries(&m), ["new1-entry"]);
    // An empty trash: nothing to ask.
    let mut m = trash_with(vec![]);
    act(&mut m, Action::Delete);
    assert!(m.app.overlay.is_none());
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "the trash is empty: nothing to delete"
    );
}
