//! What the index holds, per session: the stamps its files had when it was
//! read, its name and last use, and its stats. Kept beside the tantivy
//! files in a compact binary form (postcard: it is read on every search,
//! and JSON of a large store was slow to parse), written atomically
//! after each commit of the index.

use crate::store::format::usage::UsageByModel;
use crate::store::fs::atomic;
use crate::store::fs::mapped::{self, FileBytes};
use crate::store::index::slot::StoreIdentity;
use crate::store::index::stamp::{Stamp, StampedFile};
use crate::store::sources::agent_read::RecordedContext;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Changes whenever what is indexed, or how, changes: an index of another
/// format is rebuilt. 2: stamps hold the change time; the manifest names
/// the commit of the tantivy index it describes and the folder's device
/// and inode. 3: an entry holds another agent's usage, and its files are
/// stamped by their path in the agent's folder. 4: that usage keeps
/// one-hour cache writes, thinking billed apart, the long-context part of
/// each model's requests and when it was spent (by quarter hour), and the
/// context the agent's API last saw.
pub const FORMAT: u32 = 4;
/// The manifest's file name in the index directory.
pub const FILE: &str = "sessions.postcard";
/// The largest manifest read (a million sessions fit); a bigger file is
/// not ours and is not read.
pub const LIMIT: u64 = 256 << 20;

/// One indexed session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Its name when indexed.
    pub name: String,
    /// Its last use when indexed.
    pub last_used_at: f64,
    /// meta.json's stamp (None for bare peteos sessions).
    pub meta: Option<StampedFile>,
    /// The conversation directory's stamps.
    pub files: Vec<StampedFile>,
    /// Bytes of the session's files.
    pub bytes: u64,
    /// Messages of the active context.
    pub messages: usize,
    /// Tokens of the active context in cl100k_base.
    pub tokens: Option<u64>,
    /// `is_active` in session.json.
    pub is_active: bool,
    /// Messages indexed.
    pub documents: usize,
    /// Why its conversation could not be read, if it could not.
    pub error: Option<String>,
    /// The tokens another agent recorded as spent, by model.
    pub usage: Option<UsageByModel>,
    /// The context its agent's API saw at the last recorded request, with
    /// what came after counted.
    pub context: Option<RecordedContext>,
}

/// Every indexed session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The session folder indexed (its canonical path).
    pub store: PathBuf,
    /// Its device and inode.
    pub store_id: Option<(u64, u64)>,
    /// The payload of the tantivy commit this manifest describes: a
    /// manifest and an index that do not name the same commit do not
    /// describe each other (one was deleted, replaced or left behind by a
    /// writer killed between the two).
    pub commit: String,
    /// When the index was last brought up to date (seconds since the epoch).
    pub updated_at: f64,
    /// When the index was first built.
    pub built_at: f64,
    /// Sessions by id.
    pub sessions: BTreeMap<String, Entry>,
}

/// Why a manifest was not used.
#[derive(Debug)]
pub enum Unusable {
    /// There is none yet.
    Missing,
    /// It is damaged, of another format, or for another folder.
    Invalid(String),
}

/// The manifest's bytes in `dir`: never through a link, never waiting on
/// a FIFO, never more than [`LIMIT`].
pub fn read(dir: &Path) -> Result<FileBytes, Unusable> {
    let path = dir.join(FILE);
    match mapped::map_own_at_most(&path, LIMIT) {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.is_not_found() => Err(Unusable::Missing),
        Err(e) => Err(Unusable::Invalid(format!(
            "cannot use {}: {e}",
            path.display()
        ))),
    }
}

