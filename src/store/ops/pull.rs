//! A session copied from another machine (`pull SESSION --host NAME`).
//! There, `pack` prints the session's own files as one stream: a header
//! line of JSON naming the agent, the id, the folder it was worked in and
//! each file with its length, then the files' bytes one after another.
//! Here, the stream is checked like any file (every name a plain relative
//! path of the agent's own layout, every length adding up to what came),
//! the folder moved where the project is on this machine when it differs
//! (as `move` does: Claude Code's `cwd` on every line, Codex's
//! `session_meta` and `turn_context`), and the files created where the
//! agent looks for them, never over a file, never beside a session of the
//! same id. Claude Code and Codex sessions only: Gemini CLI files its
//! sessions under a project id of its own registry (as `move` says).

use crate::store::error::{Result, StoreError};
use crate::store::format::SessionId;
use crate::store::format::safe_text::is_unsafe;
use crate::store::fs::atomic;
use crate::store::fs::names::check_component;
use crate::store::ops::moving::{claude_lines, claude_project_name, codex_lines, moved_folder};
use crate::store::sources::agent::Agent;
use crate::store::sources::jsonl;
use crate::store::sources::provider::MoveLayout;
use crate::store::sources::record::SessionRecord;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of the stream's layout.
const PACK_VERSION: u32 = 1;

/// The most a header line may hold.
const HEADER_LIMIT: usize = 1024 * 1024;

/// The most files a session may bring (a Claude Code session's side
/// folder holds its subagents and large tool outputs).
const FILES_LIMIT: usize = 10_000;

/// A session's files, as they travel.
#[derive(Clone, Debug, PartialEq)]
pub struct Pack {
    /// Whose.
    pub agent: Agent,
    /// Its id.
    pub id: String,
    /// The folder it was worked in there.
    pub cwd: String,
    /// Each file: its path relative to the agent's folder (Claude Code:
    /// `<id>.jsonl` and `<id>/…`, beside the project's other sessions;
    /// Codex: `sessions/YYYY/MM/DD/rollout-….jsonl`) and its bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    loki_sessions_pack: u32,
    agent: String,
    id: String,
    cwd: String,
    files: Vec<FileHeader>,
}

#[derive(Serialize, Deserialize)]
struct FileHeader {
    path: String,
    bytes: u64,
}

/// The pack of `record`, a session of this machine whose agent's folder
/// is `agent_root`; refused for agents other than Claude Code and Codex,
/// for a session without a folder, and for a file over the reader's limit.
pub fn pack(record: &SessionRecord, agent_root: &Path) -> Result<Pack> {
    record.not_archived("pulled")?;
    let refused =
        |why: String| StoreError::Invalid(format!("session {} is not packed: {why}", record.id));
    let Ok(layout) = record.agent.provider().move_layout() else {
        return Err(refused(format!(
            "pull takes Claude Code and Codex sessions, not {}'s",
            record.agent.display_name()
        )));
    };
    let cwd = record
        .cwd
        .clone()
        .filter(|c| c.starts_with('/'))
        .ok_or_else(|| refused("it records no folder".into()))?;
    let read = |path: &Path| -> Result<Vec<u8>> {
        let (bytes, _) = jsonl::decoded(path, jsonl::MAX_FILE_BYTES + 1)?;
        if bytes.len() as u64 > jsonl::MAX_FILE_BYTES {
            return Err(refused(format!("{} is over 1 GiB", path.display())));
        }
        Ok(bytes)
    };
    let mut files = Vec::new();
    match layout {
        MoveLayout::ProjectFolder => {
            files.push((format!("{}.jsonl", record.id), read(&record.path)?));
            let side = record.conversation_dir.join(record.id.as_str());
            for file in crate::store::fs::disk::files_below(&side) {
                if let Ok(rel) = file.strip_prefix(&record.conversation_dir) {
                    files.push((rel.to_string_lossy().into_owned(), read(&file)?));
                }
            }
        }
        MoveLayout::FolderInside => {
            let rel = record
                .path
                .strip_prefix(agent_root)
                .ok()
                .map(|r| r.to_string_lossy().into_owned())
                .filter(|r| codex_layout(r))
                .ok_or_else(|| {
                    refused(format!(
                        "{} is not a rollout of Codex's sessions/ folder (an archived or compressed one is restored there first)",
                        record.path.display()
                    ))
                })?;
            files.push((rel, read(&record.path)?));
        }
    }
    Ok(Pack {
        agent: record.agent,
        id: record.id.to_string(),
        cwd,
        files,
    })
}

