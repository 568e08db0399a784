//! The other machines' pane: the filter, how each host answered, then
//! every session the hosts listed, newest first, with its HOST; under the
//! table, the selected one's folder there and what Enter runs.

use crate::humanize;
use crate::render::theme::Theme;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{HostState, HostsView, Model};
use crate::tui::msg::Action;
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
    // Wide, the folder each was worked in has a column of its own.
    let wide = table_area.width >= 120;
    let rows: Vec<Row> = view
        .visible
        .iter()
        .skip(state.hosts_offset)
        .take(height)
        .map(|&at| {
            let s = &sessions[at];
            let mut cells = vec![
                Cell::from(s.host.clone()),
                Cell::from(s.agent.clone()),
                Cell::from(humanize::ago(s.last_used_at, model.app.now)),
                Cell::from(s.title.clone()),
            ];
            if wide {
                cells.push(Cell::from(s.cwd.clone().unwrap_or_default()));
            }
            let row = Row::new(cells);
            // Not resumable from here: its agent deleted it there.
            if s.archived {
                row.style(theme.dim())
            } else {
                row
            }
        })
        .collect();
    // From the few hosts asked, not every row each frame.
    let host_width = view
        .hosts
        .iter()
        .map(|(h, _)| h.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 16);
    let mut widths = vec![
        Constraint::Length(host_width as u16),
        Constraint::Length(7),
        Constraint::Length(14), // the longest age: "59 minutes ago"
        Constraint::Min(20),
    ];
    let mut titles = vec!["HOST", "AGENT", "LAST USED", "TITLE"];
    if wide {
        widths.push(Constraint::Percentage(35));
        titles.push("FOLDER");
    }
    let table = Table::new(rows, widths)
        .header(Row::new(titles).style(theme.title()))
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
            // The whole reason is on the status line when it comes.
            HostState::Failed(why) => Span::styled(short_reason(why), theme.error()),
        });
    }
    Line::from(spans)
}

/// "unreachable", "did not answer within 20 s": what a host's failure
/// is, before the detail after its first colon.
fn short_reason(why: &str) -> String {
    let head = why.split(':').next().unwrap_or(why);
    let head = head
        .trim_end_matches(" (left out)")
        .trim_end_matches(" (refused)");
    format!("{} (left out)", humanize::truncate(head, 40))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::{Host, RemoteSession};
    use crate::store::StoreKind;
    use crate::tui::model::Screen;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const NOW: f64 = 1_800_000_000.0;

    fn session(host: &str, id: &str, agent: &str, title: &str, hours_ago: f64) -> RemoteSession {
        RemoteSession {
            host: host.into(),
            id: id.into(),
            agent: agent.into(),
            title: title.into(),
            cwd: Some(format!("/home/me/src/{host}-app")),
            last_used_at: NOW - hours_ago * 3600.0,
            messages: Some(12),
            archived: false,
        }
    }

    /// The pane with a host answered, one still asked and one left out.
    fn model() -> Model {
        let mut model = Model::new(crate::cli::default_settings(StoreKind::Loki), NOW);
        let host = |name: &str| Host::new(name, &format!("me@{name}"), None).unwrap();
        model.screen = Screen::Hosts;
        model.hosts.hosts = vec![
            (host("devbox"), HostState::Listed(3)),
            (host("gpu"), HostState::Asking { req: 7 }),
            (
                host("old-laptop"),
                HostState::Failed(
                    "unreachable: ssh: connect to host old-laptop port 22: No route to host".into(),
                ),
            ),
        ];
        model.hosts.take_sessions(
            "devbox",
            vec![
                session(
                    "devbox",
                    "0a8f5c1e-1111-4222-8333-944445555666",
                    "claude",
                    "Fix the login redirect loop",
                    1.0,
                ),
                session(
                    "devbox",
                    "rollout-2026-11-30",
                    "codex",
                    "Paginate the orders endpoint",
                    30.0,
                ),
                session(
                    "devbox",
                    "7d1e9c2a-5555-4666-8777-988889999aaa",
                    "gemini",
                    "Deploy script fixes",
                    200.0,
                ),
            ],
        );
        model
    }

    fn screen(model: &Model, width: u16, height: u16) -> String {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let mut state = ViewState::new(Theme::plain());
        terminal
            .draw(|frame| crate::tui::view::draw(frame, model, &mut state))
            .unwrap();
        let buffer = terminal.backend().buffer();
        buffer
            .content
            .chunks(usize::from(width))
            .map(|row| {
                row.iter()
                    .map(|c| c.symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_pane_shows_each_hosts_state_its_rows_and_what_enter_runs() {
        let model = model();
        for (w, h) in [(80, 24), (160, 40)] {
            let text = screen(&model, w, h);
            assert!(
                text.contains(
                    "devbox: 3 sessions · gpu: asking… · old-laptop: unreachable (left out)"
                ),
                "{text}"
            );
            assert!(
                text.contains("Enter runs loki-sessions --host devbox resume 0a8f5c1e"),
                "{text}"
            );
            insta::assert_snapshot!(format!("hosts_{w}x{h}"), text);
        }
    }

    #[test]
    fn an_empty_pane_says_why() {
        let mut model = model();
        model.hosts.take_sessions("devbox", Vec::new());
        assert!(screen(&model, 80, 24).contains("Asking the hosts over ssh"));
        model.hosts.hosts[1].1 = HostState::Listed(0);
        assert!(screen(&model, 80, 24).contains("No host listed a session. ^R asks them again."));
    }
}
