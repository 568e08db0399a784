//! The door's trash: another agent's session deleted recoverably (moved
//! into `$XDG_DATA_HOME/loki-sessions/trash/`), listed, restored exactly,
//! and emptied for good. Loki and peteos sessions keep the seed's delete.

use super::Store;
use crate::store::error::{Result, StoreError};
use crate::store::ops::agent_purge::{self, AgentPurgeFacts};
use crate::store::ops::locate::Target;
use crate::store::ops::moving::{self, MovePlan};
use crate::store::ops::purge_apply::{PurgeProgress, PurgeReport};
use crate::store::ops::purge_plan::{
    Candidate, Decision, KeepReason, PlanEntry, PurgePlan, PurgePolicy, RemoveReason,
};
use crate::store::ops::trash::{self, TrashEntry};
use crate::store::sources::agent::Agent;
use crate::store::sources::record::listed;
use std::path::{Path, PathBuf};

impl Store {
    /// The same store keeping its trash under `dir` instead of the user's
    /// data directory (tests, and the `--demo` store).
    pub fn with_trash_dir(mut self, dir: &Path) -> Store {
        self.trash = Some(dir.to_path_buf());
        self
    }

    /// Where deleted sessions of other agents go.
    pub fn trash_dir(&self) -> Result<PathBuf> {
        self.trash
            .clone()
            .or_else(trash::default_dir)
            .ok_or_else(|| {
                StoreError::Failed(
                    "there is no data directory to keep the trash in (set XDG_DATA_HOME)".into(),
                )
            })
    }

    /// Refuses a delete before anyone is asked: other agents' sessions can
    /// be deleted (into the trash), but those whose provider says why not
    /// (OpenCode's); Loki's and peteos' as the seed says.
    pub fn check_deletable(&self, target: &Target) -> Result<()> {
        let agent = target.record.agent;
        if agent.is_external() && !agent.moves_to_trash() {
            return Err(StoreError::Unsupported(format!(
                "{} sessions are read here but not deleted: {}; session {} is left as it is ({})",
                agent.display_name(),
                agent.provider().kept_from_the_trash_because(),
                target.record.id,
                target.record.path.display()
            )));
        }
        if agent.is_external() {
            return Ok(());
        }
        self.check_writable(target)
    }

    /// [`Store::delete_preview`] of another agent's session: removed (into
    /// the trash) unless the agent may be writing to it.
    pub(super) fn trash_preview(&self, target: &Target, now: f64, even_damaged: bool) -> PurgePlan {
        let record = target.record.clone();
        let decision = match trash::refusal(&record, now, even_damaged) {
            Some(why) => Decision::Keep(KeepReason::Busy { why }),
            None => Decision::Remove(RemoveReason::Requested),
        };
        let candidate = Candidate {
            bytes: trash::bytes_of(&trash::belongings(&record)),
            record,
            is_active: false,
            locked: false,
            unreadable_conversation: None,
            crosses_filesystems: false,
            fingerprint: Default::default(),
        };
        PurgePlan {
            policy: PurgePolicy::default(),
            now,
            entries: vec![PlanEntry {
                candidate,
                decision,
            }],
        }
    }

    /// Moves another agent's session into the trash (refused while its
    /// agent may be writing to it); `even_damaged` also takes a session
    /// whose file is a link or a special file (the entry itself moves).
    pub(super) fn trash_session(
        &self,
        target: &Target,
        now: f64,
        even_damaged: bool,
    ) -> Result<TrashEntry> {
        if !target.record.agent.is_external() {
            return Err(StoreError::Invalid(format!(
                "session {} is deleted for good by `delete`, not moved to the trash",
                target.record.id
            )));
        }
        self.check_deletable(target)?;
        let root = self.agent_root(target.record.agent)?;
        trash::trash(&self.trash_dir()?, &root, &target.record, now, even_damaged)
    }

    /// Moves another agent's session where its project went (`to`, an
    /// absolute folder): written again as the agent would have for `to`,
    /// the old one into the trash (`restore` brings it back). With
    /// `write` false, says what it would do and writes nothing.
    pub fn move_session(
        &self,
        target: &Target,
        to: &Path,
        now: f64,
        write: bool,
    ) -> Result<(MovePlan, Option<String>)> {
        target.record.not_archived("moved")?;
        let plan = moving::plan(&target.record, to)?;
        if !write {
            return Ok((plan, None));
        }
        // The busy checks of a delete, before anything is written.
        if let Some(why) = trash::refusal(&target.record, now, false) {
            return Err(StoreError::Invalid(format!(
                "{} session {} was not moved: {why}",
                target.record.agent.display_name(),
                target.record.id
            )));
        }
        let entry = moving::apply(&plan, &|| {
            self.trash_session(target, now, false).map(|e| e.id)
        })?;
        Ok((plan, Some(entry)))
    }

