//! The door's sources: the Loki tree or peteos folder and the other
//! agents' folders, listed together, and a `SESSION` argument found in them.

use super::{Backend, Store};
use crate::store::StoreKind;
use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::ops::locate::{self, Target};
use crate::store::sources::agent::{Agent, AgentHomes};
use crate::store::sources::agents::AgentSource;
use crate::store::sources::layout::check_id;
use crate::store::sources::listing_cache::{self, ListingCache};
use crate::store::sources::record::{SessionRecord, listed};
use crate::store::sources::{LokiTree, PeteosFolder};
use std::path::Path;

impl Store {
    /// The same store with the other agents' sessions found in `homes`
    /// (each folder that exists) listed beside its own.
    pub fn with_agents(mut self, homes: &AgentHomes) -> Store {
        self.agents = AgentSource::found(homes);
        self.look_for_archive();
        self
    }

    /// The archive's parts that hold sessions of the agents looked for
    /// (none without other agents: a Loki or peteos store alone).
    pub(super) fn look_for_archive(&mut self) {
        self.archived = match self.archive_dir() {
            Ok(dir) if !self.agents.is_empty() => AgentSource::archived(&dir),
            _ => Vec::new(),
        };
    }

    /// The same store showing only the sessions of `agents` (every command
    /// then lists, searches and finds only theirs); empty shows every one.
    pub fn only_agents(mut self, agents: &[Agent]) -> Store {
        self.only = (!agents.is_empty()).then(|| agents.to_vec());
        self
    }

    /// The same store, its Loki tree allowed to be absent (it was not asked
    /// for by name) while other agents' sessions are there.
    pub fn primary_optional(mut self, optional: bool) -> Store {
        self.primary_optional = optional;
        self
    }

    /// Whose sessions the Loki tree or peteos folder holds.
    pub fn primary_agent(&self) -> Agent {
        match self.backend {
            Backend::Loki(_) => LokiTree::AGENT,
            Backend::Folder(_) => PeteosFolder::AGENT,
        }
    }

    /// True when the sessions of `agent` are shown.
    pub fn shows(&self, agent: Agent) -> bool {
        self.only.as_ref().is_none_or(|only| only.contains(&agent))
    }

    pub(super) fn shows_primary(&self) -> bool {
        self.shows(self.primary_agent())
    }

    /// The other agents' own folders shown (the archive's parts left out):
    /// what is watched, whose settings say what their cleanups delete.
    pub(super) fn live_agent_sources(&self) -> impl Iterator<Item = &AgentSource> {
        self.agents.iter().filter(|s| self.shows(s.agent()))
    }

    /// The other agents' folders shown, and the archive's parts.
    pub(super) fn agent_sources(&self) -> impl Iterator<Item = &AgentSource> {
        self.agents
            .iter()
            .chain(&self.archived)
            .filter(|s| self.shows(s.agent()))
    }

    /// The agents whose sessions this store lists (the Loki tree or peteos
    /// folder first, then each other agent found), for a filter to offer.
    pub fn agents(&self) -> Vec<Agent> {
        let mut out = vec![self.primary_agent()];
        out.extend(self.agents.iter().map(AgentSource::agent));
        out
    }

    /// The cleanup rules of the agents listed (Claude Code's
    /// `cleanupPeriodDays`, Gemini CLI's `sessionRetention`), read from
    /// their settings: what they will delete by themselves.
    pub fn retention_rules(&self) -> Vec<crate::store::sources::retention::Rule> {
        let folders: Vec<(Agent, &Path)> = self
            .live_agent_sources()
            .map(|s| (s.agent(), s.root()))
            .collect();
        crate::store::sources::retention::rules(&folders)
    }

    /// When the agent's own cleanup would delete each of `records`
    /// (seconds since the epoch, by id; `now` for one already due).
    pub fn agent_deletes_at(&self, records: &[SessionRecord], now: f64) -> crate::store::DeletesAt {
        crate::store::sources::retention::deletes_at(&self.retention_rules(), records, now)
    }

