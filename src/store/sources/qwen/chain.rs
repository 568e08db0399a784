//! A Qwen Code session file as a conversation. The records form a chain by
//! `parentUuid`; Qwen Code shows the path from the last record back to the
//! first, merging the records that share a `uuid` (their parts joined, the
//! latest usage kept). Record types: `user`, `assistant` (the model's
//! answer: thought parts, text, `functionCall`s; its `usageMetadata` and
//! `contextWindowSize`), `tool_result` (`functionResponse` parts and
//! `toolCallResult.status`), `system` (by `subtype`; a `chat_compression`
//! is shown, a `custom_title` names the session). A subagent's records are
//! marked `isSidechain` and carry its `agentId`: a thread of their own.

use crate::store::error::Result;
use crate::store::format::usage::{Usage, UsageByModel};
use crate::store::sources::agent_read::{
    AgentRead, NewMessage, RecordedContext, ThreadBuilder, parse_time, subagent_context_id,
    text_part,
};
use crate::store::sources::gemini::records::parts;
use crate::store::sources::jsonl::{self, JsonlFile, LineSpan, Skipped};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// `system` records that hold nothing the conversation shows.
const SYSTEM_NOT_SHOWN: &[&str] = &[
    "slash_command",
    "ui_telemetry",
    "at_command",
    "custom_title",
    "session_model",
    "notification",
    "cron",
    "mid_turn_user_message",
    "rewind",
    "file_history_snapshot",
    "parent_session",
    "turn_result",
];

/// What a listing needs.
#[derive(Debug, Default)]
pub struct Facts {
    /// The first prompt a person typed.
    pub first_prompt: Option<String>,
    /// The last title set (`system` / `custom_title`).
    pub title: Option<String>,
    /// The folder of the last record that names one.
    pub cwd: Option<String>,
    /// The first and last records' times (ISO-8601 text).
    pub first: Option<String>,
    pub last: Option<String>,
}

