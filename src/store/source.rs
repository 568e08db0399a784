//! Where sessions come from: a user's Loki tree, or a folder of bare peteos
//! sessions used in place. The CLI and the TUI work on either through this.

use crate::store::error::{Result, StoreError};
use crate::store::locate::{self, Target};
use crate::store::loki::{LokiStore, Started};
use crate::store::peteos_folder::PeteosFolder;
use crate::store::purge_apply::{PurgeProgress, PurgeReport};
use crate::store::purge_plan::{PurgePlan, PurgePolicy};
use crate::store::record::SessionRecord;
use std::path::Path;

/// A session store of either kind.
#[derive(Clone, Debug)]
pub enum SessionSource {
    /// `<root>/users/<user>/session/<id>/` with meta.json.
    Loki(LokiStore),
    /// `<dir>/<uuid>/session.json`, no meta.json.
    Peteos(PeteosFolder),
}

impl SessionSource {
    /// The folder holding one directory per session.
    pub fn sessions_dir(&self) -> std::path::PathBuf {
        match self {
            SessionSource::Loki(s) => s.layout().sessions_dir(),
            SessionSource::Peteos(f) => f.dir().to_path_buf(),
        }
    }

    /// True for a Loki tree (sessions have meta.json and a workspace).
    pub fn is_loki(&self) -> bool {
        matches!(self, SessionSource::Loki(_))
    }

    /// Every session, most recently used first.
    pub fn list(&self) -> Result<Vec<SessionRecord>> {
        match self {
            SessionSource::Loki(s) => s.list(),
            SessionSource::Peteos(f) => f.list(),
        }
    }

    /// Every session, in batches as they are read (`on_batch` returns false to stop).
    pub fn scan(&self, on_batch: impl FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        match self {
            SessionSource::Loki(s) => s.scan(on_batch),
            SessionSource::Peteos(f) => f.scan(on_batch),
        }
    }

    /// Resolves a `SESSION` argument (id, unique prefix or path).
    pub fn locate(&self, arg: &str) -> Result<Target> {
        match self {
            SessionSource::Loki(s) => locate::locate_in_loki(s, arg),
            SessionSource::Peteos(f) => {
                let ids: Vec<String> = f.list()?.into_iter().map(|r| r.id).collect();
                locate::locate(arg, &ids, |id| f.record(id), false)
            }
        }
    }

    /// The target for a listed record.
    pub fn target(&self, record: &SessionRecord) -> Target {
        Target {
            record: record.clone(),
            is_loki: self.is_loki(),
        }
    }

    /// What a purge with `policy` would do. Reads only.
    pub fn purge_plan(
        &self,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
    ) -> Result<PurgePlan> {
        match self {
            SessionSource::Loki(s) => s.purge_plan(policy, exclude, now),
            SessionSource::Peteos(f) => f.purge_plan(policy, exclude, now),
        }
    }

    /// Applies a plan, re-checking each entry.
    pub fn apply_purge(
        &self,
        plan: &PurgePlan,
        exclude: &[String],
        progress: impl FnMut(PurgeProgress),
    ) -> Result<PurgeReport> {
        match self {
            SessionSource::Loki(s) => s.apply_purge(plan, exclude, progress),
            SessionSource::Peteos(f) => f.apply_purge(plan, exclude, progress),
        }
    }

    /// Starts a session (Loki trees only: peteos sessions are made by peteos).
    pub fn start(
        &self,
        first_prompt: &str,
        purge: Option<PurgePolicy>,
        now: f64,
    ) -> Result<Started> {
        match self {
            SessionSource::Loki(s) => s.start(first_prompt, purge, now),
            SessionSource::Peteos(f) => Err(read_only(f.dir(), "new sessions")),
        }
    }

    /// Renames a session (Loki trees only: the name lives in meta.json);
    /// a damaged one is refused.
    pub fn rename(&self, id: &str, name: &str) -> Result<SessionRecord> {
        match self {
            SessionSource::Loki(s) => {
                self.target(&s.record(id)).writable()?;
                s.rename(id, name)
            }
            SessionSource::Peteos(f) => Err(read_only(f.dir(), "renaming")),
        }
    }

    /// Resumes a session: refuses a damaged one, then marks it used (Loki
    /// trees only; peteos sessions have no meta.json). The CLI's `resume`
    /// and the UI's Enter both come here, so they refuse the same sessions.
    pub fn resume(&self, target: &Target, now: f64) -> Result<()> {
        target.writable()?;
        if target.is_loki {
            LokiStore::touch_at(target.lock_dir(), now)?;
        }
        Ok(())
    }
}

fn read_only(dir: &Path, what: &str) -> StoreError {
    StoreError::Invalid(format!(
        "{what} need a Loki tree; {} is a peteos sessions folder, which loki-sessions uses as it is",
        dir.display()
    ))
}
