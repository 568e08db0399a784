//! The other machines' pane: the filter, how each host answered, then
//! every session the hosts listed, newest first, with its HOST; under the
//! table, the selected one's folder there and what Enter runs.

use crate::humanize;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{HostState, HostsView, Model};
use crate::tui::msg::Action;
use crate::tui::theme::Theme;
use crate::tui::view::{ViewState, scroll_into_view, text_field};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

/// Draws the pane.
pub fn draw(frame: &mut Frame, model: &Model, state: &mut ViewState, area: Rect, theme: Theme) {
    let [header, filter, answered, table_area, folder, runs] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let view = &model.hosts;
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Other machines   ", theme.title()),
            Span::styled(
                "the sessions of the config's [hosts], asked over ssh",
                theme.dim(),
            ),
        ])),
        header,
    );
    frame.render_widget(filter_line(view, filter.width, theme), filter);
    frame.render_widget(hosts_line(view, theme), answered);
    let height = usize::from(table_area.height.saturating_sub(2));
    let len = view.visible.len();
    let selected = view.selected.min(len.saturating_sub(1));
    scroll_into_view(&mut state.hosts_offset, selected, height, len);
    let sessions = view.sessions();
    let rows: Vec<Row> = view
        .visible
        .iter()
        .skip(state.hosts_offset)
        .take(height)
        .map(|&at| {
            let s = &sessions[at];
            let row = Row::new([
                Cell::from(s.host.clone()),
                Cell::from(s.agent.clone()),
                Cell::from(humanize::ago(s.last_used_at, model.app.now)),
                Cell::from(s.title.clone()),
            ]);
            // Not resumable from here: its agent deleted it there.
            if s.archived {
                row.style(theme.dim())
            } else {
                row
            }
        })
        .collect();
    let host_width = sessions
        .iter()
        .map(|s| s.host.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 16);
    let widths = [
        Constraint::Length(host_width as u16),
        Constraint::Length(7),
        Constraint::Length(14), // the longest age: "59 minutes ago"
        Constraint::Min(20),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(["HOST", "AGENT", "LAST USED", "TITLE"]).style(theme.title()))
        .block(Block::new().borders(Borders::TOP))
        .row_highlight_style(theme.selected());
    let mut table_state = TableState::default()
        .with_selected((len > 0).then(|| selected - state.hosts_offset.min(selected)));
    frame.render_stateful_widget(table, table_area, &mut table_state);
    if len == 0 {
        let inner = Rect::new(
            table_area.x + 1,
            table_area.y + 2,
            table_area.width.saturating_sub(2),
            table_area.height.saturating_sub(2).min(3),
        );
        frame.render_widget(
            Paragraph::new(Line::styled(empty_text(view), theme.dim()))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            inner,
        );
    }
    if let Some(session) = view.selected_session() {
        let mut line = vec![
            Span::styled("in ", theme.dim()),
            Span::raw(session.cwd.clone().unwrap_or_else(|| "?".into())),
            Span::styled(format!(" on {}", session.host), theme.dim()),
        ];
        if let Some(n) = session.messages {
            line.push(Span::styled(
                format!(" · {}", humanize::plural(n, "message")),
                theme.dim(),
            ));
        }
        frame.render_widget(Paragraph::new(Line::from(line)), folder);
        let (key, what) = if session.archived {
            (
                String::new(),
                "deleted by its agent there: restore it there first".to_string(),
            )
        } else {
            (
                keymap::key_for(Scope::Hosts, Action::Resume),
                format!(" runs {}", session.resume_line()),
            )
        };
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(key, theme.key()),
                Span::styled(what, theme.dim()),
            ])),
            runs,
        );
    }
}

/// The filter, with how many rows it lets through.
fn filter_line(view: &HostsView, width: u16, theme: Theme) -> Line<'static> {
    let count = if view.filter.is_empty() {
        humanize::plural(view.sessions().len() as u64, "session")
    } else {
        format!(
            "{} of {}",
            humanize::count(view.visible.len() as u64),
            humanize::plural(view.sessions().len() as u64, "session")
        )
    };
    let room = usize::from(width).saturating_sub(count.chars().count() + 5);
    let mut spans = vec![Span::styled("› ", theme.key())];
    spans.extend(text_field::spans(&view.filter, room, theme));
    spans.push(Span::styled(format!("   {count}"), theme.dim()));
    Line::from(spans)
}

/// Each host and how it answered: a count, still asking, or left out and
/// why.
fn hosts_line(view: &HostsView, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (at, (host, state)) in view.hosts.iter().enumerate() {
        if at > 0 {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        spans.push(Span::styled(format!("{}: ", host.name), theme.title()));
        spans.push(match state {
            HostState::Asking { .. } => Span::styled("asking…", theme.dim()),
            HostState::Listed(n) => Span::raw(humanize::plural(*n as u64, "session")),
            HostState::Failed(why) => Span::styled(format!("left out: {why}"), theme.error()),
        });
    }
    Line::from(spans)
}

fn empty_text(view: &HostsView) -> String {
    if !view.sessions().is_empty() {
        format!(
            "No session matches. {} clears the filter.",
            keymap::key_for(Scope::Hosts, Action::ClearOrQuit)
        )
    } else if view.asking() {
        "Asking the hosts over ssh; their sessions come here as each answers.".into()
    } else {
        format!(
            "No host listed a session. {} asks them again.",
            keymap::key_for(Scope::Hosts, Action::Refresh)
        )
    }
}
