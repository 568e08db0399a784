//! Claude Code's sessions: `<projects>/<project folder>/<session id>.jsonl`,
//! one line per event. Subagents write their own files, shown with their
//! parent session and never as sessions of their own:
//! `<session id>/subagents/agent-*.jsonl`, or (older versions)
//! `agent-*.jsonl` beside the sessions, naming their parent in `sessionId`.
//! Read only; the format is stated in `docs/FORMATS.md`.

mod blocks;
pub(crate) mod chain;
mod command;
pub mod fork;
pub(crate) mod line;
mod listing;
pub mod provider;
mod usage;

use crate::store::error::Result;
use crate::store::sources::agent_read::{AgentRead, RecordedContext, Thread, parse_time};
use crate::store::sources::claude::chain::Parsed;
use crate::store::sources::claude::line::{KNOWN_TYPES, Line};
use crate::store::sources::jsonl::{self, Skipped};
use crate::store::sources::listing_cache::ListingCache;
use crate::store::sources::parsed::read_parsed;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// The prefix of a subagent's file name.
const AGENT_PREFIX: &str = "agent-";

/// Claude Code's `projects` folder. Opening does no I/O.
#[derive(Clone, Debug)]
pub struct ClaudeProjects {
    dir: PathBuf,
}

impl ClaudeProjects {
    /// The folder `dir` (`~/.claude/projects`).
    pub fn open(dir: &Path) -> ClaudeProjects {
        ClaudeProjects {
            dir: dir.to_path_buf(),
        }
    }

    /// Every session file, project by project (subagents' files left out),
    /// and whether a folder of the session's name lies beside it; a folder
    /// `cache` knows as it is now (at `now`) is not read again.
    fn session_files_by_project(
        &self,
        cache: &ListingCache,
        now: f64,
    ) -> Vec<(PathBuf, Vec<(PathBuf, bool)>)> {
        // The project folders are read on every core: a listing of 10,000
        // sessions spends much of its time reading folders.
        crate::store::parallel::map_ordered(&plain_dirs(&self.dir), |project| {
            // The folder's stamp is taken before it is read: a name added
            // after the look changes it, and the next listing reads again.
            let st = cache
                .is_on()
                .then(|| rustix::fs::lstat(project).ok())
                .flatten();
            if let Some(st) = &st
                && let Some(entries) = cache.recall_folder(project, st)
            {
                // Only names a reading could have kept (the cache is ours,
                // but what a file says is checked all the same).
                let files = entries
                    .filter(|(name, _)| is_session_name(name))
                    .map(|(name, side)| (project.join(name), side))
                    .collect();
                return (project.clone(), files);
            }
            let mut out = Vec::new();
            // One reading of the folder: its session files and the folders
            // beside them.
            let (dirs, files) = dirs_and_files(project);
            let sides: std::collections::HashSet<&std::ffi::OsStr> =
                dirs.iter().filter_map(|d| d.file_name()).collect();
            // Links and other oddities named like sessions are listed (as
            // damaged, by the record) rather than silently missing.
            for file in files {
                let name = file.file_name().map(|n| n.to_string_lossy());
                let Some(name) = name else { continue };
                if is_session_name(&name) {
                    let side = file.file_stem().is_some_and(|s| sides.contains(s));
                    out.push((file, side));
                }
            }
            if let Some(st) = &st {
                // Names that are not UTF-8 are not kept: the folder is read
                // at each listing.
                let names: Option<Vec<(&str, bool)>> = out
                    .iter()
                    .map(|(f, side)| Some((f.file_name()?.to_str()?, *side)))
                    .collect();
                if let Some(names) = names {
                    cache.remember_folder(project, st, &names, now);
                }
            }
            (project.clone(), out)
        })
    }

