//! Transitions of finding where the tokens are and taking them elsewhere:
//! the breakdown, largest first, jumps over a size, a context against its
//! parent, and exports.

use super::edit::{COUNTS, editing, tools_context};
use super::*;
use crate::store::{ContextDiff, DiffMessage, DiffSide, TokenKind, TranscriptFormat};
use crate::tui::model::Overlay;

fn status(m: &Model) -> String {
    m.app.status.as_ref().expect("a status").text.clone()
}

#[test]
fn the_breakdown_comes_with_the_last_count() {
    let (mut m, _) = opened_on(tools_context());
    let req = viewer_req(&m);
    reply(&mut m, req, tokens_counted(0, COUNTS[..5].to_vec()));
    assert!(
        m.viewer().unwrap().breakdown.is_none(),
        "not with some counts"
    );
    reply(&mut m, req, tokens_counted(5, COUNTS[5..].to_vec()));
    let breakdown = m.viewer().unwrap().breakdown.clone().expect("ready");
    assert_eq!(breakdown.total(), 310);
    assert_eq!(breakdown.get(TokenKind::ToolResults).tokens, 250);
    assert_eq!(breakdown.get(TokenKind::SystemPrompt).tokens, 5);
    act(&mut m, Action::Breakdown);
    assert_eq!(keymap::scope(&m), keymap::Scope::Breakdown);
    act(&mut m, Action::Back);
    assert!(matches!(m.viewer().unwrap().mode, ViewerMode::Browse));
    // Another encoding: no breakdown until its counts are in.
    act(&mut m, Action::ToggleEncoding);
    assert!(m.viewer().unwrap().breakdown.is_none());
}

#[test]
fn largest_first_shows_the_largest_and_moves_in_its_order() {
    let mut m = editing();
    viewer_mut(&mut m).selected = 5;
    act(&mut m, Action::SortBySize);
    let v = m.viewer().unwrap();
    assert_eq!(v.selected, 3, "the view goes to the top: the largest");
    assert_eq!(v.row_of(3), 0, "200 tokens: the largest");
    let rows: Vec<usize> = (0..9).map(|r| v.message_at(r)).collect();
    assert_eq!(
        rows,
        vec![3, 7, 4, 2, 6, 8, 0, 5, 1],
        "ties in context order"
    );
    act(&mut m, Action::Down);
    assert_eq!(m.viewer().unwrap().selected, 7, "the next largest");
    act(&mut m, Action::End);
    assert_eq!(m.viewer().unwrap().selected, 1, "the smallest");
    act(&mut m, Action::SortBySize);
    let v = m.viewer().unwrap();
    assert!(v.order.is_none());
    assert_eq!(v.selected, 1);
    assert_eq!(v.row_of(1), 1, "back in context order");
}

#[test]
fn jumps_go_to_messages_over_the_size_set() {
    let mut m = editing();
    viewer_mut(&mut m).selected = 0;
    act(&mut m, Action::NextBig);
    assert_eq!(m.viewer().unwrap().selected, 0);
    assert!(
        status(&m).contains("more than 1,000 tokens"),
        "{}",
        status(&m)
    );
    // = asks for the size: typed text, and a word is refused.
    act(&mut m, Action::SetBigSize);
    let Some(Overlay::Input(input)) = &m.app.overlay else {
        panic!("a text field")
    };
    assert_eq!(input.text.value(), "1000");
    act(&mut m, Action::Edit(InputRequest::DeleteFromStart));
    update(&mut m, Msg::Paste("lots".into()));
    act(&mut m, Action::Confirm);
    assert!(m.app.status.as_ref().unwrap().is_error);
    assert!(
        matches!(m.app.overlay, Some(Overlay::Input(_))),
        "asked again"
    );
    act(&mut m, Action::Edit(InputRequest::DeleteFromStart));
    update(&mut m, Msg::Type('4'));
    update(&mut m, Msg::Type('0'));
    act(&mut m, Action::Confirm);
    assert_eq!(m.app.big_message, 40);
    assert!(m.app.overlay.is_none());
    act(&mut m, Action::NextBig);
    assert_eq!(m.viewer().unwrap().selected, 3);
    act(&mut m, Action::NextBig);
    assert_eq!(m.viewer().unwrap().selected, 7);
    act(&mut m, Action::NextBig);
    assert_eq!(m.viewer().unwrap().selected, 7, "none below");
    act(&mut m, Action::PrevBig);
    assert_eq!(m.viewer().unwrap().selected, 3);
    // The size is remembered for the run: another session uses it too.
    act(&mut m, Action::Back);
    assert_eq!(m.app.big_message, 40);
}

fn contexts_of(m: &mut Model) {
    let req = only_store!(
        act(m, Action::Contexts),
        StoreOp::Viewer(ViewerOp::ListContexts { .. })
    );
    let info = |id: &str, relation, origin: Option<&str>| ContextInfo {
        id: id.into(),
        messages: Some(9),
        tokens: None,
        created_at: Some(NOW),
        created_from: Some(CreatedFrom::File),
        relation,
        origin_context_id: origin.map(str::to_string),
        children: Vec::new(),
        depth: usize::from(origin.is_some()),
        error: None,
    };
    let list = vec![
        info("root", Relation::Ancestor, None),
        info("ctx", Relation::Active, Some("root")),
    ];
    let result = Ok(list);
    reply(
        m,
        req,
        ViewerReply::ContextsListed {
            counted: false,
            result,
        },
    );
}

