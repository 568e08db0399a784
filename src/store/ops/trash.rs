//! Deleting another agent's session, recoverably: its file, the folder an
//! agent keeps beside it (Claude Code's `<id>/`: `subagents/`,
//! `tool-results/`; Gemini CLI's) and Claude Code's older subagent files
//! are moved (renamed: no byte is copied, times are kept) into an entry of
//! our trash, `$XDG_DATA_HOME/loki-sessions/trash/<entry>/`, whose
//! `entry.json` says where each came from. `restore` renames them back;
//! `delete_for_good` deletes the entries named (those a person was asked
//! about). One change of the trash at a time (`lock`). A session the
//! agent may be writing (changed in the last minutes, or open in a running
//! process) is refused.
//!
//! Every move is made between directories opened beneath the agent's
//! folder and our trash (`fs::beneath`): a path that lies outside, climbs,
//! or passes through a link is refused, and nothing is moved over a name
//! that is taken. Entries are named by a fresh uuid, never by the id a file
//! gave (which `entry.json` keeps).
//!
//! Crash safety: `entry.json` is written (atomically) before anything
//! moves, naming every move and the state (`trashing`, `restoring`); the
//! session file moves first (the session is gone from every listing at
//! once) and comes back last (it is listed only once whole). An entry
//! left half-moved by a kill is finished by the next trash operation.

use crate::store::error::{Result, StoreError};
use crate::store::fs::atomic;
use crate::store::fs::beneath::{Beneath, Kind, OpenDir};
use crate::store::sources::agent::Agent;
use crate::store::sources::provider::{Dependants, FolderSideFiles};
use crate::store::sources::record::SessionRecord;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A session changed this recently may still be written by its agent.
pub const BUSY_SECONDS: f64 = 5.0 * 60.0;

/// One session in the trash.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TrashEntry {
    /// The entry's folder name in the trash (a uuid).
    pub entry: String,
    /// Whose session it is.
    pub agent: Agent,
    /// The session's id.
    pub id: String,
    /// Its title when it was trashed.
    pub title: String,
    /// When it was trashed (seconds since the epoch).
    pub trashed_at: f64,
    /// Apparent bytes of what was moved.
    pub bytes: u64,
    /// What was moved: where it was, and its name in the entry's `files/`.
    pub moves: Vec<Move>,
    /// The agent's folder every move lies beneath (None in entries older
    /// than this field: the store's folder of the agent is taken).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<PathBuf>,
    /// `trashing`, `trashed` or `restoring`.
    pub state: String,
}

/// One file or folder moved into the trash.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Move {
    /// Where it was (and goes back to).
    pub from: PathBuf,
    /// Its name in the entry's `files/`.
    pub stored: String,
}

/// Our trash folder: `$XDG_DATA_HOME/loki-sessions/trash`.
pub fn default_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("loki-sessions").join("trash"))
}

/// The files and folders deleting `record` moves, the session file first.
pub fn belongings(record: &SessionRecord) -> Vec<PathBuf> {
    belongings_given(record, None)
}

/// [`belongings`], what the agent keeps for its sessions in their folder
/// taken from `folder_files` when the caller read the folder once for many
/// sessions (Claude Code's older subagent files).
pub fn belongings_given(
    record: &SessionRecord,
    folder_files: Option<&FolderSideFiles>,
) -> Vec<PathBuf> {
    let mut out = vec![record.path.clone()];
    out.extend(
        record
            .agent
            .provider()
            .trash_belongings(record, folder_files),
    );
    out
}

/// Apparent bytes of `paths` (what [`belongings`] names): a regular file's
/// length, the regular files under a folder.
pub fn bytes_of(paths: &[PathBuf]) -> u64 {
    paths
        .iter()
        .map(|p| match std::fs::symlink_metadata(p) {
            Ok(m) if m.is_file() => m.len(),
            Ok(m) if m.is_dir() => crate::store::fs::disk::tree_facts(p).map_or(0, |f| f.bytes),
            _ => 0,
        })
        .sum()
}