    /// The record of each session file, in batches as they are read; a
    /// file `cache` knows as it is now is not opened.
    pub fn scan(
        &self,
        cache: &ListingCache,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        let now = crate::store::clock::now_seconds();
        let mut projects = Vec::new();
        let mut files = Vec::new();
        for (project, sessions) in self.session_files_by_project(cache, now) {
            let at = projects.len();
            files.extend(sessions.into_iter().map(|(f, side)| (f, side, at)));
            projects.push(project);
        }
        for chunk in files.chunks(2_000) {
            let batch = crate::store::parallel::map_ordered_with(
                chunk,
                || OpenFolder::None,
                |open, (f, side, at)| {
                    let dir = open.of(&projects, *at);
                    if cache.is_on()
                        && let Some(st) = stat_no_follow(dir, f)
                        && let Some(remembered) = cache.recall(f, &st)
                    {
                        return listing::record_recalled(f, Some(*side), &st, remembered);
                    }
                    let (record, st) = listing::record_in(dir, f, Some(*side));
                    if let Some(st) = st {
                        cache.remember(f, &st, &record, now);
                    }
                    record
                },
            );
            if !on_batch(batch) {
                break;
            }
        }
        Ok(())
    }

    /// Every session file (its name is the session's id).
    pub fn session_paths(&self) -> Vec<PathBuf> {
        self.session_files_by_project(&ListingCache::off(), 0.0)
            .into_iter()
            .flat_map(|(_, files)| files.into_iter().map(|(f, _)| f))
            .collect()
    }

    /// The record of one session file.
    pub fn record_at(path: &Path) -> SessionRecord {
        listing::record(path, None)
    }

    /// The session `record` read whole: its conversation, its subagents'
    /// and side conversations, its usage, and what could not be read.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let mut parsed = parse_file(&record.path)?;
        let mut spent = std::mem::take(&mut parsed.spent);
        // Each subagent's file is built as soon as it is parsed; its usage
        // waits for the total.
        let subagents: Vec<Result<FileRead>> = subagent_files(record)
            .into_iter()
            .map(|path| {
                let mut sub = parse_file(&path)?;
                spent.append(&mut sub.spent);
                build_file(sub, &path, true)
            })
            .collect();
        // A long session's usage is summed on another core while its
        // conversation is built; a short one's on this thread (an index's
        // update reads thousands of them, and a thread each costs more
        // than the sum).
        let (file, usage) = if spent.len() < SUM_BESIDE_FROM {
            (
                build_file(parsed, &record.path, false),
                usage::total(&spent),
            )
        } else {
            std::thread::scope(|scope| {
                let usage = scope.spawn(|| usage::total(&spent));
                let file = build_file(parsed, &record.path, false);
                let usage = usage
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                (file, usage)
            })
        };
        let mut file = file?;
        let mut others = std::mem::take(&mut file.sides);
        for sub in subagents {
            match sub {
                Ok(sub) => {
                    file.skipped.absorb(sub.skipped);
                    others.push(sub.main);
                }
                Err(e) => file
                    .skipped
                    .other
                    .push(format!("a subagent's file could not be read: {e}")),
            }
        }
        Ok(AgentRead {
            main: file.main,
            others,
            usage,
            title: file.title,
            skipped: file.skipped,
            context: file.context,
        })
    }

    /// The last messages of `record` from the end of its file alone (for a
    /// preview: a long session is not read whole for it). Lines of side
    /// conversations are left out; the chain is not followed.
    pub fn tail(record: &SessionRecord, bytes: usize) -> Result<crate::store::format::Context> {
        let ends = jsonl::head_and_tail(&record.path, 0, bytes)?;
        let mut lines: Vec<Parsed> = ends
            .tail_lines_rev()
            .into_iter()
            .rev()
            .enumerate()
            .filter_map(|(n, b)| {
                let line = Box::new(Line::parse_with_parts(b)?);
                let span = jsonl::LineSpan {
                    line: n as u32 + 1,
                    offset: 0,
                    len: 0,
                };
                Some(Parsed { span, line })
            })
            .filter(|p| p.line.is_message() && !p.line.sidechain())
            .collect();
        let order: Vec<usize> = (0..lines.len()).collect();
        let built = chain::messages(&mut lines, &order, &mut Skipped::default());
        Ok(built.finish(&record.id, None, &record.path)?.context)
    }

    /// The files of a session's subagents, new layout and old.
    pub fn subagents(record: &SessionRecord) -> Vec<PathBuf> {
        subagent_files(record)
    }

    /// The older layout's subagent files lying in the project folder
    /// `folder`, by the session each names: each head read once, for a
    /// caller asking about every session of the folder (a purge).
    pub fn old_subagents(folder: &Path) -> OldSubagents {
        let mut by_session = OldSubagents::new();
        for old in plain_files(folder).into_iter().filter(|p| is_agent_file(p)) {
            for id in head_session_ids(&old) {
                by_session.entry(id).or_default().push(old.clone());
            }
        }
        by_session
    }

    /// [`ClaudeProjects::subagents`], the older layout's files taken from
    /// `old` (what [`ClaudeProjects::old_subagents`] found in its folder).
    pub fn subagents_given(record: &SessionRecord, old: &OldSubagents) -> Vec<PathBuf> {
        let mut out = new_layout_subagents(record);
        out.extend(old.get(record.id.as_str()).into_iter().flatten().cloned());
        out.sort();
        out.dedup();
        out
    }
}

