//! The viewer's table of messages: number, role, tokens, the running total
//! of what the context would hold, and a line of text; in the context's
//! order or largest first. What the trim or the edit on screen does to a
//! row shows on it: dimmed when it goes, `×` when marked, `+` when it goes
//! with a marked one (the other half of a tool pair), `~` when its tool
//! results become placeholders (the count and text it would have then).

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{ClearedMessage, Special, placeholder};
use crate::tui::model::{Model, Viewer};
use crate::tui::view::{ViewState, scroll_into_view};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Row, Table, TableState};
use std::collections::BTreeSet;

/// The message's tokens' column and the running total's (a total of ten
/// million or more is shortened: `15M`).
const TOKENS: u16 = 8;
const TOTAL: u16 = 9;

/// Characters of a message shown on its line (more than any screen is wide).
const LINE_CHARS: usize = 300;

/// What the trim or the edit on screen does to a message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fate<'a> {
    /// Nothing.
    Kept,
    /// Marked for the edit, and kept (a clear whose placeholder saves nothing,
    /// or marks not planned yet).
    Marked,
    /// Dropped: by the trim, or marked for a drop.
    Dropped { marked: bool },
    /// Dropped with a marked message: the other half of its tool pair.
    Partner,
    /// Its tool results become placeholders.
    Cleared(&'a ClearedMessage),
}

impl Fate<'_> {
    /// True when the message stays in the context.
    pub fn kept(self) -> bool {
        matches!(self, Fate::Kept | Fate::Marked | Fate::Cleared(_))
    }

    /// Its count in the result, given its count now.
    pub fn count_after(self, count: u64) -> u64 {
        match self {
            Fate::Cleared(c) => c.tokens_after,
            f if f.kept() => count,
            _ => 0,
        }
    }

    fn glyph(self) -> &'static str {
        match self {
            Fate::Kept | Fate::Dropped { marked: false } => " ",
            Fate::Marked | Fate::Dropped { marked: true } => "×",
            Fate::Partner => "+",
            Fate::Cleared(_) => "~",
        }
    }
}

/// The fate of every message under the trim or the edit on screen.
pub struct Fates<'a> {
    trim_dropped: &'a [usize],
    marks: Option<&'a BTreeSet<usize>>,
    dropped: &'a [usize],
    partners: Vec<usize>,
    cleared: &'a [ClearedMessage],
}

impl<'a> Fates<'a> {
    /// What the viewer's trim or edit does.
    pub fn of(viewer: &'a Viewer) -> Self {
        let trim_dropped = viewer
            .trim()
            .and_then(|t| t.plan.as_ref())
            .map_or(&[][..], |p| &p.dropped[..]);
        let edit = viewer.edit();
        let plan = edit.and_then(|e| e.plan.as_ref());
        Fates {
            trim_dropped,
            marks: edit.filter(|e| e.by_marks()).map(|e| e.marks()),
            dropped: plan.map_or(&[][..], |p| &p.dropped[..]),
            partners: plan.map_or_else(Vec::new, |p| p.partners.iter().map(|d| d.index).collect()),
            cleared: plan.map_or(&[][..], |p| &p.cleared[..]),
        }
    }

    /// Tokens the messages before `end` (in context order) lose: all of a
    /// dropped one, what a cleared one saves. With the lists sorted, a
    /// screen near the end of 10,000 messages costs a sum, not a search
    /// per message.
    pub fn lost_before(&self, end: usize, count: impl Fn(usize) -> Option<u64>) -> u64 {
        let before = |list: &[usize]| list.partition_point(|&i| i < end);
        let dropped = |list: &[usize]| -> u64 {
            list[..before(list)]
                .iter()
                .map(|&i| count(i).unwrap_or(0))
                .sum()
        };
        let cleared: u64 = self.cleared[..self.cleared.partition_point(|c| c.index < end)]
            .iter()
            .map(|c| count(c.index).map_or(0, |n| n.saturating_sub(c.tokens_after)))
            .sum();
        dropped(self.trim_dropped) + dropped(self.dropped) + cleared
    }

    /// What happens to message `i` (the lists are in context order).
    pub fn of_message(&self, i: usize) -> Fate<'a> {
        let marked = self.marks.is_some_and(|m| m.contains(&i));
        if self.trim_dropped.binary_search(&i).is_ok() {
            return Fate::Dropped { marked: false };
        }
        if let Ok(at) = self.cleared.binary_search_by_key(&i, |c| c.index) {
            return Fate::Cleared(&self.cleared[at]);
        }
        if self.partners.binary_search(&i).is_ok() && !marked {
            return Fate::Partner;
        }
        match (self.dropped.binary_search(&i).is_ok(), marked) {
            (true, marked) => Fate::Dropped { marked },
            (false, true) => Fate::Marked,
            (false, false) => Fate::Kept,
        }
    }
}