/// Who asked for a session to go: a person naming it may delete one that
/// changed minutes ago once no other process has it open (they are asked,
/// or pass `--yes`); a purge spares every recently changed session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AskedBy {
    /// `delete`, or `d` in the UI.
    Person,
    /// A purge of the agent's sessions.
    Purge,
}

/// Why `record` may not be deleted by a person now, if anything: a
/// damaged listing is fine (it moves unread, recoverably); a session open
/// in a running process other than ours is refused, and so is one changed
/// in the last [`BUSY_SECONDS`] when the running processes cannot be seen;
/// so is one whose "file" is a link, a FIFO or a device, unless
/// `even_damaged` (the person's `--damaged`: the entry itself moves,
/// nothing is opened).
pub fn refusal(record: &SessionRecord, now: f64, even_damaged: bool) -> Option<String> {
    refusal_of(
        record,
        &belongings(record),
        now,
        &Blockers::scan(std::slice::from_ref(record)),
        even_damaged,
        AskedBy::Person,
    )
}

/// What stands in the way of moving sessions, read once for a delete or a
/// purge: the files running processes hold open, and the Codex rollouts
/// other rollouts read their history from (forks by reference).
#[derive(Clone, Debug, Default)]
pub struct Blockers {
    /// The files other running processes hold open.
    pub open: OpenFiles,
    /// Each agent's sessions read by others (Codex's forks by reference).
    dependants: std::collections::HashMap<Agent, Dependants>,
}

impl Blockers {
    /// What stands in the way of moving `records` now.
    pub fn scan(records: &[SessionRecord]) -> Blockers {
        let mut by_agent: std::collections::HashMap<Agent, Vec<&SessionRecord>> =
            std::collections::HashMap::new();
        for r in records {
            by_agent.entry(r.agent).or_default().push(r);
        }
        let dependants = by_agent
            .into_iter()
            .map(|(agent, mine)| (agent, agent.provider().dependants(&mine)))
            .filter(|(_, d)| !d.is_empty())
            .collect();
        Blockers {
            open: OpenFiles::scan(),
            dependants,
        }
    }

    /// Why `record` must stay for the others' sake, if it must.
    fn needed(&self, record: &SessionRecord) -> Option<String> {
        let dependants = self.dependants.get(&record.agent)?;
        record.agent.provider().kept_for(record, dependants)
    }
}

/// Seconds since `record`'s file changed, when that is under
/// [`BUSY_SECONDS`] (what the person deleting it is told).
pub fn changed_recently(record: &SessionRecord, now: f64) -> Option<u64> {
    let meta = std::fs::symlink_metadata(&record.path).ok()?;
    let age = now - seconds(meta.modified().ok()?);
    (age < BUSY_SECONDS).then(|| age.max(0.0) as u64)
}