/// Older-layout subagent files of a project folder, by the session id
/// their first lines name.
pub type OldSubagents = std::collections::HashMap<String, Vec<PathBuf>>;

/// The session ids the first lines of the subagent file `path` name.
fn head_session_ids(path: &Path) -> Vec<String> {
    let Ok((head, _, _)) = jsonl::head(path, 16 * 1024) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = head
        .split(|b| *b == b'\n')
        .take(5)
        .filter_map(Line::parse)
        .filter_map(|l| l.session_id)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn new_layout_subagents(record: &SessionRecord) -> Vec<PathBuf> {
    plain_files(&record.conversation_dir.join(&record.id).join("subagents"))
        .into_iter()
        .filter(|p| is_agent_file(p))
        .collect()
}

/// The project folder a listing thread has open: its files are looked at
/// by name in it. Each thread holds one folder at a time, its files being
/// consecutive. Every folder held open at once (300 in the bench) grew the
/// process's table of open files while other threads ran, and each growth
/// waits until every core has passed a quiescent point (an RCU grace
/// period): 8 ms of a 57 ms listing with the index (the `list` row of
/// `docs/PERFORMANCE.md`). A thousand folders would also have run out of
/// descriptors.
enum OpenFolder {
    None,
    /// The project's place, and the folder (None when it cannot be
    /// opened: its files are then looked at by path).
    At(usize, Option<rustix::fd::OwnedFd>),
}

impl OpenFolder {
    /// The folder of project `at` of `projects`, opened unless it is the
    /// one held (the one held before it is closed).
    fn of(&mut self, projects: &[PathBuf], at: usize) -> Option<&rustix::fd::OwnedFd> {
        if !matches!(self, OpenFolder::At(held, _) if *held == at) {
            use rustix::fs::{CWD, Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let dir = projects
                .get(at)
                .and_then(|p| rustix::fs::openat(CWD, p, flags, Mode::empty()).ok());
            *self = OpenFolder::At(at, dir);
        }
        match self {
            OpenFolder::At(_, dir) => dir.as_ref(),
            OpenFolder::None => None,
        }
    }
}

/// What the entry at `path` (in its open folder `dir`, if open) is, a link
/// not followed.
fn stat_no_follow(dir: Option<&rustix::fd::OwnedFd>, path: &Path) -> Option<rustix::fs::Stat> {
    use rustix::fs::AtFlags;
    match (dir, path.file_name()) {
        (Some(dir), Some(name)) => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok(),
        _ => rustix::fs::lstat(path).ok(),
    }
}

/// One file read whole.
struct FileRead {
    main: Thread,
    /// The context of the main chain's last request.
    context: Option<RecordedContext>,
    sides: Vec<Thread>,
    title: Option<String>,
    skipped: Skipped,
}

/// Lines with usage from which a session's usage is summed on a thread of
/// its own (the 100 MB bench session has about 7,000; a sum of that many
/// takes about 4 ms).
const SUM_BESIDE_FROM: usize = 1_000;

/// One file's lines as parsed, with the usage each carries.
struct ParsedFile {
    lines: Vec<Parsed>,
    spent: Vec<usage::Spent>,
    skipped: Skipped,
}

/// Reads and parses one file (a session's or a subagent's) on every core.
fn parse_file(path: &Path) -> Result<ParsedFile> {
    // Each line's usage is taken as it is parsed, on every core.
    let read = read_parsed(path, |bytes| {
        let line = Box::new(Line::parse_with_parts(bytes)?);
        let spent = usage::spent_of(&line);
        Some((line, spent))
    })?;
    let mut skipped = read.skipped;
    let mut lines: Vec<Parsed> = Vec::with_capacity(read.lines.len());
    let mut spent = Vec::new();
    for (span, (line, spent_here)) in read.lines {
        spent.extend(spent_here);
        if !KNOWN_TYPES.contains(&line.kind()) {
            skipped.unknown_type(if line.kind().is_empty() {
                "(no type)"
            } else {
                line.kind()
            });
        }
        lines.push(Parsed { span, line });
    }
    Ok(ParsedFile {
        lines,
        spent,
        skipped,
    })
}

/// One parsed file's conversation: a session's (`subagent` false) or a
/// subagent's.
fn build_file(parsed: ParsedFile, path: &Path, subagent: bool) -> Result<FileRead> {
    let ParsedFile {
        mut lines,
        mut skipped,
        ..
    } = parsed;
    let title = title_of(&lines);
    if !subagent {
        skipped.other.extend(moves_of(&lines));
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Each uuid's first line, found once for the main chain and the side ones.
    let uuids = chain::Uuids::new(&lines);
    let order = chain::main_chain(&lines, &uuids, subagent, &mut skipped);
    // The main chain's last request, as the API saw it (read before the
    // lines give their content to the messages).
    let last_request = order.iter().rev().find_map(|&i| {
        let line = &lines[i].line;
        let u = line.message_field("usage").and_then(usage::read_usage)?;
        Some((
            lines[i].span.line,
            RecordedContext {
                tokens: u.prompt(),
                at: line.timestamp.as_deref().and_then(parse_time),
                window: None,
                model: line.model().unwrap_or("").to_string(),
                messages_seen: 0,
                counted_after: 0,
            },
        ))
    });
    let sides = if subagent {
        Vec::new()
    } else {
        chain::side_chains(&lines, &uuids, &mut skipped)
    };
    let built = chain::messages(&mut lines, &order, &mut skipped);
    let main = built.finish(&stem, None, path)?;
    let mut side_threads = Vec::new();
    // Side chains that branch from one start share its lines, and building
    // a chain's messages takes its lines' content: a chain whose lines a
    // later one uses again is built from copies of them.
    let mut uses = vec![0u32; lines.len()];
    for &i in sides.iter().flatten() {
        uses[i] += 1;
    }
    for (n, side) in sides.iter().enumerate() {
        let agent = side
            .first()
            .and_then(|&i| lines[i].line.agent_id.clone())
            .unwrap_or_else(|| format!("{}", n + 1));
        for &i in side {
            uses[i] -= 1;
        }
        let built = if side.iter().any(|&i| uses[i] > 0) {
            let mut copies: Vec<Parsed> = side.iter().map(|&i| lines[i].clone()).collect();
            let order: Vec<usize> = (0..copies.len()).collect();
            chain::messages(&mut copies, &order, &mut skipped)
        } else {
            chain::messages(&mut lines, side, &mut skipped)
        };
        side_threads.push(built.finish(&format!("sidechain-{agent}"), Some(&stem), path)?);
    }
    let main = if subagent {
        // A subagent's thread is named by its file and forks from its parent.
        let parent = path
            .parent()
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
        Thread {
            context: with_origin(main.context, parent.as_deref()),
            ..main
        }
    } else {
        main
    };
    // What is left of the lines is freed on a thread of its own, at a low
    // priority: freeing a 100 MB session's leftovers is work neither the
    // reader nor the screen drawing it need wait for.
    std::thread::spawn(move || {
        crate::priority::nice_10();
        drop(lines)
    });
    let context = last_request.map(|(line, mut c)| {
        c.messages_seen = main
            .lines
            .iter()
            .rposition(|spans| spans.iter().any(|s| s.line == line))
            .map_or(main.context.len(), |k| k + 1);
        c
    });
    Ok(FileRead {
        main,
        context,
        sides: side_threads,
        title,
        skipped,
    })
}

/// `context` with `origin_context_id` set, so it shows as forked from `origin`.
fn with_origin(
    context: crate::store::format::Context,
    origin: Option<&str>,
) -> crate::store::format::Context {
    let Some(origin) = origin else { return context };
    let path = context.path().to_path_buf();
    let mut raw = context.into_raw();
    raw.insert(
        "origin_context_id".into(),
        serde_json::Value::String(origin.into()),
    );
    crate::store::format::Context::from_raw(raw, &path).expect("only a field was added")
}

/// What Claude Code 2.1 says of where the session went: the folder it was
/// moved to (`relocated`, the last), the session it goes on in
/// (`continued-in`, unless the file went on after it).
fn moves_of(lines: &[Parsed]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(dir) = lines.iter().rev().find_map(|p| {
        p.line
            .relocated_cwd
            .as_ref()
            .filter(|_| p.line.kind() == "relocated")
    }) {
        out.push(format!("moved to {dir}; Claude Code resumes it there"));
    }
    let last_message = lines
        .iter()
        .rposition(|p| matches!(p.line.kind(), "user" | "assistant"));
    let continued = lines.iter().enumerate().rev().find_map(|(i, p)| {
        let id = p.line.continued_in_session_id.as_ref()?;
        (p.line.kind() == "continued-in" && last_message.is_none_or(|m| m < i)).then_some(id)
    });
    if let Some(id) = continued {
        out.push(format!("continued in session {id}"));
    }
    out
}

/// The agent's own title: the last `custom-title`, else the last
/// `ai-title`, else the last `summary`.
fn title_of(lines: &[Parsed]) -> Option<String> {
    let last = |f: &dyn Fn(&Line) -> Option<&String>| {
        lines
            .iter()
            .rev()
            .find_map(|p| f(&p.line).filter(|t| !t.trim().is_empty()).cloned())
    };
    last(&|l| {
        l.custom_title
            .as_ref()
            .filter(|_| l.kind() == "custom-title")
    })
    .or_else(|| last(&|l| l.ai_title.as_ref().filter(|_| l.kind() == "ai-title")))
    .or_else(|| last(&|l| l.summary.as_ref().filter(|_| l.kind() == "summary")))
}

/// The subagents' files of the session `record`: every
/// `<id>/subagents/agent-*.jsonl`, and every `agent-*.jsonl` beside the
/// session whose first line names it as parent (`sessionId`).
fn subagent_files(record: &SessionRecord) -> Vec<PathBuf> {
    let folder = &record.conversation_dir;
    let mut out: Vec<PathBuf> = plain_files(&folder.join(&record.id).join("subagents"))
        .into_iter()
        .filter(|p| is_agent_file(p))
        .collect();
    for old in plain_files(folder).into_iter().filter(|p| is_agent_file(p)) {
        let Ok((head, _, _)) = jsonl::head(&old, 16 * 1024) else {
            continue;
        };
        let names_parent = head
            .split(|b| *b == b'\n')
            .take(5)
            .filter_map(Line::parse)
            .any(|l| l.session_id.as_deref() == Some(record.id.as_str()));
        if names_parent {
            out.push(old);
        }
    }
    out.sort();
    out
}

fn is_agent_file(path: &Path) -> bool {
    path.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| n.starts_with(AGENT_PREFIX) && n.ends_with(".jsonl"))
}

/// The directories directly in `dir` (no links followed), sorted.
pub(crate) fn plain_dirs(dir: &Path) -> Vec<PathBuf> {
    entries(dir, |t| t.is_dir())
}

/// The regular files directly in `dir` (no links followed), sorted.
pub(crate) fn plain_files(dir: &Path) -> Vec<PathBuf> {
    entries(dir, |t| t.is_file())
}

/// True for the name of a session file in a project folder: `<id>.jsonl`,
/// neither hidden nor a subagent's.
fn is_session_name(name: &str) -> bool {
    name.ends_with(".jsonl") && !name.starts_with(AGENT_PREFIX) && !name.starts_with('.')
}

/// The folders and the other entries (files, links, ...) directly in
/// `dir`, each sorted, in one reading of it; hidden ones left out.
fn dirs_and_files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut dirs, mut files) = (Vec::new(), Vec::new());
    let Ok(listing) = std::fs::read_dir(dir) else {
        return (dirs, files);
    };
    for e in listing.flatten() {
        let Ok(t) = e.file_type() else { continue };
        if e.file_name().as_encoded_bytes().starts_with(b".") {
            continue;
        }
        if t.is_dir() {
            dirs.push(e.path())
        } else {
            files.push(e.path())
        }
    }
    sort_by_name(&mut dirs);
    sort_by_name(&mut files);
    (dirs, files)
}

