//! Gemini CLI's sessions: `~/.gemini/tmp/<project>/chats/session-*.jsonl`
//! (the project's folder is in `tmp/<project>/.project_root`), and the
//! legacy single-object `session-*.json`. A `.jsonl` file's first line is
//! the metadata; `{"$set": {...}}` updates it (a `$set` of `messages` is a
//! checkpoint that replaces them all); `{"$rewindTo": id}` drops that
//! message and every later one; a later record with the same `id` replaces
//! the earlier one in its place. Subagents' files are in
//! `chats/<parent session id>/` and are shown with their parent.

pub mod provider;
pub(crate) mod records;

use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::format::usage::UsageByModel;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::{
    AgentRead, RecordedContext, Thread, ThreadBuilder, parse_time,
};
use crate::store::sources::claude::{plain_dirs, plain_files};
use crate::store::sources::jsonl::{self, LineSpan, Skipped};
use crate::store::sources::record::SessionRecord;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Gemini CLI's folder (`~/.gemini`). Opening does no I/O.
#[derive(Clone, Debug)]
pub struct GeminiHome {
    dir: PathBuf,
}

/// A session file's state after every line is applied.
#[derive(Debug, Default)]
struct Replayed {
    metadata: Map<String, Value>,
    /// Messages in order: `(record, the line it came from)`.
    messages: Vec<(Value, LineSpan)>,
    /// The usage of every message ever written, rewound ones included (its
    /// tokens were spent), a message written again counting once: its last
    /// version. By id, in first-seen order.
    spent: Vec<Spent>,
    spent_at: HashMap<String, usize>,
    usage: UsageByModel,
    skipped: Skipped,
}

/// The usage one message recorded.
#[derive(Debug)]
struct Spent {
    model: String,
    usage: crate::store::format::usage::Usage,
    at: Option<f64>,
}

impl GeminiHome {
    /// The folder `dir` (`~/.gemini`).
    pub fn open(dir: &Path) -> GeminiHome {
        GeminiHome {
            dir: dir.to_path_buf(),
        }
    }

    /// Every session file, project by project.
    pub fn session_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for project in plain_dirs(&self.dir.join("tmp")) {
            let chats = project.join("chats");
            let Ok(listing) = std::fs::read_dir(&chats) else {
                continue;
            };
            let mut files: Vec<PathBuf> = listing
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().map(|n| n.to_string_lossy()).is_some_and(|n| {
                        !n.starts_with('.') && (n.ends_with(".jsonl") || n.ends_with(".json"))
                    })
                })
                .collect();
            files.sort();
            out.extend(files);
        }
        out
    }

    /// The record of each session, in batches; a legacy `.json` whose
    /// session has a `.jsonl` too is left out (the CLI moved it over).
    pub fn scan(&self, on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        let files = self.session_files();
        let mut records = crate::store::parallel::map_ordered(&files, |f| record_at(f));
        let with_jsonl: std::collections::HashSet<String> = records
            .iter()
            .filter(|r| r.path.extension().is_some_and(|e| e == "jsonl"))
            .map(|r| r.id.to_string())
            .collect();
        records.retain(|r| {
            r.path.extension().is_some_and(|e| e == "jsonl") || !with_jsonl.contains(r.id.as_str())
        });
        for chunk in records.chunks(2_000) {
            if !on_batch(chunk.to_vec()) {
                break;
            }
        }
        Ok(())
    }

    /// The session `record` read whole, with its subagents.
    pub fn read(record: &SessionRecord) -> Result<AgentRead> {
        let mut main = replay(&record.path)?;
        let title = main
            .metadata
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_string);
        let (thread, context) = thread_of(
            &record.id,
            None,
            &record.path,
            std::mem::take(&mut main.messages),
            &mut main.skipped,
        )?;
        let mut others = Vec::new();
        let sub_dir = record.conversation_dir.join(&record.id);
        for path in plain_files(&sub_dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        {
            match replay(&path) {
                Ok(mut sub) => {
                    let id = sub
                        .metadata
                        .get("sessionId")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| stem(&path));
                    main.usage.merge(&sub.usage);
                    let msgs = std::mem::take(&mut sub.messages);
                    others.push(thread_of(&id, Some(&record.id), &path, msgs, &mut sub.skipped)?.0);
                    main.skipped.absorb(sub.skipped);
                }
                Err(e) => main
                    .skipped
                    .other
                    .push(format!("a subagent's file could not be read: {e}")),
            }
        }
        Ok(AgentRead {
            main: thread,
            others,
            usage: main.usage,
            title,
            skipped: main.skipped,
            context,
        })
    }
}

