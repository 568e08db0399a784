//! The words of a purge of another agent's sessions: they go to the trash,
//! and `loki-sessions restore` brings each back.

use crate::humanize;
use crate::store::{Agent, PurgePlan, PurgeReport};
use crate::tui::model::{Confirm, ConfirmAction};

/// What the status line says when the preview turns to `agent`'s sessions.
pub fn purging(agent: Option<Agent>) -> String {
    match agent {
        None => "purge preview of this store's own sessions (deleted for good)".into(),
        Some(agent) => format!(
            "purge preview of {} sessions (moved to the trash)",
            agent.display_name()
        ),
    }
}

/// The question asked before `agent`'s removals move to the trash.
pub fn question(agent: Agent, plan: &PurgePlan) -> Confirm {
    let count = plan.removals().count();
    // What can be undone first: a long list would push it out of the box.
    let mut lines = vec![format!(
        "They go to the trash with their side files ({}); `loki-sessions restore ID` brings one back.",
        humanize::bytes(plan.bytes_freed())
    )];
    lines.extend(plan.removals().take(4).map(|e| {
        format!(
            "{}  {}",
            humanize::truncate(e.candidate.record.shown_name(), 32),
            e.decision
        )
    }));
    if count > 4 {
        lines.push(format!(
            "… and {} more",
            humanize::count((count - 4) as u64)
        ));
    }
    Confirm {
        title: format!("Move {} to the trash?", sessions_of(agent, count)),
        lines,
        action: ConfirmAction::Purge,
    }
}

/// What the status line says after the move, and whether it is an error.
pub fn report_text(agent: Agent, plan: &PurgePlan, report: &PurgeReport) -> (String, bool) {
    let bytes: u64 = plan
        .removals()
        .filter(|e| report.removed.contains(&e.candidate.record.id.to_string()))
        .map(|e| e.candidate.bytes)
        .sum();
    let mut text = format!(
        "moved {} ({}) to the trash",
        sessions_of(agent, report.removed.len()),
        humanize::bytes(bytes)
    );
    if let Some(first) = report.removed.first() {
        text.push_str(&format!(
            "; `loki-sessions restore {first}` brings one back"
        ));
    }
    let failed = crate::tui::update::tell_left_and_failed(&mut text, report, "");
    (text, failed)
}

/// `3 Claude Code sessions`, `1 Codex session`.
fn sessions_of(agent: Agent, count: usize) -> String {
    let noun = if count == 1 { "session" } else { "sessions" };
    format!(
        "{} {} {noun}",
        humanize::count(count as u64),
        agent.display_name()
    )
}