    /// The folder `agent`'s sessions are listed from, which every move of
    /// one of them must lie beneath.
    pub(super) fn agent_root(&self, agent: Agent) -> Result<PathBuf> {
        self.agents
            .iter()
            .find(|s| s.agent() == agent)
            .map(|s| s.root().to_path_buf())
            .ok_or_else(|| {
                StoreError::NotFound(format!(
                    "{}'s folder was not found, so none of its sessions is moved",
                    agent.display_name()
                ))
            })
    }

    /// Every session in the trash, oldest first.
    pub fn trash_list(&self) -> Result<Vec<TrashEntry>> {
        Ok(trash::list(&self.trash_dir()?))
    }

    /// Puts the trashed session `arg` (an id, a unique prefix, or the name
    /// of its entry in the trash) back where it was, its bytes and times as
    /// they were.
    pub fn restore(&self, arg: &str) -> Result<TrashEntry> {
        let dir = self.trash_dir()?;
        let entry = trash::find(&dir, arg)?;
        let fallback = self.agent_root(entry.agent).ok();
        trash::restore(&dir, &entry, fallback.as_deref())?;
        Ok(entry)
    }

    /// Deletes for good the trash entries named `entries` (the names
    /// [`Store::trash_list`] gave, the ones a person said yes to); returns
    /// those deleted.
    pub fn delete_for_good(&self, entries: &[String]) -> Result<Vec<TrashEntry>> {
        trash::delete_for_good(&self.trash_dir()?, entries)
    }

    /// The facts a purge of `agent`'s sessions (Claude Code, Codex or
    /// Gemini CLI) is decided on, for every session of it (the UI gathers
    /// them once and re-plans at every policy change). Reads only.
    pub fn agent_purge_facts(&self, agent: Agent, now: f64) -> Result<AgentPurgeFacts> {
        if !agent.is_external() {
            return Err(StoreError::Invalid(format!(
                "{} sessions are purged by `purge` without --agent, for good",
                agent.display_name()
            )));
        }
        if !agent.moves_to_trash() {
            return Err(StoreError::Unsupported(format!(
                "{} sessions are read here but not purged: {}",
                agent.display_name(),
                agent.provider().kept_from_the_trash_because()
            )));
        }
        let source = self
            .agents
            .iter()
            .find(|s| s.agent() == agent && self.shows(agent))
            .ok_or_else(|| {
                StoreError::NotFound(format!(
                    "no {} sessions were found to purge",
                    agent.display_name()
                ))
            })?;
        let records = listed(|on_batch| source.scan(on_batch))?;
        Ok(agent_purge::gather(agent, records, now))
    }

    /// What a purge of `agent`'s sessions with `policy` would do now: each
    /// session moved to the trash or kept, and why. Reads only.
    pub fn agent_purge_plan(
        &self,
        agent: Agent,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
    ) -> Result<PurgePlan> {
        Ok(self
            .agent_purge_facts(agent, now)?
            .plan(policy, exclude, now))
    }

    /// Applies a plan of [`Store::agent_purge_plan`]: each removal checked
    /// again, then moved into the trash as `delete` moves one (`restore`
    /// puts it back). Nothing is freed until the trash is emptied.
    pub fn apply_agent_purge(
        &self,
        plan: &PurgePlan,
        exclude: &[String],
        now: f64,
        progress: impl FnMut(PurgeProgress),
    ) -> Result<PurgeReport> {
        if let Some(loki) = plan
            .removals()
            .find(|e| !e.candidate.record.agent.is_external())
        {
            return Err(StoreError::Invalid(format!(
                "session {} is not another agent's: it is purged by `purge` without --agent",
                loki.candidate.record.id
            )));
        }
        let dir = self.trash_dir()?;
        let Some(agent) = plan.removals().map(|e| e.candidate.record.agent).next() else {
            return Ok(PurgeReport::default());
        };
        if let Some(other) = plan.removals().find(|e| e.candidate.record.agent != agent) {
            return Err(StoreError::Invalid(format!(
                "a purge moves one agent's sessions; session {} is {}'s",
                other.candidate.record.id,
                other.candidate.record.agent.display_name()
            )));
        }
        let root = self.agent_root(agent)?;
        Ok(agent_purge::apply(
            plan, &dir, &root, exclude, now, progress,
        ))
    }
}
