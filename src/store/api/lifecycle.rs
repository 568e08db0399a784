//! The door's operations on whole sessions: start, rename, import, resume
//! (touch), purge and delete. They write only the Loki tree or peteos
//! folder; another agent's session is refused (it is read here, not written).

use super::{Backend, LokiOnly, Started, Store, refuse_external};
use crate::store::error::{Result, StoreError};
use crate::store::fs::{disk, trash};
use crate::store::ops::locate::Target;
use crate::store::ops::purge_apply::{self, PurgeProgress, PurgeReport};
use crate::store::ops::purge_facts;
use crate::store::ops::purge_plan::{Candidate, PurgePlan, PurgePolicy};
use crate::store::sources::LokiTree;
use crate::store::sources::record::SessionRecord;
use std::path::Path;

impl Store {
    /// The seed's `start`: purges stale sessions first (when `purge` is
    /// set), then creates a session for `first_prompt`. Loki trees only.
    pub fn start(
        &self,
        first_prompt: &str,
        purge: Option<PurgePolicy>,
        now: f64,
    ) -> Result<Started> {
        self.check(LokiOnly::NewSession)?;
        let plan = match purge {
            Some(policy) => Some(self.purge_plan(policy, &[], now)?),
            None => None,
        };
        self.start_with(first_prompt, plan, now)
    }

    /// [`Store::start`] with a purge plan made (and shown to a person)
    /// beforehand, or none: the plan is applied, each entry re-checked,
    /// then the session is created.
    pub fn start_with(
        &self,
        first_prompt: &str,
        plan: Option<PurgePlan>,
        now: f64,
    ) -> Result<Started> {
        let tree = self.tree(LokiOnly::NewSession)?;
        let purged = match plan {
            Some(plan) => {
                let report = self.apply_purge(&plan, &[], |_| {})?;
                Some((plan, report))
            }
            None => None,
        };
        let record = tree.create(first_prompt, now)?;
        Ok(Started { record, purged })
    }

    /// Renames a session (Loki trees only: the name lives in meta.json).
    pub fn rename(&self, target: &Target, name: &str) -> Result<SessionRecord> {
        refuse_external(target)?;
        let tree = self.tree(LokiOnly::Rename)?;
        target.writable()?;
        tree.rename(&target.record.id, name)
    }

    /// Copies the peteos session in `dir` into a new session of this tree.
    /// A session imported before is `StoreError::AlreadyImported` (naming
    /// the copy) unless `again` asks for a second copy.
    pub fn import(&self, dir: &Path, again: bool, now: f64) -> Result<SessionRecord> {
        self.tree(LokiOnly::Import)?.import(dir, again, now)
    }

    /// Marks a session used (Loki sessions only; bare peteos sessions have
    /// no meta.json, and resuming one writes nothing).
    pub fn touch(&self, target: &Target, now: f64) -> Result<()> {
        if target.is_loki {
            LokiTree::touch_at(target.lock_dir(), now)?;
        }
        Ok(())
    }

    /// Refuses what a write (a trim, an edit, a rename, a delete) would
    /// refuse for any session before it is looked at: another agent's
    /// session is read here, not written. The CLI asks it before asking a
    /// person to confirm.
    pub fn check_writable(&self, target: &Target) -> Result<()> {
        refuse_external(target)
    }

    /// The seed's `resume`: refuses a damaged session, else touches it.
    pub fn resume(&self, target: &Target, now: f64) -> Result<()> {
        if target.record.agent.is_external() {
            // The agent resumes its own session; nothing of it is written
            // here. Refused when damaged or only in the archive.
            return target.record.resumable();
        }
        target.writable()?;
        self.touch(target, now)
    }

    /// The facts a purge plan is decided on, for every session (the UI
    /// gathers them once and re-plans at every policy change).
    pub fn purge_candidates(&self) -> Result<Vec<Candidate>> {
        if !self.shows_primary() {
            return Ok(Vec::new());
        }
        let kept = self.purge_checks();
        Ok(purge_facts::gather_candidates(self.primary_list()?, &kept))
    }

    /// What a purge with `policy` would do now. Reads only.
    pub fn purge_plan(
        &self,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
    ) -> Result<PurgePlan> {
        Ok(PurgePlan::build(
            self.purge_candidates()?,
            policy,
            exclude,
            now,
        ))
    }

    /// Applies a plan, re-checking each entry just before it goes.
    pub fn apply_purge(
        &self,
        plan: &PurgePlan,
        exclude: &[String],
        progress: impl FnMut(PurgeProgress),
    ) -> Result<PurgeReport> {
        let folder = self.sessions_dir();
        disk::check_owned_by_us(&folder)?;
        match &self.backend {
            Backend::Loki(tree) => {
                tree.check_ownership()?;
                tree.remove_stale_leftovers();
            }
            Backend::Folder(_) => trash::remove_stale_trash(&folder),
        }
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

    /// What [`Store::delete`] would do with `target` now, before a person
    /// is asked: the plan of one entry, its decision (removed, or kept and
    /// why: active, locked, damaged, ...) and the bytes it holds, measured
    /// as the deletion measures what it frees.
    pub fn delete_preview(&self, target: &Target, now: f64, even_damaged: bool) -> PurgePlan {
        if target.record.agent.is_external() {
            return self.trash_preview(target, now, even_damaged);
        }
        let candidate = purge_facts::candidate(target.record.clone());
        PurgePlan::single(candidate, &[], now, even_damaged)
    }

    /// Deletes one session the user chose, with every safety rule of a
    /// purge (live, active, locked, unreadable, other filesystem); a session
    /// a rule spares is an error saying which rule. `even_damaged` lifts the
    /// unreadable rule alone, for a person who was shown the damage and
    /// still wants the session gone (a purge never does this).
    pub fn delete(&self, target: &Target, now: f64, even_damaged: bool) -> Result<PurgeReport> {
        if target.record.archived {
            // Its agent deleted it already: it goes from the archive, for good.
            let found = self.find_archived(&[target.record.id.to_string()])?;
            self.delete_archived(&found)?;
            return Ok(PurgeReport {
                removed: vec![target.record.id.to_string()],
                skipped: Vec::new(),
                failed: Vec::new(),
                bytes_freed: target.record.bytes.unwrap_or(0),
            });
        }
        if target.record.agent.is_external() {
            // Recoverable: into our trash, where `restore` finds it.
            let entry = self.trash_session(target, now, even_damaged)?;
            return Ok(PurgeReport {
                removed: vec![entry.id],
                skipped: Vec::new(),
                failed: Vec::new(),
                bytes_freed: 0,
            });
        }
        let plan = self.delete_preview(target, now, even_damaged);
        let report = self.apply_purge(&plan, &[], |_| {})?;
        match plan.entries.first() {
            Some(entry)
                if report.removed.is_empty()
                    && report.failed.is_empty()
                    && report.skipped.is_empty() =>
            {
                Err(StoreError::Invalid(format!(
                    "not deleted: {}",
                    entry.decision
                )))
            }
            _ => Ok(report),
        }
    }
}
