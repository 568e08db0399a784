//! Codex CLI's sessions ("rollouts"): `$CODEX_HOME/sessions/YYYY/MM/DD/
//! rollout-<time>-<id>.jsonl` and, archived, `$CODEX_HOME/archived_sessions/`.
//! Each line is `{timestamp, type, payload}`; the first is the
//! `session_meta`. Titles set by the person are in
//! `$CODEX_HOME/session_index.jsonl` (newest line per id wins) and in
//! `thread_name_updated` events. Read only; see `docs/FORMATS.md`.

pub mod fork;
mod items;
pub mod lineage;
mod listing;
pub mod provider;

use crate::store::error::Result;
use crate::store::format::usage::{Usage, UsageByModel};
use crate::store::fs::open;
use crate::store::sources::agent_read::{
    AgentRead, NewMessage, RecordedContext, ThreadBuilder, parse_time,
};
use crate::store::sources::claude::{plain_dirs, plain_files};
use crate::store::sources::jsonl::{self, LineSpan};
use crate::store::sources::parsed::read_parsed;
use crate::store::sources::record::SessionRecord;
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use listing::record_at;

/// One line: `{timestamp, type, payload}`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Line {
    timestamp: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Value,
}

/// Codex's home folder. Opening does no I/O.
#[derive(Clone, Debug)]
pub struct CodexHome {
    dir: PathBuf,
}

impl CodexHome {
    /// The folder `dir` (`$CODEX_HOME`, `~/.codex`).
    pub fn open(dir: &Path) -> CodexHome {
        CodexHome {
            dir: dir.to_path_buf(),
        }
    }

    /// Every rollout file: the live ones by day, then the archived ones
    /// (an archived copy of a file still live is left out).
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let live = self.dir.join("sessions");
        let mut names = std::collections::HashSet::new();
        for year in plain_dirs(&live) {
            for month in plain_dirs(&year) {
                for day in plain_dirs(&month) {
                    for file in jsonl_entries(&day) {
                        if let Some(n) = file.file_name() {
                            names.insert(n.to_os_string());
                        }
                        out.push(file);
                    }
                }
            }
        }
        for file in jsonl_entries(&self.dir.join("archived_sessions")) {
            if file.file_name().is_some_and(|n| !names.contains(n)) {
                out.push(file);
            }
        }
        out
    }

    /// The titles in `session_index.jsonl`, by session id.
    pub fn titles(&self) -> HashMap<String, String> {
        listing::index_titles(&self.dir.join("session_index.jsonl"))
    }

    /// The record of each rollout, in batches as they are read.
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        let titles = self.titles();
        crate::store::sources::agent_read::scan_files(
            &self.session_files(),
            |f| listing::record_at(f, &titles),
            on_batch,
        )
    }

    /// The session `record` read whole: for a fork by reference (Codex
    /// 0.154+), the history it inherits first, then its own lines.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let mut walk = Walk::default();
        let (inherited, problem) = lineage::inherited(&record.path);
        walk.inheriting = true;
        for part in &inherited {
            match jsonl::decoded(&part.path, part.end_byte) {
                Ok((bytes, _)) => {
                    let (spans, _) = jsonl::split_lines(&bytes, 0, 1);
                    for span in spans {
                        let start = span.offset as usize;
                        let text = &bytes[start..start + span.len as usize];
                        if let Ok(line) = serde_json::from_slice::<Line>(text) {
                            walk.line(&part.rollout_id, span, line);
                        }
                    }
                }
                Err(e) => walk.skipped.other.push(format!(
                    "its history's start could not be read: {e}; only its own lines are shown"
                )),
            }
        }
        walk.inheriting = false;
        if !inherited.is_empty() {
            walk.skipped.other.push(format!(
                "its first {} messages are its parent's, read from {} (a Codex fork by reference)",
                walk.out.len(),
                inherited
                    .last()
                    .map_or(String::new(), |p| p.path.display().to_string())
            ));
        }
        walk.skipped.other.extend(problem);
        let parsed = read_parsed(&record.path, |b| serde_json::from_slice::<Line>(b).ok())?;
        walk.skipped.absorb(parsed.skipped);
        for (span, line) in parsed.lines {
            walk.line(&record.id, span, line);
        }
        let main = walk.out.finish(&record.id, None, &record.path)?;
        Ok(AgentRead {
            main,
            others: Vec::new(),
            usage: walk.usage,
            title: walk.title,
            skipped: walk.skipped,
            context: walk.context,
        })
    }

    /// The last messages of `record` from the end of its file alone (for a
    /// preview; a long session is not read whole for it).
    pub fn tail(record: &SessionRecord, bytes: usize) -> Result<crate::store::format::Context> {
        let ends = jsonl::head_and_tail(&record.path, 0, bytes)?;
        let mut walk = Walk::default();
        let mut lines = ends.tail_lines_rev();
        lines.reverse();
        for (n, bytes) in lines.into_iter().enumerate() {
            if let Ok(line) = serde_json::from_slice::<Line>(bytes) {
                let span = LineSpan {
                    line: n as u32 + 1,
                    offset: 0,
                    len: 0,
                };
                walk.line(&record.id, span, line);
            }
        }
        Ok(walk.out.finish(&record.id, None, &record.path)?.context)
    }
}

/// A rollout's lines applied in order: the messages, the usage by model
/// (each `token_count` event's request goes to the model of the turn), the
/// last title.
#[derive(Default)]
struct Walk {
    out: ThreadBuilder,
    usage: UsageByModel,
    model: String,
    title: Option<String>,
    last_total: Option<Usage>,
    skipped: jsonl::Skipped,
    /// The last request's context, with the window Codex recorded.
    context: Option<RecordedContext>,
    /// Reading the history a fork by reference inherits: its messages
    /// only (their usage was its parent's, and is counted there).
    inheriting: bool,
}