fn seconds(t: std::time::SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// [`refusal`] of `record` whose [`belongings`] are `files`, with the
/// files running processes hold open read once beforehand (a purge asks
/// it of many sessions).
pub fn refusal_of(
    record: &SessionRecord,
    files: &[PathBuf],
    now: f64,
    blockers: &Blockers,
    even_damaged: bool,
    asked_by: AskedBy,
) -> Option<String> {
    let open = &blockers.open;
    let meta = match std::fs::symlink_metadata(&record.path) {
        Ok(m) => m,
        Err(e) => return Some(format!("{} cannot be read: {e}", record.path.display())),
    };
    if !meta.is_file() && !even_damaged {
        return Some(format!(
            "{} is not a regular file (pass --damaged to move it to the trash unread)",
            record.path.display()
        ));
    }
    if let Some(why) = blockers.needed(record) {
        return Some(why);
    }
    if let Some(pid) = open.holder(files) {
        return Some(format!(
            "process {pid} has it open ({} may be running on it)",
            record.agent.display_name()
        ));
    }
    let age = now - meta.modified().map_or(0.0, seconds);
    let person_may = asked_by == AskedBy::Person && open.seen;
    if age < BUSY_SECONDS && !person_may {
        let unseen = if open.seen {
            ""
        } else {
            " (which processes have it open cannot be seen here)"
        };
        return Some(format!(
            "it changed {} seconds ago: {} may still be writing to it (wait {} minutes){unseen}",
            age.max(0.0) as u64,
            record.agent.display_name(),
            (BUSY_SECONDS / 60.0) as u64
        ));
    }
    None
}

/// The files other running processes hold open (`/proc/*/fd`), read once.
/// Our own processes (a `loki-sessions watch` reading the file) are not
/// counted: they never write to another agent's session.
#[derive(Clone, Debug, Default)]
pub struct OpenFiles {
    open: Vec<(u32, PathBuf)>,
    /// False when `/proc` could not be read: nobody is known to hold
    /// anything, which proves nothing.
    seen: bool,
}

impl OpenFiles {
    /// Reads what every other process has open now.
    pub fn scan() -> OpenFiles {
        Self::scan_in(Path::new("/proc"))
    }

    fn scan_in(proc_root: &Path) -> OpenFiles {
        let me = std::process::id();
        let my_exe = std::fs::read_link(proc_root.join("self/exe")).ok();
        let mut open = Vec::new();
        let Ok(procs) = std::fs::read_dir(proc_root) else {
            return OpenFiles { open, seen: false };
        };
        for proc_entry in procs.flatten() {
            let Some(pid) = proc_entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if pid == me || is_ours(&proc_entry.path(), my_exe.as_deref()) {
                continue;
            }
            let Ok(fds) = std::fs::read_dir(proc_entry.path().join("fd")) else {
                continue;
            };
            open.extend(
                fds.flatten()
                    .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                    .map(|path| (pid, path)),
            );
        }
        OpenFiles { open, seen: true }
    }

    /// A process holding one of `paths` (or a file under one) open.
    pub fn holder(&self, paths: &[PathBuf]) -> Option<u32> {
        let targets: Vec<PathBuf> = paths.iter().filter_map(|p| p.canonicalize().ok()).collect();
        self.open
            .iter()
            .find(|(_, open)| targets.iter().any(|t| open.starts_with(t)))
            .map(|(pid, _)| *pid)
    }
}

/// True for a process running loki-sessions (this program, another
/// build of it), or this very program: a child this process forked holds
/// every file we have open until it runs what it was forked for, and is
/// no agent writing to them.
fn is_ours(proc_dir: &Path, my_exe: Option<&Path>) -> bool {
    std::fs::read_link(proc_dir.join("exe")).is_ok_and(|exe| {
        Some(exe.as_path()) == my_exe
            || exe
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("loki-sessions"))
    })
}

fn entry_file(trash: &Path, entry: &str) -> PathBuf {
    trash.join(entry).join("entry.json")
}

fn write_entry(trash: &Path, e: &TrashEntry) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(e).expect("an entry serializes");
    atomic::write_atomic(&entry_file(trash, &e.entry), &bytes)
}

/// The entry's `files/` folder, opened beneath the trash.
fn stored_dir(trash: &Path, entry: &str) -> Result<OpenDir> {
    Beneath::open(trash)?.dir(&trash.join(entry).join("files"), false)
}

/// A stored name is one plain name of ours: anything else in an
/// `entry.json` is refused before it names a path.
fn stored_name(m: &Move) -> Result<&std::ffi::OsStr> {
    let name = std::ffi::OsStr::new(&m.stored);
    match Path::new(name).components().collect::<Vec<_>>().as_slice() {
        [std::path::Component::Normal(n)] if *n == name => Ok(name),
        _ => Err(StoreError::Invalid(format!(
            "the trash names a stored file {:?} that is not a plain name; nothing was moved",
            m.stored
        ))),
    }
}

