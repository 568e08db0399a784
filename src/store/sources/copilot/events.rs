//! The events of a Copilot CLI session, as messages. Every line is one event
//! `{type, data, id, parentId, timestamp, agentId?}`; the conversation is
//! `user.message`, `system.message`, `assistant.reasoning`,
//! `assistant.message` (its `toolRequests` are the calls) and
//! `tool.execution_complete` (a call's result, joined by `toolCallId`).
//! A subagent's events carry its `agentId` (older ones
//! `data.parentToolCallId`) and become a thread of their own. Tokens are
//! recorded only when a run of the CLI ends: `session.shutdown` holds the
//! session's `modelMetrics` so far (a resumed session carries its earlier
//! runs' figures on), so each shutdown adds what grew since the one before,
//! as ccusage reads them.

use crate::store::error::Result;
use crate::store::format::usage::{Usage, UsageByModel};
use crate::store::sources::agent_read::{
    AgentRead, NewMessage, RecordedContext, ThreadBuilder, parse_time, subagent_context_id,
    text_part, thinking_part, tool_result_part, tool_use_part, value_text,
};
use crate::store::sources::jsonl::{self, JsonlFile, Skipped};
use serde_json::Value;
use std::path::Path;

/// Events the CLI writes that hold nothing the conversation shows (state,
/// bookkeeping, notices); any other type not read is named in the note
/// shown with the session.
const NOT_SHOWN: &[&str] = &[
    "session.start",
    "session.resume",
    "session.model_change",
    "session.context_changed",
    "session.info",
    "session.warning",
    "session.error",
    "session.shutdown",
    "session.compaction_start",
    "session.truncation",
    "session.usage_checkpoint",
    "session.task_complete",
    "session.handoff",
    "session.context_cleared",
    "session.plan_changed",
    "session.workspace_file_changed",
    "assistant.turn_start",
    "assistant.turn_end",
    "tool.execution_start",
    "tool.user_requested",
    "abort",
    "subagent.started",
    "subagent.completed",
    "subagent.failed",
    "subagent.selected",
    "custom_agent.started",
    "custom_agent.completed",
    "custom_agent.failed",
    "skill.invoked",
    "hook.start",
    "hook.end",
    "permission.requested",
    "permission.completed",
];

/// What a listing needs, read in one pass over the events.
#[derive(Debug, Default)]
pub struct Facts {
    /// The first thing a person typed.
    pub first_prompt: Option<String>,
    /// The folder of the latest context the session recorded.
    pub cwd: Option<String>,
    /// When it started (`session.start`'s `startTime`, else its first event).
    pub started: Option<f64>,
    /// Its last event's time.
    pub last: Option<f64>,
}

/// The listing's facts of `file`.
pub fn facts(file: &JsonlFile) -> Facts {
    let mut facts = Facts::default();
    let mut skipped = Skipped::default();
    for span in &file.spans {
        let Some(event) = jsonl::parse_line::<Value>(file.line_bytes(span), span, &mut skipped)
        else {
            continue;
        };
        let at = event
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(parse_time);
        if facts.started.is_none() {
            facts.started = at;
        }
        facts.last = at.or(facts.last);
        let data = event.get("data").unwrap_or(&Value::Null);
        match kind(&event) {
            "session.start" => {
                if let Some(t) = data.get("startTime").and_then(Value::as_str) {
                    facts.started = parse_time(t).or(facts.started);
                }
                facts.cwd = context_cwd(data.get("context")).or(facts.cwd);
            }
            "session.resume" => facts.cwd = context_cwd(data.get("context")).or(facts.cwd),
            "session.context_changed" => facts.cwd = context_cwd(Some(data)).or(facts.cwd),
            "user.message" if facts.first_prompt.is_none() && subagent(&event).is_none() => {
                facts.first_prompt = data
                    .get("content")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string);
            }
            _ => {}
        }
    }
    facts
}

fn kind(event: &Value) -> &str {
    event.get("type").and_then(Value::as_str).unwrap_or("")
}

fn context_cwd(context: Option<&Value>) -> Option<String> {
    context?
        .get("cwd")?
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_string)
}

/// The subagent an event belongs to: its `agentId`, else (older files) the
/// tool call that started it. None for the main conversation's.
fn subagent(event: &Value) -> Option<String> {
    let named = event
        .get("agentId")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty() && *a != "main");
    let by_call = || {
        event
            .get("data")?
            .get("parentToolCallId")?
            .as_str()
            .filter(|c| !c.is_empty())
    };
    named.or_else(by_call).map(subagent_context_id)
}

