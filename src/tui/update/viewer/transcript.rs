//! Transcript mode: scrolling a document of every message, laid out only
//! where the screen goes; `]` `[` from message to message; the display
//! settings; a search over every part of every message (on the finder's
//! thread), whose current match unfolds the part it is in. The selected
//! message is the viewer's own, shared with the table.

use crate::render::transcript::{self, Laid, TextMatch, Tools};
use crate::store::Context;
use crate::tui::effect::Effect;
use crate::tui::finder::FindJob;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, FIND_LIMIT, TextField, TranscriptFind, TranscriptView};
use crate::tui::msg::Action;
use std::sync::Arc;
use tui_input::InputRequest;

/// What the transcript needs besides its own state: the conversation, the
/// settings and the selection it shares with the table.
pub struct Doc<'a> {
    /// The active context.
    pub context: &'a Arc<Context>,
    /// The viewer's selected message.
    pub selected: &'a mut usize,
}

/// A transcript of `len` messages opened at the selected one.
pub fn open(doc: Doc, app: &App) -> TranscriptView {
    let mut view = TranscriptView::new(doc.context.len(), app.settings.display);
    view.top = *doc.selected;
    fit(&mut view, &doc, app);
    view
}

/// Lays out again for the terminal's size and the display settings,
/// keeping the message at the top where it was.
pub fn fit(view: &mut TranscriptView, doc: &Doc, app: &App) {
    let (width, height) = TranscriptView::area(app.size);
    let display = app.settings.display;
    if width != view.width || display != view.laid_with {
        view.laid = vec![None; doc.context.len()];
        view.width = width;
        view.laid_with = display;
        view.end = None;
    }
    if height != view.height {
        view.height = height;
        view.end = None;
    }
    let top_height = height_of(view, doc.context, view.top);
    view.top_row = view.top_row.min(top_height.saturating_sub(1));
    clamp(view, doc.context);
    // What the screen shows is laid out here, not while drawing.
    last_visible(view, doc.context);
}

/// Messages were appended to the context on screen: each is laid out when
/// the screen reaches it; following the end, the last screen shows and
/// the last message is selected.
pub fn grow(view: &mut TranscriptView, doc: &mut Doc, app: &App, follow: bool) {
    view.laid.resize(doc.context.len(), None);
    view.end = None;
    if follow {
        (view.top, view.top_row) = end(view, doc.context);
        *doc.selected = doc.context.len().saturating_sub(1);
    }
    fit(view, doc, app);
}

/// The layout of message `i`, made if it is not yet.
fn ensure<'v>(view: &'v mut TranscriptView, context: &Context, i: usize) -> Option<&'v Laid> {
    if view.laid.get(i)?.is_none() {
        let message = context.message(i)?;
        let unfolded = &view.unfolded;
        let open = |part: usize| unfolded.contains(&(i, part));
        let block = transcript::block(&message, view.laid_with, &open, true);
        view.laid[i] = Some(Arc::new(Laid::new(block, view.width)));
    }
    view.laid.get(i)?.as_deref()
}

fn height_of(view: &mut TranscriptView, context: &Context, i: usize) -> usize {
    ensure(view, context, i).map_or(0, Laid::height)
}

/// The last position that still fills the screen: found from the end, so
/// only the last screenful of messages is laid out.
fn end(view: &mut TranscriptView, context: &Context) -> (usize, usize) {
    if let Some(end) = view.end {
        return end;
    }
    let mut need = view.height;
    let mut end = (0, 0);
    for i in (0..context.len()).rev() {
        let h = height_of(view, context, i);
        if h >= need {
            end = (i, h - need);
            break;
        }
        need -= h;
    }
    view.end = Some(end);
    end
}

fn clamp(view: &mut TranscriptView, context: &Context) {
    let end = end(view, context);
    if (view.top, view.top_row) > end {
        (view.top, view.top_row) = end;
    }
}

/// Scrolls down `n` rows (stopping at the last full screen).
fn down(view: &mut TranscriptView, context: &Context, mut n: usize) {
    let end = end(view, context);
    while n > 0 && (view.top, view.top_row) < end {
        let h = height_of(view, context, view.top);
        let left = h.saturating_sub(view.top_row + 1);
        if n <= left {
            view.top_row += n;
            n = 0;
        } else {
            n -= left + 1;
            view.top += 1;
            view.top_row = 0;
        }
    }
    clamp(view, context);
}

/// Scrolls up `n` rows (stopping at the first).
fn up(view: &mut TranscriptView, context: &Context, mut n: usize) {
    while n > 0 {
        if n <= view.top_row {
            view.top_row -= n;
            return;
        }
        if view.top == 0 {
            view.top_row = 0;
            return;
        }
        n -= view.top_row + 1;
        view.top -= 1;
        view.top_row = height_of(view, context, view.top).saturating_sub(1);
    }
}