impl Pack {
    /// The stream: the header line, then every file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = Header {
            loki_sessions_pack: PACK_VERSION,
            agent: self.agent.name().into(),
            id: self.id.clone(),
            cwd: self.cwd.clone(),
            files: self
                .files
                .iter()
                .map(|(path, bytes)| FileHeader {
                    path: path.clone(),
                    bytes: bytes.len() as u64,
                })
                .collect(),
        };
        let mut out = serde_json::to_vec(&header).expect("a header serializes");
        out.push(b'\n');
        for (_, bytes) in &self.files {
            out.extend_from_slice(bytes);
        }
        out
    }

    /// The pack a stream holds, every name and length checked; else why
    /// not.
    pub fn from_bytes(stream: &[u8]) -> std::result::Result<Pack, String> {
        let end = memchr::memchr(b'\n', &stream[..stream.len().min(HEADER_LIMIT)])
            .ok_or("its answer does not start with a pack's header line")?;
        let header: Header = serde_json::from_slice(&stream[..end])
            .map_err(|e| format!("its pack's header is not what it should be ({e})"))?;
        if header.loki_sessions_pack != PACK_VERSION {
            return Err(format!(
                "it packs in layout {}, this reads {PACK_VERSION}",
                header.loki_sessions_pack
            ));
        }
        let agent = header
            .agent
            .parse::<Agent>()
            .ok()
            .filter(|a| a.is_external())
            .and_then(|a| Some((a, a.provider().move_layout().ok()?)));
        let Some((agent, layout)) = agent else {
            return Err(format!(
                "it packed a session of {:?}: pull takes Claude Code and Codex sessions",
                crate::store::format::safe_text::safe_line(&header.agent)
            ));
        };
        let id = SessionId::check(&header.id)?.to_string();
        if !header.cwd.starts_with('/') || header.cwd.chars().any(is_unsafe) {
            return Err("its pack names a folder that is not an absolute path".into());
        }
        if header.files.is_empty() || header.files.len() > FILES_LIMIT {
            return Err(format!(
                "its pack holds {} files (1 to {FILES_LIMIT})",
                header.files.len()
            ));
        }
        let mut rest = &stream[end + 1..];
        let mut files = Vec::with_capacity(header.files.len());
        for (at, file) in header.files.iter().enumerate() {
            let fits = match layout {
                MoveLayout::ProjectFolder if at == 0 => file.path == format!("{id}.jsonl"),
                MoveLayout::ProjectFolder => file.path.starts_with(&format!("{id}/")),
                MoveLayout::FolderInside => at == 0 && codex_layout(&file.path),
            };
            if !fits || !plain_relative(&file.path) {
                return Err(format!(
                    "its pack names a file {:?} outside the session's own",
                    crate::store::format::safe_text::safe_line(&file.path)
                ));
            }
            let len = usize::try_from(file.bytes).unwrap_or(usize::MAX);
            if len > rest.len() {
                return Err("its pack is shorter than its header says".into());
            }
            let (bytes, after) = rest.split_at(len);
            files.push((file.path.clone(), bytes.to_vec()));
            rest = after;
        }
        if !rest.is_empty() {
            return Err("its pack is longer than its header says".into());
        }
        Ok(Pack {
            agent,
            id,
            cwd: header.cwd,
            files,
        })
    }
}

/// What a pull writes, and what it changes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PullPlan {
    /// The session.
    pub id: String,
    /// Whose.
    pub agent: Agent,
    /// The folder it was worked in there.
    pub from_folder: String,
    /// The folder it is worked in here.
    pub to_folder: String,
    /// Its file here.
    pub to_file: PathBuf,
    /// Lines whose folder is rewritten (0 when the folder is the same).
    pub lines_changed: usize,
    /// Bytes written.
    pub bytes: u64,
    /// Every file written, and its bytes (not serialized).
    #[serde(skip)]
    pub writes: Vec<(PathBuf, Vec<u8>)>,
}

