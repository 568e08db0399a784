//! The transcript: a title, the rows on screen (each message laid out only
//! when it is on screen), and a line with the search and where you are.
//! No side borders, so text selected with the terminal copies clean.

use crate::humanize;
use crate::render::theme::Theme;
use crate::render::transcript::{self, Laid, TextMatch, paint};
use crate::store::{Context, Special};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, TranscriptFind, TranscriptView, Viewer};
use crate::tui::msg::Action;
use crate::tui::view::find_bar;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use std::borrow::Cow;

/// Draws `view` of `viewer` in `area`.
pub fn draw(
    frame: &mut Frame,
    model: &Model,
    viewer: &Viewer,
    view: &TranscriptView,
    area: Rect,
    theme: Theme,
) {
    let Some(loaded) = &viewer.loaded else {
        return;
    };
    let context = &loaded.context;
    let [title, text, bar] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let name = format!(
        " Transcript: {}   {} ",
        viewer.record.name,
        humanize::plural(context.len() as u64, "message")
    );
    frame.render_widget(
        Block::new()
            .borders(Borders::TOP)
            .title(Line::styled(name, theme.title())),
        title,
    );
    let counts = viewer.counts.get(&model.app.settings.encoding);
    let find = view.find.as_ref();
    let current = find.and_then(|f| f.hits.get(f.current?)).copied();
    let width = usize::from(text.width);
    let mut lines = Vec::new();
    let (mut i, mut first) = (view.top, view.top_row);
    while lines.len() < usize::from(text.height) && i < context.len() {
        let Some(message) = context.message(i) else {
            break;
        };
        let laid = laid_or_make(view, context, i);
        let special = context.special_at(i).map(|s| match s {
            Special::SystemPrompt => "system prompt",
            Special::ToolDefinitions => "tool definitions",
        });
        let tokens = counts.and_then(|c| c.get(i).copied().flatten());
        let facts = transcript::facts(&message, tokens);
        let heading = paint::Heading {
            index: i,
            label: special.unwrap_or(message.role()),
            role: message.role(),
            facts: &facts,
            selected: i == viewer.selected,
        };
        let marks = paint::Marks {
            hits: find.map_or(&[][..], |f| hits_of(&f.hits, i)),
            current: current.filter(|h| h.message == i),
        };
        for row in laid.rows.iter().skip(first) {
            if lines.len() == usize::from(text.height) {
                break;
            }
            lines.push(paint::row_line(&laid, row, heading, marks, theme, width));
        }
        i += 1;
        first = 0;
    }
    frame.render_widget(Paragraph::new(lines), text);
    draw_bar(frame, view, viewer, context.len(), bar, theme);
}

/// The layout the model made, or (before it made one) a new one.
fn laid_or_make<'a>(view: &'a TranscriptView, context: &Context, i: usize) -> Cow<'a, Laid> {
    if let Some(laid) = view.laid(i) {
        return Cow::Borrowed(laid);
    }
    let message = context.message(i).expect("i is in the context");
    let open = |part: usize| view.unfolded.contains(&(i, part));
    let block = transcript::block(&message, view.laid_with, &open, true);
    Cow::Owned(Laid::new(block, view.width))
}

/// The matches in message `i`.
fn hits_of(hits: &[TextMatch], i: usize) -> &[TextMatch] {
    let start = hits.partition_point(|h| h.message < i);
    let end = hits.partition_point(|h| h.message <= i);
    &hits[start..end]
}

/// The search (or the field it is typed in) on the left, the position on
/// the right.
fn draw_bar(
    frame: &mut Frame,
    view: &TranscriptView,
    viewer: &Viewer,
    len: usize,
    area: Rect,
    theme: Theme,
) {
    let position = format!(
        "{} of {}",
        humanize::message_number(viewer.selected),
        humanize::plural(len as u64, "message")
    );
    let search = view.find.as_ref().map(|find| find_bar::Search {
        field: &find.field,
        editing: find.editing,
        counter: match (counter(find, theme), match_keys(find)) {
            (count, Some(keys)) => Span::styled(format!("{}{keys}", count.content), count.style),
            (count, None) => count,
        },
    });
    find_bar::draw(frame, search, position, 36, area, theme);
}

/// `3/17`, `1/…` while the rest is counted, `no match`.
fn counter(find: &TranscriptFind, theme: Theme) -> Span<'static> {
    let total = find.hits.len();
    let more = if find.more { "+" } else { "" };
    match (total, find.current, find.complete) {
        (0, _, _) if find.field.is_empty() => Span::raw(""),
        (0, _, false) => Span::styled("searching…", theme.dim()),
        (0, _, true) => Span::styled("no match", theme.error()),
        (_, Some(n), false) => Span::raw(format!("{}/…", humanize::count(n as u64 + 1))),
        (_, Some(n), true) => Span::raw(format!(
            "{}/{}{more}",
            humanize::count(n as u64 + 1),
            humanize::count(total as u64)
        )),
        (_, None, _) => Span::raw(format!("{}{more} matches", humanize::count(total as u64))),
    }
}

/// After a search is typed, the keys that go from match to match (the
/// footer has no room for them).
fn match_keys(find: &TranscriptFind) -> Option<String> {
    (!find.editing && !find.hits.is_empty()).then(|| {
        format!(
            "  {} {} next/previous",
            keymap::key_for(Scope::Transcript, Action::NextMatch),
            keymap::key_for(Scope::Transcript, Action::PrevMatch)
        )
    })
}
