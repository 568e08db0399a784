//! A context compared with its parent, over the list of contexts: the
//! totals of both, then the messages dropped, cleared and added since the
//! fork (only the lines on screen are laid out: a diff of a long context
//! can list thousands).

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{ContextDiff, DiffMessage};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{DiffLine, DiffSection, DiffView, body_len, body_line};
use crate::tui::msg::Action;
use crate::tui::view::{centered, clear_popup};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

/// Draws the comparison over `area`.
pub fn draw(frame: &mut Frame, view: &DiffView, area: Rect, theme: Theme) {
    let popup = centered(
        area,
        area.width.saturating_sub(4),
        area.height.saturating_sub(2),
    );
    clear_popup(frame, popup);
    let back = keymap::key_for(Scope::Diff, Action::Back);
    let mut block = Block::bordered().title_bottom(Line::styled(
        format!(" {back} back to the contexts "),
        theme.dim(),
    ));
    let diff = match &view.result {
        None => {
            let block = block.title(Line::styled(
                format!(" {} against its parent ", view.context_id),
                theme.title(),
            ));
            let text = Line::styled("comparing…", theme.dim());
            frame.render_widget(Paragraph::new(text).block(block), popup);
            return;
        }
        Some(Err(e)) => {
            let block = block.title(Line::styled(
                format!(" {} against its parent ", view.context_id),
                theme.title(),
            ));
            let text = Line::styled(e.to_string(), theme.error());
            let paragraph = Paragraph::new(text).block(block).wrap(Wrap { trim: true });
            frame.render_widget(paragraph, popup);
            return;
        }
        Some(Ok(diff)) => diff,
    };
    block = block.title(Line::styled(
        format!(
            " {} against its parent {} ",
            short(&diff.context.id),
            short(&diff.parent.id)
        ),
        theme.title(),
    ));
    let mut lines = totals(diff, theme);
    let height = usize::from(popup.height.saturating_sub(2)).saturating_sub(lines.len());
    let len = body_len(diff);
    if len == 0 {
        lines.push(Line::styled(
            "The same messages: nothing dropped, cleared or added.",
            theme.dim(),
        ));
    }
    let first = view.scroll.min(len.saturating_sub(height));
    for n in first..len.min(first + height) {
        if let Some(line) = body_line(diff, n) {
            lines.push(body(line, theme));
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

/// The lines that stay on top: both totals and the counts of each section.
fn totals(diff: &ContextDiff, theme: Theme) -> Vec<Line<'static>> {
    let side = |label: &str, messages: usize, tokens: u64| {
        format!(
            "{label:<8}{:>16}{:>20}",
            humanize::plural(messages as u64, "message"),
            humanize::plural(tokens, "token")
        )
    };
    let change = diff.context.tokens as i128 - diff.parent.tokens as i128;
    let sign = if change < 0 { "−" } else { "+" };
    vec![
        Line::raw(side("parent", diff.parent.messages, diff.parent.tokens)),
        Line::from(vec![
            Span::raw(side("this", diff.context.messages, diff.context.tokens)),
            Span::styled(
                format!(
                    "  ({sign}{})",
                    humanize::count(change.unsigned_abs() as u64)
                ),
                theme.key(),
            ),
        ]),
        Line::styled(
            format!(
                "{} kept · {} dropped · {} cleared · {} added since the fork",
                humanize::count(diff.kept as u64),
                humanize::count(diff.dropped.len() as u64),
                humanize::count(diff.cleared.len() as u64),
                humanize::count(diff.added.len() as u64)
            ),
            theme.dim(),
        ),
        Line::raw(""),
    ]
}

fn body(line: DiffLine<'_>, theme: Theme) -> Line<'static> {
    match line {
        DiffLine::Heading(section, n) => {
            let title = match section {
                DiffSection::Dropped => "Dropped (in the parent, not here)",
                DiffSection::Cleared => "Cleared (tool results to placeholders)",
                DiffSection::Added => "Added since the fork",
            };
            Line::styled(
                format!("{title}: {}", humanize::count(n as u64)),
                theme.title(),
            )
        }
        DiffLine::Dropped(m) | DiffLine::Added(m) => message(m, theme),
        DiffLine::Cleared(c) => Line::from(vec![
            Span::raw(format!("  {:<7}", humanize::message_number(c.index))),
            Span::styled(format!("{:<10}", c.role), theme.role(&c.role)),
            Span::raw(format!(
                "{:>20}  ",
                format!(
                    "{} → {}",
                    humanize::count(c.tokens_before),
                    humanize::count(c.tokens_after)
                )
            )),
            Span::styled(format!("{} (was {})", c.id, c.cleared_from), theme.dim()),
        ]),
    }
}

fn message(m: &DiffMessage, theme: Theme) -> Line<'static> {
    Line::from(vec![
        Span::raw(format!("  {:<7}", humanize::message_number(m.index))),
        Span::styled(format!("{:<10}", m.role), theme.role(&m.role)),
        Span::raw(format!("{:>20}  ", humanize::plural(m.tokens, "token"))),
        Span::raw(m.text.clone()),
    ])
}

/// A context id's date and first digits (room for both ids at 80 columns).
fn short(id: &str) -> &str {
    id.get(..17).unwrap_or(id)
}