/// Decodes a manifest (owned, or a [`ManifestView`] borrowing `bytes`)
/// read from `dir`, checking it is ours for `store`.
fn decode<'a, T: Deserialize<'a>>(
    bytes: &'a [u8],
    dir: &Path,
    store: &StoreIdentity,
    header: impl Fn(&T) -> (u32, &Path, Option<(u64, u64)>),
) -> Result<T, Unusable> {
    let path = dir.join(FILE);
    let format = postcard::take_from_bytes::<u32>(bytes).map(|(f, _)| f);
    if let Some(format) = format.ok().filter(|f| *f != FORMAT) {
        return Err(Unusable::Invalid(format!(
            "{} is of format {format}, this version reads {FORMAT}",
            path.display(),
        )));
    }
    let manifest: T = postcard::from_bytes(bytes)
        .map_err(|e| Unusable::Invalid(format!("{} is damaged: {e}", path.display())))?;
    let (_, indexed, indexed_id) = header(&manifest);
    if indexed != store.path || indexed_id != store.id {
        return Err(Unusable::Invalid(format!(
            "{} indexes {} (device and inode {indexed_id:?}), not {} ({:?}): another folder's index",
            path.display(),
            indexed.display(),
            store.path.display(),
            store.id,
        )));
    }
    Ok(manifest)
}

/// The manifest read without copying its strings, for reading only: what
/// [`SearchIndex::current_stats`](crate::store::index::SearchIndex) needs
/// of every session at a fraction of the memory (the owned manifest of a
/// large store put `list` over its memory target).
/// Its fields are [`Manifest`]'s, in the same order: the same bytes decode
/// (postcard reads by position, so fields read by nobody stay).
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
pub struct ManifestView<'a> {
    pub format: u32,
    #[serde(borrow)]
    pub store: &'a Path,
    pub store_id: Option<(u64, u64)>,
    #[serde(borrow)]
    pub commit: &'a str,
    pub updated_at: f64,
    pub built_at: f64,
    /// By id; hashed, not ordered: a search looks up every session of the
    /// store once, and building a tree of them was a sizable part of it.
    #[serde(borrow)]
    pub sessions: rustc_hash::FxHashMap<&'a str, EntryView<'a>>,
}

/// [`Entry`], borrowed; its usage read as `U` (by default whole: a
/// listing reads it as [`UsageTotals`]).
#[derive(Clone, Debug, Deserialize)]
#[allow(dead_code)]
pub struct EntryView<'a, U = UsageByModel> {
    pub name: &'a str,
    pub last_used_at: f64,
    #[serde(borrow)]
    pub meta: Option<StampView<'a>>,
    #[serde(borrow)]
    pub files: Vec<StampView<'a>>,
    pub bytes: u64,
    pub messages: usize,
    pub tokens: Option<u64>,
    pub is_active: bool,
    pub documents: usize,
    pub error: Option<&'a str>,
    pub usage: Option<U>,
    /// The context its agent's API saw at the last recorded request, with
    /// what came after counted.
    pub context: Option<RecordedContext>,
}

/// [`StampedFile`], borrowed.
#[derive(Clone, Debug, Deserialize)]
pub struct StampView<'a> {
    pub name: &'a str,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub ino: u64,
}

impl Stamp for StampView<'_> {
    fn name(&self) -> &str {
        self.name
    }

    fn file_stamp(&self) -> crate::store::fs::stamp::FileStamp {
        crate::store::fs::stamp::FileStamp {
            size: self.size,
            ino: self.ino,
            mtime_ns: self.mtime_ns,
            ctime_ns: self.ctime_ns,
        }
    }
}

impl<U: Into<UsageByModel>> EntryView<'_, U> {
    /// [`EntryView::stats`], the usage and context moved out rather than
    /// copied (a listing of 10,000 sessions copied each twice).
    pub fn into_stats(self) -> crate::store::index::IndexedStats {
        crate::store::index::IndexedStats {
            bytes: self.bytes,
            messages: self.messages,
            tokens: self.tokens,
            is_active: self.is_active,
            error: self.error.map(str::to_string),
            usage: self.usage.map(|u| Box::new(u.into())),
            context: self.context.map(Box::new),
            cost: None,
        }
    }

    /// The stats it holds.
    pub fn stats(&self) -> crate::store::index::IndexedStats
    where
        U: Clone,
    {
        self.clone().into_stats()
    }
}

impl<'a> ManifestView<'a> {
    /// Decodes `bytes` (from [`read`] in `dir`), checking it is ours for `store`.
    pub fn decode(bytes: &'a [u8], dir: &Path, store: &StoreIdentity) -> Result<Self, Unusable> {
        decode(bytes, dir, store, |m: &ManifestView| {
            (m.format, m.store, m.store_id)
        })
    }
}

