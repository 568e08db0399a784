//! Reading one message full screen: its parts rendered once as the detail
//! pane shows them (thinking, tool calls and results labelled), cut at
//! [`MESSAGE_LIMIT`], wrapped to the terminal's width as row offsets only;
//! scrolling that stops at both ends; and a search with next and previous.
//! This module knows only the message view's own state.

use crate::humanize;
use crate::render::transcript;
use crate::render::wrap;
use crate::store::{Message, Part};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{
    App, FIND_LIMIT, Find, MATCH_LIMIT, MESSAGE_LIMIT, MessageView, PartKind, Section, TextField,
    Viewer, ViewerMode,
};
use crate::tui::msg::Action;
use tui_input::InputRequest;

/// Opens the selected message full screen.
pub fn open(viewer: &mut Viewer, app: &App) {
    let Some(message) = viewer
        .loaded
        .as_ref()
        .and_then(|l| l.context.message(viewer.selected))
    else {
        return;
    };
    let (text, sections, left_out) = render(&message);
    let mut view = MessageView {
        index: viewer.selected,
        text: text.into(),
        sections,
        left_out,
        width: 0,
        rows: Vec::new(),
        scroll: 0,
        height: 0,
        find: None,
    };
    fit(&mut view, app.size);
    viewer.mode = ViewerMode::Message(Box::new(view));
}

/// The message's text: each part on its own lines, labelled as the detail
/// pane labels it, blank lines between parts; control characters made
/// visible, tabs as spaces. Stops at [`MESSAGE_LIMIT`] bytes, with a note
/// of how much more there is.
fn render(message: &Message) -> (String, Vec<Section>, usize) {
    let mut text = String::new();
    let mut sections = Vec::new();
    let mut left_out = 0;
    for part in message.parts() {
        let (kind, label, body) = describe(&part);
        if text.len() >= MESSAGE_LIMIT {
            left_out += body.len();
            continue;
        }
        if !sections.is_empty() {
            text.push_str("\n\n");
        }
        let start = text.len();
        if let Some(label) = &label {
            push_clean(&mut text, label);
            if !body.is_empty() {
                text.push('\n');
            }
        }
        let body_start = text.len();
        let room = MESSAGE_LIMIT.saturating_sub(text.len());
        let shown = &body[..floor_char_boundary(body, room)];
        push_clean(&mut text, shown);
        left_out += body.len() - shown.len();
        sections.push(Section {
            start,
            body: body_start,
            kind,
        });
    }
    if left_out > 0 {
        text.push_str("\n\n");
        sections.push(Section {
            start: text.len(),
            body: text.len(),
            kind: PartKind::Note,
        });
        text.push_str(&format!(
            "[cut here: {} more of this message; `loki-sessions show SESSION --message {}` prints all of it]",
            humanize::bytes(left_out as u64),
            message.id()
        ));
    }
    (text, sections, left_out)
}

/// A part as (kind, label line, body). The labels are the store's own
/// summaries of the part with its text left out.
fn describe<'a>(part: &Part<'a>) -> (PartKind, Option<String>, &'a str) {
    let label = || Some(part.shortened(0).summary().trim_end().to_string());
    match *part {
        Part::Text(text) => (PartKind::Text, None, text),
        Part::Thinking(text) => (PartKind::Thinking, label(), text),
        Part::ToolUse { arguments, .. } => (PartKind::ToolCall, label(), arguments),
        Part::ToolResult { content, .. } => (PartKind::ToolResult, label(), content),
        Part::ToolDefinition { description, .. } => (PartKind::Other, label(), description),
        _ => (PartKind::Other, Some(part.summary()), ""),
    }
}

/// Appends `text` cleaned line by line as the transcript cleans it (tabs
/// as four spaces, carriage returns dropped, other control characters,
/// which would move a terminal's cursor, as `�`), line breaks kept.
fn push_clean(out: &mut String, text: &str) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        transcript::push_clean(out, line);
    }
}

/// The largest char boundary of `text` at or below `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// Wraps the text for a terminal of `size`, keeping the first row on
/// screen where it was in the text.
pub fn fit(view: &mut MessageView, size: (u16, u16)) {
    let (width, height) = MessageView::area(size);
    let top = view.rows.get(view.scroll).copied().unwrap_or(0);
    if width != view.width || view.rows.is_empty() {
        view.rows.clear();
        let mut base = 0;
        for line in view.text.split('\n') {
            wrap::row_starts(line, width, base, &mut view.rows);
            base += line.len() + 1;
        }
        view.width = width;
    }
    view.height = height;
    view.scroll = view.row_of(top).min(view.max_scroll());
}

/// Keys while reading a message (and typing a search in it); true when the
/// view should close.
pub fn on_action(view: &mut MessageView, app: &mut App, action: Action) -> bool {
    if view.find.as_ref().is_some_and(|f| f.editing) {
        on_find_action(view, app, action);
        return false;
    }
    let page = view.height.saturating_sub(1).max(1);
    let scroll = view.scroll;
    view.scroll = match action {
        Action::Up => scroll.saturating_sub(1),
        Action::Down => scroll + 1,
        Action::PageUp => scroll.saturating_sub(page),
        Action::PageDown => scroll + page,
        Action::Home => 0,
        Action::End => view.max_scroll(),
        Action::Find => {
            view.find = Some(Find {
                field: TextField::new("", FIND_LIMIT),
                editing: true,
                matches: Vec::new(),
                current: None,
                more: false,
            });
            scroll
        }
        Action::NextMatch | Action::PrevMatch => {
            step_match(view, app, action);
            view.scroll
        }
        Action::Back => return true,
        _ => scroll,
    }
    .min(view.max_scroll());
    false
}

