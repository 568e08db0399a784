//! What the purge preview asks of the store, and its answers.

use crate::store::{Agent, AgentPurgeFacts, Candidate, PurgePlan, PurgeProgress, PurgeReport};
use crate::tui::ops::{Job, UiError};
use std::sync::Arc;

/// A store operation of the purge preview.
#[derive(Clone, Debug)]
pub enum PurgeOp {
    /// Gather the facts for a purge plan (answers `Gathered`).
    Gather,
    /// Apply a purge plan (answers `Progress`…, then `Done`).
    Apply { plan: PurgePlan },
    /// Gather the facts for a purge of another agent's sessions, as they
    /// stand at `now` (answers `AgentGathered`).
    GatherAgent { agent: Agent, now: f64 },
    /// Move the removals of another agent's plan into the trash, each
    /// checked again at `now` (answers `Progress`…, then `Done`).
    ApplyAgent { plan: PurgePlan, now: f64 },
}

/// An answer for the purge preview.
#[derive(Clone, Debug)]
pub enum PurgeReply {
    /// The facts for the preview were gathered.
    Gathered {
        result: Result<Arc<Vec<Candidate>>, UiError>,
    },
    /// The facts for another agent's preview were gathered.
    AgentGathered {
        result: Result<Arc<AgentPurgeFacts>, UiError>,
    },
    /// The purge got this far.
    Progress { progress: PurgeProgress },
    /// The purge ended.
    Done {
        result: Result<PurgeReport, UiError>,
    },
}

impl PurgeOp {
    /// One call of the door.
    pub(super) fn run(self, job: &Job) -> PurgeReply {
        match self {
            PurgeOp::Gather => PurgeReply::Gathered {
                result: job
                    .store
                    .purge_candidates()
                    .map(Arc::new)
                    .map_err(UiError::from),
            },
            PurgeOp::Apply { plan } => PurgeReply::Done {
                result: job
                    .store
                    .apply_purge(&plan, &[], |progress| {
                        job.send(PurgeReply::Progress { progress });
                    })
                    .map_err(UiError::from),
            },
            PurgeOp::GatherAgent { agent, now } => PurgeReply::AgentGathered {
                result: job
                    .store
                    .agent_purge_facts(agent, now)
                    .map(Arc::new)
                    .map_err(UiError::from),
            },
            PurgeOp::ApplyAgent { plan, now } => PurgeReply::Done {
                result: job
                    .store
                    .apply_agent_purge(&plan, &[], now, |progress| {
                        job.send(PurgeReply::Progress { progress });
                    })
                    .map_err(UiError::from),
            },
        }
    }
}
