//! The state of the purge preview.

use crate::store::{Candidate, PurgePlan, PurgeReport};
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
}
