//! Sessions kept in our archive (`ops/archive.rs` writes it), read as a
//! source beside the agents' own folders: an entry whose session its agent
//! has deleted is listed (`archived`), searched and read; one whose
//! original is still there is not listed twice. An entry is
//! `<archive>/<agent>/<session id>/`: `manifest.json` and each file of the
//! session compressed (`<n>.zst`). Reading one writes its files, checked
//! against their hashes, into a private temporary folder of the system laid
//! out as the agent's was, reads them there with the agent's own reader,
//! and removes the folder.

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::fs::open;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::record::SessionRecord;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The manifest's format.
pub const FORMAT: u32 = 1;
/// The manifest's name in an entry.
pub const MANIFEST: &str = "manifest.json";

/// One archived file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArchivedFile {
    /// Where it was, relative to the agent's folder.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// Its SHA-256, hex.
    pub sha256: String,
    /// Its modification time then (seconds since the epoch).
    pub mtime: f64,
    /// Its name in the entry (`<n>.zst`).
    pub stored: String,
}

/// An entry's manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Of this layout.
    pub format: u32,
    /// Whose session.
    pub agent: Agent,
    /// Its id.
    pub id: String,
    /// Its title then.
    pub title: String,
    /// The folder it was worked in.
    pub cwd: Option<String>,
    /// Seconds since the epoch.
    pub created_at: f64,
    /// Seconds since the epoch.
    pub last_used_at: f64,
    /// When it was archived.
    pub archived_at: f64,
    /// The agent's folder the paths are relative to.
    pub root: PathBuf,
    /// The session's main file, relative to `root`.
    pub main: PathBuf,
    /// A hash over every file's path and hash: an unchanged session has the same.
    pub content_sha256: String,
    /// Every file, the session's own first.
    pub files: Vec<ArchivedFile>,
}

impl Manifest {
    /// Bytes of the session as it was.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }

    /// True while the agent still has the session (its main file is there).
    pub fn original_is_there(&self) -> bool {
        std::fs::symlink_metadata(self.root.join(&self.main)).is_ok()
    }
}

/// The manifest of the entry folder `entry`.
pub fn read_manifest(entry: &Path) -> Result<Manifest> {
    let path = entry.join(MANIFEST);
    let bytes = crate::store::format::jsonfile::read_no_follow_at_most(&path, 64 << 20)?;
    let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| StoreError::Parse {
        path: path.clone(),
        message: e.to_string(),
    })?;
    if manifest.format != FORMAT || manifest.files.is_empty() {
        return Err(StoreError::Damaged(format!(
            "{}: not an archive manifest this version reads",
            path.display()
        )));
    }
    Ok(manifest)
}

/// The bytes of one stored file, decoded and checked against its hash.
pub fn file_bytes(entry: &Path, file: &ArchivedFile) -> Result<Vec<u8>> {
    let stored = entry.join(&file.stored);
    let bytes = unpack(&stored)?;
    if hex(&Sha256::digest(&bytes)) != file.sha256 || bytes.len() as u64 != file.bytes {
        return Err(StoreError::Damaged(format!(
            "{} in the archive fails its hash (damaged)",
            stored.display()
        )));
    }
    Ok(bytes)
}

fn unpack(path: &Path) -> Result<Vec<u8>> {
    let file = open::regular(path)?;
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(file)
        .and_then(|mut d| d.read_to_end(&mut out))
        .map_err(|e| StoreError::Damaged(format!("{}: not zstd data ({e})", path.display())))?;
    Ok(out)
}

/// Hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// True for a relative path of plain names (no `..`, no root).
pub fn plain_relative(path: &Path) -> bool {
    path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// One agent's part of the archive, `<archive>/<agent>/`.
#[derive(Clone, Debug)]
pub struct ArchivedSessions {
    agent: Agent,
    dir: PathBuf,
}

impl ArchivedSessions {
    /// `agent`'s part of the archive at `archive`.
    pub fn of(agent: Agent, archive: &Path) -> ArchivedSessions {
        ArchivedSessions {
            agent,
            dir: archive.join(agent.name()),
        }
    }

    /// Whose sessions.
    pub fn agent(&self) -> Agent {
        self.agent
    }

    /// The folder of this part.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every entry folder (hidden ones, being written or replaced, left out).
    fn entries(&self) -> Vec<PathBuf> {
        let Ok(listing) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = listing
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        out.sort();
        out
    }

    /// The records of the sessions kept here whose agent no longer has
    /// them; an entry that cannot be read is a damaged record naming why.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        let records: Vec<SessionRecord> = self
            .entries()
            .iter()
            .filter_map(|entry| self.listed(entry))
            .collect();
        if !records.is_empty() {
            on_batch(records);
        }
        Ok(())
    }

    /// The record of `entry`, unless its original is still there.
    fn listed(&self, entry: &Path) -> Option<SessionRecord> {
        match read_manifest(entry) {
            Ok(m) if m.original_is_there() => None,
            Ok(m) => Some(record_of(&m, entry)),
            Err(e) => {
                let raw = entry.file_name()?.to_string_lossy().into_owned();
                Some(SessionRecord {
                    agent: self.agent,
                    archived: true,
                    ..SessionRecord::damaged(
                        &raw,
                        entry.join(MANIFEST),
                        entry.to_path_buf(),
                        &crate::store::sources::agents::user_name(),
                        e.to_string(),
                    )
                })
            }
        }
    }

    /// The record of the entry whose manifest is `path`.
    pub fn record_at(&self, path: &Path) -> Option<SessionRecord> {
        self.listed(path.parent()?)
    }

    /// The sessions listed here by id, with their manifests.
    pub fn ids(&self) -> Vec<(SessionId, PathBuf)> {
        self.entries()
            .into_iter()
            .filter_map(|entry| {
                let m = read_manifest(&entry)
                    .ok()
                    .filter(|m| !m.original_is_there())?;
                let id = SessionId::check(&m.id).ok()?;
                Some((id, entry.join(MANIFEST)))
            })
            .collect()
    }
}

/// The record of an archived session, from its manifest.
fn record_of(m: &Manifest, entry: &Path) -> SessionRecord {
    let id = match SessionId::check(&m.id) {
        Ok(id) => id,
        Err(why) => {
            return SessionRecord {
                agent: m.agent,
                archived: true,
                ..SessionRecord::damaged(
                    &m.id,
                    entry.join(MANIFEST),
                    entry.to_path_buf(),
                    &crate::store::sources::agents::user_name(),
                    why,
                )
            };
        }
    };
    SessionRecord {
        agent: m.agent,
        id,
        name: name_from_prompt(&m.title),
        user: crate::store::sources::agents::user_name(),
        first_prompt: m.title.clone(),
        title: m.title.clone(),
        cwd: m.cwd.clone(),
        created_at: m.created_at,
        last_used_at: m.last_used_at,
        path: entry.join(MANIFEST),
        conversation_dir: entry.to_path_buf(),
        error: None,
        bytes: Some(m.bytes()),
        stamp: None,
        archived: true,
    }
}

/// The archived session `record` read whole: its files laid out again in a
/// private temporary folder (the system's, never the archive: reading
/// leaves the archive as it was), read there by its agent's reader, the
/// folder removed after.
pub fn read(record: &SessionRecord) -> Result<AgentRead> {
    let entry = &record.conversation_dir;
    let m = read_manifest(entry)?;
    let scratch = tempfile::Builder::new()
        .prefix("loki-sessions-read-")
        .tempdir()
        .map_err(|e| StoreError::io("read", entry, e))?;
    for f in &m.files {
        if !plain_relative(&f.path) {
            return Err(StoreError::Unsafe {
                path: f.path.clone(),
                reason: "the archive names a path that climbs out of its folder".into(),
            });
        }
        let to = scratch.path().join(&f.path);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io("create", dir, e))?;
        }
        std::fs::write(&to, file_bytes(entry, f)?).map_err(|e| StoreError::io("write", &to, e))?;
    }
    let main = scratch.path().join(&m.main);
    let laid_out = SessionRecord {
        path: main.clone(),
        conversation_dir: main.parent().unwrap_or(scratch.path()).to_path_buf(),
        archived: false,
        ..record.clone()
    };
    crate::store::sources::agents::read(&laid_out)
}