/// The header of a manifest walked a session at a time.
struct Header<'a> {
    store: &'a Path,
    store_id: Option<(u64, u64)>,
}

/// What a walk of a manifest's sessions hands them to, one at a time.
pub trait SessionSink<'a, U = UsageByModel> {
    /// How many sessions the manifest holds, told before the first.
    fn expect(&mut self, _sessions: usize) {}
    /// One session, in the manifest's order.
    fn session(&mut self, id: &'a str, entry: EntryView<'a, U>);
}

/// Walks the sessions of a manifest's `bytes` (read from `dir`, checked to
/// be ours for `store` before any session is handed over), `chunk` at a
/// time, to `f`: what is borrowed of a chunk is gone before the next is
/// decoded, so 100k sessions never stand in memory at once.
pub fn walk_sessions<'a>(
    bytes: &'a [u8],
    dir: &Path,
    store: &StoreIdentity,
    chunk: usize,
    f: &mut dyn FnMut(Vec<(&'a str, EntryView<'a>)>),
) -> Result<(), Unusable> {
    let mut chunks = Chunks {
        chunk: chunk.max(1),
        pending: Vec::new(),
        f,
    };
    walk_each(bytes, dir, store, &mut chunks)?;
    if !chunks.pending.is_empty() {
        (chunks.f)(chunks.pending);
    }
    Ok(())
}

/// Sessions gathered `chunk` at a time.
struct Chunks<'w, 'a> {
    chunk: usize,
    pending: Vec<(&'a str, EntryView<'a>)>,
    f: &'w mut dyn FnMut(Vec<(&'a str, EntryView<'a>)>),
}

impl<'a> SessionSink<'a> for Chunks<'_, 'a> {
    fn expect(&mut self, sessions: usize) {
        // A chunk is never made bigger than the sessions there are.
        self.pending.reserve(self.chunk.min(sessions));
    }

    fn session(&mut self, id: &'a str, entry: EntryView<'a>) {
        self.pending.push((id, entry));
        if self.pending.len() == self.chunk {
            let room = self.pending.capacity();
            (self.f)(std::mem::replace(
                &mut self.pending,
                Vec::with_capacity(room),
            ));
        }
    }
}

/// Walks the sessions of a manifest's `bytes` (read from `dir`, checked to
/// be ours for `store` before any session is handed over) to `sink`, one
/// at a time as each is decoded: a listing keeps what it needs of each
/// without a vector of them all in between.
pub fn walk_each<'a, U: Deserialize<'a>>(
    bytes: &'a [u8],
    dir: &Path,
    store: &StoreIdentity,
    sink: &mut dyn SessionSink<'a, U>,
) -> Result<(), Unusable> {
    let path = dir.join(FILE);
    let format = postcard::take_from_bytes::<u32>(bytes).map(|(f, _)| f);
    if let Some(format) = format.ok().filter(|f| *f != FORMAT) {
        return Err(Unusable::Invalid(format!(
            "{} is of format {format}, this version reads {FORMAT}",
            path.display(),
        )));
    }
    let mut header = None;
    let mut foreign = false;
    let walker = Walker {
        store,
        header: &mut header,
        foreign: &mut foreign,
        sink,
    };
    let mut de = postcard::Deserializer::from_bytes(bytes);
    let walked = serde::Deserializer::deserialize_tuple(&mut de, 7, walker);
    if foreign && let Some(h) = &header {
        return Err(Unusable::Invalid(format!(
            "{} indexes {} (device and inode {:?}), not {} ({:?}): another folder's index",
            path.display(),
            h.store.display(),
            h.store_id,
            store.path.display(),
            store.id,
        )));
    }
    walked.map_err(|e| Unusable::Invalid(format!("{} is damaged: {e}", path.display())))
}

struct Walker<'w, 'a, U> {
    store: &'w StoreIdentity,
    header: &'w mut Option<Header<'a>>,
    foreign: &'w mut bool,
    sink: &'w mut dyn SessionSink<'a, U>,
}