/// Moves `from` (beneath `root`) into `files` as `stored`; `first` is the
/// session file, which must be a regular file unless `even_damaged`.
fn move_in(
    root: &Beneath,
    from: &Path,
    files: &OpenDir,
    stored: &std::ffi::OsStr,
    first: bool,
    even_damaged: bool,
) -> Result<()> {
    let (parent, name) = root.parent_of(from, false)?;
    let kind = parent.kind_of(name)?;
    let fits = match kind {
        None => {
            return Err(StoreError::NotFound(format!(
                "{} is not there",
                from.display()
            )));
        }
        Some(Kind::File) => true,
        Some(Kind::Dir) => !first,
        Some(Kind::Other) => first && even_damaged,
    };
    if !fits {
        return Err(StoreError::Invalid(format!(
            "{} is not what was listed (a link or a special file?); nothing was moved",
            from.display()
        )));
    }
    parent.move_to(name, files, stored)
}

/// Moves `record` into the trash at `trash`; refuses a busy session.
/// `root` is its agent's folder, which every move must lie beneath.
pub fn trash(
    trash: &Path,
    root: &Path,
    record: &SessionRecord,
    now: f64,
    even_damaged: bool,
) -> Result<TrashEntry> {
    trash_unless_busy(trash, root, record, now, even_damaged, AskedBy::Person)?.map_err(|why| {
        StoreError::Invalid(format!(
            "{} session {} was not deleted: {why}",
            record.agent.display_name(),
            record.id
        ))
    })
}

/// [`trash`], a busy session answered as `Ok(Err(why))` (a purge skips it
/// and goes on) rather than as an error.
pub fn trash_unless_busy(
    trash: &Path,
    root: &Path,
    record: &SessionRecord,
    now: f64,
    even_damaged: bool,
    asked_by: AskedBy,
) -> Result<std::result::Result<TrashEntry, String>> {
    let why = refusal_of(
        record,
        &belongings(record),
        now,
        &Blockers::scan(std::slice::from_ref(record)),
        even_damaged,
        asked_by,
    );
    if let Some(why) = why {
        return Ok(Err(why));
    }
    let root = Beneath::open(root)?;
    let moves: Vec<Move> = belongings(record)
        .into_iter()
        .enumerate()
        .map(|(n, from)| Move {
            stored: format!(
                "{n}-{}",
                from.file_name().unwrap_or_default().to_string_lossy()
            ),
            from,
        })
        .collect();
    // Every path is checked before anything moves.
    for m in &moves {
        root.parent_of(&m.from, false)?;
        stored_name(m)?;
    }
    let _held = lock::hold(trash)?;
    finish_half_done(trash, None);
    let name = uuid::Uuid::new_v4().simple().to_string();
    let dir = trash.join(&name);
    atomic::create_private_dir(&dir)?;
    atomic::create_private_dir(&dir.join("files"))?;
    let mut entry = TrashEntry {
        entry: name,
        agent: record.agent,
        id: record.id.to_string(),
        title: record.shown_name().to_string(),
        trashed_at: now,
        bytes: bytes_of(&moves.iter().map(|m| m.from.clone()).collect::<Vec<_>>()),
        moves,
        root: Some(root.root().to_path_buf()),
        state: "trashing".into(),
    };
    write_entry(trash, &entry)?;
    atomic::sync_dir(trash)?;
    let files = stored_dir(trash, &entry.entry)?;
    for (n, m) in entry.moves.iter().enumerate() {
        if let Err(e) = move_in(
            &root,
            &m.from,
            &files,
            stored_name(m)?,
            n == 0,
            even_damaged,
        ) {
            // What moved goes back: a failed delete leaves the session whole.
            let _ = put_back(trash, &root, &entry);
            return Err(e);
        }
    }
    entry.state = "trashed".into();
    write_entry(trash, &entry)?;
    Ok(Ok(entry))
}

/// Every entry of the trash, oldest first (half-moved ones finished first).
pub fn list(trash: &Path) -> Vec<TrashEntry> {
    recover(trash);
    let mut out: Vec<TrashEntry> = read_entries(trash).into_iter().map(|(e, _)| e).collect();
    out.sort_by(|a, b| a.trashed_at.total_cmp(&b.trashed_at));
    out
}