    /// [`Store::agent_deletes_at`] of each of `records`, in their order
    /// (None: never by its agent's cleanup).
    pub fn agent_deletes_at_each(&self, records: &[SessionRecord], now: f64) -> Vec<Option<f64>> {
        crate::store::sources::retention::deletes_at_each(&self.retention_rules(), records, now)
    }

    /// The folder another agent's sessions are read from, if it was found.
    pub fn agent_folder(&self, agent: Agent) -> Option<&Path> {
        self.agents
            .iter()
            .find(|s| s.agent() == agent)
            .map(AgentSource::root)
    }

    /// Every session, most recently used first; damaged ones are included
    /// with `error` set. A missing tree is an empty list (see
    /// [`Store::check_folder`]).
    pub fn list(&self) -> Result<Vec<SessionRecord>> {
        listed(|on_batch| self.scan(on_batch))
    }

    /// Every session, in batches as they are read, so a UI can show rows
    /// before the scan ends; `on_batch` returns false to stop.
    pub fn scan(&self, mut on_batch: impl FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        let mut going = true;
        if self.shows_primary() {
            let mut pass = |batch| {
                going = on_batch(batch);
                going
            };
            match self.scan_primary(&mut pass) {
                Err(StoreError::Missing { .. } | StoreError::Io { .. })
                    if self.primary_optional && self.agent_sources().next().is_some() => {}
                other => other?,
            }
        }
        for source in self.agent_sources() {
            if !going {
                break;
            }
            let bytes = self.listing_cache_bytes(source);
            let cache = match source.listing_rules() {
                Some(rules) => ListingCache::from_bytes(bytes.as_deref(), source.root(), rules),
                None => ListingCache::off(),
            };
            source.scan_remembering(&cache, &mut |batch| {
                going = on_batch(batch);
                going
            })?;
            if going {
                self.keep_listing_cache(source, &cache);
            }
        }
        Ok(())
    }

    /// What the last listing of `source` remembered, kept beside its search
    /// index (None for a provider that keeps none, or without a cache
    /// folder to trust).
    fn listing_cache_bytes(
        &self,
        source: &AgentSource,
    ) -> Option<crate::store::fs::mapped::FileBytes> {
        source.listing_rules()?;
        let index = self.agent_index(source);
        let dir = index.trusted_slot()?;
        crate::store::fs::mapped::map_own_at_most(
            &dir.join(listing_cache::FILE),
            listing_cache::LIMIT,
        )
        .ok()
    }

    /// Writes what a whole listing of `source` learned, when it learned
    /// something. A cache that cannot be written is left: the next listing
    /// reads the files again.
    fn keep_listing_cache(&self, source: &AgentSource, cache: &ListingCache) {
        let Some(bytes) = cache.to_save() else { return };
        let index = self.agent_index(source);
        if let Some(dir) = index.prepared_dir() {
            let _ = crate::store::fs::atomic::write_atomic(&dir.join(listing_cache::FILE), &bytes);
        }
    }

    /// The sessions of the Loki tree or peteos folder alone, in batches.
    pub(super) fn scan_primary(
        &self,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        match &self.backend {
            Backend::Loki(tree) => tree.scan(on_batch),
            Backend::Folder(folder) => folder.scan(on_batch),
        }
    }

    /// The sessions of the Loki tree or peteos folder alone (what a purge
    /// decides on: other agents' sessions are never purged).
    pub(super) fn primary_list(&self) -> Result<Vec<SessionRecord>> {
        listed(|on_batch| self.scan_primary(on_batch))
    }

    /// True when a `SESSION` argument is a path (it has a `/`, or is `.` or
    /// `..`): it names its session without the store.
    pub fn is_path_argument(arg: &str) -> bool {
        locate::looks_like_path(arg)
    }

