//! The door's watch: the folders of every source watched at once (each
//! source says which, and which session a changed path belongs to), the
//! changes handed over as the sessions they touch, those sessions read
//! again, and the search index told about them alone.

use super::{Backend, Store};
use crate::store::error::Result;
use crate::store::fs::watch::{self, FolderEvent, FolderWatch, WatchMode, WatchOptions};
use crate::store::index::UpdateReport;
use crate::store::parallel;
use crate::store::sources::agent::Agent;
use crate::store::sources::agents::RecordReader;
use crate::store::sources::record::SessionRecord;
use crate::store::sources::watch::{AgentWatch, SessionRef, Watched};
use std::collections::{BTreeSet, HashMap, HashSet};

/// What a store's watcher reports.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreEvent {
    /// These sessions changed, appeared or went (each named once).
    Sessions(Vec<SessionRef>),
    /// Changes were lost (the system's queue overflowed): any session may
    /// have changed; read the store again.
    Everything,
    /// How the folders are watched: at start, and when that changes (the
    /// system's limit reached, say).
    Mode(WatchMode),
    /// A folder sessions are listed from went; it is looked for until it
    /// is back.
    FolderGone(std::path::PathBuf),
    /// That folder is back (or there for the first time), watched again:
    /// read the store again.
    FolderBack(std::path::PathBuf),
}

/// A session read again after a change.
#[derive(Clone, Debug, PartialEq)]
pub enum Reread {
    /// It is there: its record now (damaged ones too), boxed as a record
    /// is large beside a reference.
    Present(Box<SessionRecord>),
    /// It went.
    Gone(SessionRef),
}

/// A running watch of the store; dropping it stops it.
pub struct StoreWatch {
    _folders: FolderWatch,
}

impl Store {
    /// The sources of this store shown, watched (its own first, then each
    /// other agent's folder).
    fn watched(&self) -> Vec<Box<dyn Watched + Send>> {
        let mut out: Vec<Box<dyn Watched + Send>> = Vec::new();
        if self.shows_primary() {
            out.push(match &self.backend {
                Backend::Loki(tree) => Box::new(tree.clone()),
                Backend::Folder(folder) => Box::new(folder.clone()),
            });
        }
        // The archive changes only by our own hand: not watched.
        for source in self.live_agent_sources() {
            out.push(Box::new(AgentWatch::new(source.clone())));
        }
        out
    }

    /// What reads the records of another agent's sessions, by agent.
    fn readers(&self, sessions: &[SessionRef]) -> HashMap<Agent, RecordReader> {
        let agents: HashSet<Agent> = sessions.iter().map(|s| s.agent).collect();
        self.live_agent_sources()
            .filter(|s| agents.contains(&s.agent()))
            .map(|s| (s.agent(), s.reader()))
            .collect()
    }

    /// Watches the folders of every source on a thread of its own and
    /// calls `on_event` with each batch of changed sessions (coalesced:
    /// a burst of writes is one batch), until it returns false or the
    /// watch is dropped. Reads only.
    pub fn watch(
        &self,
        options: WatchOptions,
        mut on_event: impl FnMut(StoreEvent) -> bool + Send + 'static,
    ) -> StoreWatch {
        let sources = self.watched();
        let roots = sources.iter().flat_map(|s| s.watch_roots()).collect();
        let forward = move |event: FolderEvent| match event {
            FolderEvent::Changed(paths) => {
                let sessions: BTreeSet<SessionRef> = paths
                    .iter()
                    .flat_map(|p| {
                        let mut touched = sources.iter().map(|s| s.sessions_of(p));
                        touched.find(|t| !t.is_empty()).unwrap_or_default()
                    })
                    .collect();
                sessions.is_empty()
                    || on_event(StoreEvent::Sessions(sessions.into_iter().collect()))
            }
            FolderEvent::Lost => on_event(StoreEvent::Everything),
            FolderEvent::Mode(mode) => on_event(StoreEvent::Mode(mode)),
            FolderEvent::RootGone(dir) => on_event(StoreEvent::FolderGone(dir)),
            FolderEvent::RootBack(dir) => on_event(StoreEvent::FolderBack(dir)),
        };
        StoreWatch {
            _folders: watch::watch(roots, options, Box::new(forward)),
        }
    }

