//! Trims of another agent's session (Claude Code, Codex): planned on its
//! main conversation exactly as a Loki context is (the same windows, drops
//! and clears), then written as a new session beside the original, which
//! is never touched. Claude Code: `<new uuid>.jsonl` in the same project
//! folder; Codex: `sessions/YYYY/MM/DD/rollout-<time>-<new uuid>.jsonl`.
//! Undo is deleting the fork. The formats are in `docs/FORMATS.md`.

use crate::store::error::{Result, StoreError};
use crate::store::format::Context;
use crate::store::format::clear;
use crate::store::format::tokens::Encoding;
use crate::store::fs::atomic;
use crate::store::fs::open;
use crate::store::fs::stamp::FileStamp;
use crate::store::ops::change::{self, AgentFork, Change, ChangeReport, Mode, Planned};
use crate::store::ops::count_cache::CountCache;
use crate::store::ops::counting::{message_counts, message_counts_kept};
use crate::store::ops::diff::{ContextDiff, compare};
use crate::store::ops::edit_plan::ClearedMessage;
use crate::store::ops::forking::Expected;
use crate::store::sources::agent_read::Thread;
use crate::store::sources::claude::ClaudeProjects;
use crate::store::sources::jsonl::LineSpan;
use crate::store::sources::provider::ForkLayout;
use crate::store::sources::record::SessionRecord;
use crate::store::sources::{agents, claude, codex, jsonl};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Refuses what cannot be forked: Gemini CLI's sessions, damaged ones, a
/// Codex fork by reference (its first messages are its parent's file's:
/// a copy would need them laid out from there, which is not done yet).
pub fn check(record: &SessionRecord) -> Result<()> {
    record.trimmable()?;
    match record.agent.provider().fork_refused(record) {
        Some(why) => Err(StoreError::Unsupported(why)),
        None => Ok(()),
    }
}

/// How `record`'s agent lays out a fork (refused for an agent whose
/// sessions are not forked).
fn layout_of(record: &SessionRecord) -> Result<ForkLayout> {
    record.agent.provider().fork_layout().ok_or_else(|| {
        StoreError::Unsupported(format!(
            "{} sessions are not forked here",
            record.agent.display_name()
        ))
    })
}

/// Refuses a fork planned on a conversation the agent has added to since
/// (its message count is in `_mutation_counter`, as a peteos counter).
fn check_expected(
    record: &SessionRecord,
    parent: &Context,
    expected: Option<&Expected>,
) -> Result<()> {
    match expected {
        Some(e) if e.mutation_counter != parent.mutation_counter() => {
            Err(StoreError::Busy(format!(
                "{} changed since the preview ({} wrote to it); review the trim again",
                record.path.display(),
                record.agent.display_name()
            )))
        }
        _ => Ok(()),
    }
}

/// The session read for a fork (beside its main conversation, which the
/// outcome takes whole): the lines each message was made of, and the
/// file's bytes, read after them (so they hold every line they name).
struct Source {
    lines: Vec<Vec<LineSpan>>,
    bytes: Vec<u8>,
    stamp: FileStamp,
}

