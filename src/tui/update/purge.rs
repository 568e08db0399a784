//! The purge preview: gather facts once, re-plan on every policy change
//! (pure and fast), confirm, apply with progress.

use crate::format;
use crate::store::purge_apply::{PurgeProgress, PurgeReport};
use crate::store::purge_plan::{Candidate, PurgePlan};
use crate::tui::effect::Effect;
use crate::tui::model::{Confirm, ConfirmAction, Mode, Model, Overlay, PurgeView};
use crate::tui::msg::Action;
use crate::tui::update::{complain, list, move_cursor, page, say};
use std::sync::Arc;

/// Opens the preview and gathers the facts.
pub fn open(model: &mut Model) -> Vec<Effect> {
    model.mode = Mode::Purge;
    model.purge = PurgeView::default();
    gather(model)
}

fn gather(model: &mut Model) -> Vec<Effect> {
    model.requests.purge += 1;
    vec![Effect::GatherPurge {
        req: model.requests.purge,
    }]
}

/// The facts arrived.
pub fn on_gathered(
    model: &mut Model,
    req: u64,
    result: Result<Arc<Vec<Candidate>>, String>,
) -> Vec<Effect> {
    if req != model.requests.purge {
        return Vec::new();
    }
    match result {
        Ok(candidates) => {
            model.purge.candidates = Some(candidates);
            replan(model);
        }
        Err(e) => model.purge.error = Some(e),
    }
    Vec::new()
}

/// Rebuilds the plan for the current policy from the gathered facts.
pub fn replan(model: &mut Model) {
    if let Some(candidates) = &model.purge.candidates {
        let plan = PurgePlan::build(
            candidates.as_ref().clone(),
            model.settings.policy,
            &[],
            model.now,
        );
        model.purge.selected = model
            .purge
            .selected
            .min(plan.entries.len().saturating_sub(1));
        model.purge.plan = Some(plan);
    }
}

/// Keys of the preview.
pub fn on_action(model: &mut Model, action: Action) -> Vec<Effect> {
    if model.purge.applying.is_some() {
        return Vec::new(); // wait for the purge to finish
    }
    let rows = model.purge.plan.as_ref().map_or(0, |p| p.entries.len());
    let page = page(model);
    if move_cursor(&mut model.purge.selected, rows, action, page) {
        return Vec::new();
    }
    let policy = &mut model.settings.policy;
    match action {
        Action::Back => {
            model.mode = Mode::List;
            list::reset_purge(model);
            return Vec::new();
        }
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
        Action::ToggleKept => model.purge.show_all_kept = !model.purge.show_all_kept,
        Action::Confirm => return ask(model),
        _ => return Vec::new(),
    }
    replan(model);
    Vec::new()
}

fn keep_step(keep: usize) -> usize {
    if keep >= 20 { 10 } else { 1 }
}

fn age_step(days: f64) -> f64 {
    if days >= 14.0 { 7.0 } else { 1.0 }
}

/// Asks before purging; No is the default.
fn ask(model: &mut Model) -> Vec<Effect> {
    let Some(plan) = &model.purge.plan else {
        return Vec::new();
    };
    let count = plan.removals().count();
    if count == 0 {
        say(model, "nothing to purge with this policy");
        return Vec::new();
    }
    let mut lines: Vec<String> = plan
        .removals()
        .take(6)
        .map(|e| {
            format!(
                "{}  {}",
                format::truncate(&e.candidate.record.name, 32),
                e.decision
            )
        })
        .collect();
    if count > 6 {
        lines.push(format!("… and {} more", count - 6));
    }
    lines.push(format!(
        "{} will be freed. This cannot be undone.",
        format::bytes(plan.bytes_freed())
    ));
    model.overlay = Some(Overlay::Confirm(Confirm {
        title: format!("Delete {count} sessions?"),
        lines,
        action: ConfirmAction::Purge,
    }));
    Vec::new()
}

/// The user said yes: apply the plan on screen.
pub fn apply(model: &mut Model) -> Vec<Effect> {
    let Some(plan) = model.purge.plan.clone() else {
        return Vec::new();
    };
    model.requests.purge += 1;
    model.purge.applying = Some((0, plan.removals().count()));
    vec![Effect::ApplyPurge {
        req: model.requests.purge,
        plan,
    }]
}

/// The user said yes to deleting one session from the list.
pub fn delete_one(model: &mut Model, id: &str) -> Vec<Effect> {
    let Some(&index) = model.list.by_id.get(id) else {
        return Vec::new();
    };
    let record = model.list.rows[index].record.clone();
    model.requests.purge += 1;
    model.purge.applying = Some((0, 1));
    vec![Effect::DeleteSession {
        req: model.requests.purge,
        record,
    }]
}

/// Progress of an apply.
pub fn on_progress(model: &mut Model, req: u64, progress: PurgeProgress) -> Vec<Effect> {
    if req == model.requests.purge {
        model.purge.applying = Some((progress.done, progress.total));
    }
    Vec::new()
}

/// The apply ended: report, then read the store again.
pub fn on_done(model: &mut Model, req: u64, result: Result<PurgeReport, String>) -> Vec<Effect> {
    if req != model.requests.purge {
        return Vec::new();
    }
    model.purge.applying = None;
    match result {
        Ok(report) => {
            let mut text = format!(
                "removed {} sessions, freed {}",
                report.removed.len(),
                format::bytes(report.bytes_freed)
            );
            if let Some((id, why)) = report.skipped.first() {
                text.push_str(&format!(
                    "; spared {} that changed ({id}: {why})",
                    report.skipped.len()
                ));
            }
            if let Some((id, why)) = report.failed.first() {
                text.push_str(&format!("; {} failed ({id}: {why})", report.failed.len()));
                complain(model, text);
            } else {
                say(model, text);
            }
            model.purge.report = Some(report);
        }
        Err(e) => complain(model, e),
    }
    let mut effects = list::rescan(model);
    if model.mode == Mode::Purge {
        model.purge.candidates = None;
        model.purge.plan = None;
        effects.extend(gather(model));
    }
    effects
}
