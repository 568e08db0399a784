//! The door's archive: other agents' sessions kept beyond their agents'
//! own cleanups (`ops/archive.rs`), archived by name or by what is due,
//! listed, restored byte for byte, deleted when asked.

use super::Store;
use crate::store::error::{Result, StoreError};
use crate::store::ops::archive::{self, Archive, ArchiveOutcome, Manifest};
use crate::store::ops::locate::Target;
use crate::store::ops::trash;
use crate::store::sources::agent::Agent;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

impl Store {
    /// The same store keeping its archive under `dir` instead of the
    /// user's data folder (tests, and the `--demo` store).
    pub fn with_archive_dir(mut self, dir: &Path) -> Store {
        self.archive = Some(dir.to_path_buf());
        self.look_for_archive();
        self
    }

    /// Where other agents' sessions are archived.
    pub fn archive_dir(&self) -> Result<PathBuf> {
        self.archive
            .clone()
            .or_else(archive::default_dir)
            .ok_or_else(|| {
                StoreError::Failed(
                    "there is no data directory to keep the archive in (set XDG_DATA_HOME)".into(),
                )
            })
    }

    fn archive_store(&self) -> Result<Archive> {
        Ok(Archive::at(&self.archive_dir()?))
    }

    /// Archives another agent's session (its file, side folder and
    /// subagents, as they are now). Reads the agent's files only.
    pub fn archive(&self, target: &Target, now: f64) -> Result<ArchiveOutcome> {
        let record = &target.record;
        if !record.agent.is_external() {
            return Err(StoreError::Invalid(format!(
                "session {} is {}'s: the archive keeps other agents' sessions, whose agents delete them",
                record.id,
                record.agent.display_name()
            )));
        }
        let root = self
            .agent_folder(record.agent)
            .ok_or_else(|| {
                StoreError::NotFound(format!(
                    "{}'s folder was not found",
                    record.agent.display_name()
                ))
            })?
            .to_path_buf();
        self.archive_store()?
            .put(record, &root, &trash::belongings(record), now)
    }

    /// Archives every session of `agent` (every agent's, without one) that
    /// its agent's own cleanup deletes before `now + within` seconds: each
    /// session's outcome, or why it was not archived (one that fails does
    /// not stop the others).
    pub fn archive_due(
        &self,
        agent: Option<Agent>,
        within: f64,
        now: f64,
    ) -> Result<Vec<(String, Result<ArchiveOutcome>)>> {
        let records: Vec<SessionRecord> = self
            .list()?
            .into_iter()
            .filter(|r| agent.is_none_or(|a| r.agent == a))
            .collect();
        Ok(self.archive_due_among(&records, within, now))
    }

    /// [`Store::archive_due`] among `records` (a listing already read: the
    /// UI's, `list`'s), for the `archive_due` setting.
    pub fn archive_due_among(
        &self,
        records: &[SessionRecord],
        within: f64,
        now: f64,
    ) -> Vec<(String, Result<ArchiveOutcome>)> {
        let due = self.agent_deletes_at_each(records, now);
        self.archive_due_given(records, &due, within, now)
    }

    /// [`Store::archive_due_among`] with the dates the agents' cleanups
    /// delete them on already found ([`Store::agent_deletes_at_each`] of
    /// the same `records`, in their order: `list` shows them too).
    pub fn archive_due_given(
        &self,
        records: &[SessionRecord],
        due: &[Option<f64>],
        within: f64,
        now: f64,
    ) -> Vec<(String, Result<ArchiveOutcome>)> {
        // Only the agents' cleanups delete: Loki's and peteos' sessions have
        // no date here, and only the few that are due are copied.
        records
            .iter()
            .zip(due)
            .filter(|(r, at)| {
                r.agent.is_external()
                    && !r.archived
                    && r.is_readable()
                    && at.is_some_and(|at| at <= now + within)
            })
            .map(|(record, _)| {
                let id = record.id.to_string();
                let target = Target {
                    record: record.clone(),
                    is_loki: false,
                };
                (id, self.archive(&target, now))
            })
            .collect()
    }

    /// Every archived session, most recently archived first (an entry that
    /// cannot be read as the reason why).
    pub fn archived(&self) -> Result<Vec<std::result::Result<Manifest, String>>> {
        Ok(self.archive_store()?.list())
    }

    /// Puts the archived session `arg` (an id or unique prefix) back into
    /// its agent's folder, byte for byte, dated `now`; the files written.
    pub fn restore_archived(&self, arg: &str, now: f64) -> Result<(Manifest, Vec<PathBuf>)> {
        let store = self.archive_store()?;
        let manifest = store.find(arg)?;
        let written = store.restore(&manifest, now)?;
        Ok((manifest, written))
    }

    /// The archived sessions `args` name (ids or unique prefixes).
    pub fn find_archived(&self, args: &[String]) -> Result<Vec<Manifest>> {
        let store = self.archive_store()?;
        args.iter().map(|a| store.find(a)).collect()
    }

    /// Deletes the archived sessions `manifests` for good.
    pub fn delete_archived(&self, manifests: &[Manifest]) -> Result<()> {
        self.archive_store()?.delete(manifests)
    }
}
