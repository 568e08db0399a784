//! The preview of the selected session: prompt, dates, path, last messages.

use crate::humanize;
use crate::store::safe_text::safe_line;
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use crate::tui::wrap;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Draws the preview pane.
pub fn draw(frame: &mut Frame, model: &Model, area: Rect, beside: bool, theme: Theme) {
    let borders = if beside {
        Borders::TOP | Borders::LEFT
    } else {
        Borders::TOP
    };
    let block = Block::new()
        .borders(borders)
        .title(Line::styled(" Preview ", theme.title()));
    let Some(row) = model.list.selected_row() else {
        frame.render_widget(block, area);
        return;
    };
    let r = &row.record;
    let width = usize::from(block.inner(area).width);
    // An error names a file and what went wrong: it wraps, every word shows.
    let wrapped = |text: &str| -> Vec<Line<'static>> {
        wrap::lines(text, width)
            .into_iter()
            .map(|line| Line::styled(line, theme.error()))
            .collect()
    };
    let mut lines = Vec::new();
    if let Some(error) = &r.error {
        lines.extend(wrapped(&format!("Damaged: {error}")));
        lines.push(Line::from(format!("path  {}", r.path.display())));
        lines.push(Line::styled(
            "Left as it is: nothing is rewritten or deleted because it cannot be read.",
            theme.dim(),
        ));
    } else {
        lines.push(Line::from(vec![
            Span::styled("prompt  ", theme.dim()),
            Span::raw(humanize::truncate(&r.first_prompt, 400)),
        ]));
        lines.push(Line::from(vec![
            Span::styled("used    ", theme.dim()),
            Span::raw(format!(
                "{} ({})   created {}",
                humanize::datetime(r.last_used_at),
                humanize::ago(r.last_used_at, model.app.now),
                humanize::datetime(r.created_at)
            )),
        ]));
        if let Some(s) = &row.stats {
            let mut facts = vec![
                Span::styled("size    ", theme.dim()),
                Span::raw(format!(
                    "{}   {} tokens   {}",
                    s.messages.map_or("? messages".into(), |m| humanize::plural(
                        m as u64, "message"
                    )),
                    s.tokens.map_or("?".into(), humanize::count),
                    humanize::bytes(s.bytes)
                )),
            ];
            if s.is_active {
                facts.push(Span::styled("   active: an agent owns it", theme.spared()));
            }
            lines.push(Line::from(facts));
        }
        if let Some(folder) = r.cwd.as_deref().filter(|f| !f.is_empty()) {
            lines.push(Line::from(vec![
                Span::styled("folder  ", theme.dim()),
                Span::raw(safe_line(folder).into_owned()),
            ]));
        }
        lines.push(Line::from(vec![
            Span::styled("path    ", theme.dim()),
            Span::raw(r.path.display().to_string()),
        ]));
    }
    match &model.list.preview {
        Some(p) if p.id == r.id => match &p.last_messages {
            Ok(messages) => {
                for (role, text) in messages {
                    lines.push(Line::from(vec![
                        Span::styled(format!("{role:>9}  "), theme.role(role)),
                        Span::raw(text.clone()),
                    ]));
                }
            }
            Err(e) => lines.extend(wrapped(&e.to_string())),
        },
        _ => lines.push(Line::styled("…", theme.dim())),
    }
    let paragraph = Paragraph::new(lines).block(block);
    frame.render_widget(paragraph, area);
}
