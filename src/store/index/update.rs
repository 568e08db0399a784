//! Bringing the index up to date: sessions whose files changed since they
//! were indexed are read again (in parallel), deleted ones leave, the rest
//! is not touched. Commits come every second or so, so a search running
//! meanwhile sees the index grow.

use crate::store::error::Result;
use crate::store::index::engine::Engine;
use crate::store::index::manifest::{Entry, Manifest};
use crate::store::index::stamp::{self, Stamp, StampedFile};
use crate::store::index::text::{record_messages, session_bytes};
use crate::store::index::{Layout, SearchIndex};
use crate::store::parallel;
use crate::store::sources::record::SessionRecord;
use serde::Serialize;
use std::time::{Duration, Instant};
use tantivy::IndexWriter;

/// Sessions read at a time (in parallel) between checks of the clock.
const CHUNK: usize = 64;
/// How often a long update commits, so others see its progress.
const COMMIT_EVERY: Duration = Duration::from_secs(1);

/// What an update did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UpdateReport {
    /// Sessions in the index now.
    pub sessions: usize,
    /// Sessions read (again) because they were new or had changed.
    pub read: usize,
    /// Sessions that left the index (deleted from the store).
    pub removed: usize,
    /// True when another process holds the index's writer lock: nothing
    /// was done, and its index is used as it is.
    pub busy: bool,
    /// Anything a person should know (a rebuilt index, say).
    pub note: Option<String>,
    /// How long it took, in seconds.
    pub seconds: f64,
}

/// Which sessions an update looks at.
enum Scope<'a> {
    /// Every session of the folder: the ones not named have gone.
    Every,
    /// Only those named; `gone` have gone. `every` lists the folder, for
    /// an index that has to be brought up to date whole.
    Some {
        gone: Vec<String>,
        every: &'a dyn Fn() -> Result<Vec<String>>,
    },
}

/// A session to read, with the stamps its files have now.
pub(super) struct Stale {
    pub record: SessionRecord,
    pub files: Vec<StampedFile>,
    pub meta: Option<StampedFile>,
}

impl Stale {
    /// `record` with its files' current stamps.
    pub fn of(record: SessionRecord, index: &SearchIndex) -> Stale {
        let layout = index.layout;
        if layout == Layout::Agent {
            let paths = crate::store::sources::agents::files(&record);
            return Stale {
                files: stamp::files(&index.store_dir, &paths),
                meta: None,
                record,
            };
        }
        Stale {
            files: stamp::conversation(&layout.conversation(&record.path)),
            meta: layout.meta(&record.path).and_then(|m| stamp::file(&m)),
            record,
        }
    }
}

/// How a session differs from what the index recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Change {
    /// Its files are as they were: nothing to do.
    None,
    /// Only meta.json changed (a touch, a rename): its name and last use.
    Meta,
    /// New, or its conversation changed: read it again.
    Conversation,
}

impl SearchIndex {
    /// How each of `names` (session folder names) differs from what
    /// `manifest` recorded, checked on the files' stamps only (no reading).
    pub(super) fn changes(&self, names: &[String], manifest: &Manifest) -> Vec<Change> {
        self.changes_of(names, |name| {
            let entry = manifest.sessions.get(name)?;
            Some((entry.files.as_slice(), entry.meta.as_ref()))
        })
    }

    /// [`SearchIndex::changes`] for stamps owned or borrowed from the
    /// manifest's bytes: `known(name)` gives a session's conversation
    /// stamps and meta.json's, if the manifest has it.
    pub(super) fn changes_of<'m, S: Stamp + Sync + 'm>(
        &self,
        names: &[String],
        known: impl Fn(&str) -> Option<(&'m [S], Option<&'m S>)> + Sync,
    ) -> Vec<Change> {
        self.changes_with(names, known, true)
    }

