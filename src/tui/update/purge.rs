//! The purge preview: gather facts once, re-plan on every policy change
//! (pure and fast), confirm, apply with progress. Loki's sessions (or the
//! peteos folder's) are deleted for good; another agent's, picked with a
//! key, are moved to the trash (`purge/agent.rs` words it).

mod agent;

use crate::humanize;
use crate::store::{
    Agent, AgentPurgeFacts, Candidate, PurgePlan, PurgeProgress, PurgeReport, agent_purge_policy,
};
use crate::tui::effect::Effect;
use crate::tui::model::{App, Confirm, ConfirmAction, Overlay, PurgeView, TrashFrom};
use crate::tui::msg::Action;
use crate::tui::ops::{PurgeOp, PurgeReply, UiError};
use crate::tui::update::{Go, Step, move_cursor, report_text};
use std::sync::Arc;

/// A new preview of `start`'s sessions (None: the Loki tree's or peteos
/// folder's), gathering the facts; `offered` are those a key cycles.
pub fn open(
    app: &mut App,
    offered: Vec<Option<Agent>>,
    start: Option<Agent>,
) -> (PurgeView, Vec<Effect>) {
    let mut purge = PurgeView {
        agent: start.filter(|a| offered.contains(&Some(*a))),
        offered,
        agent_policy: agent_purge_policy(),
        ..PurgeView::default()
    };
    let effects = gather(&mut purge, app);
    (purge, effects)
}

fn gather(purge: &mut PurgeView, app: &mut App) -> Vec<Effect> {
    purge.waiting = app.request();
    let op = match purge.agent {
        None => PurgeOp::Gather,
        Some(agent) => PurgeOp::GatherAgent {
            agent,
            now: app.now,
        },
    };
    vec![Effect::store(purge.waiting, op)]
}

/// A reply of the worker for the preview, to request `req`; replies to an
/// older request (the preview was gathered again since) are dropped.
pub fn on_reply(purge: &mut PurgeView, app: &mut App, req: u64, reply: PurgeReply) -> Step {
    if req != purge.waiting {
        return Step::none();
    }
    match reply {
        PurgeReply::Gathered { result } => {
            on_gathered(purge, app, result);
            Step::none()
        }
        PurgeReply::AgentGathered { result } => {
            on_agent_gathered(purge, app, result);
            Step::none()
        }
        PurgeReply::Progress { progress } => {
            on_progress(purge, progress);
            Step::none()
        }
        PurgeReply::Done { result } => on_done(purge, app, result),
    }
}

fn on_gathered(purge: &mut PurgeView, app: &App, result: Result<Arc<Vec<Candidate>>, UiError>) {
    match result {
        Ok(candidates) => {
            purge.candidates = Some(candidates);
            replan(purge, app);
        }
        Err(e) => purge.error = Some(e),
    }
}

fn on_agent_gathered(
    purge: &mut PurgeView,
    app: &App,
    result: Result<Arc<AgentPurgeFacts>, UiError>,
) {
    match result {
        Ok(facts) => {
            purge.agent_facts = Some(facts);
            replan(purge, app);
        }
        Err(e) => purge.error = Some(e),
    }
}

/// Rebuilds the plan for the current policy from the gathered facts.
fn replan(purge: &mut PurgeView, app: &App) {
    if purge.agent.is_some() {
        if let Some(facts) = &purge.agent_facts {
            let plan = facts.plan(purge.agent_policy, &[], app.now);
            purge.selected = purge.selected.min(plan.entries.len().saturating_sub(1));
            purge.plan = Some(plan);
        }
        return;
    }
    if let Some(candidates) = &purge.candidates {
        let plan = PurgePlan::build(
            candidates.as_ref().clone(),
            app.settings.policy,
            &[],
            app.now,
        );
        purge.selected = purge.selected.min(plan.entries.len().saturating_sub(1));
        purge.plan = Some(plan);
    }
}

