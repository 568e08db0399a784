//! `import`: copy a bare peteos session into a new Loki session. The source
//! is only read; the copy is built under a hidden name and renamed into place.

use crate::store::error::{IoContext, Result, StoreError};
use crate::store::format::Meta;
use crate::store::format::jsonfile;
use crate::store::format::{Session, ids};
use crate::store::fs::atomic;
use crate::store::parallel;
use crate::store::sources::LokiTree;
use crate::store::sources::derived::derive_record;
use crate::store::sources::layout::{SessionPaths, check_id};
use crate::store::sources::record::{SessionRecord, sort_by_recent_use};
use std::fs;
use std::path::Path;

impl LokiTree {
    /// Copies the peteos session in `source` (a directory holding
    /// session.json) into a new session of this tree and returns it. The id
    /// is the source's directory name when it is free, else a new one. A
    /// session imported before (see [`LokiTree::imported_as`]) is refused
    /// unless `again` asks for a second copy.
    pub fn import(&self, source: &Path, again: bool, now: f64) -> Result<SessionRecord> {
        self.check_ownership()?;
        // Refuse what peteos could not load either, before copying anything.
        let session = Session::load(source)?;
        session.active_context()?;
        if !again && let Some(existing) = self.imported_as(&session.uuid()) {
            return Err(StoreError::AlreadyImported {
                dir: source.to_path_buf(),
                uuid: session.uuid(),
                id: existing.id.into(),
                name: existing.name,
            });
        }
        let derived = derive_record(source);
        let sessions = self.layout().sessions_dir();
        atomic::create_private_dir_all(&sessions)?;
        let id = match check_id(&derived.id) {
            Ok(()) if !sessions.join(&derived.id).exists() => derived.id.to_string(),
            _ => ids::dated_id(now),
        };
        self.build_in_place("import", &id, |staging| {
            self.fill_import(staging, source, &id, &derived, now)
        })
    }

    /// The session of this tree that holds the peteos session `uuid`: an
    /// import copies session.json byte for byte, so the copy's
    /// `memory/session.json` has the source's `uuid` (a session.json without
    /// one counts as the Loki session's id, which an import takes from the
    /// source folder's name when it can). The most recently used one when
    /// there are several.
    pub fn imported_as(&self, uuid: &str) -> Option<SessionRecord> {
        let sessions = self.layout().sessions_dir();
        let names: Vec<String> = fs::read_dir(&sessions)
            .ok()?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        let holds = parallel::map_ordered(&names, |name| {
            let memory = SessionPaths::new(&sessions.join(name)).memory();
            Session::load(&memory).is_ok_and(|s| {
                let own = s.raw_dict().get("uuid").and_then(|u| u.as_str());
                own.unwrap_or(name) == uuid
            })
        });
        let mut found: Vec<SessionRecord> = names
            .iter()
            .zip(holds)
            .filter(|(_, holds)| *holds)
            .map(|(name, _)| self.record(name))
            .filter(SessionRecord::is_readable)
            .collect();
        sort_by_recent_use(&mut found);
        found.into_iter().next()
    }

    fn fill_import(
        &self,
        dir: &Path,
        source: &Path,
        id: &str,
        derived: &SessionRecord,
        now: f64,
    ) -> Result<()> {
        let paths = SessionPaths::new(dir);
        for sub in [paths.workspace(), paths.memory(), paths.cache()] {
            atomic::create_private_dir(&sub)?;
        }
        let entries = fs::read_dir(source).ctx("list", source)?;
        for entry in entries {
            let entry = entry.ctx("list", source)?;
            let name = entry.file_name();
            let plain_file = entry.file_type().is_ok_and(|t| t.is_file());
            // Hidden files are temp files of a writer; links and folders are not part of a session.
            if !plain_file || name.to_string_lossy().starts_with('.') {
                continue;
            }
            let bytes = jsonfile::read_no_follow(&entry.path())?;
            atomic::write_private_file(&paths.memory().join(&name), &bytes)?;
        }
        let mut meta = Meta::new(
            &paths.meta(),
            id,
            &derived.name,
            self.layout().user(),
            &derived.first_prompt,
            derived.created_at,
        );
        meta.touch(now);
        atomic::write_private_file(&paths.meta(), jsonfile::render(meta.raw_dict()).as_bytes())?;
        for d in [paths.memory(), paths.dir.clone()] {
            atomic::sync_dir(&d)?;
        }
        if !paths
            .memory()
            .join(crate::store::format::SESSION_FILE)
            .is_file()
        {
            return Err(StoreError::shape(source, "no session.json was copied"));
        }
        Ok(())
    }
}