    /// Reads again each session a watcher named: its record if it is
    /// there, or that it went (a session whose file moved, a Codex rollout
    /// archived, is there). Reads only.
    pub fn reread(&self, sessions: &[SessionRef]) -> Vec<Reread> {
        let readers = self.readers(sessions);
        let read = parallel::map_ordered(sessions, |s| match std::fs::symlink_metadata(&s.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Reread::Gone(s.clone()),
            _ => Reread::Present(Box::new(match readers.get(&s.agent) {
                Some(reader) => reader.record_of(&s.id, &s.path),
                None => self.record(&s.id),
            })),
        });
        let present: HashSet<(Agent, String)> = read
            .iter()
            .filter_map(|r| match r {
                Reread::Present(record) => Some((record.agent, record.id.to_string())),
                Reread::Gone(_) => None,
            })
            .collect();
        read.into_iter()
            .filter(|r| match r {
                Reread::Gone(s) => !present.contains(&(s.agent, s.id.clone())),
                Reread::Present(_) => true,
            })
            .collect()
    }

    /// Tells the search indexes about the sessions a watcher named, and
    /// only them: the changed ones are read again, the gone ones leave
    /// (an index that cannot be added to is brought up to date whole).
    pub fn update_index_for(&self, sessions: &[SessionRef], now: f64) -> Result<UpdateReport> {
        let started = std::time::Instant::now();
        let mut total = UpdateReport::default();
        let mut add = |report: UpdateReport| {
            total.sessions += report.sessions;
            total.read += report.read;
            total.removed += report.removed;
            total.busy |= report.busy;
            if let Some(note) = report.note {
                total.note = Some(match total.note.take() {
                    Some(before) => format!("{before}; {note}"),
                    None => note,
                });
            }
        };
        let of = |agent: Agent| -> (
            Vec<String>,
            Vec<String>,
            HashMap<String, std::path::PathBuf>,
        ) {
            let mine: Vec<&SessionRef> = sessions.iter().filter(|s| s.agent == agent).collect();
            let (gone, present): (Vec<&SessionRef>, Vec<&SessionRef>) = mine
                .into_iter()
                .partition(|s| std::fs::symlink_metadata(&s.path).is_err());
            let files = present
                .iter()
                .map(|s| (s.id.clone(), s.path.clone()))
                .collect();
            let names = present.iter().map(|s| s.id.clone()).collect();
            (names, gone.iter().map(|s| s.id.clone()).collect(), files)
        };
        let primary = self.primary_agent();
        if self.shows_primary() && sessions.iter().any(|s| s.agent == primary) {
            let (names, gone, _) = of(primary);
            let record_of = |id: &str| self.record(id);
            add(self.primary_index().update_some(
                names,
                gone,
                &|| self.session_names(),
                &record_of,
                now,
            )?);
        }
        for source in self.live_agent_sources() {
            if !sessions.iter().any(|s| s.agent == source.agent()) {
                continue;
            }
            let (names, gone, files) = of(source.agent());
            let reader = source.reader();
            // The whole folder's files, when the index is brought up to
            // date whole.
            let every: std::sync::OnceLock<HashMap<String, std::path::PathBuf>> =
                std::sync::OnceLock::new();
            let all = || {
                every.get_or_init(|| {
                    source
                        .ids()
                        .into_iter()
                        .map(|(id, p)| (id.into(), p))
                        .collect()
                })
            };
            let record_of = |id: &str| match files.get(id).or_else(|| all().get(id)) {
                Some(path) => reader.record_of(id, path),
                None => SessionRecord::gone(source.agent(), id),
            };
            add(self.agent_index(source).update_some(
                names,
                gone,
                &|| Ok(all().keys().cloned().collect()),
                &record_of,
                now,
            )?);
        }
        total.seconds = started.elapsed().as_secs_f64();
        Ok(total)
    }
}