/// Keys of the preview.
pub fn on_action(purge: &mut PurgeView, app: &mut App, action: Action) -> Step {
    if purge.applying.is_some() {
        return Step::none(); // wait for the purge to finish
    }
    let rows = purge.plan.as_ref().map_or(0, |p| p.entries.len());
    if move_cursor(&mut purge.selected, rows, action, app.page()) {
        return Step::none();
    }
    if matches!(action, Action::CycleAgent) {
        return cycle_agent(purge, app);
    }
    let policy = match purge.agent {
        None => &mut app.settings.policy,
        Some(_) => &mut purge.agent_policy,
    };
    match action {
        Action::Back => return Step::go(Go::List),
        Action::Trash => return Step::go(Go::Trash(TrashFrom::Purge(purge.agent))),
        Action::KeepMore => policy.keep += keep_step(policy.keep),
        Action::KeepLess => {
            policy.keep = policy
                .keep
                .saturating_sub(keep_step(policy.keep.saturating_sub(1)))
        }
        Action::AgeMore => policy.max_age_days += age_step(policy.max_age_days),
        Action::AgeLess => {
            policy.max_age_days =
                (policy.max_age_days - age_step(policy.max_age_days - 1.0)).max(0.0)
        }
        Action::ToggleKept => purge.show_all_kept = !purge.show_all_kept,
        Action::Confirm => {
            ask(purge, app);
            return Step::none();
        }
        _ => return Step::none(),
    }
    replan(purge, app);
    Step::none()
}

fn keep_step(keep: usize) -> usize {
    if keep >= 20 { 10 } else { 1 }
}

fn age_step(days: f64) -> f64 {
    if days >= 14.0 { 7.0 } else { 1.0 }
}

/// The next agent offered: its facts gathered, the plan made again.
fn cycle_agent(purge: &mut PurgeView, app: &mut App) -> Step {
    if purge.offered.len() < 2 {
        app.say("only one agent's sessions are listed");
        return Step::none();
    }
    let at = purge
        .offered
        .iter()
        .position(|a| *a == purge.agent)
        .unwrap_or(0);
    purge.agent = purge.offered[(at + 1) % purge.offered.len()];
    purge.candidates = None;
    purge.agent_facts = None;
    purge.plan = None;
    purge.error = None;
    purge.report = None;
    purge.selected = 0;
    app.say(agent::purging(purge.agent));
    Step::effects(gather(purge, app))
}

/// Asks before purging; No is the default.
fn ask(purge: &PurgeView, app: &mut App) {
    let Some(plan) = &purge.plan else {
        return;
    };
    let count = plan.removals().count();
    if count == 0 {
        app.say("nothing to purge with this policy");
        return;
    }
    if let Some(agent) = purge.agent {
        app.overlay = Some(Overlay::Confirm(agent::question(agent, plan)));
        return;
    }
    let mut lines: Vec<String> = plan
        .removals()
        .take(6)
        .map(|e| {
            format!(
                "{}  {}",
                humanize::truncate(&e.candidate.record.name, 32),
                e.decision
            )
        })
        .collect();
    if count > 6 {
        lines.push(format!(
            "… and {} more",
            humanize::count((count - 6) as u64)
        ));
    }
    lines.push(format!(
        "{} will be freed. This cannot be undone.",
        humanize::bytes(plan.bytes_freed())
    ));
    app.overlay = Some(Overlay::Confirm(Confirm {
        title: format!("Delete {}?", humanize::plural(count as u64, "session")),
        lines,
        action: ConfirmAction::Purge,
    }));
}

/// The user said yes: apply the plan on screen.
pub fn on_confirmed(purge: &mut PurgeView, app: &mut App) -> Step {
    let Some(plan) = purge.plan.clone() else {
        return Step::none();
    };
    purge.waiting = app.request();
    purge.applying = Some((0, plan.removals().count()));
    let op = match purge.agent {
        None => PurgeOp::Apply { plan },
        Some(_) => PurgeOp::ApplyAgent { plan, now: app.now },
    };
    Step::effect(Effect::store(purge.waiting, op))
}

fn on_progress(purge: &mut PurgeView, progress: PurgeProgress) {
    purge.applying = Some((progress.done, progress.total));
}

/// The apply ended: report, gather again, and have the list read the store.
fn on_done(purge: &mut PurgeView, app: &mut App, result: Result<PurgeReport, UiError>) -> Step {
    purge.applying = None;
    match result {
        Ok(report) => {
            let said = match (purge.agent, &purge.plan) {
                (Some(agent), Some(plan)) => agent::report_text(agent, plan, &report),
                _ => report_text(&report),
            };
            match said {
                (text, false) => app.say(text),
                (text, true) => app.complain(text),
            }
            purge.report = Some(report);
        }
        Err(e) => app.complain(e),
    }
    purge.candidates = None;
    purge.agent_facts = None;
    purge.plan = None;
    Step {
        effects: gather(purge, app),
        go: Some(Go::Rescan),
    }
}