fn a_diff() -> ContextDiff {
    let side = |id: &str, messages, tokens| DiffSide {
        id: id.into(),
        messages,
        tokens,
    };
    let dropped = (0..30)
        .map(|i| DiffMessage {
            index: i,
            id: format!("d{i}"),
            role: "tool".into(),
            tokens: 100,
            text: format!("[tool result call_{i}] output {i}"),
        })
        .collect();
    ContextDiff {
        context: side("ctx", 9, 310),
        parent: side("root", 39, 3310),
        kept: 9,
        dropped,
        cleared: Vec::new(),
        added: Vec::new(),
    }
}

#[test]
fn a_context_against_its_parent_from_the_contexts() {
    let mut m = editing();
    contexts_of(&mut m);
    let counting = m.viewer().unwrap().contexts().unwrap().waiting;
    let (req, context_id) = only_store!(
        act(&mut m, Action::Diff),
        StoreOp::Viewer(ViewerOp::DiffContext {
            context_id,
            encoding: Encoding::Cl100kBase,
            ..
        }) => context_id
    );
    assert_eq!(context_id, "ctx", "the chosen context: the active one");
    assert_eq!(keymap::scope(&m), keymap::Scope::Diff);
    // The list's counts still arrive under the comparison.
    let result = Ok(Vec::new());
    reply(
        &mut m,
        counting,
        ViewerReply::ContextsListed {
            counted: true,
            result,
        },
    );
    assert!(m.viewer().unwrap().contexts().unwrap().counted);
    let diff_of = |m: &Model| m.viewer().unwrap().contexts().unwrap().diff.clone();
    let stale = Err(UiError::new(ErrorKind::Failed, "stale"));
    reply(&mut m, req - 1, ViewerReply::Diffed { result: stale });
    assert_eq!(diff_of(&m).unwrap().result, None, "a late reply is dropped");
    reply(
        &mut m,
        req,
        ViewerReply::Diffed {
            result: Ok(a_diff()),
        },
    );
    assert_eq!(diff_of(&m).unwrap().result, Some(Ok(a_diff())));
    act(&mut m, Action::End);
    assert!(diff_of(&m).unwrap().scroll > 0, "a long diff scrolls");
    act(&mut m, Action::Back);
    assert!(diff_of(&m).is_none());
    assert_eq!(keymap::scope(&m), keymap::Scope::Contexts);
}

#[test]
fn an_export_asks_a_name_and_a_replace() {
    let mut m = editing();
    act(&mut m, Action::Export);
    let Some(Overlay::Input(input)) = &m.app.overlay else {
        panic!("a text field")
    };
    assert_eq!(
        input.text.value(),
        "name-a.md",
        "the session's name, Markdown"
    );
    // A name without a format is asked again.
    act(&mut m, Action::Edit(InputRequest::DeleteFromStart));
    update(&mut m, Msg::Paste("notes.pdf".into()));
    assert!(act(&mut m, Action::Confirm).is_empty());
    assert!(m.app.status.as_ref().unwrap().is_error);
    act(&mut m, Action::Edit(InputRequest::DeleteFromStart));
    update(&mut m, Msg::Paste("notes.TXT".into()));
    let (req, (context_id, path)) = only_store!(
        act(&mut m, Action::Confirm),
        StoreOp::Viewer(ViewerOp::Export {
            context_id,
            path,
            format: TranscriptFormat::Text,
            force: false,
            ..
        }) => (context_id, path)
    );
    assert_eq!(
        (context_id.as_str(), path.as_path()),
        ("ctx", Path::new("notes.TXT"))
    );
    // The file exists: the person is asked, No by default.
    let exists = UiError::new(
        ErrorKind::Exists,
        "notes.TXT exists already; --force replaces it",
    );
    let path = PathBuf::from("notes.TXT");
    reply(
        &mut m,
        req,
        ViewerReply::Exported {
            path,
            result: Err(exists),
        },
    );
    let Some(Overlay::Confirm(confirm)) = &m.app.overlay else {
        panic!("a question")
    };
    assert_eq!(
        confirm.action,
        ConfirmAction::ReplaceExport {
            path: PathBuf::from("notes.TXT")
        }
    );
    let yes = key(&m, KeyCode::Char('y')).unwrap();
    let req = only_store!(
        update(&mut m, yes),
        StoreOp::Viewer(ViewerOp::Export { force: true, .. })
    );
    let done = || ViewerReply::Exported {
        path: PathBuf::from("notes.TXT"),
        result: Ok(PathBuf::from("/home/ann/notes.TXT")),
    };
    reply(&mut m, req - 1, done());
    assert!(!status(&m).contains("exported"), "a late reply is dropped");
    reply(&mut m, req, done());
    assert_eq!(status(&m), "exported the context to /home/ann/notes.TXT");
}