/// The thread of `messages`, and the context the last answer that
/// recorded its tokens was given (its prompt: input, cached and tool).
fn thread_of(
    id: &str,
    origin: Option<&str>,
    path: &Path,
    messages: Vec<(Value, LineSpan)>,
    skipped: &mut Skipped,
) -> Result<(Thread, Option<RecordedContext>)> {
    let mut out = ThreadBuilder::default();
    let mut context = None;
    for (record, span) in messages {
        let spent = records::usage(&record).map(|(model, u)| RecordedContext {
            tokens: u.prompt(),
            at: record
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(parse_time),
            window: None,
            model,
            messages_seen: 0,
            counted_after: 0,
        });
        for m in records::messages(record, span, skipped) {
            out.push(m);
        }
        if let Some(mut c) = spent {
            c.messages_seen = out.len();
            context = Some(c);
        }
    }
    Ok((out.finish(id, origin, path)?, context))
}

/// Applies every line of the session file `path` in order, as the CLI
/// itself loads it.
fn replay(path: &Path) -> Result<Replayed> {
    let file = jsonl::read(path)?;
    let mut state = Replayed {
        skipped: file.skipped.clone(),
        ..Replayed::default()
    };
    let legacy = path.extension().is_some_and(|e| e == "json");
    if legacy {
        state.skipped.partial_last = false;
        let span = LineSpan {
            line: 1,
            offset: 0,
            len: file.bytes.len() as u32,
        };
        match serde_json::from_slice::<Value>(&file.bytes) {
            Ok(Value::Object(mut whole)) => {
                if let Some(Value::Array(messages)) = whole.remove("messages") {
                    for m in messages {
                        put(&mut state, m, span);
                    }
                }
                state.metadata = whole;
            }
            _ => state.skipped.bad_json.push(1),
        }
        return finish(state);
    }
    let mut slots: Vec<Option<(Value, LineSpan)>> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for span in &file.spans {
        let Some(record) =
            jsonl::parse_line::<Value>(file.line_bytes(span), span, &mut state.skipped)
        else {
            continue;
        };
        let Value::Object(mut r) = record else {
            state.skipped.bad_json.push(span.line);
            continue;
        };
        if let Some(Value::String(to)) = r.get("$rewindTo") {
            match at.get(to).copied() {
                Some(from) => {
                    for slot in &mut slots[from..] {
                        if let Some((v, _)) = slot.take()
                            && let Some(id) = v.get("id").and_then(Value::as_str)
                        {
                            at.remove(id);
                        }
                    }
                }
                None => {
                    state.skipped.other.push(format!(
                        "line {} rewinds to a message not in the file; every message before it is dropped, as Gemini CLI does",
                        span.line
                    ));
                    slots.clear();
                    at.clear();
                }
            }
        } else if r.get("id").is_some_and(Value::is_string) {
            let id = r
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let value = Value::Object(r);
            spend(&mut state, &id, &value);
            match at.get(&id) {
                Some(&i) => slots[i] = Some((value, *span)),
                None => {
                    at.insert(id, slots.len());
                    slots.push(Some((value, *span)));
                }
            }
        } else if let Some(Value::Object(set)) = r.remove("$set") {
            if let Some(Value::Array(messages)) = set.get("messages") {
                slots.clear();
                at.clear();
                for m in messages.clone() {
                    if let Some(id) = m.get("id").and_then(Value::as_str) {
                        let id = id.to_string();
                        spend(&mut state, &id, &m);
                        at.insert(id, slots.len());
                        slots.push(Some((m, *span)));
                    }
                }
            }
            for (k, v) in set {
                if k != "messages" {
                    state.metadata.insert(k, v);
                }
            }
        } else if r.get("sessionId").is_some_and(Value::is_string) {
            if let Some(Value::Array(messages)) = r.remove("messages") {
                for m in messages {
                    if let Some(id) = m.get("id").and_then(Value::as_str) {
                        let id = id.to_string();
                        spend(&mut state, &id, &m);
                        at.insert(id, slots.len());
                        slots.push(Some((m, *span)));
                    }
                }
            }
            for (k, v) in r {
                state.metadata.insert(k, v);
            }
        } else {
            state.skipped.unknown_type("(a record of no known kind)");
        }
    }
    state.messages = slots.into_iter().flatten().collect();
    finish(state)
}

fn put(state: &mut Replayed, m: Value, span: LineSpan) {
    if let Some(id) = m.get("id").and_then(Value::as_str).map(str::to_string) {
        spend(state, &id, &m);
        state.messages.push((m, span));
    }
}