/// The message of the last row on screen.
fn last_visible(view: &mut TranscriptView, context: &Context) -> usize {
    let mut rows = view.height;
    let mut i = view.top;
    let mut h = height_of(view, context, i).saturating_sub(view.top_row);
    while rows > h && i + 1 < context.len() {
        rows -= h;
        i += 1;
        h = height_of(view, context, i);
    }
    i
}

/// Keeps the selected message on screen after a scroll.
fn follow(view: &mut TranscriptView, doc: &mut Doc) {
    let last = last_visible(view, doc.context);
    *doc.selected = (*doc.selected).clamp(view.top, last);
}

/// Puts message `i`'s header at the top (or as near as the end allows) and selects it.
fn go_to_message(view: &mut TranscriptView, doc: &mut Doc, i: usize) {
    let i = i.min(doc.context.len().saturating_sub(1));
    (view.top, view.top_row) = (i, 0);
    clamp(view, doc.context);
    *doc.selected = i;
}

/// Keys of the transcript; true when it should close (back to the table).
pub fn on_action(
    view: &mut TranscriptView,
    mut doc: Doc,
    app: &mut App,
    action: Action,
) -> (bool, Vec<Effect>) {
    if view.editing() {
        return (false, on_find_action(view, &mut doc, app, action));
    }
    let page = view.height.saturating_sub(1).max(1);
    let context = doc.context;
    match action {
        Action::Down => down(view, context, 1),
        Action::Up => up(view, context, 1),
        Action::PageDown => down(view, context, page),
        Action::PageUp => up(view, context, page),
        Action::HalfPageDown => down(view, context, view.height / 2),
        Action::HalfPageUp => up(view, context, view.height / 2),
        Action::Home => {
            go_to_message(view, &mut doc, 0);
            return (false, Vec::new());
        }
        Action::End => {
            (view.top, view.top_row) = end(view, context);
            *doc.selected = context.len().saturating_sub(1);
            return (false, Vec::new());
        }
        Action::NextMessage => {
            let next = *doc.selected + 1;
            go_to_message(view, &mut doc, next);
            return (false, Vec::new());
        }
        Action::PrevMessage => {
            let selected = *doc.selected;
            if view.top == selected && view.top_row > 0 {
                view.top_row = 0;
            } else {
                go_to_message(view, &mut doc, selected.saturating_sub(1));
            }
            return (false, Vec::new());
        }
        Action::ToggleThinking | Action::CycleTools | Action::ToggleRaw => {
            return (false, change_display(view, &mut doc, app, action));
        }
        Action::Find => {
            view.find = Some(TranscriptFind {
                field: TextField::new("", FIND_LIMIT),
                editing: true,
                hits: Arc::new(Vec::new()),
                complete: true,
                more: false,
                current: None,
                waiting: 0,
            });
            return (false, Vec::new());
        }
        Action::NextMatch | Action::PrevMatch => {
            step_match(view, &mut doc, app, action);
            return (false, Vec::new());
        }
        Action::Back | Action::ToggleTranscript => return (true, Vec::new()),
        _ => return (false, Vec::new()),
    }
    follow(view, &mut doc);
    (false, Vec::new())
}

fn change_display(
    view: &mut TranscriptView,
    doc: &mut Doc,
    app: &mut App,
    action: Action,
) -> Vec<Effect> {
    let display = &mut app.settings.display;
    let said = match action {
        Action::ToggleThinking => {
            display.thinking = !display.thinking;
            if display.thinking {
                "thinking shown"
            } else {
                "thinking hidden (one line says it is there)"
            }
        }
        Action::CycleTools => {
            display.tools = display.tools.next();
            match display.tools {
                Tools::Off => "tool calls and results: off (a line names each)",
                Tools::Truncated => "tool calls and results: their first lines",
                Tools::Full => "tool calls and results: in full",
            }
        }
        _ => {
            display.raw = !display.raw;
            if display.raw {
                "text as written (markdown not rendered)"
            } else {
                "markdown rendered"
            }
        }
    };
    app.say(said);
    // A match found in rendered text is not where it was in raw text.
    let search_again = action == Action::ToggleRaw;
    // The top message stays; the rows in it may not.
    let row = view.top_row;
    fit(view, doc, app);
    view.top_row = row.min(height_of(view, doc.context, view.top).saturating_sub(1));
    clamp(view, doc.context);
    if search_again && view.find.is_some() {
        return search(view, doc, app).into_iter().collect();
    }
    Vec::new()
}

fn on_find_action(
    view: &mut TranscriptView,
    doc: &mut Doc,
    app: &mut App,
    action: Action,
) -> Vec<Effect> {
    let Some(find) = &mut view.find else {
        return Vec::new();
    };
    match action {
        Action::Edit(request) if find.field.edit(request) => {
            return search(view, doc, app).into_iter().collect();
        }
        Action::Confirm if find.field.is_empty() => view.find = None,
        Action::Confirm => find.editing = false,
        Action::Back => view.find = None,
        Action::NextMatch | Action::PrevMatch => step_match(view, doc, app, action),
        _ => {}
    }
    Vec::new()
}