/// The pull of `pack` into the agent's folder `agent_root` here, its
/// project in `to` (an absolute folder that is there): nothing written.
pub fn plan(pack: &Pack, agent_root: &Path, to: &Path) -> Result<PullPlan> {
    let Some(to_folder) = to.to_str().filter(|_| to.is_absolute()) else {
        return Err(StoreError::Invalid(format!(
            "{} is not an absolute folder name",
            to.display()
        )));
    };
    if !to.is_dir() {
        return Err(StoreError::Invalid(format!(
            "the folder {to_folder} is not on this machine: name where the project is here with --to DIR"
        )));
    }
    let to_folder = to_folder.trim_end_matches('/').to_string();
    let layout = pack.agent.provider().move_layout().map_err(|why| {
        StoreError::Unsupported(format!(
            "{} sessions are not pulled: {why}",
            pack.agent.display_name()
        ))
    })?;
    let from = pack.cwd.trim_end_matches('/').to_string();
    let moved = |text: &str| moved_folder(text, &from, &to_folder);
    let same = from == to_folder;
    let mut lines_changed = 0;
    let mut writes = Vec::new();
    for (rel, bytes) in &pack.files {
        let data = if same || !rel.ends_with(".jsonl") {
            bytes.clone()
        } else {
            let (new, changed) = match layout {
                MoveLayout::ProjectFolder => claude_lines(bytes, &moved),
                MoveLayout::FolderInside => codex_lines(bytes, &moved),
            };
            lines_changed += changed;
            new
        };
        let path = match layout {
            MoveLayout::ProjectFolder => agent_root.join(claude_project_name(&to_folder)).join(rel),
            MoveLayout::FolderInside => agent_root.join(rel),
        };
        writes.push((path, data));
    }
    if !same && lines_changed == 0 {
        return Err(StoreError::Invalid(format!(
            "no line of session {} names {from}",
            pack.id
        )));
    }
    Ok(PullPlan {
        id: pack.id.clone(),
        agent: pack.agent,
        from_folder: from,
        to_folder,
        to_file: writes[0].0.clone(),
        lines_changed,
        bytes: writes.iter().map(|(_, b)| b.len() as u64).sum(),
        writes,
    })
}