fn read_entries(trash: &Path) -> Vec<(TrashEntry, PathBuf)> {
    let Ok(dirs) = std::fs::read_dir(trash) else {
        return Vec::new();
    };
    dirs.flatten()
        .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|d| !d.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|d| {
            let name = d.file_name().to_string_lossy().into_owned();
            let bytes = std::fs::read(entry_file(trash, &name)).ok()?;
            let e: TrashEntry = serde_json::from_slice(&bytes).ok()?;
            Some((e, d.path()))
        })
        .collect()
}

/// Finishes what a killed trash or restore left half done, unless another
/// change of the trash is under way (then it is that change's work).
pub fn recover(trash: &Path) {
    if let Some(_held) = lock::try_hold(trash) {
        finish_half_done(trash, None);
    }
}

/// The folder `e`'s moves must lie beneath: the one it recorded, else
/// (an entry older than that field) `fallback`, else the agent's folder
/// read off the session file's path as each agent lays them out.
fn root_of(e: &TrashEntry, fallback: Option<&Path>) -> Option<PathBuf> {
    if let Some(root) = &e.root {
        return Some(root.clone());
    }
    if let Some(root) = fallback {
        return Some(root.to_path_buf());
    }
    let file = &e.moves.first()?.from;
    e.agent.provider().root_of_file(file)
}

/// Finishes what a killed trash or restore left half done: a `trashing`
/// entry moves the rest in, a `restoring` one puts the rest back, and a
/// temp file a kill left beside an `entry.json` goes. The caller holds
/// the trash; `fallback` is the agent folder for entries that name none.
fn finish_half_done(trash: &Path, fallback: Option<&Path>) {
    if let Ok(dirs) = std::fs::read_dir(trash) {
        for d in dirs.flatten() {
            if d.file_name().to_string_lossy().starts_with(".removing-") {
                let _ = std::fs::remove_dir_all(d.path());
            }
        }
    }
    // An entry a kill left before its entry.json: nothing of it moved yet.
    if let Ok(dirs) = std::fs::read_dir(trash) {
        for d in dirs.flatten() {
            let name = d.file_name().to_string_lossy().into_owned();
            let files = d.path().join("files");
            let empty = std::fs::read_dir(&files).map_or(true, |mut f| f.next().is_none());
            if !name.starts_with('.') && !entry_file(trash, &name).exists() && empty {
                let _ = std::fs::remove_dir_all(d.path());
            }
        }
    }
    for (mut e, dir) in read_entries(trash) {
        atomic::remove_stale_temps(&dir);
        let Some(root) = root_of(&e, fallback).and_then(|r| Beneath::open(&r).ok()) else {
            continue;
        };
        match e.state.as_str() {
            "trashing" => {
                let Ok(files) = stored_dir(trash, &e.entry) else {
                    continue;
                };
                let done = e.moves.iter().enumerate().all(|(n, m)| {
                    let Ok(stored) = stored_name(m) else {
                        return false;
                    };
                    files.kind_of(stored).is_ok_and(|k| k.is_some())
                        || move_in(&root, &m.from, &files, stored, n == 0, true).is_ok()
                        || std::fs::symlink_metadata(&m.from).is_err()
                });
                if done {
                    e.state = "trashed".into();
                    let _ = write_entry(trash, &e);
                }
            }
            "restoring" => {
                let _ = put_back(trash, &root, &e);
            }
            _ => {}
        }
    }
}