fn entries(dir: &Path, keep: impl Fn(&std::fs::FileType) -> bool) -> Vec<PathBuf> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = listing
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| keep(&t)))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    sort_by_name(&mut out);
    out
}

/// Sorts the entries of one folder by name. Being of one folder, whole
/// paths sort as their names do: compared as bytes, not taken apart into
/// components at every comparison.
fn sort_by_name(paths: &mut [PathBuf]) {
    paths.sort_unstable_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_2_1_bookkeeping_is_known_and_says_where_the_session_went() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a71.jsonl");
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/a","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"Fix it"}}"#,
            r#"{"type":"system","subtype":"microcompact_boundary","uuid":"m1","parentUuid":"u1","sessionId":"s","timestamp":"2026-11-20T10:01:00Z","content":"Context microcompacted","microcompactMetadata":{"trigger":"auto","preTokens":150000,"tokensSaved":40000}}"#,
            r#"{"type":"relocated","relocatedCwd":"/a/wt","sessionId":"s"}"#,
            r#"{"type":"worktree-state","worktreeSession":null,"sessionId":"s"}"#,
            r#"{"type":"agent-color","agentColor":"cyan","sessionId":"s"}"#,
            r#"{"type":"atis-latch","atis":"","sessionId":"s"}"#,
            r#"{"type":"continued-in","continuedInSessionId":"0b000000-0000-4000-8000-000000000002","sessionId":"s"}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let record = ClaudeProjects::record_at(&path);
        let read = ClaudeProjects::read(&record).unwrap();
        assert!(
            read.skipped.unknown_types.is_empty(),
            "{:?}",
            read.skipped.unknown_types
        );
        let shown: Vec<String> = read.main.context.messages().map(|m| m.one_line()).collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(shown[1].contains("40000 tokens saved"), "{shown:?}");
        let notes = read.skipped.other.join("; ");
        assert!(notes.contains("moved to /a/wt"), "{notes}");
        assert!(notes.contains("continued in session 0b000000"), "{notes}");
    }

    /// Side chains that branch from one start (older versions kept a
    /// subagent's lines in the session's file) each show that start whole.
    #[test]
    fn branching_side_chains_each_show_their_shared_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a71.jsonl");
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"user","uuid":"s1","parentUuid":"u1","isSidechain":true,"sessionId":"s","timestamp":"2026-11-20T10:00:01Z","message":{"role":"user","content":"the task"}}"#,
            r#"{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"sessionId":"s","timestamp":"2026-11-20T10:00:02Z","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"one way"}]}}"#,
            r#"{"type":"assistant","uuid":"s3","parentUuid":"s1","isSidechain":true,"sessionId":"s","timestamp":"2026-11-20T10:00:03Z","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"another"}]}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let read = ClaudeProjects::read(&ClaudeProjects::record_at(&path)).unwrap();
        let shown: Vec<Vec<String>> = read
            .others
            .iter()
            .map(|t| {
                t.context
                    .messages()
                    .map(|m| format!("{} {}", m.id(), m.one_line()))
                    .collect()
            })
            .collect();
        assert_eq!(
            shown,
            [["s1 the task", "s2 one way"], ["s1 the task", "s3 another"]]
        );
    }

    /// Each file is looked at in its own project's folder, though the
    /// listing threads hold one folder at a time: the same file name in
    /// many folders gives each folder's session, with a listing that
    /// remembers and one that does not.
    #[test]
    fn each_session_is_read_in_its_own_project_folder() {
        let dir = tempfile::tempdir().unwrap();
        let id = "0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a71";
        let projects: Vec<String> = (0..40).map(|n| format!("-work-p{n:02}")).collect();
        // Files untouched for an hour are remembered.
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (n, project) in projects.iter().enumerate() {
            let folder = dir.path().join(project);
            std::fs::create_dir(&folder).unwrap();
            for k in 0..(1 + n % 3) {
                let name = if k == 0 {
                    id.to_string()
                } else {
                    format!("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a{n:02}{k}")
                };
                let line = format!(
                    r#"{{"type":"user","uuid":"u","parentUuid":null,"sessionId":"{name}","cwd":"/work/p{n:02}","timestamp":"2026-11-20T10:00:00Z","message":{{"role":"user","content":"Task p{n:02} {k}"}}}}"#
                );
                let file = folder.join(format!("{name}.jsonl"));
                std::fs::write(&file, line + "\n").unwrap();
                let file = std::fs::File::options().write(true).open(&file).unwrap();
                file.set_modified(hour_ago).unwrap();
            }
            std::fs::File::open(&folder)
                .unwrap()
                .set_modified(hour_ago)
                .unwrap();
        }
        let listing = ClaudeProjects::open(dir.path());
        let saved = {
            let cache = ListingCache::from_bytes(None, dir.path(), 7);
            listing.scan(&cache, &mut |_| true).unwrap();
            cache.to_save().unwrap()
        };
        for cache in [
            ListingCache::off(),
            ListingCache::from_bytes(Some(&saved), dir.path(), 7),
        ] {
            let mut records = Vec::new();
            listing
                .scan(&cache, &mut |batch| {
                    records.extend(batch);
                    true
                })
                .unwrap();
            assert_eq!(records.len(), (0..40).map(|n| 1 + n % 3).sum::<usize>());
            for r in &records {
                let folder = r.path.parent().unwrap().file_name().unwrap();
                let n = &folder.to_str().unwrap()["-work-p".len()..];
                assert_eq!(r.cwd.as_deref(), Some(format!("/work/p{n}").as_str()));
                assert!(r.first_prompt.starts_with(&format!("Task p{n} ")), "{r:?}");
                assert!(r.error.is_none(), "{r:?}");
            }
        }
    }

    /// A listing holds a few folders open at a time, not one per project:
    /// every folder open at once grew the table of open files while other
    /// threads ran, each growth a wait for every core.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_listing_holds_few_folders_open() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..200 {
            let folder = dir.path().join(format!("-work-p{n:03}"));
            std::fs::create_dir(&folder).unwrap();
            std::fs::write(
                folder.join(format!("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1{n:03}.jsonl")),
                "{}\n",
            )
            .unwrap();
        }
        let open_now = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let before = open_now();
        let mut most = 0;
        ClaudeProjects::open(dir.path())
            .scan(&ListingCache::off(), &mut |_| {
                most = most.max(open_now());
                true
            })
            .unwrap();
        // Other tests' threads may hold a few files of their own meanwhile.
        assert!(most < before + 50, "{most} open, {before} before");
    }

    /// A project folder's remembered names are taken only when the folder
    /// is as it was, and only those a reading of it could have kept.
    #[test]
    fn a_remembered_folder_gives_only_session_names() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("-work-p");
        std::fs::create_dir(&project).unwrap();
        let id = "0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a71.jsonl";
        std::fs::write(project.join(id), b"{}\n").unwrap();
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::open(&project)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let now = crate::store::clock::now_seconds();
        let st = rustix::fs::lstat(&project).unwrap();
        let cache = ListingCache::from_bytes(None, dir.path(), 7);
        let planted = [
            (id, false),
            ("notes.txt", false),
            ("agent-1.jsonl", false),
            (".hidden.jsonl", false),
            ("ghost.jsonl", true),
        ];
        cache.remember_folder(&project, &st, &planted, now);
        let bytes = cache.to_save().unwrap();
        let cache = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
        let projects = ClaudeProjects::open(dir.path());
        let names = |found: Vec<(PathBuf, Vec<(PathBuf, bool)>)>| -> Vec<String> {
            found[0]
                .1
                .iter()
                .map(|(f, _)| f.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        // As remembered (a file of the folder's gone since would be listed
        // as damaged, as any file named like a session that cannot be read).
        let found = names(projects.session_files_by_project(&cache, now));
        assert_eq!(found, [id, "ghost.jsonl"]);
        // The folder changed: read again.
        std::fs::write(project.join("agent-2.jsonl"), b"{}\n").unwrap();
        let found = names(projects.session_files_by_project(&cache, now));
        assert_eq!(found, [id]);
    }
}
