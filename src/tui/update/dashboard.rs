//! The usage dashboard: what the agents spent over the last 30 or 90 days
//! (the usage the list holds, added up and priced on a worker), read again
//! whenever the disk changes, as the list is.

use crate::tui::effect::Effect;
use crate::tui::model::{App, DashboardView, ListScreen, PERIODS};
use crate::tui::msg::Action;
use crate::tui::ops::{DashboardOp, DashboardReply, OwnedUsage};
use crate::tui::update::{Go, Step};
use std::sync::Arc;

/// A new dashboard, its reports asked for.
pub fn open(list: &ListScreen, app: &mut App) -> (DashboardView, Vec<Effect>) {
    let mut dashboard = DashboardView::default();
    let effects = ask(&mut dashboard, list, app);
    (dashboard, effects)
}

/// Asks for the reports of what the list's sessions spent (the latest
/// request wins).
pub fn ask(dashboard: &mut DashboardView, list: &ListScreen, app: &mut App) -> Vec<Effect> {
    let sessions: Vec<OwnedUsage> = list
        .rows
        .iter()
        .filter(|row| !row.gone)
        .filter_map(|row| {
            let usage = row.stats.as_ref()?.usage.as_ref()?;
            let r = &row.record;
            Some(OwnedUsage {
                agent: r.agent,
                id: r.id.to_string(),
                title: r.shown_name().to_string(),
                cwd: r.cwd.clone(),
                last_used_at: r.last_used_at,
                usage: (**usage).clone(),
            })
        })
        .collect();
    dashboard.waiting = app.request();
    vec![Effect::store(
        dashboard.waiting,
        DashboardOp::Report {
            sessions: Arc::new(sessions),
            days: dashboard.days,
            now: app.now,
        },
    )]
}

/// Keys of the dashboard.
pub fn on_action(
    dashboard: &mut DashboardView,
    list: &ListScreen,
    app: &mut App,
    action: Action,
) -> Step {
    match action {
        Action::Back => Step::go(Go::List),
        Action::AgeMore | Action::AgeLess => {
            let at = PERIODS
                .iter()
                .position(|d| *d == dashboard.days)
                .unwrap_or(0);
            let next = if action == Action::AgeMore {
                (at + 1).min(PERIODS.len() - 1)
            } else {
                at.saturating_sub(1)
            };
            if PERIODS[next] == dashboard.days {
                return Step::none();
            }
            dashboard.days = PERIODS[next];
            Step::effects(ask(dashboard, list, app))
        }
        Action::Refresh => Step::effects(ask(dashboard, list, app)),
        _ => Step::none(),
    }
}

/// The reports came (a late answer to an older request is dropped).
pub fn on_reply(dashboard: &mut DashboardView, req: u64, reply: DashboardReply) -> Step {
    if req != dashboard.waiting {
        return Step::none();
    }
    match reply {
        DashboardReply::Reports { result } => match result {
            Ok(reports) => {
                dashboard.reports = Some(reports);
                dashboard.error = None;
            }
            Err(e) => dashboard.error = Some(e),
        },
    }
    Step::none()
}