/// A character typed into the search.
pub fn on_type(view: &mut TranscriptView, doc: Doc, app: &mut App, c: char) -> Vec<Effect> {
    let Some(find) = view.find.as_mut().filter(|f| f.editing) else {
        return Vec::new();
    };
    if !find.field.edit(InputRequest::InsertChar(c)) {
        app.complain(format!("a search holds at most {FIND_LIMIT} characters"));
        return Vec::new();
    }
    search(view, &doc, app).into_iter().collect()
}

/// Text pasted into the search.
pub fn on_paste(view: &mut TranscriptView, doc: Doc, app: &mut App, text: &str) -> Vec<Effect> {
    let Some(find) = view.find.as_mut().filter(|f| f.editing) else {
        return Vec::new();
    };
    if find.field.paste(text).cut {
        app.complain(format!(
            "a search holds at most {FIND_LIMIT} characters; the rest of the paste was left out"
        ));
    }
    search(view, &doc, app).into_iter().collect()
}

/// Asks the finder for the search's text, from the selected message on.
fn search(view: &mut TranscriptView, doc: &Doc, app: &mut App) -> Option<Effect> {
    let find = view.find.as_mut()?;
    find.hits = Arc::new(Vec::new());
    find.current = None;
    find.more = false;
    let query = find.field.value().to_string();
    if query.is_empty() {
        find.complete = true;
        find.waiting = 0;
        return None;
    }
    find.complete = false;
    find.waiting = app.request();
    Some(Effect::Find(FindJob {
        req: find.waiting,
        context: doc.context.clone(),
        raw: app.settings.display.raw,
        query,
        from: *doc.selected,
    }))
}

/// The finder answered: a first match (go there) or all of them.
pub fn on_found(
    view: &mut TranscriptView,
    mut doc: Doc,
    req: u64,
    hits: Arc<Vec<TextMatch>>,
    complete: bool,
    more: bool,
) {
    let Some(find) = view.find.as_mut().filter(|f| f.waiting == req) else {
        return;
    };
    let before = find.current.and_then(|i| find.hits.get(i)).copied();
    let from = *doc.selected;
    find.current = match before {
        Some(hit) => hits.binary_search(&hit).ok(),
        None if hits.is_empty() => None,
        None => Some(hits.partition_point(|h| h.message < from) % hits.len()),
    };
    find.hits = hits;
    find.complete = complete;
    find.more = more;
    if before.is_none() && find.current.is_some() {
        show_current(view, &mut doc);
    }
}

/// Goes to the next or previous match, round the end.
fn step_match(view: &mut TranscriptView, doc: &mut Doc, app: &mut App, action: Action) {
    let Some(find) = &mut view.find else {
        app.say(format!(
            "nothing to look for yet: {} starts a search",
            keymap::key_for(Scope::Transcript, Action::Find)
        ));
        return;
    };
    let len = find.hits.len();
    if len == 0 {
        return;
    }
    let current = find.current.unwrap_or(0);
    find.current = Some(if action == Action::NextMatch {
        (current + 1) % len
    } else {
        (current + len - 1) % len
    });
    show_current(view, doc);
}

/// Unfolds the part of the current match if the display hides it, and
/// scrolls so it is on screen, a third of the way down when it was not.
fn show_current(view: &mut TranscriptView, doc: &mut Doc) {
    let Some(hit) = view
        .find
        .as_ref()
        .and_then(|f| f.hits.get(f.current?))
        .copied()
    else {
        return;
    };
    let context = doc.context;
    let hidden = ensure(view, context, hit.message)
        .and_then(|l| l.block.shown.get(hit.part))
        .is_some_and(|s| hit.end > s.bytes);
    if hidden && view.unfolded.insert((hit.message, hit.part)) {
        view.laid[hit.message] = None;
        view.end = None;
    }
    let Some(row) = ensure(view, context, hit.message).and_then(|l| l.row_of(hit.part, hit.start))
    else {
        return;
    };
    *doc.selected = hit.message;
    if !is_visible(view, context, hit.message, row) {
        (view.top, view.top_row) = (hit.message, row);
        up(view, context, view.height / 3);
        clamp(view, context);
    }
}

/// True when row `row` of message `i` is on screen.
fn is_visible(view: &mut TranscriptView, context: &Context, i: usize, row: usize) -> bool {
    if (i, row) < (view.top, view.top_row) {
        return false;
    }
    let mut rows = 0;
    let mut m = view.top;
    let mut first = view.top_row;
    while m < i {
        rows += height_of(view, context, m) - first;
        if rows >= view.height {
            return false;
        }
        m += 1;
        first = 0;
    }
    rows + row - first < view.height
}