/// Draws the table.
pub fn draw(
    frame: &mut Frame,
    model: &Model,
    viewer: &Viewer,
    state: &mut ViewState,
    area: Rect,
    theme: Theme,
) {
    let Some(loaded) = &viewer.loaded else {
        frame.render_widget(Line::styled("loading…", theme.dim()), area);
        return;
    };
    let counts = viewer.counts.get(&model.app.settings.encoding);
    let count = |i: usize| counts.and_then(|c| c.get(i).copied().flatten());
    let fates = Fates::of(viewer);
    let height = usize::from(area.height.saturating_sub(2));
    let offset = &mut state.viewer_offset;
    scroll_into_view(offset, viewer.row_of(viewer.selected), height, loaded.len());
    // The running total of what the context would hold, in the order of
    // the rows, needs every count before the first visible row.
    let mut running: u64 = match (&viewer.order, counts) {
        (None, Some(all)) => {
            let kept: u64 = all[..(*offset).min(all.len())].iter().flatten().sum();
            kept - fates.lost_before(*offset, count)
        }
        _ => (0..*offset)
            .map(|row| viewer.message_at(row))
            .map(|i| count(i).map_or(0, |n| fates.of_message(i).count_after(n)))
            .sum(),
    };
    let ctx = &loaded.context;
    let specials = ctx.special_indices();
    let rows: Vec<Row> = (*offset..ctx.len().min(*offset + height))
        .map(|row| viewer.message_at(row))
        .filter_map(|i| ctx.message(i).map(|m| (i, m)))
        .map(|(i, m)| {
            let fate = fates.of_message(i);
            let now = count(i);
            if fate.kept() {
                running += now.map_or(0, |n| fate.count_after(n));
            }
            // A cleared message shows what it would count; a dropped one
            // what it counts now (dimmed, outside the total).
            let shown = match fate {
                Fate::Cleared(c) => Some(c.tokens_after),
                _ => now,
            };
            let special = specials.contains(&i).then(|| ctx.special_at(i)).flatten();
            let marker = match special {
                Some(Special::SystemPrompt) => Span::styled("◆ system", theme.special()),
                Some(Special::ToolDefinitions) => Span::styled("◆ tools", theme.special()),
                None => Span::styled(m.role().to_string(), theme.role(m.role())),
            };
            let glyph = match fate.glyph() {
                " " => Span::raw(" "),
                glyph => Span::styled(glyph, theme.marked()),
            };
            // Counted from 1, as people count: the last of 10,000 is 10,000.
            let number = Line::from(vec![glyph, Span::raw(format!("{:>5}", i + 1))]);
            let text = match fate {
                // The fix for resuming: the message as it would read.
                Fate::Cleared(c) if !c.media.is_empty() => Cell::from(Line::styled(
                    m.one_line_replaced(LINE_CHARS, &c.results, &c.media),
                    theme.dim().add_modifier(Modifier::ITALIC),
                )),
                Fate::Cleared(c) => Cell::from(Line::styled(
                    c.results
                        .iter()
                        .map(|(_, tokens)| placeholder(*tokens))
                        .collect::<Vec<_>>()
                        .join(" "),
                    theme.dim().add_modifier(Modifier::ITALIC),
                )),
                _ => Cell::from(m.one_line_limited(LINE_CHARS)),
            };
            let row = Row::new([
                Cell::from(number),
                Cell::from(Line::from(marker)),
                Cell::from(
                    Line::from(shown.map_or("…".into(), |n| humanize::count_within(n, TOKENS)))
                        .right_aligned(),
                ),
                Cell::from(
                    Line::from(if now.is_some() && fate.kept() {
                        humanize::count_within(running, TOTAL)
                    } else {
                        String::new()
                    })
                    .right_aligned(),
                ),
                text,
            ]);
            if fate.kept() {
                row
            } else {
                row.style(theme.dim())
            }
        })
        .collect();
    let widths = [
        Constraint::Length(6),
        Constraint::Length(10),
        Constraint::Length(TOKENS),
        Constraint::Length(TOTAL),
        Constraint::Min(10),
    ];
    let title = if viewer.order.is_some() {
        " Messages, largest first "
    } else {
        " Messages "
    };
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(title, theme.title()));
    let table = Table::new(rows, widths)
        .header(Row::new(["#", "ROLE", "TOKENS", "TOTAL", "TEXT"]).style(theme.title()))
        .block(block)
        .row_highlight_style(theme.selected());
    let selected = viewer.row_of(viewer.selected).saturating_sub(*offset);
    let mut table_state =
        TableState::default().with_selected((!loaded.is_empty()).then_some(selected));
    frame.render_stateful_widget(table, area, &mut table_state);
}
