//! The door's watch: the folders of every source watched at once (each
//! source says which, and which session a changed path belongs to), the
//! changes handed over as the sessions they touch, those sessions read
//! again, and the search index told about them alone.

use super::{Backend, Store};
use crate::store::error::Result;
use crate::store::fs::watch::{self, FolderEvent, FolderWatch, WatchMode, WatchOptions};
use crate::store::index::UpdateReport;
use crate::store::parallel;
use crate::store::sources::record::SessionRecord;
use crate::store::sources::watch::{SessionRef, Watched};
use std::collections::BTreeSet;

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
}

/// A session read again after a change.
#[derive(Clone, Debug, PartialEq)]
pub enum Reread {
    /// It is there: its record now (damaged ones too).
    Present(SessionRecord),
    /// It went.
    Gone(SessionRef),
}

/// A running watch of the store; dropping it stops it.
pub struct StoreWatch {
    _folders: FolderWatch,
}

impl Store {
    /// The sources of this store that can be watched (its own first).
    fn watched(&self) -> Vec<Box<dyn Watched + Send>> {
        let own: Box<dyn Watched + Send> = match &self.backend {
            Backend::Loki(tree) => Box::new(tree.clone()),
            Backend::Folder(folder) => Box::new(folder.clone()),
        };
        vec![own]
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
                    .filter_map(|p| sources.iter().find_map(|s| s.session_of(p)))
                    .collect();
                sessions.is_empty()
                    || on_event(StoreEvent::Sessions(sessions.into_iter().collect()))
            }
            FolderEvent::Lost => on_event(StoreEvent::Everything),
            FolderEvent::Mode(mode) => on_event(StoreEvent::Mode(mode)),
        };
        StoreWatch {
            _folders: watch::watch(roots, options, Box::new(forward)),
        }
    }

    /// Reads again each session a watcher named: its record if it is
    /// there, or that it went. Reads only.
    pub fn reread(&self, sessions: &[SessionRef]) -> Vec<Reread> {
        parallel::map_ordered(sessions, |s| match std::fs::symlink_metadata(&s.path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Reread::Gone(s.clone()),
            _ => Reread::Present(self.record(&s.id)),
        })
    }

    /// Tells the search index about the sessions a watcher named, and
    /// only them: the changed ones are read again, the gone ones leave
    /// (an index that cannot be added to is brought up to date whole).
    pub fn update_index_for(&self, sessions: &[SessionRef], now: f64) -> Result<UpdateReport> {
        let (gone, present): (Vec<&SessionRef>, Vec<&SessionRef>) = sessions
            .iter()
            .partition(|s| std::fs::symlink_metadata(&s.path).is_err());
        let names = present.iter().map(|s| s.id.clone()).collect();
        let gone = gone.iter().map(|s| s.id.clone()).collect();
        let record_of = |id: &str| self.record(id);
        self.search_index()
            .update_some(names, gone, &|| self.session_names(), &record_of, now)
    }
}