/// Records the usage of message `id` as `record` says it (a later version
/// of the same message replaces the earlier one's).
fn spend(state: &mut Replayed, id: &str, record: &Value) {
    let Some((model, u)) = records::usage(record) else {
        return;
    };
    let at = record
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(parse_time);
    let spent = Spent {
        model,
        usage: u,
        at,
    };
    match state.spent_at.get(id) {
        Some(&i) => state.spent[i] = spent,
        None => {
            state.spent_at.insert(id.to_string(), state.spent.len());
            state.spent.push(spent);
        }
    }
}

/// The usage of every message spent on.
fn finish(mut state: Replayed) -> Result<Replayed> {
    for s in &state.spent {
        state.usage.add_request(&s.model, &s.usage, s.at);
    }
    Ok(state)
}

/// The record of the session file `path`, read whole (Gemini's files are
/// small, and a title, a rewind or a checkpoint can be anywhere in one).
pub fn record_at(path: &Path) -> SessionRecord {
    let user = crate::store::sources::agents::user_name();
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let fallback_id = stem(path);
    let state = match replay(path) {
        Ok(state) => state,
        Err(e) => {
            return SessionRecord {
                agent: Agent::Gemini,
                ..SessionRecord::damaged(
                    &fallback_id,
                    path.to_path_buf(),
                    folder,
                    &user,
                    e.to_string(),
                )
            };
        }
    };
    let meta = &state.metadata;
    let text = |k: &str| meta.get(k).and_then(Value::as_str);
    let Some(raw_id) = text("sessionId") else {
        return SessionRecord {
            agent: Agent::Gemini,
            ..SessionRecord::damaged(
                &fallback_id,
                path.to_path_buf(),
                folder,
                &user,
                format!("{}: no sessionId in its metadata", path.display()),
            )
        };
    };
    // The id names the side folder (`chats/<id>/`) and the resume's argv.
    let id = match SessionId::check(raw_id) {
        Ok(id) => id,
        Err(why) => {
            return SessionRecord {
                agent: Agent::Gemini,
                ..SessionRecord::damaged(raw_id, path.to_path_buf(), folder, &user, why)
            };
        }
    };
    let mtime = std::fs::symlink_metadata(path)
        .map(|m| m.mtime() as f64 + m.mtime_nsec() as f64 / 1e9)
        .unwrap_or(0.0);
    let prompt = state
        .messages
        .iter()
        .find_map(|(m, _)| records::prompt_text(m))
        .unwrap_or_default();
    let last_message = state.messages.iter().rev().find_map(|(m, _)| {
        m.get("timestamp")
            .and_then(Value::as_str)
            .and_then(parse_time)
    });
    let title = text("summary")
        .map(str::to_string)
        .unwrap_or_else(|| prompt.clone());
    SessionRecord {
        agent: Agent::Gemini,
        name: name_from_prompt(&title),
        title,
        cwd: project_root(&folder),
        first_prompt: prompt,
        user,
        created_at: text("startTime").and_then(parse_time).unwrap_or(mtime),
        last_used_at: text("lastUpdated")
            .and_then(parse_time)
            .into_iter()
            .chain(last_message)
            .fold(None, |a: Option<f64>, b| Some(a.map_or(b, |a| a.max(b))))
            .unwrap_or(mtime),
        path: path.to_path_buf(),
        conversation_dir: folder,
        error: None,
        bytes: None,
        stamp: None,
        id,
        archived: false,
    }
}

/// The session id of the file `path`, from its first line (a legacy
/// `.json` is read whole): what the search index lists it by.
pub fn id_of(path: &Path) -> SessionId {
    if path.extension().is_some_and(|e| e == "jsonl")
        && let Ok((head, _, _)) = jsonl::head(path, 16 * 1024)
        && let Some(first) = head.split(|b| *b == b'\n').next()
        && let Ok(v) = serde_json::from_slice::<Value>(first)
        && let Some(id) = v.get("sessionId").and_then(Value::as_str)
    {
        return SessionId::of_file(id, path);
    }
    record_at(path).id
}