impl Walk {
    /// A `token_count` event, as ccusage reads it: one that repeats the
    /// total before it is a copy and counts nothing; else its request is
    /// `last_token_usage` (or, without one, what the total grew by).
    fn token_count(&mut self, info: Option<&Value>, at: Option<f64>) {
        let field = |k: &str| info.and_then(|i| i.get(k)).and_then(read_usage);
        let total = field("total_token_usage");
        if total.is_some() && total == self.last_total {
            return;
        }
        let request = match (field("last_token_usage"), total, self.last_total) {
            (Some(last), _, _) => Some(last),
            (None, Some(total), Some(before)) => Some(total.minus(&before)),
            (None, Some(total), None) => Some(total),
            (None, None, _) => None,
        };
        if let Some(request) = request {
            self.usage.add_request(&self.model, &request, at);
            self.context = Some(RecordedContext {
                tokens: request.prompt(),
                at,
                window: info
                    .and_then(|i| i.get("model_context_window"))
                    .and_then(Value::as_u64)
                    .filter(|w| *w > 0),
                model: self.model.clone(),
                messages_seen: self.out.len(),
                counted_after: 0,
            });
        }
        if total.is_some() {
            self.last_total = total;
        }
    }

    fn line(&mut self, session: &str, span: LineSpan, mut line: Line) {
        let payload = line.payload.take();
        let kind = line.kind.as_deref().unwrap_or("");
        let new = |item: items::Item, model: &str| NewMessage {
            role: item.role,
            parts: item.parts,
            id: message_id(session, span.line),
            timestamp: line.timestamp.clone(),
            kind: item.kind,
            model: (item.role == "assistant" && !model.is_empty()).then(|| model.to_string()),
            lines: vec![span],
        };
        match kind {
            "response_item" => {
                if let Some(item) = items::response_item(payload, &mut self.skipped) {
                    self.out.push(new(item, &self.model));
                }
            }
            "compacted" => self.out.push(new(items::compacted(&payload), &self.model)),
            "turn_context" => {
                if let Some(m) = payload.get("model").and_then(Value::as_str) {
                    self.model = m.to_string();
                }
            }
            _ if self.inheriting => {}
            "event_msg" => match payload.get("type").and_then(Value::as_str) {
                Some("token_count") => {
                    let at = line.timestamp.as_deref().and_then(parse_time);
                    self.token_count(payload.get("info"), at);
                }
                Some("thread_name_updated") => {
                    self.title = thread_name(&payload).or(self.title.take());
                }
                _ => {}
            },
            "session_meta" => {}
            other => self
                .skipped
                .unknown_type(if other.is_empty() { "(no type)" } else { other }),
        }
    }
}

/// The first `max` bytes of a rollout, decoded.
fn decoded_head(path: &Path, max: u64) -> Result<Vec<u8>> {
    jsonl::decoded(path, max).map(|(bytes, _)| bytes)
}

/// A rollout's length, decoded.
fn decoded_len(path: &Path) -> Result<u64> {
    if jsonl::is_compressed(path) {
        return jsonl::decoded(path, jsonl::MAX_FILE_BYTES).map(|(bytes, _)| bytes.len() as u64);
    }
    Ok(open::regular(path)?
        .metadata()
        .map_err(|e| crate::store::error::StoreError::io("read", path, e))?
        .len())
}

/// A message id for the item on `line` (Codex stores none): the same on
/// every read, unique across sessions.
fn message_id(session: &str, line: u32) -> String {
    uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_OID,
        format!("{session}/{line}").as_bytes(),
    )
    .to_string()
}

/// A Codex `TokenUsage`: `input_tokens` includes the cached ones and the
/// cache writes (`cache_write_input_tokens`, Codex 0.15x), which are taken
/// out so `input` counts only what was neither; reasoning is part of
/// `output_tokens`.
fn read_usage(v: &Value) -> Option<Usage> {
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    v.is_object().then(|| {
        let cached = n("cached_input_tokens");
        let written = n("cache_write_input_tokens");
        Usage {
            input: n("input_tokens").saturating_sub(cached + written),
            output: n("output_tokens"),
            cache_read: cached,
            cache_write: written,
            ..Usage::default()
        }
    })
}

/// The name a `thread_name_updated` event gives (its field was renamed
/// once: `thread_name`, earlier `name`).
fn thread_name(payload: &Value) -> Option<String> {
    payload
        .get("thread_name")
        .or_else(|| payload.get("name"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// The `*.jsonl` entries of `dir` (links and oddities included: the record
/// says what is wrong with them).
fn jsonl_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = plain_files(dir);
    if let Ok(listing) = std::fs::read_dir(dir) {
        for e in listing.flatten() {
            if e.file_type().is_ok_and(|t| t.is_symlink()) {
                out.push(e.path());
            }
        }
    }
    out.retain(|p| {
        p.file_name().map(|n| n.to_string_lossy()).is_some_and(|n| {
            (n.ends_with(".jsonl") || n.ends_with(".jsonl.zst")) && !n.starts_with('.')
        })
    });
    out.sort();
    // A rollout both plain and compressed (Codex decompressing it to
    // append) is the plain one.
    let plain: std::collections::HashSet<PathBuf> = out
        .iter()
        .filter(|p| !jsonl::is_compressed(p))
        .cloned()
        .collect();
    out.retain(|p| !jsonl::is_compressed(p) || !plain.contains(&p.with_extension("")));
    out
}
