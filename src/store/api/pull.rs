//! Sessions between machines: `pack` there, `pull` here (`ops::pull`
//! has the stream and its checks).

use super::Store;
use crate::store::error::{Result, StoreError};
use crate::store::ops::locate::Target;
use crate::store::ops::pull::{self, Pack, PullPlan};
use std::path::Path;

impl Store {
    /// A session of this machine as `pull` on another one takes it: its
    /// own files, read only.
    pub fn pack_session(&self, target: &Target) -> Result<Pack> {
        let root = self.agent_root(target.record.agent)?;
        pull::pack(&target.record, &root)
    }

    /// `pack` (from another machine) put where its agent looks for it
    /// here, its project in the folder `to`: planned, and written when
    /// `write`. Refused when a session of that id is here already.
    pub fn pull_session(&self, pack: &Pack, to: &Path, write: bool) -> Result<PullPlan> {
        // Written where the agent looks: its folder must be here already.
        let root = self.agent_root(pack.agent).map_err(|_| {
            StoreError::NotFound(format!(
                "{}'s folder is not on this machine (run it here once): nothing pulled",
                pack.agent.display_name()
            ))
        })?;
        if let Some(here) = self.locate_exact_id(&pack.id)? {
            return Err(StoreError::Invalid(format!(
                "session {} is on this machine already ({}): nothing pulled",
                pack.id,
                here.record.path.display()
            )));
        }
        let plan = pull::plan(pack, &root, to)?;
        if write {
            pull::apply(&plan)?;
        }
        Ok(plan)
    }
}