/// The project folder Gemini CLI recorded for `chats` (`../.project_root`).
fn project_root(chats: &Path) -> Option<String> {
    let marker = chats.parent()?.join(".project_root");
    let (bytes, _, _) = jsonl::head(&marker, 4096).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewinds_replacements_and_checkpoints_apply_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("tmp/proj/chats");
        std::fs::create_dir_all(&chats).unwrap();
        std::fs::write(dir.path().join("tmp/proj/.project_root"), "/home/ann/app\n").unwrap();
        let path = chats.join("session-2026-11-20T10-00-33333333.jsonl");
        let lines = [
            r#"{"sessionId":"33333333-3333-4333-8333-333333333333","projectHash":"h","startTime":"2026-11-20T10:00:00Z","lastUpdated":"2026-11-20T10:00:00Z","kind":"main"}"#,
            r#"{"id":"m1","timestamp":"2026-11-20T10:00:01Z","type":"user","content":[{"text":"first"}]}"#,
            r#"{"id":"m2","timestamp":"2026-11-20T10:00:02Z","type":"gemini","content":"draft","tokens":{"input":10,"output":1,"cached":0}}"#,
            r#"{"id":"m2","timestamp":"2026-11-20T10:00:03Z","type":"gemini","content":"final","tokens":{"input":10,"output":2,"cached":4}}"#,
            r#"{"id":"m3","timestamp":"2026-11-20T10:00:04Z","type":"user","content":"oops"}"#,
            r#"{"id":"m4","timestamp":"2026-11-20T10:00:05Z","type":"gemini","content":"gone","tokens":{"input":99,"output":99,"cached":0}}"#,
            r#"{"$rewindTo":"m3"}"#,
            r#"{"$set":{"summary":"Fix the thing","lastUpdated":"2026-11-20T10:00:09Z"}}"#,
            r#"{"id":"m5","timestamp":"2026-11-20T10:00:06Z","type":"user","content":"again"}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let r = record_at(&path);
        assert_eq!(r.error, None);
        assert_eq!(r.id, "33333333-3333-4333-8333-333333333333");
        assert_eq!(
            (r.title.as_str(), r.first_prompt.as_str()),
            ("Fix the thing", "first")
        );
        assert_eq!(r.cwd.as_deref(), Some("/home/ann/app"));
        assert_eq!(r.last_used_at, parse_time("2026-11-20T10:00:09Z").unwrap());
        let read = GeminiHome::read(&r).unwrap();
        let shown: Vec<String> = read.main.context.messages().map(|m| m.one_line()).collect();
        assert_eq!(shown, ["first", "final", "again"]);
        assert_eq!(read.main.lines[1][0].line, 4, "the replacing line");
        // The rewound answer's tokens were spent: they count; the draft of
        // m2 counts once, as its final version. Its tokens give no `total`,
        // so its input is read as not holding the cached ones (ccusage's rule).
        let u = read.usage.total();
        assert_eq!((u.input, u.output, u.cache_read), (10 + 99, 2 + 99, 4));
        assert_eq!(read.title.as_deref(), Some("Fix the thing"));
    }

    #[test]
    fn the_cli_s_recovered_and_temporary_files_are_nobody_s_session() {
        // Gemini CLI 0.5x renames a file it cannot load to
        // `*.jsonl.unreadable-<ms>` and writes through `*.jsonl.tmp-<pid>`;
        // a subagent's session lives in `chats/<parent id>/`.
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("tmp/proj/chats");
        let parent = "44444444-4444-4444-8444-444444444444";
        std::fs::create_dir_all(chats.join(parent)).unwrap();
        let head = format!(
            r#"{{"sessionId":"{parent}","projectHash":"h","startTime":"2026-11-20T10:00:00Z","lastUpdated":"2026-11-20T10:00:00Z","kind":"main"}}"#
        );
        let live = chats.join("session-2026-11-20T10-00-44444444.jsonl");
        for path in [
            live.clone(),
            chats.join("session-2026-11-20T10-00-44444444.jsonl.unreadable-1754040000000"),
            chats.join("session-2026-11-20T10-00-44444444.jsonl.tmp-48213"),
            chats
                .join(parent)
                .join("55555555-5555-4555-8555-555555555555.jsonl.tmp-7"),
        ] {
            std::fs::write(&path, format!("{head}\n")).unwrap();
        }
        let sub = chats
            .join(parent)
            .join("55555555-5555-4555-8555-555555555555.jsonl");
        std::fs::write(
            &sub,
            "{\"sessionId\":\"55555555-5555-4555-8555-555555555555\",\"projectHash\":\"h\",\"startTime\":\"2026-11-20T10:00:01Z\",\"lastUpdated\":\"2026-11-20T10:00:01Z\",\"kind\":\"subagent\"}\n{\"id\":\"s1\",\"timestamp\":\"2026-11-20T10:00:02Z\",\"type\":\"user\",\"content\":\"scan the repo\"}\n",
        )
        .unwrap();
        let home = GeminiHome::open(dir.path());
        assert_eq!(home.session_files(), vec![live.clone()]);
        let read = GeminiHome::read(&record_at(&live)).unwrap();
        assert_eq!(read.others.len(), 1, "the subagent, with its parent");
        assert_eq!(read.others[0].context.len(), 1);
    }
}
