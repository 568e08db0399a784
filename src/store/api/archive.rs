//! The door's archive: other agents' sessions kept beyond their agents'
//! own cleanups (`ops/archive.rs`), archived by name or by what is due,
//! listed, restored byte for byte, deleted when asked.

use super::Store;
use crate::store::error::{Result, StoreError};
use crate::store::ops::archive::{self, Archive, ArchiveOutcome, Manifest};
use crate::store::ops::locate::Target;
use crate::store::ops::trash;
use crate::store::sources::agent::Agent;
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
                StoreError::Invalid(
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
    /// its agent's own cleanup deletes before `now + within` seconds.
    pub fn archive_due(
        &self,
        agent: Option<Agent>,
        within: f64,
        now: f64,
    ) -> Result<Vec<ArchiveOutcome>> {
        let records: Vec<_> = self
            .list()?
            .into_iter()
            .filter(|r| r.agent.is_external() && agent.is_none_or(|a| r.agent == a))
            .collect();
        let due = self.agent_deletes_at(&records, now);
        let mut out = Vec::new();
        for record in records {
            if due
                .get(record.id.as_str())
                .is_some_and(|at| *at <= now + within)
            {
                let target = Target {
                    record,
                    is_loki: false,
                };
                out.push(self.archive(&target, now)?);
            }
        }
        Ok(out)
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