    /// [`SearchIndex::changes_of`] with meta.json left unlooked at when
    /// `with_meta` is false (its change is then never reported): a search
    /// looks at it only for the sessions its answer shows, since a name
    /// and a last use are all the index takes from it.
    pub(super) fn changes_with<'m, S: Stamp + Sync + 'm>(
        &self,
        names: &[String],
        known: impl Fn(&str) -> Option<(&'m [S], Option<&'m S>)> + Sync,
        with_meta: bool,
    ) -> Vec<Change> {
        let checker = stamp::Checker::new(&self.store_dir);
        parallel::map_ordered(names, |name| {
            let Some((files, meta)) = known(name) else {
                return Change::Conversation;
            };
            if self.layout == Layout::Agent {
                return if checker.files_unchanged(files) {
                    Change::None
                } else {
                    Change::Conversation
                };
            }
            let dir = std::path::Path::new(name);
            if !checker.conversation_unchanged(&self.layout.conversation(dir), files) {
                Change::Conversation
            } else if with_meta && !checker.meta_unchanged(self.layout.meta(dir).as_deref(), meta) {
                Change::Meta
            } else {
                Change::None
            }
        })
    }

    /// Brings the index up to date with the sessions `names` (every entry of
    /// the session folder): only new or changed ones are read (`record_of`
    /// reads one's record); `progress(done, to_read)` follows the reading.
    pub fn update(
        &self,
        names: Vec<String>,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        self.update_or_rebuild(names, record_of, now, progress, false)
    }

    /// Builds the index again from nothing. It takes the writer lock like
    /// an update (a build of another process is left to finish, and
    /// reported busy), then forgets what the index held.
    pub fn rebuild(
        &self,
        names: Vec<String>,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        self.update_or_rebuild(names, record_of, now, progress, true)
    }

    /// Applies what a watcher saw: the sessions `names` (present now) are
    /// checked against what the index recorded and read again if they
    /// changed, the sessions `gone` leave; no other session is looked at.
    /// An index that is not a matching pair, or is empty, is brought up
    /// to date whole instead (`every` lists the session folder for that).
    pub fn update_some(
        &self,
        names: Vec<String>,
        gone: Vec<String>,
        every: &dyn Fn() -> Result<Vec<String>>,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        now: f64,
    ) -> Result<UpdateReport> {
        let scope = Scope::Some { gone, every };
        self.update_scoped(names, scope, record_of, now, &|_, _| {}, false)
    }

    fn update_or_rebuild(
        &self,
        names: Vec<String>,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
        afresh: bool,
    ) -> Result<UpdateReport> {
        self.update_scoped(names, Scope::Every, record_of, now, progress, afresh)
    }

