//! The state of the purge preview.

use crate::store::{Agent, AgentPurgeFacts, Candidate, PurgePlan, PurgePolicy, PurgeReport};
use crate::tui::ops::UiError;
use std::sync::Arc;

/// The purge preview.
#[derive(Clone, Debug, Default)]
pub struct PurgeView {
    /// Facts about every session (gathered once per visit).
    pub candidates: Option<Arc<Vec<Candidate>>>,
    /// The plan for the current policy.
    pub plan: Option<PurgePlan>,
    /// Selected row of the plan.
    pub selected: usize,
    /// Show every kept session, not only those spared against the policy.
    pub show_all_kept: bool,
    /// Removal progress (done, total) while applying.
    pub applying: Option<(usize, usize)>,
    /// What the last apply did.
    pub report: Option<PurgeReport>,
    /// Why gathering failed.
    pub error: Option<UiError>,
    /// The tag of the gather or apply the preview waits for.
    pub waiting: u64,
    /// Whose sessions are purged: another agent's (Claude Code, Codex,
    /// Gemini CLI) go to the trash; None is the Loki tree or peteos folder.
    pub agent: Option<Agent>,
    /// The agents the preview offers, in the order a key cycles them
    /// (None: the Loki tree or peteos folder); one entry offers no choice.
    pub offered: Vec<Option<Agent>>,
    /// The facts of another agent's sessions, when `agent` is one.
    pub agent_facts: Option<Arc<AgentPurgeFacts>>,
    /// The policy for another agent's sessions (its own conservative
    /// defaults; Loki's is `Settings::policy`).
    pub agent_policy: PurgePolicy,
}

impl PurgeView {
    /// True when the plan on screen moves another agent's sessions to the
    /// trash rather than deleting Loki's for good.
    pub fn to_trash(&self) -> bool {
        self.agent.is_some()
    }
}
