//! The seed's `purge` and `start` over a Loki tree.

use crate::store::error::Result;
use crate::store::loki::LokiStore;
use crate::store::purge_apply::{self, PurgeProgress, PurgeReport};
use crate::store::purge_plan::{PurgePlan, PurgePolicy};
use crate::store::record::SessionRecord;

impl LokiStore {
    /// What a purge with `policy` would do now. Reads only.
    pub fn purge_plan(
        &self,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
    ) -> Result<PurgePlan> {
        Ok(purge_apply::plan(self.list()?, policy, exclude, now))
    }

    /// Applies a plan made by [`LokiStore::purge_plan`], re-checking each entry.
    pub fn apply_purge(
        &self,
        plan: &PurgePlan,
        exclude: &[String],
        progress: impl FnMut(PurgeProgress),
    ) -> Result<PurgeReport> {
        self.check_ownership()?;
        self.remove_stale_leftovers();
        let folder = self.layout().sessions_dir();
        Ok(purge_apply::apply_plan(plan, &folder, exclude, progress))
    }

    /// The seed's `purge(user, keep, max_age_days, exclude)`: removes stale
    /// sessions and returns their ids.
    pub fn purge(
        &self,
        keep: usize,
        max_age_days: f64,
        exclude: &[String],
        now: f64,
    ) -> Result<Vec<String>> {
        let policy = PurgePolicy { keep, max_age_days };
        let plan = self.purge_plan(policy, exclude, now)?;
        Ok(self.apply_purge(&plan, exclude, |_| {})?.removed)
    }

    /// The seed's `start(user, purge)`: purges stale sessions first (when
    /// `purge` is set), then creates the new session. The outcome holds the
    /// plan and what it removed, so callers can tell the user.
    pub fn start(
        &self,
        first_prompt: &str,
        purge: Option<PurgePolicy>,
        now: f64,
    ) -> Result<Started> {
        let purged = match purge {
            Some(policy) => {
                let plan = self.purge_plan(policy, &[], now)?;
                let report = self.apply_purge(&plan, &[], |_| {})?;
                Some((plan, report))
            }
            None => None,
        };
        let record = self.create(first_prompt, now)?;
        Ok(Started { record, purged })
    }
}

/// What `start` did.
#[derive(Clone, Debug)]
pub struct Started {
    /// The new session.
    pub record: SessionRecord,
    /// The purge that ran first, if any: its plan and what applying it did.
    pub purged: Option<(PurgePlan, PurgeReport)>,
}