/// A thread being read, with what its next message needs.
#[derive(Default)]
struct Reading {
    builder: ThreadBuilder,
    /// The last message is a reasoning the answer after it joins.
    reasoning_open: bool,
}

/// The whole session in `file` (session `id`, at `path`).
pub fn read(file: &JsonlFile, id: &str, path: &Path) -> Result<AgentRead> {
    let mut skipped = file.skipped.clone();
    let mut main = Reading::default();
    let mut others: Vec<(String, Reading)> = Vec::new();
    let mut spent = Spent::default();
    let mut model = String::new();
    let mut window = None;
    let mut context = None;
    for span in &file.spans {
        let Some(event) = jsonl::parse_line::<Value>(file.line_bytes(span), span, &mut skipped)
        else {
            continue;
        };
        let at_text = event.get("timestamp").and_then(Value::as_str);
        let at = at_text.and_then(parse_time);
        let data = event.get("data").unwrap_or(&Value::Null);
        let said = |key: &str| data.get(key).and_then(Value::as_str).map(str::to_string);
        let thread = match subagent(&event) {
            None => &mut main,
            Some(agent) => match others.iter().position(|(a, _)| *a == agent) {
                Some(i) => &mut others[i].1,
                None => {
                    others.push((agent, Reading::default()));
                    &mut others.last_mut().expect("just pushed").1
                }
            },
        };
        let message = |role: &'static str, parts: Vec<Value>, model: Option<String>| NewMessage {
            role,
            parts,
            id: event
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            timestamp: at_text.map(str::to_string),
            kind: None,
            model,
            lines: vec![*span],
        };
        match kind(&event) {
            "session.start" | "session.resume" => {
                model = said("selectedModel").unwrap_or(model);
            }
            "session.model_change" => model = said("newModel").unwrap_or(model),
            "assistant.turn_start" => model = said("model").unwrap_or(model),
            "session.compaction_start" | "session.truncation" => {
                window = data.get("tokenLimit").and_then(Value::as_u64).or(window);
            }
            "session.shutdown" => {
                spent.shutdown(data, at);
                if let Some(tokens) = data.get("currentTokens").and_then(Value::as_u64) {
                    context = Some(RecordedContext {
                        tokens,
                        at,
                        window,
                        model: said("currentModel").unwrap_or_else(|| model.clone()),
                        messages_seen: main.builder.len(),
                        counted_after: 0,
                    });
                }
            }
            "user.message" => {
                let mut parts = vec![text_part(said("content").unwrap_or_default())];
                parts.extend(attachments(data));
                thread.builder.push(message("user", parts, None));
                thread.reasoning_open = false;
            }
            "system.message" => {
                let text = said("content").unwrap_or_default();
                thread
                    .builder
                    .push(message("system", vec![text_part(text)], None));
                thread.reasoning_open = false;
            }
            "assistant.reasoning" => {
                let text = said("content").unwrap_or_default();
                let m = message("assistant", vec![thinking_part(text)], None);
                thread.builder.push(m);
                thread.reasoning_open = true;
            }
            "assistant.message" => {
                let mut parts = Vec::new();
                if !thread.reasoning_open
                    && let Some(thinking) = said("reasoningText").filter(|t| !t.is_empty())
                {
                    parts.push(thinking_part(thinking));
                }
                if let Some(text) = said("content").filter(|t| !t.is_empty()) {
                    parts.push(text_part(text));
                }
                parts.extend(tool_requests(data));
                let by = said("model").unwrap_or_else(|| model.clone());
                let joined = thread.reasoning_open
                    && thread.builder.last_mut().is_some_and(|(raw, lines)| {
                        if let Some(Value::Array(content)) = raw.get_mut("content") {
                            content.extend(parts.iter().cloned());
                        }
                        raw.insert("model".into(), Value::String(by.clone()));
                        lines.push(*span);
                        true
                    });
                if !joined {
                    thread.builder.push(message(
                        "assistant",
                        parts,
                        Some(by).filter(|m| !m.is_empty()),
                    ));
                }
                thread.reasoning_open = false;
            }
            "tool.execution_complete" => {
                let call = said("toolCallId").unwrap_or_default();
                let failed = data.get("success").and_then(Value::as_bool) == Some(false);
                let text = match (data.get("result"), data.get("error")) {
                    (_, Some(error)) if failed => error
                        .get("message")
                        .map(value_text)
                        .unwrap_or_else(|| value_text(error)),
                    (Some(result), _) => result
                        .get("content")
                        .map(value_text)
                        .unwrap_or_else(|| value_text(result)),
                    _ => String::new(),
                };
                let part = tool_result_part(&call, text, failed);
                thread.builder.push(message("tool", vec![part], None));
                thread.reasoning_open = false;
            }
            "session.compaction_complete" if data.get("success") != Some(&Value::Bool(false)) => {
                let summary = said("summaryContent").unwrap_or_default();
                let mut m = message(
                    "system",
                    vec![text_part(format!("[compacted] {summary}"))],
                    None,
                );
                m.kind = Some("CompactionBoundary");
                thread.builder.push(m);
                thread.reasoning_open = false;
            }
            "session.compaction_complete" => {}
            other if NOT_SHOWN.contains(&other) => {}
            other => skipped.unknown_type(if other.is_empty() { "(no type)" } else { other }),
        }
    }
    let thread = main.builder.finish(id, None, path)?;
    let others = others
        .into_iter()
        .map(|(agent, r)| r.builder.finish(&agent, Some(id), path))
        .collect::<Result<Vec<_>>>()?;
    Ok(AgentRead {
        main: thread,
        others,
        usage: spent.usage(),
        title: None,
        skipped,
        context,
    })
}

