//! Where the tokens go: a one-line proportional bar under the viewer's
//! gauge, and the panel `w` opens (each kind with its tokens, its share and
//! a bar). Colours come from the theme; with NO_COLOR the one-line bar's
//! segments alternate reversed and plain, and every segment that has room
//! says what it is.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{Breakdown, Encoding, TokenKind};
use crate::tui::keymap::{self, Scope};
use crate::tui::msg::Action;
use crate::tui::view::{centered, clear_popup};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// A short name for a segment of the one-line bar.
fn short(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::SystemPrompt => "system",
        TokenKind::ToolDefinitions => "tool defs",
        TokenKind::UserText => "user",
        TokenKind::AssistantText => "assistant",
        TokenKind::Thinking => "thinking",
        TokenKind::ToolCalls => "calls",
        TokenKind::ToolResults => "results",
        TokenKind::Media => "media",
        TokenKind::Other => "other",
    }
}

/// One letter for a segment too narrow for its name.
fn letter(kind: TokenKind) -> &'static str {
    match kind {
        TokenKind::SystemPrompt => "S",
        TokenKind::ToolDefinitions => "D",
        TokenKind::UserText => "U",
        TokenKind::AssistantText => "A",
        TokenKind::Thinking => "T",
        TokenKind::ToolCalls => "C",
        TokenKind::ToolResults => "R",
        TokenKind::Media => "M",
        TokenKind::Other => "O",
    }
}

/// `tokens` as a percentage of `total`, as people read it.
fn percent(tokens: u64, total: u64) -> String {
    if tokens == 0 {
        return "0%".into();
    }
    match 100.0 * tokens as f64 / total.max(1) as f64 {
        p if p < 1.0 => "<1%".into(),
        p => format!("{p:.0}%"),
    }
}

/// Splits `width` columns among `shares` in proportion, exactly: floors,
/// then a column each to the largest remainders.
fn columns(width: usize, shares: &[u64]) -> Vec<usize> {
    let total: u128 = shares.iter().map(|&s| u128::from(s)).sum();
    if total == 0 {
        return vec![0; shares.len()];
    }
    let exact: Vec<u128> = shares
        .iter()
        .map(|&s| u128::from(s) * width as u128)
        .collect();
    let mut cols: Vec<usize> = exact.iter().map(|e| (e / total) as usize).collect();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| (exact[b] % total).cmp(&(exact[a] % total)));
    let left = width - cols.iter().sum::<usize>();
    for &i in order.iter().take(left) {
        cols[i] += 1;
    }
    cols
}

/// The one-line bar across `width` columns: each kind a segment as wide as
/// its share, labelled where it has room; then the key of the panel.
pub fn bar_line(breakdown: Option<&Breakdown>, width: usize, theme: Theme) -> Line<'static> {
    let key = keymap::key_for(Scope::Viewer, Action::Breakdown);
    let Some(breakdown) = breakdown.filter(|b| b.total() > 0) else {
        // A breakdown of nothing: every message is counted, there are none.
        let text = if breakdown.is_some() {
            "where the tokens go: no tokens yet, the context is empty".to_string()
        } else {
            format!("where the tokens go: once every message is counted ({key})")
        };
        return Line::styled(text, theme.dim());
    };
    let total = breakdown.total();
    let kinds: Vec<(TokenKind, u64)> = breakdown
        .iter()
        .filter(|(_, t)| t.tokens > 0)
        .map(|(k, t)| (k, t.tokens))
        .collect();
    let room = width.saturating_sub(key.len() + 1);
    let shares: Vec<u64> = kinds.iter().map(|(_, t)| *t).collect();
    let mut spans = Vec::new();
    let mut nth = 0;
    for ((kind, tokens), cols) in kinds.iter().zip(columns(room, &shares)) {
        if cols == 0 {
            continue;
        }
        let named = format!(" {} {}", short(*kind), percent(*tokens, total));
        let label = [
            named,
            format!(" {}", short(*kind)),
            letter(*kind).to_string(),
        ]
        .into_iter()
        .find(|l| l.chars().count() <= cols)
        .unwrap_or_default();
        let text = format!("{label:<cols$}");
        spans.push(Span::styled(text, theme.kind_segment(*kind, nth)));
        nth += 1;
    }
    spans.push(Span::raw(" "));
    spans.push(Span::styled(key, theme.key()));
    Line::from(spans)
}