fn on_find_action(view: &mut MessageView, app: &mut App, action: Action) {
    let Some(find) = &mut view.find else {
        return;
    };
    match action {
        Action::Edit(request) if find.field.edit(request) => search(view),
        Action::Confirm if find.field.is_empty() => view.find = None,
        Action::Confirm => find.editing = false,
        Action::Back => view.find = None,
        Action::NextMatch | Action::PrevMatch => step_match(view, app, action),
        _ => {}
    }
}

/// A character typed into the search.
pub fn on_type(view: &mut MessageView, app: &mut App, c: char) {
    let Some(find) = view.find.as_mut().filter(|f| f.editing) else {
        return;
    };
    if find.field.edit(InputRequest::InsertChar(c)) {
        search(view);
    } else {
        app.complain(format!("a search holds at most {FIND_LIMIT} characters"));
    }
}

/// Text pasted into the search.
pub fn on_paste(view: &mut MessageView, app: &mut App, text: &str) {
    let Some(find) = view.find.as_mut().filter(|f| f.editing) else {
        return;
    };
    if find.field.paste(text).cut {
        app.complain(format!(
            "a search holds at most {FIND_LIMIT} characters; the rest of the paste was left out"
        ));
    }
    search(view);
}

/// Finds the search's text (ASCII letters in any case) and goes to the
/// first match at or after the top of the screen.
fn search(view: &mut MessageView) {
    let top = view.rows.get(view.scroll).copied().unwrap_or(0);
    let Some(find) = &mut view.find else {
        return;
    };
    find.matches.clear();
    find.current = None;
    find.more = false;
    let needle = find.field.value().to_ascii_lowercase();
    if needle.is_empty() {
        return;
    }
    // ASCII case folding keeps every byte offset of the text.
    let haystack = view.text.to_ascii_lowercase();
    for (at, _) in haystack.match_indices(&needle) {
        if find.matches.len() == MATCH_LIMIT {
            find.more = true;
            break;
        }
        find.matches.push(at..at + needle.len());
    }
    if find.matches.is_empty() {
        return;
    }
    find.current = Some(find.matches.partition_point(|m| m.start < top) % find.matches.len());
    show_current(view);
}

/// Goes to the next or previous match, round the end.
fn step_match(view: &mut MessageView, app: &mut App, action: Action) {
    let Some(find) = &mut view.find else {
        app.say(format!(
            "nothing to look for yet: {} starts a search",
            keymap::key_for(Scope::Message, Action::Find)
        ));
        return;
    };
    let len = find.matches.len();
    if len == 0 {
        return;
    }
    let current = find.current.unwrap_or(0);
    find.current = Some(if action == Action::NextMatch {
        (current + 1) % len
    } else {
        (current + len - 1) % len
    });
    show_current(view);
}

/// Scrolls so the current match is on screen, a third of the way down
/// when it was not.
fn show_current(view: &mut MessageView) {
    let Some(at) = view
        .find
        .as_ref()
        .and_then(|f| f.matches.get(f.current?))
        .map(|m| m.start)
    else {
        return;
    };
    let row = view.row_of(at);
    if !view.visible().contains(&row) {
        view.scroll = row.saturating_sub(view.height / 3).min(view.max_scroll());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parts_are_labelled_and_controls_cleaned() {
        let raw = json!({"id": "m1", "role": "assistant", "content": [
            {"type": "thinking", "text": "hmm"},
            {"type": "text", "text": "a\tb\r\nc\u{1b}[0m"},
            {"type": "tool_use", "call_id": "c1", "name": "bash", "arguments": "{}"},
            {"type": "image", "source": {"media_type": "image/png"}},
        ]});
        let (text, sections, left_out) = render(&Message::new(raw.as_object().unwrap()));
        assert_eq!(
            text,
            "[thinking]\nhmm\n\na    b\nc\\x1b[0m\n\n[tool call bash c1]\n{}\n\n[image: image/png]"
        );
        let kinds: Vec<PartKind> = sections.iter().map(|s| s.kind).collect();
        use PartKind::*;
        assert_eq!(kinds, [Thinking, Text, ToolCall, Other]);
        assert_eq!(&text[sections[0].body..sections[0].body + 3], "hmm");
        assert_eq!(left_out, 0);
    }

    #[test]
    fn a_huge_message_is_cut_with_a_note() {
        let huge = "é".repeat(MESSAGE_LIMIT);
        let raw = json!({"id": "big", "content": [
            {"type": "text", "text": huge}, {"type": "thinking", "text": "later"}]});
        let (text, sections, left_out) = render(&Message::new(raw.as_object().unwrap()));
        assert_eq!(left_out, MESSAGE_LIMIT + "later".len());
        assert!(text.len() < MESSAGE_LIMIT + 200);
        assert!(
            text.ends_with("--message big` prints all of it]"),
            "{}",
            &text[text.len() - 100..]
        );
        assert_eq!(sections.last().unwrap().kind, PartKind::Note);
    }
}