/// The tokens of the session's `session.shutdown`s. A shutdown's
/// `modelMetrics` are the session's figures so far (a resume carries the
/// earlier runs' on), so each shutdown adds what grew since the one before,
/// dated at it; a figure that fell adds nothing (ccusage's reading).
#[derive(Default)]
struct Spent {
    /// Per model, the largest raw figures seen: input (cache included),
    /// output, cache reads, cache writes.
    seen: Vec<(String, [u64; 4])>,
    /// What each shutdown added: model, tokens, when.
    added: Vec<(String, Usage, Option<f64>)>,
}

impl Spent {
    fn shutdown(&mut self, data: &Value, at: Option<f64>) {
        let Some(Value::Object(models)) = data.get("modelMetrics") else {
            return;
        };
        for (model, metrics) in models {
            let Some(u) = metrics.get("usage") else {
                continue;
            };
            let n = |key: &str| u.get(key).and_then(Value::as_u64).unwrap_or(0);
            let now = [
                n("inputTokens"),
                n("outputTokens"),
                n("cacheReadTokens"),
                n("cacheWriteTokens"),
            ];
            let at_model = match self.seen.iter().position(|(m, _)| m == model) {
                Some(i) => i,
                None => {
                    self.seen.push((model.clone(), [0; 4]));
                    self.seen.len() - 1
                }
            };
            let before = &mut self.seen[at_model].1;
            let grew: Vec<u64> = (0..4).map(|k| now[k].saturating_sub(before[k])).collect();
            for k in 0..4 {
                before[k] = before[k].max(now[k]);
            }
            if grew.iter().all(|g| *g == 0) {
                continue;
            }
            // `inputTokens` holds the cache reads and writes.
            let usage = Usage {
                input: grew[0].saturating_sub(grew[2]).saturating_sub(grew[3]),
                output: grew[1],
                cache_read: grew[2],
                cache_write: grew[3],
                ..Usage::default()
            };
            self.added.push((model.clone(), usage, at));
        }
    }

    fn usage(self) -> UsageByModel {
        let mut usage = UsageByModel::default();
        for (model, u, at) in self.added {
            usage.add_sum_at(&model, &u, at);
        }
        usage
    }
}

/// The calls an answer asked for, each a tool call part.
fn tool_requests(data: &Value) -> Vec<Value> {
    let Some(Value::Array(requests)) = data.get("toolRequests") else {
        return Vec::new();
    };
    requests
        .iter()
        .map(|r| {
            let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default();
            let arguments = match r.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => "{}".to_string(),
            };
            tool_use_part(text("toolCallId"), text("name"), arguments)
        })
        .collect()
}

/// What a prompt had attached (files, folders, selections), one line each.
fn attachments(data: &Value) -> Vec<Value> {
    let Some(Value::Array(items)) = data.get("attachments") else {
        return Vec::new();
    };
    items
        .iter()
        .map(|a| {
            let kind = a
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("attachment");
            let what = ["path", "displayName", "name", "url"]
                .iter()
                .find_map(|k| a.get(*k).and_then(Value::as_str))
                .unwrap_or("");
            text_part(format!("[{kind} attached: {what}]"))
        })
        .collect()
}
