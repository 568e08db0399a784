//! Bringing the index up to date: sessions whose files changed since they
//! were indexed are read again (in parallel), deleted ones leave, the rest
//! is not touched. Commits come every second or so, so a search running
//! meanwhile sees the index grow.

use crate::store::error::Result;
use crate::store::fs::disk;
use crate::store::index::engine::Engine;
use crate::store::index::manifest::{Entry, Manifest};
use crate::store::index::stamp::{self, FileStamp};
use crate::store::index::text::session_messages;
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

/// A session to read, with the stamps its files have now.
pub(super) struct Stale {
    pub record: SessionRecord,
    pub files: Vec<FileStamp>,
    pub meta: Option<FileStamp>,
}

impl Stale {
    /// `record` with its files' current stamps.
    pub fn of(record: SessionRecord, layout: Layout) -> Stale {
        Stale {
            files: stamp::conversation(&layout.conversation(&record.path)),
            meta: layout.meta(&record.path).and_then(|m| stamp::file(&m)),
            record,
        }
    }
}

impl SearchIndex {
    /// Brings the index up to date with `records` (every session of the
    /// store); `progress(done, to_read)` follows the reading.
    pub fn update(
        &self,
        records: Vec<SessionRecord>,
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
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
        let (mut manifest, why) = self.manifest();
        if let Some(why) = why {
            note.get_or_insert(format!("{why}; the index was rebuilt"));
        }
        if manifest.sessions.is_empty() {
            // Whatever tantivy holds without a manifest cannot be trusted.
            writer
                .delete_all_documents()
                .map_err(|e| crate::store::StoreError::Invalid(e.to_string()))?;
            manifest.built_at = now;
        }
        let mut stale = Vec::new();
        let mut current = std::collections::HashSet::new();
        for record in records {
            current.insert(record.id.clone());
            let now_stamped = Stale::of(record, self.layout);
            match manifest.sessions.get_mut(&now_stamped.record.id) {
                Some(entry) if entry.files == now_stamped.files => {
                    // Only meta.json changed (a touch, a rename): no need to read it all.
                    entry.name = now_stamped.record.name;
                    entry.last_used_at = now_stamped.record.last_used_at;
                    entry.meta = now_stamped.meta;
                }
                _ => stale.push(now_stamped),
            }
        }
        let gone: Vec<String> = manifest
            .sessions
            .keys()
            .filter(|id| !current.contains(*id))
            .cloned()
            .collect();
        for id in &gone {
            engine.delete_session(&writer, id);
            manifest.sessions.remove(id);
        }
        let read = stale.len();
        refresh(&engine, &mut writer, &mut manifest, self, stale, progress)?;
        manifest.updated_at = now;
        engine.commit(&mut writer)?;
        manifest.save(self.dir()?)?;
        Ok(UpdateReport {
            sessions: manifest.sessions.len(),
            read,
            removed: gone.len(),
            busy: false,
            note,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Builds the index again from nothing.
    pub fn rebuild(
        &self,
        records: Vec<SessionRecord>,
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        self.remove()?;
        self.update(records, now, progress)
    }
}

/// Reads `stale` sessions and replaces their messages in the index,
/// committing (and saving the manifest) every [`COMMIT_EVERY`].
pub(super) fn refresh(
    engine: &Engine,
    writer: &mut IndexWriter,
    manifest: &mut Manifest,
    index: &SearchIndex,
    stale: Vec<Stale>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<()> {
    let total = stale.len();
    let mut done = 0;
    let mut last_commit = Instant::now();
    for chunk in stale.chunks(CHUNK) {
        let read = parallel::map_ordered(chunk, |s| {
            (
                session_messages(&index.layout.conversation(&s.record.path), true),
                disk::tree_facts(&s.record.path).map_or(0, |f| f.bytes),
            )
        });
        for (s, (result, bytes)) in chunk.iter().zip(read) {
            let r = &s.record;
            let mut entry = Entry {
                name: r.name.clone(),
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
                }
                Err(e) => {
                    engine.delete_session(writer, &r.id);
                    entry.error = Some(e.to_string());
                }
            }
            manifest.sessions.insert(r.id.clone(), entry);
        }
        done += chunk.len();
        progress(done, total);
        if last_commit.elapsed() >= COMMIT_EVERY && done < total {
            engine.commit(writer)?;
            manifest.save(index.dir()?)?;
            last_commit = Instant::now();
        }
    }
    Ok(())
}