/// The records of `file` that are JSON objects, with their lines.
fn records(file: &JsonlFile, skipped: &mut Skipped) -> Vec<(Value, LineSpan)> {
    file.spans
        .iter()
        .filter_map(|span| {
            let v = jsonl::parse_line::<Value>(file.line_bytes(span), span, skipped)?;
            if v.is_object() {
                Some((v, *span))
            } else {
                skipped.bad_json.push(span.line);
                None
            }
        })
        .collect()
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn sidechain(r: &Value) -> bool {
    r.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// The listing's facts of `file`.
pub fn facts(file: &JsonlFile) -> Facts {
    let mut facts = Facts::default();
    for (r, _) in records(file, &mut Skipped::default()) {
        if let Some(t) = text(&r, "timestamp") {
            if facts.first.is_none() {
                facts.first = Some(t.to_string());
            }
            facts.last = Some(t.to_string());
        }
        if let Some(cwd) = text(&r, "cwd").filter(|c| !c.is_empty()) {
            facts.cwd = Some(cwd.to_string());
        }
        match text(&r, "type") {
            Some("user") if facts.first_prompt.is_none() && !sidechain(&r) => {
                facts.first_prompt = prompt_of(&r);
            }
            Some("system") if text(&r, "subtype") == Some("custom_title") => {
                facts.title = r
                    .get("systemPayload")
                    .and_then(|p| text(p, "customTitle"))
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .or(facts.title);
            }
            _ => {}
        }
    }
    facts
}

/// The text a person typed in a `user` record.
fn prompt_of(r: &Value) -> Option<String> {
    let parts = r.get("message")?.get("parts")?.as_array()?;
    let typed: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| text(p, "text"))
        .collect();
    let typed = typed.join("\n");
    let typed = typed.trim();
    (!typed.is_empty()).then(|| typed.to_string())
}

/// The indexes of the records on the chain from the last one back, first
/// record first; each `uuid` once (its records merged later). A loop in
/// the chain ends it, said in `skipped`.
fn main_path(
    records: &[(Value, LineSpan)],
    by_uuid: &HashMap<&str, Vec<usize>>,
    skipped: &mut Skipped,
) -> Vec<String> {
    let Some(last) = records
        .iter()
        .rev()
        .find(|(r, _)| !sidechain(r) && text(r, "uuid").is_some())
    else {
        return Vec::new();
    };
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut at = text(&last.0, "uuid");
    while let Some(uuid) = at {
        if !seen.insert(uuid) {
            skipped.other.push(format!(
                "the chain of records loops at {uuid}; read up to there"
            ));
            break;
        }
        path.push(uuid.to_string());
        // The parent as the latest record of that uuid names it.
        at = by_uuid
            .get(uuid)
            .and_then(|ix| ix.last())
            .and_then(|&i| text(&records[i].0, "parentUuid"));
        if let Some(parent) = at
            && !by_uuid.contains_key(parent)
        {
            skipped.other.push(format!(
                "the chain names a record {parent} that is not in the file; read from after it"
            ));
            break;
        }
    }
    path.reverse();
    path
}

/// The whole session in `file`.
pub fn read(file: &JsonlFile, id: &str, path: &Path) -> Result<AgentRead> {
    let mut skipped = file.skipped.clone();
    let records = records(file, &mut skipped);
    let mut by_uuid: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (r, _)) in records.iter().enumerate() {
        if let Some(u) = text(r, "uuid") {
            by_uuid.entry(u).or_default().push(i);
        }
    }
    let mut main = ThreadBuilder::default();
    let mut context = None;
    for uuid in main_path(&records, &by_uuid, &mut skipped) {
        let group: Vec<&(Value, LineSpan)> = by_uuid[uuid.as_str()]
            .iter()
            .map(|&i| &records[i])
            .collect();
        if let Some(m) = message_of(&group, &mut skipped) {
            main.push(m);
        }
        if let Some(c) = recorded_context(&group) {
            context = Some(RecordedContext {
                messages_seen: main.len(),
                ..c
            });
        }
    }
    // Subagents: their records in file order, by agent.
    let mut others: Vec<(String, ThreadBuilder, HashSet<String>)> = Vec::new();
    for (r, _) in records.iter().filter(|(r, _)| sidechain(r)) {
        let Some(uuid) = text(r, "uuid") else {
            continue;
        };
        let agent = subagent_context_id(text(r, "agentId").unwrap_or("subagent"));
        let at = match others.iter().position(|(a, _, _)| *a == agent) {
            Some(i) => i,
            None => {
                others.push((agent, ThreadBuilder::default(), HashSet::new()));
                others.len() - 1
            }
        };
        let (_, builder, done) = &mut others[at];
        if !done.insert(uuid.to_string()) {
            continue;
        }
        let group: Vec<&(Value, LineSpan)> = by_uuid[uuid].iter().map(|&i| &records[i]).collect();
        if let Some(m) = message_of(&group, &mut skipped) {
            builder.push(m);
        }
    }
    Ok(AgentRead {
        main: main.finish(id, None, path)?,
        others: others
            .into_iter()
            .map(|(agent, b, _)| b.finish(&agent, Some(id), path))
            .collect::<Result<Vec<_>>>()?,
        usage: usage_of(&records, &by_uuid),
        title: facts(file).title,
        skipped,
        context,
    })
}

