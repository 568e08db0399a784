//! The preview of the selected session: prompt, dates, path, last messages;
//! in a message search, the message found, around the match.

use crate::humanize;
use crate::render::theme::Theme;
use crate::render::wrap;
use crate::store::Hit;
use crate::store::safe_text::safe_line;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::Model;
use crate::tui::msg::Action;
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
    let block = Block::new().borders(borders);
    if let Some(hit) = model.list.selected_hit() {
        let block = block.title(Line::styled(" Message ", theme.title()));
        draw_hit(frame, hit, block, area, theme);
        return;
    }
    let block = block.title(Line::styled(" Preview ", theme.title()));
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
        if r.archived {
            let text = format!(
                "archived: its agent deleted it, this is our copy; {} asks to put it back \
                 (`loki-sessions restore {} --from-archive`)",
                keymap::key_for(Scope::List, Action::Resume),
                r.id
            );
            lines.extend(
                wrap::lines(&text, width)
                    .into_iter()
                    .map(|line| Line::styled(line, theme.warn())),
            );
        }
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
        if let Some(at) = model.list.agent_deletes_at.get(r.id.as_str()) {
            let rule = model
                .list
                .retention_rules
                .iter()
                .find(|rule| rule.agent == r.agent);
            let when = humanize::cleanup_when(*at, model.app.now);
            let style = if *at - model.app.now < crate::tui::model::DELETES_SOON {
                theme.warn()
            } else {
                theme.dim()
            };
            let why = rule.map_or(String::new(), |rule| format!(" ({})", rule.from));
            lines.push(Line::from(vec![
                Span::styled("cleanup ", theme.dim()),
                Span::styled(
                    format!("{} deletes it {when}{why}", r.agent.display_name()),
                    style,
                ),
            ]));
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

/// A message search's preview: the message around the match, its lines
/// kept and the matched words marked, under who wrote it and where.
fn draw_hit(frame: &mut Frame, hit: &Hit, block: Block<'_>, area: Rect, theme: Theme) {
    let mut head = vec![
        Span::styled(format!("{}  ", hit.role), theme.role(&hit.role)),
        Span::raw(safe_line(&hit.session_name).into_owned()),
    ];
    if let Some(n) = hit.sequence {
        head.push(Span::styled(format!("  message {n}"), theme.dim()));
    }
    let passage = &hit.passage;
    // A hit made before passages were kept (or of an empty text) shows its snippet.
    let (text, marks) = if passage.text.is_empty() {
        (&hit.snippet, &hit.highlights)
    } else {
        (&passage.text, &passage.highlights)
    };
    let mut lines = vec![Line::from(head)];
    lines.extend(super::viewer::marked_lines(text, marks, theme).lines);
    let paragraph = Paragraph::new(lines)
        .block(block)
        .wrap(ratatui::widgets::Wrap { trim: false });
    frame.render_widget(paragraph, area);
}