impl<'de, 'w, U: Deserialize<'de>> serde::de::Visitor<'de> for Walker<'w, 'de, U> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a manifest")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        use serde::de::Error;
        let missing = || A::Error::custom("the manifest ends early");
        let _format: u32 = seq.next_element()?.ok_or_else(missing)?;
        let store: &'de Path = seq.next_element()?.ok_or_else(missing)?;
        let store_id: Option<(u64, u64)> = seq.next_element()?.ok_or_else(missing)?;
        *self.header = Some(Header { store, store_id });
        if store != self.store.path || store_id != self.store.id {
            *self.foreign = true;
            return Err(A::Error::custom("another folder's index"));
        }
        let _commit: &'de str = seq.next_element()?.ok_or_else(missing)?;
        let _updated_at: f64 = seq.next_element()?.ok_or_else(missing)?;
        let _built_at: f64 = seq.next_element()?.ok_or_else(missing)?;
        seq.next_element_seed(Sessions { sink: self.sink })?
            .ok_or_else(missing)
    }
}

/// The sessions' map, handed over one session at a time.
struct Sessions<'w, 'a, U> {
    sink: &'w mut dyn SessionSink<'a, U>,
}

impl<'de, 'w, U: Deserialize<'de>> serde::de::DeserializeSeed<'de> for Sessions<'w, 'de, U> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'w, U: Deserialize<'de>> serde::de::Visitor<'de> for Sessions<'w, 'de, U> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the indexed sessions")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.sink.expect(map.size_hint().unwrap_or(0));
        while let Some(id) = map.next_key::<&'de str>()? {
            let entry = map.next_value::<EntryView<'de, U>>()?;
            self.sink.session(id, entry);
        }
        Ok(())
    }
}

impl Manifest {
    /// Reads the manifest in `dir`, checking it is ours for `store`.
    pub fn load(dir: &Path, store: &StoreIdentity) -> Result<Manifest, Unusable> {
        let bytes = read(dir)?;
        decode(&bytes, dir, store, |m: &Manifest| {
            (m.format, &m.store, m.store_id)
        })
    }

    /// Writes it atomically into `dir`.
    pub fn save(&self, dir: &Path) -> crate::store::Result<()> {
        let bytes = postcard::to_stdvec(self).map_err(|e| {
            crate::store::StoreError::Failed(format!("cannot write the index manifest: {e}"))
        })?;
        atomic::write_atomic(&dir.join(FILE), &bytes)
    }

    /// Messages indexed in all.
    pub fn documents(&self) -> usize {
        self.sessions.values().map(|e| e.documents).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The borrowed view reads what the owned manifest wrote, field for field
    /// (a field added to one and not the other fails here).
    #[test]
    fn the_view_decodes_what_the_manifest_saved() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = |name: &str, size| StampedFile {
            name: name.into(),
            size,
            mtime_ns: -5 + i128::from(size),
            ctime_ns: 9 + i128::from(size),
            ino: 77,
        };
        let identity = StoreIdentity {
            path: PathBuf::from("/store/users/u/session"),
            id: Some((3, 4)),
        };
        let mut manifest = Manifest {
            format: FORMAT,
            store: identity.path.clone(),
            store_id: identity.id,
            commit: "c1".into(),
            updated_at: 2.5,
            built_at: 1.5,
            ..Manifest::default()
        };
        manifest.sessions.insert(
            "20261129-a".into(),
            Entry {
                name: "fix-it".into(),
                last_used_at: 3.0,
                meta: Some(stamp("meta.json", 10)),
                files: vec![stamp(".", 4096), stamp("session.json", 120)],
                bytes: 999,
                messages: 12,
                tokens: Some(3456),
                is_active: true,
                documents: 11,
                error: Some("broken".into()),
                usage: None,
                context: None,
            },
        );
        manifest.save(dir.path()).unwrap();
        let bytes = read(dir.path()).unwrap();
        let view = ManifestView::decode(&bytes, dir.path(), &identity).unwrap();
        assert_eq!(
            (view.format, view.store, view.store_id, view.commit),
            (FORMAT, manifest.store.as_path(), Some((3, 4)), "c1")
        );
        assert_eq!((view.updated_at, view.built_at), (2.5, 1.5));
        let entry = &view.sessions["20261129-a"];
        let owned = &manifest.sessions["20261129-a"];
        assert_eq!((entry.name, entry.last_used_at), ("fix-it", 3.0));
        let names: Vec<&str> = entry.files.iter().map(|f| f.name).collect();
        assert_eq!(names, [".", "session.json"]);
        let file = &entry.files[1];
        assert_eq!(
            (file.size, file.mtime_ns, file.ctime_ns, file.ino),
            (120, 115, 129, 77)
        );
        assert_eq!(entry.meta.as_ref().map(|m| m.name), Some("meta.json"));
        assert_eq!(entry.documents, 11);
        let stats = entry.stats();
        assert_eq!(
            (stats.bytes, stats.messages, stats.tokens, stats.is_active),
            (owned.bytes, owned.messages, owned.tokens, owned.is_active)
        );
        assert_eq!(stats.error.as_deref(), Some("broken"));
        // Another folder's manifest is refused, as the owned one is: by
        // path, or by device and inode (a folder made again at the same path).
        for other in [
            StoreIdentity {
                path: PathBuf::from("/other"),
                ..identity.clone()
            },
            StoreIdentity {
                id: Some((3, 5)),
                ..identity.clone()
            },
        ] {
            assert!(ManifestView::decode(&bytes, dir.path(), &other).is_err());
            assert!(Manifest::load(dir.path(), &other).is_err());
        }
        // A manifest of another format is named as such.
        let mut old = manifest.clone();
        old.format = 1;
        old.save(dir.path()).unwrap();
        let Err(Unusable::Invalid(why)) = Manifest::load(dir.path(), &identity) else {
            panic!("a manifest of format 1 was used");
        };
        assert!(why.contains("format 1"), "{why}");
    }