/// Columns of the panel besides its bar.
const LABEL: usize = 17;

/// The panel over the viewer: every kind with its tokens, its share and a
/// bar, the total in the title.
/// `not_in_file`: for another agent's session, what its API took at the
/// last recorded request beyond the transcript counted up to it (its
/// system prompt and tool definitions, which the file does not hold).
pub fn draw_panel(
    frame: &mut Frame,
    breakdown: Option<&Breakdown>,
    not_in_file: Option<u64>,
    encoding: Encoding,
    area: Rect,
    theme: Theme,
) {
    let popup = centered(area, area.width.saturating_sub(4).min(78), 17);
    clear_popup(frame, popup);
    let close = keymap::key_for(Scope::Breakdown, Action::Back);
    let sort = keymap::key_for(Scope::Viewer, Action::SortBySize);
    let title = match breakdown {
        Some(b) => format!(
            " Where the tokens go: {} ({encoding}) ",
            humanize::plural(b.total(), "token")
        ),
        None => " Where the tokens go ".to_string(),
    };
    let block = Block::bordered()
        .title(Line::styled(title, theme.title()))
        .title_bottom(Line::styled(format!(" {close} closes "), theme.dim()));
    let Some(breakdown) = breakdown else {
        let text = Line::styled(
            "counting… the breakdown comes with the last count",
            theme.dim(),
        );
        frame.render_widget(Paragraph::new(text).block(block), popup);
        return;
    };
    let inner = usize::from(popup.width.saturating_sub(2));
    let bar_width = inner.saturating_sub(LABEL + 10 + 6 + 9 + 2);
    let total = breakdown.total();
    // The largest kind fills the bar: the column of percentages gives shares.
    let largest = breakdown.iter().map(|(_, t)| t.tokens).max().unwrap_or(0);
    let mut lines = vec![Line::styled(
        format!(
            " {:<LABEL$}{:>10}{:>6}{:>9}  ",
            "KIND", "TOKENS", "%", "MESSAGES"
        ),
        theme.title(),
    )];
    for (kind, t) in breakdown.iter() {
        let style = if t.tokens == 0 {
            theme.dim()
        } else {
            Style::new()
        };
        let figures = format!(
            " {:<LABEL$}{:>10}{:>6}{:>9}  ",
            kind.label(),
            humanize::count(t.tokens),
            percent(t.tokens, total),
            humanize::count(t.messages as u64)
        );
        let bar_style = theme
            .kind_color(kind)
            .map_or(Style::new(), |c| Style::new().fg(c));
        lines.push(Line::from(vec![
            Span::styled(figures, style),
            Span::styled(bar(t.tokens, largest, bar_width), bar_style),
        ]));
    }
    if let Some(hidden) = not_in_file.filter(|n| *n > 0) {
        lines.push(Line::from(format!(
            " {:<LABEL$}{:>10}  system prompt and tools, as the API counted them at the last request",
            "not in the file",
            humanize::count(hidden),
        )));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        " A message's count is split among its parts by their size.",
        theme.dim(),
    ));
    lines.push(Line::styled(
        format!(" {sort} in the viewer sorts the messages largest first."),
        theme.dim(),
    ));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}

/// A bar of `width` columns filled as `tokens` is to `full`, to an eighth
/// of a column.
fn bar(tokens: u64, full: u64, width: usize) -> String {
    const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (u128::from(tokens) * width as u128 * 8 / u128::from(full.max(1))) as usize;
    let mut out = "█".repeat(eighths / 8);
    out.push_str(EIGHTHS[eighths % 8]);
    if tokens > 0 && out.is_empty() {
        out.push('▏'); // a kind that is there shows, however small
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_proportional_and_add_up() {
        assert_eq!(columns(10, &[1, 1]), vec![5, 5]);
        assert_eq!(columns(10, &[7, 2, 1]), vec![7, 2, 1]);
        assert_eq!(columns(7, &[1, 1, 1]).iter().sum::<usize>(), 7);
        assert_eq!(columns(5, &[0, 0]), vec![0, 0]);
        assert_eq!(bar(1, 2, 4), "██", "half of the largest: half the bar");
        assert_eq!(bar(1, 1000, 4), "▏");
        assert_eq!(bar(0, 1000, 4), "");
        assert_eq!(percent(1, 1000), "<1%");
        assert_eq!(percent(613, 1000), "61%");
    }
}