    /// Resolves a `SESSION` argument: a path, an id, an exact name, a unique
    /// id prefix or a unique name prefix (`ops::locate::match_session` has
    /// the order). Several matches are `StoreError::Ambiguous`, listing them.
    pub fn locate(&self, arg: &str) -> Result<Target> {
        if locate::looks_like_path(arg)
            && let Some(target) = self.locate_agent_file(Path::new(arg))
        {
            return Ok(target);
        }
        if !locate::looks_like_path(arg)
            && let Some(target) = self.locate_exact_id(arg)?
        {
            return Ok(target);
        }
        let records = if locate::looks_like_path(arg) {
            Vec::new()
        } else {
            self.list()?
        };
        if !records.is_empty() {
            let found = locate::match_session(arg, &records)?;
            if found.agent.is_external() {
                return Ok(self.target(found));
            }
        }
        locate::locate(
            arg,
            &records,
            |id| self.record(id),
            self.kind() == StoreKind::Loki,
        )
    }

    /// The session whose id is exactly `arg`, found without listing the
    /// store: the entry of that name in the Loki tree or peteos folder (what
    /// the listing would read for it), else the file another agent names by
    /// that id (`AgentSource::ids`, file names only). An exact id is the
    /// first rule of `match_session`, so this answers as the listing would;
    /// None sends the argument to the listing (names, prefixes, ids the
    /// file names do not tell).
    pub(super) fn locate_exact_id(&self, arg: &str) -> Result<Option<Target>> {
        if self.shows_primary() && self.primary_entry(arg)? {
            let records = [self.record(arg)];
            let is_loki = self.kind() == StoreKind::Loki;
            return locate::locate(arg, &records, |id| self.record(id), is_loki).map(Some);
        }
        for source in self.agent_sources() {
            if let Some((_, path)) = source.ids().into_iter().find(|(id, _)| id == arg) {
                return Ok(Some(self.target(&source.reader().record_of(arg, &path))));
            }
        }
        Ok(None)
    }

    /// True when the Loki tree or peteos folder has an entry the listing
    /// would read as the session `id` (after the ownership checks the
    /// listing makes).
    fn primary_entry(&self, id: &str) -> Result<bool> {
        if id.starts_with('.') || check_id(id).is_err() {
            return Ok(false);
        }
        let (dir, any_kind) = match &self.backend {
            Backend::Loki(tree) => (tree.layout().sessions_dir(), true),
            Backend::Folder(folder) => (folder.dir().to_path_buf(), false),
        };
        let Ok(meta) = std::fs::symlink_metadata(dir.join(id)) else {
            return Ok(false);
        };
        // The peteos folder lists only directories and links to them.
        if !(any_kind || meta.is_dir() || meta.file_type().is_symlink()) {
            return Ok(false);
        }
        match &self.backend {
            Backend::Loki(tree) => tree.check_ownership()?,
            Backend::Folder(folder) => folder.check_owned()?,
        }
        Ok(true)
    }

    /// The record of the entry `id` of the session folder, damaged or not.
    pub(super) fn record(&self, id: &str) -> SessionRecord {
        let name = self.entry_named_by(id);
        match &self.backend {
            Backend::Loki(tree) => tree.record(&name),
            Backend::Folder(folder) => folder.record(&name),
        }
    }

    /// The entry of the session folder the listing reads as `id`: the
    /// entry of that name, or, for a stand-in id, the entry whose name was
    /// refused as an id (found by its stand-in; such entries are rare).
    fn entry_named_by(&self, id: &str) -> String {
        let dir = self.sessions_dir();
        if !SessionId::is_stand_in(id) || std::fs::symlink_metadata(dir.join(id)).is_ok() {
            return id.to_string();
        }
        std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|name| {
                SessionId::check(name).is_err() && SessionId::stand_in(&dir.join(name)) == id
            })
            .unwrap_or_else(|| id.to_string())
    }

    /// A path to another agent's session file, when it lies in one of the
    /// folders found: its record.
    fn locate_agent_file(&self, path: &Path) -> Option<Target> {
        let real = std::fs::canonicalize(path).ok()?;
        if !real.is_file() {
            return None;
        }
        let source = self
            .agent_sources()
            .find(|s| std::fs::canonicalize(s.root()).is_ok_and(|root| real.starts_with(root)))?;
        Some(self.target(&source.record_at(&real)))
    }

    /// The target for a listed record.
    pub fn target(&self, record: &SessionRecord) -> Target {
        Target {
            record: record.clone(),
            is_loki: !record.agent.is_external() && self.kind() == StoreKind::Loki,
        }
    }
}