    #[test]
    fn a_walk_hands_over_every_session_a_chunk_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let identity = StoreIdentity {
            path: PathBuf::from("/store/users/u/session"),
            id: Some((3, 4)),
        };
        let mut manifest = Manifest {
            format: FORMAT,
            store: identity.path.clone(),
            store_id: identity.id,
            commit: "c1".into(),
            ..Manifest::default()
        };
        for i in 0..7u64 {
            manifest.sessions.insert(
                format!("s{i}"),
                Entry {
                    name: format!("n{i}"),
                    tokens: Some(i * 10),
                    error: (i == 3).then(|| "broken".to_string()),
                    ..Entry::default()
                },
            );
        }
        manifest.save(dir.path()).unwrap();
        let bytes = read(dir.path()).unwrap();
        for chunk in [1, 3, 7, 100] {
            let mut seen = Vec::new();
            let mut sizes = Vec::new();
            walk_sessions(&bytes, dir.path(), &identity, chunk, &mut |part| {
                sizes.push(part.len());
                seen.extend(part.into_iter().map(|(id, e)| (id.to_string(), e.stats())));
            })
            .unwrap();
            let expected: Vec<_> = manifest
                .sessions
                .iter()
                .map(|(id, e)| (id.clone(), e.tokens, e.error.clone()))
                .collect();
            let seen: Vec<_> = seen
                .into_iter()
                .map(|(id, s)| (id, s.tokens, s.error))
                .collect();
            assert_eq!(seen, expected, "chunk {chunk}");
            assert!(sizes.iter().all(|&n| n <= chunk), "{sizes:?}");
        }
        // Another folder's, a damaged one, another format's: refused.
        let other = StoreIdentity {
            path: PathBuf::from("/other"),
            ..identity.clone()
        };
        let mut got = 0;
        let Err(Unusable::Invalid(why)) =
            walk_sessions(&bytes, dir.path(), &other, 2, &mut |p| got += p.len())
        else {
            panic!("another folder's manifest was walked");
        };
        assert!(why.contains("another folder's index"), "{why}");
        assert_eq!(got, 0, "nothing handed over before the check");
        let cut = &bytes[..bytes.len() - 3];
        assert!(walk_sessions(cut, dir.path(), &identity, 2, &mut |_| {}).is_err());
        let mut old = manifest.clone();
        old.format = 1;
        old.save(dir.path()).unwrap();
        let bytes = read(dir.path()).unwrap();
        assert!(walk_sessions(&bytes, dir.path(), &identity, 2, &mut |_| {}).is_err());
    }
}