/// The entries whose session id starts with `arg` (an id or a unique prefix).
pub fn find(trash: &Path, arg: &str) -> Result<TrashEntry> {
    let all = list(trash);
    if let Some(e) = all.iter().rev().find(|e| e.id == arg || e.entry == arg) {
        return Ok(e.clone());
    }
    let hits: Vec<&TrashEntry> = all.iter().filter(|e| e.id.starts_with(arg)).collect();
    match hits.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(StoreError::NotFound(format!(
            "no session {arg} in the trash ({})",
            trash.display()
        ))),
        many => Err(StoreError::Invalid(format!(
            "{arg} names {} sessions in the trash: {}",
            many.len(),
            many.iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Puts `entry` back where it came from, exactly (renamed back: bytes and
/// times as they were), every folder on the way reached without following
/// a link; refuses if something now has one of its names. `fallback` is
/// the agent's folder for an entry that names none.
pub fn restore(trash: &Path, entry: &TrashEntry, fallback: Option<&Path>) -> Result<()> {
    let _held = lock::hold(trash)?;
    // As it is now: another process may have restored or deleted it since
    // it was found.
    let Some(entry) = read_entries(trash)
        .into_iter()
        .map(|(e, _)| e)
        .find(|e| e.entry == entry.entry && e.state == "trashed")
    else {
        return Err(StoreError::NotFound(format!(
            "session {} is no longer in the trash ({}): restored or deleted meanwhile",
            entry.id,
            trash.display()
        )));
    };
    let root = root_of(&entry, fallback).ok_or_else(|| {
        StoreError::Invalid(format!(
            "the trash does not say which {} folder session {} came from; it is left in the trash",
            entry.agent.display_name(),
            entry.id
        ))
    })?;
    let root = Beneath::open(&root)?;
    for m in &entry.moves {
        stored_name(m)?;
        root.names(&m.from)?;
        if std::fs::symlink_metadata(&m.from).is_ok() {
            return Err(StoreError::Invalid(format!(
                "{} is there again, so session {} is not restored over it",
                m.from.display(),
                entry.id
            )));
        }
    }
    let mut e = entry.clone();
    e.state = "restoring".into();
    write_entry(trash, &e)?;
    put_back(trash, &root, &e)
}

fn put_back(trash: &Path, root: &Beneath, e: &TrashEntry) -> Result<()> {
    let dir = trash.join(&e.entry);
    // No `files/` beside a `restoring` entry: a restore made by an older
    // build was killed while removing the entry, after every file was back.
    if std::fs::symlink_metadata(dir.join("files")).is_ok() {
        let files = stored_dir(trash, &e.entry)?;
        // The session file last: listed only once its belongings are back.
        for m in e.moves.iter().rev() {
            let stored = stored_name(m)?;
            if files.kind_of(stored)?.is_some() {
                let (parent, name) = root.parent_of(&m.from, true)?;
                files.move_to(stored, &parent, name)?;
            }
        }
    }
    remove_entry(trash, &e.entry)
}

/// Removes the entry `entry` from the trash: renamed to a hidden name
/// first, so a kill midway never leaves a listed entry without its files
/// (which `trash` would show while the session is back in its place).
fn remove_entry(trash: &Path, entry: &str) -> Result<()> {
    let dir = trash.join(entry);
    let hidden = trash.join(format!(".removing-{entry}"));
    std::fs::rename(&dir, &hidden).map_err(|err| StoreError::io("remove", &dir, err))?;
    atomic::sync_dir(trash)?;
    std::fs::remove_dir_all(&hidden).map_err(|err| StoreError::io("remove", &hidden, err))
}

/// Deletes for good the entries named `entries` (their folder names in
/// the trash: what a person was shown and said yes to, never what was
/// trashed since); returns those deleted. A name no longer in the trash,
/// or an entry a trash or restore is still busy with, is left alone.
pub fn delete_for_good(trash: &Path, entries: &[String]) -> Result<Vec<TrashEntry>> {
    let asked: std::collections::HashSet<&str> = entries.iter().map(String::as_str).collect();
    let mut gone = Vec::new();
    if !trash.is_dir() {
        return Ok(gone);
    }
    let _held = lock::hold(trash)?;
    finish_half_done(trash, None);
    for (e, _) in read_entries(trash) {
        if e.state != "trashed" || !asked.contains(e.entry.as_str()) {
            continue;
        }
        remove_entry(trash, &e.entry)?;
        gone.push(e);
    }
    Ok(gone)
}

/// The entries `trash --empty` deletes: every one trashed at least
/// `older_than` seconds before `now` (all for None).
pub fn trashed_before(
    entries: &[TrashEntry],
    older_than: Option<f64>,
    now: f64,
) -> Vec<&TrashEntry> {
    entries
        .iter()
        .filter(|e| older_than.is_none_or(|age| now - e.trashed_at >= age))
        .collect()
}

mod lock;

#[cfg(test)]
mod tests;