/// With `LOKI_SESSIONS_TIMINGS` set, says on stderr how long the step
/// `what` took since `since` (where a fork's time goes; off by default).
fn span(what: &str, since: std::time::Instant) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("LOKI_SESSIONS_TIMINGS").is_some()) {
        eprintln!(
            "timing: {what} {:.1} ms",
            since.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// The main conversation of `record`, and the lines of the file each of
/// its messages was made of.
fn read_conversation(record: &SessionRecord) -> Result<(Context, Vec<Vec<LineSpan>>)> {
    check(record)?;
    let started = std::time::Instant::now();
    let Thread { context, lines, .. } = agents::read(record)?.main;
    span("read and parse the session", started);
    Ok((context, lines))
}

/// The file's bytes for the fork, read once the plan is made: the fork is
/// refused if the file changes from here to the fork's last write, so this
/// comes as late as it can (an agent writing in bursts leaves gaps).
fn read_source(record: &SessionRecord, lines: Vec<Vec<LineSpan>>) -> Result<Source> {
    let started = std::time::Instant::now();
    let (mut file, st) = open::regular_stat(&record.path)?;
    let mut bytes = Vec::with_capacity(st.st_size as usize + 1);
    (&mut file)
        .take(jsonl::MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| StoreError::io("read", &record.path, e))?;
    // Every line the conversation was read from must be where it was: a
    // file rewritten (not appended to) between the two reads is refused.
    let intact = lines.iter().flatten().all(|s| jsonl::in_place(&bytes, s));
    if !intact {
        return Err(changed(record));
    }
    // A last line the reading took as whole without its newline (the file
    // was quiet) is ended here, in the file's style, so the fork keeps it.
    let ends_the_file = |s: &LineSpan| (s.offset + u64::from(s.len)) as usize == bytes.len();
    if !bytes.ends_with(b"\n") && lines.iter().flatten().any(ends_the_file) {
        let ending = jsonl::style(&bytes);
        bytes.extend_from_slice(ending);
    }
    span("read its bytes again", started);
    Ok(Source {
        lines,
        bytes,
        stamp: FileStamp::of(&st),
    })
}

/// Refuses to fork a session another running process holds open: its
/// agent is running on it, and a copy would miss what it writes next.
/// (One it closed moments ago may be forked: the original stays as it is,
/// and a write meanwhile fails the fork.)
fn refuse_while_open(record: &SessionRecord) -> Result<()> {
    let open = super::trash::OpenFiles::scan();
    match open.holder(std::slice::from_ref(&record.path)) {
        Some(pid) => Err(StoreError::Busy(format!(
            "process {pid} has {} open ({} is running on it): a copy would miss what it writes next; try again when it is idle",
            record.path.display(),
            record.agent.display_name()
        ))),
        None => Ok(()),
    }
}

fn changed(record: &SessionRecord) -> StoreError {
    StoreError::Busy(format!(
        "{} changed {} while it was being read (the agent is writing to it); nothing was written: try again when it is idle",
        record.agent.display_name(),
        record.path.display()
    ))
}

/// `change` planned on `record`'s conversation and, to write, written as
/// a new session beside it; a preview reads only, and lays out the fork
/// (its size, where it would go) as the write would.
pub fn change(
    record: &SessionRecord,
    change: &Change,
    encoding: Encoding,
    cache: Option<&CountCache>,
    mode: Mode<'_>,
    now: f64,
) -> Result<ChangeReport> {
    refuse_while_open(record)?;
    let (parent, lines) = read_conversation(record)?;
    let layout = layout_of(record)?;
    check_expected(record, &parent, mode.expected())?;
    let counts = counts_of(&parent, encoding, cache)?;
    let started = std::time::Instant::now();
    let Planned { plan, facts, notes } = change::plan(&parent, change, encoding, counts, true)?;
    span("plan", started);
    let (fork, bytes) = if plan.changed {
        let source = read_source(record, lines)?;
        let edits = LineEdits {
            dropped: &plan.dropped,
            cleared: &plan.cleared,
            // The fix for resuming also drops the agent's own copies of
            // the media it replaces (they would keep the file large).
            media_copies: matches!(change, Change::Resumable(_)),
            suffix: match change {
                Change::Resumable(_) => RESUMABLE,
                _ => COPY,
            },
        };
        let laid_out = fork_file(layout, record, &source, &parent, &edits, now)?;
        let bytes = (source.stamp.size, laid_out.bytes.len() as u64);
        let mut fork = laid_out.fork;
        if mode.writes() {
            let started = std::time::Instant::now();
            write_fork(record, &source, &fork.path, &laid_out.bytes)?;
            span("write the fork", started);
            fork.written = true;
        }
        (Some(fork), Some(bytes))
    } else {
        (None, None)
    };
    Ok(ChangeReport {
        plan,
        facts,
        notes,
        parent,
        child: None,
        fork,
        bytes,
    })
}

/// The token count of each of `parent`'s messages: the report's
/// `tokens_before` and `tokens_after` are sums of them, and a budget's
/// window is chosen by them. Those `cache` kept under a message's exact
/// text are taken, the others counted (and kept for the next run).
fn counts_of(parent: &Context, encoding: Encoding, cache: Option<&CountCache>) -> Result<Vec<u64>> {
    let started = std::time::Instant::now();
    let counts = message_counts_kept(parent, encoding, cache)?;
    span("count the tokens", started);
    Ok(counts)
}

/// What a plan changes, by message.
struct LineEdits<'a> {
    /// The messages dropped.
    dropped: &'a [usize],
    /// The messages whose results (or media) are replaced.
    cleared: &'a [ClearedMessage],
    /// Also replace the agent's own copies of media on every line.
    media_copies: bool,
    /// What the fork's title adds to the original's.
    suffix: &'static str,
}

/// The title of a trim's or a hand edit's fork: `<original title> (copy)`.
const COPY: &str = "(copy)";
/// The title of a fork made resumable: `<original title> (resumable)`.
const RESUMABLE: &str = "(resumable)";

/// The line a fork ends with: its title (the original's and `suffix`, so
/// it is found by the original's name) as the agent records a title the
/// person set, dated when the fork is written, so it lists, and ages for
/// a purge, from then (its other lines keep the times they were written).
fn title_line(
    layout: ForkLayout,
    record: &SessionRecord,
    new_id: &str,
    suffix: &str,
    now: f64,
    ending: &[u8],
) -> Vec<u8> {
    let base = record.title.trim();
    let title = if base.ends_with(suffix) {
        base.to_string()
    } else if base.is_empty() {
        format!("{} {suffix}", record.id)
    } else {
        format!("{base} {suffix}")
    };
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(now.max(0.0));
    let at = humantime::format_rfc3339_millis(t).to_string();
    let line = match layout {
        ForkLayout::Claude => serde_json::json!({
            "type": "custom-title", "customTitle": title, "sessionId": new_id, "timestamp": at,
        }),
        ForkLayout::Codex => serde_json::json!({
            "timestamp": at, "type": "event_msg",
            "payload": {"type": "thread_name_updated", "thread_id": new_id, "thread_name": title},
        }),
    };
    let mut bytes = serde_json::to_vec(&line).expect("a line serializes");
    bytes.extend_from_slice(ending);
    bytes
}

/// A fork laid out: where it goes and its bytes, not written yet.
struct LaidOut {
    fork: AgentFork,
    bytes: Vec<u8>,
}

/// Lays out the fork in `layout`, from the original's lines.
fn fork_file(
    layout: ForkLayout,
    record: &SessionRecord,
    source: &Source,
    parent: &Context,
    plan: &LineEdits<'_>,
    now: f64,
) -> Result<LaidOut> {
    let started = std::time::Instant::now();
    let (dropped, cleared) = (plan.dropped, plan.cleared);
    let offsets = |i: usize| source.lines.get(i).into_iter().flatten().map(|s| s.offset);
    let dropped_lines: HashSet<u64> = dropped.iter().flat_map(|&i| offsets(i)).collect();
    let mut cleared_lines: HashMap<u64, HashMap<String, String>> = HashMap::new();
    let mut media_lines: HashSet<u64> = HashSet::new();
    for c in cleared {
        let calls = cleared_calls(parent, c);
        for offset in offsets(c.index) {
            if !calls.is_empty() {
                cleared_lines
                    .entry(offset)
                    .or_default()
                    .extend(calls.clone());
            }
            if !c.media.is_empty() {
                media_lines.insert(offset);
            }
        }
    }
    let new_id = uuid::Uuid::new_v4().to_string();
    let (path, bytes) = match layout {
        ForkLayout::Claude => {
            let gone: HashSet<usize> = dropped.iter().copied().collect();
            let main: HashSet<u64> = (0..source.lines.len())
                .filter(|i| !gone.contains(i))
                .flat_map(offsets)
                .collect();
            let edits = claude::fork::ForkEdits {
                dropped: dropped_lines,
                main,
                cleared: cleared_lines,
                media: media_lines,
                media_copies: plan.media_copies,
            };
            let folder = record.path.parent().unwrap_or(Path::new("."));
            (
                folder.join(format!("{new_id}.jsonl")),
                claude::fork::fork_bytes(&source.bytes, &edits, &record.id, &new_id),
            )
        }
        ForkLayout::Codex => {
            let edits = codex::fork::ForkEdits {
                dropped: dropped_lines,
                cleared: cleared_lines,
                media: media_lines,
                media_copies: plan.media_copies,
            };
            let (day, stamp) = utc_day_and_stamp(now);
            let home = codex::lineage::home_of(&record.path).ok_or_else(|| {
                StoreError::Invalid(format!(
                    "{} is not in a Codex sessions folder, so the fork has nowhere to go",
                    record.path.display()
                ))
            })?;
            let folder = home.join("sessions").join(day);
            (
                folder.join(codex::fork::file_name(&stamp, &new_id)),
                codex::fork::fork_bytes(&source.bytes, &edits, &new_id, &record.id),
            )
        }
    };
    let mut bytes = bytes;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    // In the original's own line endings.
    let ending = jsonl::style(&source.bytes);
    bytes.extend(title_line(
        layout,
        record,
        &new_id,
        plan.suffix,
        now,
        ending,
    ));
    span("lay out the fork", started);
    Ok(LaidOut {
        fork: AgentFork {
            new_session_id: new_id,
            path,
            written: false,
        },
        bytes,
    })
}

/// The call ids of the results `c` clears, each with its placeholder.
fn cleared_calls(ctx: &Context, c: &ClearedMessage) -> HashMap<String, String> {
    let Some(message) = ctx.message(c.index) else {
        return HashMap::new();
    };
    let content = message.raw().get("content").and_then(Value::as_array);
    c.results
        .iter()
        .filter_map(|&(position, tokens)| {
            let part = content?.get(position)?;
            let id = part.get("call_id")?.as_str()?;
            Some((id.to_string(), clear::placeholder(tokens)))
        })
        .collect()
}

/// Creates the fork's file (atomically, never over an existing one);
/// refused, and removed again, if the original changed meanwhile.
fn write_fork(record: &SessionRecord, source: &Source, path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(folder) = path.parent()
        && !folder.is_dir()
    {
        std::fs::create_dir_all(folder).map_err(|e| StoreError::io("create", folder, e))?;
        if let Some(up) = folder.parent() {
            atomic::sync_dir(up)?;
        }
    }
    atomic::create_new_atomic(path, bytes)?;
    // The agent wrote meanwhile: the fork may lack what it wrote, so it goes.
    let now = open::regular_stat(&record.path).map(|(_, st)| FileStamp::of(&st));
    if now.ok() != Some(source.stamp) {
        atomic::remove_synced(path)?;
        return Err(changed(record));
    }
    Ok(())
}

/// `YYYY/MM/DD` and `YYYY-MM-DDThh-mm-ss` of `now` (UTC).
fn utc_day_and_stamp(now: f64) -> (PathBuf, String) {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(now.max(0.0));
    let text = humantime::format_rfc3339_seconds(t).to_string(); // 2026-12-01T12:14:13Z
    let stamp = text.trim_end_matches('Z').replace(':', "-");
    let day = PathBuf::from(&text[0..4])
        .join(&text[5..7])
        .join(&text[8..10]);
    (day, stamp)
}

/// How a Claude Code fork differs from its original: the original is the
/// other session of the same project folder holding every message the
/// fork holds (a fork keeps Claude Code's message uuids), the largest if
/// several do (forks of the same original hold fewer). Codex forks name
/// their original (`forked_from_id`) but their messages have no ids to
/// match, and are not compared. Reads only.
pub fn diff(record: &SessionRecord, encoding: Encoding) -> Result<ContextDiff> {
    let none = || {
        StoreError::NotFound(format!(
            "{} session {} is not a fork made here: no other session of its folder holds its messages",
            record.agent.display_name(),
            record.id
        ))
    };
    if record.agent.provider().fork_layout() != Some(ForkLayout::Claude) {
        return Err(none());
    }
    let child = agents::read(record)?.main.context;
    let needles: Vec<String> = child
        .messages()
        .map(|m| format!("\"uuid\":\"{}\"", m.id()))
        .collect();
    if needles.is_empty() {
        return Err(none());
    }
    let mut best: Option<(u64, PathBuf)> = None;
    for path in claude::plain_files(&record.conversation_dir) {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(name) = name.filter(|n| n.ends_with(".jsonl") && !n.starts_with("agent-")) else {
            continue;
        };
        if path == record.path || name.trim_end_matches(".jsonl") == record.id {
            continue;
        }
        let Ok(file) = jsonl::read(&path) else {
            continue;
        };
        let holds_all = needles
            .iter()
            .all(|n| memchr::memmem::find(&file.bytes, n.as_bytes()).is_some());
        let size = file.bytes.len() as u64;
        if holds_all && best.as_ref().is_none_or(|(s, _)| size > *s) {
            best = Some((size, path));
        }
    }
    let (_, original) = best.ok_or_else(none)?;
    let parent_record = ClaudeProjects::record_at(&original);
    let parent = agents::read(&parent_record)?.main.context;
    let child_counts = message_counts(&child, encoding)?;
    let parent_counts = message_counts(&parent, encoding)?;
    Ok(compare(&child, &child_counts, &parent, &parent_counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_days_and_stamps_are_utc() {
        let (day, stamp) = utc_day_and_stamp(1_795_168_800.0);
        assert_eq!(day, Path::new("2026/11/20"));
        assert_eq!(stamp, "2026-11-20T10-00-00");
        assert_eq!(
            codex::lineage::home_of(Path::new("/h/.codex/sessions/2026/11/20/rollout-x.jsonl"))
                .unwrap(),
            Path::new("/h/.codex")
        );
    }
}