    fn update_scoped(
        &self,
        mut names: Vec<String>,
        scope: Scope,
        record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
        afresh: bool,
    ) -> Result<UpdateReport> {
        let started = Instant::now();
        let (engine, mut note) = self.open()?;
        let Some(mut writer) = engine.writer()? else {
            return Ok(UpdateReport {
                busy: true,
                note: Some("another process is updating the search index".into()),
                ..UpdateReport::default()
            });
        };
        // Holding the writer, nobody else commits: one look settles it.
        let (mut manifest, why) = self.consistent_manifest(&engine, 1)?;
        let inconsistent = why.is_some();
        if let Some(why) = why.filter(|_| !afresh) {
            note = Some(super::join_notes(
                note,
                format!("{why}; the index was rebuilt"),
            ));
        }
        if afresh {
            manifest = self.empty_manifest();
        }
        // A partial update needs an index to add to: one rebuilt, or new,
        // is brought up to date whole.
        let mut scope = scope;
        if let Scope::Some { every, .. } = &scope
            && (inconsistent || manifest.sessions.is_empty())
        {
            names = every()?;
            scope = Scope::Every;
        }
        start_afresh_if_empty(&mut writer, &mut manifest, now)?;
        let changes = self.changes(&names, &manifest);
        let touched: Vec<&String> = names
            .iter()
            .zip(&changes)
            .filter(|(_, c)| **c == Change::Meta)
            .map(|(n, _)| n)
            .collect();
        for (name, record) in touched
            .iter()
            .zip(parallel::map_ordered(&touched, |n| record_of(n)))
        {
            if let Some(entry) = manifest.sessions.get_mut(*name) {
                entry.name = record.name;
                entry.last_used_at = record.last_used_at;
                entry.meta = self.layout.meta(&record.path).and_then(|m| stamp::file(&m));
            }
        }
        let to_read: Vec<&String> = names
            .iter()
            .zip(&changes)
            .filter(|(_, c)| **c == Change::Conversation)
            .map(|(n, _)| n)
            .collect();
        let gone: Vec<String> = match scope {
            Scope::Every => {
                let current: std::collections::HashSet<&str> =
                    names.iter().map(String::as_str).collect();
                manifest
                    .sessions
                    .keys()
                    .filter(|id| !current.contains(id.as_str()))
                    .cloned()
                    .collect()
            }
            Scope::Some { gone, .. } => gone
                .into_iter()
                .filter(|id| manifest.sessions.contains_key(id))
                .collect(),
        };
        for id in &gone {
            engine.delete_session(&writer, id);
            manifest.sessions.remove(id);
        }
        let read = to_read.len();
        let changed = read + gone.len() + touched.len() > 0 || manifest.updated_at == 0.0;
        refresh(
            &engine,
            &mut writer,
            &mut manifest,
            self,
            &to_read,
            record_of,
            progress,
        )?;
        if changed {
            manifest.updated_at = now;
            self.commit(&engine, &mut writer, &mut manifest)?;
        }
        Ok(UpdateReport {
            sessions: manifest.sessions.len(),
            read,
            removed: gone.len(),
            busy: false,
            note,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Commits what `writer` did as a new commit, then saves `manifest`
    /// naming it (the order a reader relies on: see `consistent`).
    pub(super) fn commit(
        &self,
        engine: &Engine,
        writer: &mut IndexWriter,
        manifest: &mut Manifest,
    ) -> Result<()> {
        let payload = uuid::Uuid::new_v4().to_string();
        engine.commit(writer, &payload)?;
        manifest.commit = payload;
        manifest.save(self.dir()?)
    }
}

/// An empty manifest means a first build (or a manifest that could not be
/// read): whatever tantivy holds without one cannot be trusted, so it goes,
/// and the build time is now.
pub(super) fn start_afresh_if_empty(
    writer: &mut IndexWriter,
    manifest: &mut Manifest,
    now: f64,
) -> Result<()> {
    if manifest.sessions.is_empty() {
        writer
            .delete_all_documents()
            .map_err(|e| crate::store::StoreError::Failed(e.to_string()))?;
        manifest.built_at = now;
    }
    Ok(())
}

/// Reads the sessions named `stale` and replaces their messages in the
/// index, a chunk at a time (records are read with their chunk, so a build
/// of 100k sessions never holds them all), committing (and saving the
/// manifest) now and then so searches see the work done so far: after
/// [`COMMIT_EVERY`], then at longer intervals, a third of the time spent so
/// far, since each commit saves the whole manifest and adds a segment to
/// merge.
pub(super) fn refresh(
    engine: &Engine,
    writer: &mut IndexWriter,
    manifest: &mut Manifest,
    index: &SearchIndex,
    stale: &[&String],
    record_of: &(dyn Fn(&str) -> SessionRecord + Sync),
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<()> {
    let total = stale.len();
    let mut done = 0;
    let started = Instant::now();
    let mut last_commit = Instant::now();
    for names in stale.chunks(CHUNK) {
        let chunk: Vec<Stale> = parallel::map_ordered(names, |n| Stale::of(record_of(n), index));
        let read = parallel::map_ordered(&chunk, |s| {
            (
                record_messages(&s.record, index.layout, true),
                session_bytes(&s.record),
            )
        });
        for (s, (result, bytes)) in chunk.iter().zip(read) {
            let r = &s.record;
            let mut entry = Entry {
                name: r.shown_name().to_string(),
                last_used_at: r.last_used_at,
                meta: s.meta.clone(),
                files: s.files.clone(),
                bytes,
                ..Entry::default()
            };
            match result {
                Ok((messages, facts)) => {
                    engine.replace_session(writer, &r.id, &messages)?;
                    entry.documents = messages.len();
                    entry.messages = facts.messages;
                    entry.tokens = facts.tokens;
                    entry.is_active = facts.is_active;
                    entry.usage = facts.usage;
                    entry.context = facts.context;
                }
                Err(e) => {
                    engine.delete_session(writer, &r.id);
                    entry.error = Some(e.to_string());
                }
            }
            manifest.sessions.insert(r.id.to_string(), entry);
        }
        done += chunk.len();
        progress(done, total);
        let interval = COMMIT_EVERY.max(started.elapsed() / 3);
        if last_commit.elapsed() >= interval && done < total {
            index.commit(engine, writer, manifest)?;
            last_commit = Instant::now();
        }
    }
    Ok(())
}
