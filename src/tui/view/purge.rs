//! The purge preview: the policy, every session it would delete (another
//! agent's: move to the trash) and why, the ones spared and why, and the
//! bytes; progress while deleting; which agent's sessions, when several are
//! listed.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{Agent, Decision, KeepReason, PlanEntry, StoreKind};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, PurgeView};
use crate::tui::msg::Action;
use crate::tui::view::{ViewState, scroll_into_view};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Gauge, Paragraph, Row, Table, TableState};

/// Draws the preview.
pub fn draw(frame: &mut Frame, model: &Model, state: &mut ViewState, area: Rect, theme: Theme) {
    let offered = model.purge().map_or(0, |p| p.offered.len());
    let [choice, header, summary, table_area] = Layout::vertical([
        Constraint::Length(u16::from(offered > 1)),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(3),
    ])
    .areas(area);
    let to_trash = model.purge().is_some_and(PurgeView::to_trash);
    let policy = match model.purge() {
        Some(purge) if to_trash => purge.agent_policy,
        _ => model.app.settings.policy,
    };
    if let Some(purge) = model.purge().filter(|_| offered > 1) {
        frame.render_widget(agent_choice(purge, model, theme), choice);
    }
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Purge preview   ", theme.title()),
            Span::raw("keep the "),
            Span::styled(policy.keep.to_string(), theme.key()),
            Span::raw(" most recently used, remove those unused for more than "),
            Span::styled(format!("{}d", policy.max_age_days), theme.key()),
        ])),
        header,
    );
    let Some(purge) = model.purge() else {
        return;
    };
    if let Some((done, total)) = purge.applying {
        let ratio = if total == 0 {
            1.0
        } else {
            done as f64 / total as f64
        };
        let gauge = Gauge::default()
            .ratio(ratio.min(1.0))
            .label(if to_trash {
                format!("moving to the trash {done}/{total}…")
            } else {
                format!("deleting {done}/{total}…")
            })
            .gauge_style(theme.remove());
        frame.render_widget(gauge, summary);
    } else if let Some(error) = &purge.error {
        frame.render_widget(
            Paragraph::new(Line::styled(error.to_string(), theme.error())),
            summary,
        );
    }
    let Some(plan) = &purge.plan else {
        if purge.applying.is_none() && purge.error.is_none() {
            frame.render_widget(
                Paragraph::new(Line::styled("checking every session…", theme.dim())),
                summary,
            );
        }
        return;
    };
    if purge.applying.is_none() {
        let removals = plan.removals().count();
        let spared = plan
            .kept()
            .filter(|e| !e.decision.is_routine_keep())
            .count();
        let text = format!(
            "{} to {} ({}{}), {} kept, {} of them spared against the policy{}",
            humanize::count(removals as u64),
            if to_trash {
                "move to the trash"
            } else {
                "delete"
            },
            humanize::bytes(plan.bytes_freed()),
            if to_trash { "" } else { " freed" },
            humanize::count(plan.kept().count() as u64),
            humanize::count(spared as u64),
            if purge.show_all_kept {
                String::new()
            } else {
                format!(
                    "   ({}: show every kept one)",
                    keymap::key_for(Scope::Purge, Action::ToggleKept)
                )
            }
        );
        let style = if removals > 0 {
            theme.remove()
        } else {
            theme.dim()
        };
        frame.render_widget(Paragraph::new(Line::styled(text, style)), summary);
    }
    let shown: Vec<&PlanEntry> = plan
        .entries
        .iter()
        .filter(|e| purge.show_all_kept || !e.decision.is_routine_keep())
        .collect();
    let height = usize::from(table_area.height.saturating_sub(2));
    let selected = purge.selected.min(shown.len().saturating_sub(1));
    scroll_into_view(&mut state.purge_offset, selected, height, shown.len());
    let rows: Vec<Row> = shown
        .iter()
        .skip(state.purge_offset)
        .take(height)
        .map(|e| {
            let deletes_at = model
                .list
                .agent_deletes_at
                .get(e.candidate.record.id.as_str());
            plan_row(e, model.app.now, to_trash, deletes_at.copied(), theme)
        })
        .collect();
    let widths = [
        Constraint::Length(7),
        Constraint::Length(30),
        Constraint::Length(14), // the longest age: "59 minutes ago"
        Constraint::Length(9),
        Constraint::Min(20),
    ];
    let table = Table::new(rows, widths)
        .header(Row::new(["", "SESSION", "LAST USED", "SIZE", "WHY"]).style(theme.title()))
        .block(Block::new().borders(Borders::TOP))
        .row_highlight_style(theme.selected());
    let mut table_state = TableState::default()
        .with_selected((!shown.is_empty()).then(|| selected - state.purge_offset.min(selected)));
    frame.render_stateful_widget(table, table_area, &mut table_state);
}

/// The agents offered, the one shown marked, and the key that goes on.
fn agent_choice<'a>(purge: &PurgeView, model: &Model, theme: Theme) -> Line<'a> {
    let primary = match model.app.settings.store_kind {
        StoreKind::Loki => "Loki",
        StoreKind::PeteosFolder => "peteos",
    };
    // The key first: a narrow screen cuts the end of the line.
    let mut spans = vec![
        Span::styled(
            keymap::key_for(Scope::Purge, Action::CycleAgent),
            theme.key(),
        ),
        Span::styled("  purge of:  ", theme.dim()),
    ];
    for agent in &purge.offered {
        let name = agent.map_or(primary, Agent::display_name);
        let style = if *agent == purge.agent {
            theme.selected()
        } else {
            theme.dim()
        };
        spans.push(Span::styled(format!(" {name} "), style));
        spans.push(Span::raw(" "));
    }
    spans.push(Span::styled(
        "  (another agent's sessions go to the trash)",
        theme.dim(),
    ));
    Line::from(spans)
}

/// A session of the plan; `deletes_at`, when its agent's own cleanup
/// deletes it (said first on a kept row: kept here, it may still go).
fn plan_row<'a>(
    entry: &PlanEntry,
    now: f64,
    to_trash: bool,
    deletes_at: Option<f64>,
    theme: Theme,
) -> Row<'a> {
    let r = &entry.candidate.record;
    let (verb, style) = match &entry.decision {
        Decision::Remove(_) if to_trash => ("trash", theme.remove()),
        Decision::Remove(_) => ("delete", theme.remove()),
        Decision::Keep(KeepReason::Recent { .. }) => ("keep", theme.dim()),
        Decision::Keep(_) => ("spare", theme.spared()),
    };
    let used = if r.error.is_some() {
        "-".into()
    } else {
        humanize::ago(r.last_used_at, now)
    };
    // Only on a kept row: one moved to the trash is safe from the sweep.
    let kept = matches!(entry.decision, Decision::Keep(_));
    let cleanup = deletes_at.filter(|_| kept).map(|at| {
        let when = humanize::cleanup_when(at, now);
        let soon = at - now < crate::tui::model::DELETES_SOON;
        Span::styled(
            format!("⚑ {} deletes it {when}; ", r.agent.display_name()),
            if soon { theme.warn() } else { theme.dim() },
        )
    });
    Row::new([
        Cell::from(Span::styled(verb, style)),
        Cell::from(if r.error.is_some() {
            r.id.to_string()
        } else if to_trash {
            r.shown_name().to_string()
        } else {
            r.name.clone()
        }),
        Cell::from(used),
        Cell::from(Line::from(humanize::bytes(entry.candidate.bytes)).right_aligned()),
        Cell::from(Line::from(
            [
                cleanup,
                Some(Span::styled(entry.decision.to_string(), style)),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>(),
        )),
    ])
}