/// The message the records of one `uuid` make: their parts joined, the
/// latest time; None for a record shown as nothing.
fn message_of(group: &[&(Value, LineSpan)], skipped: &mut Skipped) -> Option<NewMessage> {
    let (first, _) = group.first()?;
    let kind = text(first, "type").unwrap_or("");
    let mut all_parts = Vec::new();
    for (r, _) in group {
        if let Some(content) = r.get("message").and_then(|m| m.get("parts")) {
            all_parts.extend(parts(content.clone(), skipped));
        }
    }
    let (role, message_kind) = match kind {
        "user" => ("user", None),
        "assistant" => ("assistant", None),
        "tool_result" => {
            let failed = group.iter().any(|(r, _)| {
                r.get("toolCallResult")
                    .and_then(|t| text(t, "status"))
                    .is_some_and(|s| s != "success")
            });
            if failed {
                for p in &mut all_parts {
                    if p.get("type").and_then(Value::as_str) == Some("tool_result") {
                        p["execution_status"] = Value::String("error".into());
                    }
                }
            }
            ("tool", None)
        }
        "system" => match text(first, "subtype").unwrap_or("") {
            "chat_compression" => {
                let summary: Vec<String> = first
                    .get("systemPayload")
                    .and_then(|p| p.get("compressedHistory"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.get("parts").and_then(Value::as_array))
                    .flatten()
                    .filter_map(|p| text(p, "text").map(str::to_string))
                    .collect();
                all_parts = vec![text_part(format!("[compacted] {}", summary.join("\n")))];
                ("system", Some("CompactionBoundary"))
            }
            s if SYSTEM_NOT_SHOWN.contains(&s) => return None,
            s => {
                skipped.unknown_type(&format!("system/{s}"));
                return None;
            }
        },
        other => {
            skipped.unknown_type(if other.is_empty() { "(no type)" } else { other });
            return None;
        }
    };
    if all_parts.is_empty() && role != "assistant" {
        return None;
    }
    let model = group
        .iter()
        .find_map(|(r, _)| text(r, "model"))
        .map(str::to_string);
    Some(NewMessage {
        role,
        parts: all_parts,
        id: text(first, "uuid").unwrap_or_default().to_string(),
        timestamp: group
            .iter()
            .rev()
            .find_map(|(r, _)| text(r, "timestamp"))
            .map(str::to_string),
        kind: message_kind,
        model: model.filter(|_| role == "assistant"),
        lines: group.iter().map(|(_, span)| *span).collect(),
    })
}

/// The usage of an answer: `usageMetadata` as Qwen Code maps an API's
/// (`promptTokenCount` holds the cached tokens; they are taken out).
fn usage_in(r: &Value) -> Option<(String, Usage, Option<f64>)> {
    let u = r.get("usageMetadata")?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cachedContentTokenCount");
    let usage = Usage {
        input: n("promptTokenCount").saturating_sub(cached),
        output: n("candidatesTokenCount"),
        cache_read: cached,
        thoughts: n("thoughtsTokenCount"),
        ..Usage::default()
    };
    let model = text(r, "model").unwrap_or_default().to_string();
    Some((model, usage, text(r, "timestamp").and_then(parse_time)))
}

/// Every answer's tokens, off the shown chain too (a rewound answer's
/// tokens were spent), each `uuid` once, as its latest record says.
fn usage_of(records: &[(Value, LineSpan)], by_uuid: &HashMap<&str, Vec<usize>>) -> UsageByModel {
    let mut usage = UsageByModel::default();
    let mut done = HashSet::new();
    for (r, _) in records {
        let Some(uuid) = text(r, "uuid") else {
            continue;
        };
        if text(r, "type") != Some("assistant") || !done.insert(uuid) {
            continue;
        }
        let latest = by_uuid[uuid]
            .iter()
            .rev()
            .find_map(|&i| usage_in(&records[i].0));
        if let Some((model, u, at)) = latest {
            usage.add_request(&model, &u, at);
        }
    }
    usage
}

/// What the API took for the answer of these records, if they recorded it.
fn recorded_context(group: &[&(Value, LineSpan)]) -> Option<RecordedContext> {
    let (r, _) = group
        .iter()
        .rev()
        .find(|(r, _)| text(r, "type") == Some("assistant") && r.get("usageMetadata").is_some())?;
    let u = r.get("usageMetadata")?;
    Some(RecordedContext {
        tokens: u.get("promptTokenCount").and_then(Value::as_u64)?,
        at: text(r, "timestamp").and_then(parse_time),
        window: r.get("contextWindowSize").and_then(Value::as_u64),
        model: text(r, "model").unwrap_or_default().to_string(),
        messages_seen: 0,
        counted_after: 0,
    })
}
