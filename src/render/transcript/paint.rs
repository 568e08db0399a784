//! One row of the transcript as styled spans: the message's header, or a
//! stretch of a line (its prefix, its looks, the search's matches marked).
//! The viewer draws these rows; `show --format transcript` prints them.

use super::{Laid, Row, TextMatch};
use crate::humanize;
use crate::render::theme::Theme;
use crate::render::wrap;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// What a header row says and how it is marked.
#[derive(Clone, Copy, Debug)]
pub struct Heading<'a> {
    /// The message's index.
    pub index: usize,
    /// Its role, or what it is (`system prompt`).
    pub label: &'a str,
    /// Its role, for the label's colour.
    pub role: &'a str,
    /// Sequence, tokens and time ([`super::facts`]).
    pub facts: &'a str,
    /// The selected message's header stands out.
    pub selected: bool,
}

/// The search's matches in one message, and the current one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Marks<'a> {
    /// Matches in this message, in order.
    pub hits: &'a [TextMatch],
    /// The current match, if it is in this message.
    pub current: Option<TextMatch>,
}

/// Row `row` of `laid` in `width` columns.
pub fn row_line(
    laid: &Laid,
    row: &Row,
    heading: Heading,
    marks: Marks,
    theme: Theme,
    width: usize,
) -> Line<'static> {
    let Some(line) = laid.line(row) else {
        return header_line(heading, theme, width);
    };
    let body = &laid.block.body;
    let mut spans = Vec::new();
    let prefix = laid.prefix(row);
    if !prefix.is_empty() {
        spans.push(Span::styled(
            prefix.to_string(),
            theme.dim().remove_modifier(Modifier::DIM),
        ));
    }
    let (start, end) = (row.start as usize, row.end as usize);
    let base = theme.look(line.look);
    // Looks of the line's stretches, cut to the row.
    let first_span = body.spans.partition_point(|s| s.text.end <= start);
    let mut pieces: Vec<(usize, usize, Style)> = Vec::new();
    let mut at = start;
    for span in body.spans[first_span..].iter() {
        if span.text.start >= end {
            break;
        }
        let (s, e) = (span.text.start.max(start), span.text.end.min(end));
        if s > at {
            pieces.push((at, s, base));
        }
        pieces.push((s, e, theme.look(span.look)));
        at = e;
    }
    if at < end {
        pieces.push((at, end, base));
    }
    // Matches: where this row's text sits in its part's search text.
    let marked: Vec<(usize, usize, bool)> = match laid.source(row) {
        Some((part, offset)) => marks
            .hits
            .iter()
            .filter(|h| h.part == part && h.end > offset && h.start < offset + (end - start))
            .map(|h| {
                (
                    start + h.start.saturating_sub(offset),
                    (start + h.end - offset).min(end),
                    marks.current == Some(*h),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    for (s, e, style) in pieces {
        push_marked(&mut spans, &body.text, (s, e), style, &marked, theme);
    }
    Line::from(spans)
}

/// `text[s..e]` in `style`, the marked stretches in the match style.
fn push_marked(
    spans: &mut Vec<Span<'static>>,
    text: &str,
    (s, e): (usize, usize),
    style: Style,
    marked: &[(usize, usize, bool)],
    theme: Theme,
) {
    let mut at = s;
    for &(ms, me, current) in marked {
        let (ms, me) = (ms.max(at), me.min(e));
        if ms >= me {
            continue;
        }
        if !text.is_char_boundary(ms) || !text.is_char_boundary(me) {
            continue;
        }
        if ms > at {
            spans.push(Span::styled(text[at..ms].to_string(), style));
        }
        let mark = if current {
            theme.matched().add_modifier(Modifier::REVERSED)
        } else {
            theme.matched()
        };
        spans.push(Span::styled(text[ms..me].to_string(), mark));
        at = me;
    }
    if at < e {
        spans.push(Span::styled(text[at..e].to_string(), style));
    }
}

/// `── #12 assistant · seq 14 · 88 tokens · 2026-11-29 12:03 ─────────`.
fn header_line(heading: Heading, theme: Theme, width: usize) -> Line<'static> {
    let rule = theme.dim().remove_modifier(Modifier::DIM);
    let mut spans = vec![
        Span::styled("── ", rule),
        Span::styled(
            format!("{} ", humanize::message_number(heading.index)),
            theme.title(),
        ),
        Span::styled(
            heading.label.to_string(),
            theme.role(heading.role).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(" · {} ", heading.facts),
            theme.dim().remove_modifier(Modifier::DIM),
        ),
    ];
    let used: usize = spans.iter().map(|s| wrap::columns(&s.content)).sum();
    spans.push(Span::styled("─".repeat(width.saturating_sub(used)), rule));
    let line = Line::from(spans);
    if heading.selected {
        line.style(theme.selected())
    } else {
        line
    }
}