/// Writes what `plan` says: each file created, never over one; one that
/// fails takes back what was written.
pub fn apply(plan: &PullPlan) -> Result<()> {
    for (path, _) in &plan.writes {
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(StoreError::Exists { path: path.clone() });
        }
    }
    let mut written: Vec<PathBuf> = Vec::new();
    for (path, bytes) in &plan.writes {
        let made = match path.parent() {
            Some(parent) => {
                std::fs::create_dir_all(parent).map_err(|e| StoreError::io("create", parent, e))
            }
            None => Ok(()),
        }
        .and_then(|()| atomic::create_new_atomic(path, bytes));
        if let Err(e) = made {
            for p in &written {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
        written.push(path.clone());
    }
    Ok(())
}

/// `sessions/YYYY/MM/DD/rollout-….jsonl`, as Codex files a live rollout.
fn codex_layout(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    matches!(parts.as_slice(), ["sessions", y, m, d, name]
        if digits(y, 4) && digits(m, 2) && digits(d, 2)
            && name.starts_with("rollout-") && name.ends_with(".jsonl"))
}

/// A path of names each of which could be one file name of ours (the
/// ids' own rule: no `.` or `..`, no hidden or empty name), with nothing a
/// terminal acts on (control or bidi characters).
fn plain_relative(rel: &str) -> bool {
    rel.split('/')
        .all(|name| check_component(name, "file name").is_ok() && !name.chars().any(is_unsafe))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0a8f5c1e-1111-4222-8333-944445555666";

    fn claude_pack() -> Pack {
        Pack {
            agent: Agent::Claude,
            id: ID.into(),
            cwd: "/home/ann/app".into(),
            files: vec![
                (
                    format!("{ID}.jsonl"),
                    b"{\"type\":\"user\",\"cwd\":\"/home/ann/app\",\"x\":1.50}\n\xff not utf-8\n"
                        .to_vec(),
                ),
                (
                    format!("{ID}/subagents/agent-1.jsonl"),
                    b"{\"cwd\":\"/home/ann/app/web\"}\n".to_vec(),
                ),
                (
                    format!("{ID}/tool-results/big.txt"),
                    b"/home/ann/app stays".to_vec(),
                ),
            ],
        }
    }

    #[test]
    fn a_pack_comes_back_byte_for_byte() {
        let pack = claude_pack();
        assert_eq!(Pack::from_bytes(&pack.to_bytes()).unwrap(), pack);
    }

    #[test]
    fn names_outside_the_session_and_lengths_that_do_not_add_up_are_refused() {
        let with_path = |path: &str| {
            let mut pack = claude_pack();
            pack.files[1].0 = path.into();
            Pack::from_bytes(&pack.to_bytes())
        };
        for bad in [
            format!("{ID}/../../.bashrc"),
            format!("{ID}/./x"),
            format!("{ID}/.hidden"),
            format!("{ID}//x"),
            "/etc/passwd".to_string(),
            "other/x.jsonl".to_string(),
            format!("{ID}/a\u{1b}b"),
            format!("{ID}/subagents/\u{202e}lmth.jsonl"),
        ] {
            assert!(with_path(&bad).is_err(), "{bad}");
        }
        let bytes = claude_pack().to_bytes();
        assert!(
            Pack::from_bytes(&bytes[..bytes.len() - 1])
                .unwrap_err()
                .contains("shorter")
        );
        let mut longer = bytes.clone();
        longer.push(b'x');
        assert!(Pack::from_bytes(&longer).unwrap_err().contains("longer"));
        let mut pack = claude_pack();
        pack.id = "../x".into();
        pack.files.truncate(0);
        pack.files.push(("../x.jsonl".into(), Vec::new()));
        assert!(Pack::from_bytes(&pack.to_bytes()).is_err());
        assert!(Pack::from_bytes(b"not a header").is_err());
        assert!(codex_layout(
            "sessions/2026/11/30/rollout-2026-11-30T10-00-00-abc.jsonl"
        ));
        assert!(!codex_layout("archived_sessions/rollout-x.jsonl"));
        assert!(!codex_layout("sessions/2026/11/30/rollout-x.jsonl.zst"));
    }

    #[test]
    fn a_pull_to_another_folder_moves_every_cwd_and_keeps_every_other_byte() {
        let tmp = tempfile::tempdir().unwrap();
        let projects = tmp.path().join("projects");
        let to = tmp.path().join("srv app");
        std::fs::create_dir(&to).unwrap();
        let plan = plan(&claude_pack(), &projects, &to).unwrap();
        assert_eq!(plan.lines_changed, 2);
        let folder = projects.join(claude_project_name(to.to_str().unwrap()));
        assert_eq!(plan.to_file, folder.join(format!("{ID}.jsonl")));
        apply(&plan).unwrap();
        let main = std::fs::read(&plan.to_file).unwrap();
        let expected = format!(
            "{{\"type\":\"user\",\"cwd\":{},\"x\":1.50}}\n",
            serde_json::to_string(to.to_str().unwrap()).unwrap()
        );
        assert!(
            main.starts_with(expected.as_bytes()),
            "{}",
            String::from_utf8_lossy(&main)
        );
        assert!(
            main.ends_with(b"\n\xff not utf-8\n"),
            "a line no reader can use is kept"
        );
        assert_eq!(
            std::fs::read(folder.join(ID).join("tool-results/big.txt")).unwrap(),
            b"/home/ann/app stays",
            "only the lines' cwd is moved"
        );
        // A second pull finds the session there and writes nothing.
        assert!(matches!(apply(&plan), Err(StoreError::Exists { .. })));
        // The same folder: every byte as it came.
        let same = tmp.path().join("same");
        std::fs::create_dir(&same).unwrap();
        let mut pack = claude_pack();
        pack.cwd = same.to_str().unwrap().into();
        let kept = super::plan(&pack, &projects, &same).unwrap();
        assert_eq!(kept.lines_changed, 0);
        assert_eq!(kept.writes[0].1, pack.files[0].1);
        // A folder that is not here is refused, saying what to do.
        let missing = super::plan(&claude_pack(), &projects, Path::new("/nowhere/at/all"));
        assert!(missing.unwrap_err().to_string().contains("--to DIR"));
    }
}
