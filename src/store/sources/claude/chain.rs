//! A Claude Code conversation from its lines: the chain of `parentUuid`
//! from the last leaf back to the root, through compaction boundaries (a
//! boundary's `parentUuid` is null; its `logicalParentUuid` goes on), with
//! lines replayed on resume counted once (by `uuid`), one API message
//! streamed over several lines (one `message.id`) shown once, and side
//! conversations (`isSidechain`) kept apart.

use crate::store::sources::agent_read::{NewMessage, ThreadBuilder, text_part};
use crate::store::sources::claude::line::Line;
use crate::store::sources::jsonl::{LineSpan, Skipped};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A parsed line with where it is.
#[derive(Clone)]
pub struct Parsed {
    /// Where it is in the file.
    pub span: LineSpan,
    /// What it says, boxed: a line is hundreds of bytes, and a 100 MB
    /// session's lines are moved from the parsing threads' pieces into one
    /// vector, then into these, on the thread the viewer waits for.
    pub line: Box<Line>,
}

/// The uuid of each line to the first line that has it (a replayed copy
/// later in the file is the same message).
pub struct Uuids<'a> {
    first: HashMap<&'a str, usize>,
    /// Lines whose uuid an earlier line has already.
    pub replayed: usize,
}

impl<'a> Uuids<'a> {
    /// Indexes `lines`.
    pub fn new(lines: &'a [Parsed]) -> Uuids<'a> {
        let mut first: HashMap<&str, usize> = HashMap::with_capacity(lines.len());
        let mut replayed = 0usize;
        for (i, p) in lines.iter().enumerate() {
            if let Some(uuid) = p.line.uuid.as_deref() {
                match first.entry(uuid) {
                    std::collections::hash_map::Entry::Occupied(_) => replayed += 1,
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(i);
                    }
                }
            }
        }
        Uuids { first, replayed }
    }

    /// True when line `i` is the first with its uuid (or has none).
    pub fn is_first(&self, lines: &[Parsed], i: usize) -> bool {
        match lines[i].line.uuid.as_deref() {
            Some(u) => self.first.get(u) == Some(&i),
            None => true,
        }
    }
}

/// The lines of the main conversation, the one that ends at the last
/// message of the file that is not a side conversation, in order (indices
/// into `lines`, whose `uuids` are given). In a subagent's own file every
/// line is a sidechain: `sidechain` then says which lines to follow.
pub fn main_chain(
    lines: &[Parsed],
    uuids: &Uuids<'_>,
    sidechain: bool,
    skipped: &mut Skipped,
) -> Vec<usize> {
    // A replayed copy of an earlier line is not a new leaf: the last line
    // written for the first time is.
    let leaf = (0..lines.len()).rev().find(|&i| {
        let p = &lines[i];
        p.line.is_message()
            && p.line.uuid.is_some()
            && p.line.sidechain() == sidechain
            && uuids.is_first(lines, i)
    });
    let order = match leaf {
        Some(leaf) => chain_from(lines, uuids, leaf, &mut vec![false; lines.len()], skipped),
        None => Vec::new(),
    };
    let mut on_chain = vec![false; lines.len()];
    for &i in &order {
        on_chain[i] = true;
    }
    let elsewhere = lines
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            matches!(p.line.kind(), "user" | "assistant")
                && p.line.sidechain() == sidechain
                && !on_chain[*i]
                && uuids.is_first(lines, *i)
        })
        .count();
    if elsewhere > 0 {
        skipped.other.push(format!(
            "{elsewhere} messages on other branches (a rewind, an edit) are not shown"
        ));
    }
    if uuids.replayed > 0 {
        skipped.other.push(format!(
            "{} lines replayed on resume are shown once",
            uuids.replayed
        ));
    }
    order
}

/// The side conversations kept in the main file (older versions wrote a
/// subagent's lines there, marked `isSidechain`): one chain per leaf.
pub fn side_chains(lines: &[Parsed], uuids: &Uuids<'_>, skipped: &mut Skipped) -> Vec<Vec<usize>> {
    // One mark per line for every chain followed (each clears its own).
    let mut seen = vec![false; lines.len()];
    let parents: HashSet<&str> = lines
        .iter()
        .filter(|p| p.line.sidechain())
        .filter_map(|p| p.line.parent_uuid.as_deref())
        .collect();
    lines
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            p.line.sidechain()
                && p.line.is_message()
                && uuids.is_first(lines, *i)
                && p.line.uuid.as_deref().is_some_and(|u| !parents.contains(u))
        })
        .map(|(leaf, _)| chain_from(lines, uuids, leaf, &mut seen, skipped))
        .collect()
}

/// The chain from `leaf` back to its root, in order: it follows
/// `parentUuid` (or, at a compaction boundary, `logicalParentUuid`) while
/// the lines are on the leaf's side (main or sidechain). `seen` marks the
/// lines it passed (one per line, all clear, and cleared again after: a
/// file of many side chains does not make one such vector for each).
fn chain_from(
    lines: &[Parsed],
    uuids: &Uuids<'_>,
    leaf: usize,
    seen: &mut [bool],
    skipped: &mut Skipped,
) -> Vec<usize> {
    let side = lines[leaf].line.sidechain();
    let mut out = Vec::new();
    let mut cur = Some(leaf);
    while let Some(i) = cur {
        if std::mem::replace(&mut seen[i], true) {
            skipped.other.push(format!(
                "the chain of messages loops at line {}; it is cut there",
                lines[i].span.line
            ));
            break;
        }
        out.push(i);
        let line = &lines[i].line;
        let parent = line
            .parent_uuid
            .as_deref()
            .or(line.logical_parent_uuid.as_deref());
        cur = match parent {
            None => None,
            Some(p) => match uuids.first.get(p) {
                Some(&j) if lines[j].line.sidechain() == side => Some(j),
                // A side conversation starts from a message of the main one.
                Some(_) => None,
                None => {
                    skipped.other.push(format!(
                        "the message on line {} names a parent that is not in the file ({p}); the conversation is shown from there",
                        lines[i].span.line
                    ));
                    None
                }
            },
        };
    }
    for &i in &out {
        seen[i] = false;
    }
    out.reverse();
    out
}

/// The messages of the chain `order`, taken out of `lines` (the content is
/// moved, not copied).
pub fn messages(lines: &mut [Parsed], order: &[usize], skipped: &mut Skipped) -> ThreadBuilder {
    let mut out = ThreadBuilder::default();
    let mut last_message_id: Option<String> = None;
    for &i in order {
        let p = &mut lines[i];
        let span = p.span;
        let line = &mut p.line;
        let uuid = line.uuid.take().unwrap_or_default();
        let timestamp = line.timestamp.take();
        match line.kind() {
            "user" => {
                last_message_id = None;
                let (mut parts, only_results) = take_parts(line, skipped);
                show_commands(&mut parts);
                let role = if only_results { "tool" } else { "user" };
                let kind = if line.is_compact_summary == Some(true) {
                    Some("CompactSummary")
                } else if line.is_meta == Some(true) {
                    Some("MetaMessage")
                } else {
                    None
                };
                out.push(NewMessage {
                    role,
                    parts,
                    id: uuid,
                    timestamp,
                    kind,
                    model: None,
                    lines: vec![span],
                });
            }
            "assistant" => {
                let message_id = line.message_id().map(str::to_string);
                let model = line.model().map(str::to_string);
                let (parts, _) = take_parts(line, skipped);
                let continues = message_id.is_some() && message_id == last_message_id;
                if continues && let Some((raw, spans)) = out.last_mut() {
                    if let Some(Value::Array(have)) = raw.get_mut("content") {
                        for part in parts {
                            // A version that rewrites the whole message on
                            // each line repeats the parts already shown.
                            if !have.contains(&part) {
                                have.push(part);
                            }
                        }
                    }
                    spans.push(span);
                    continue;
                }
                last_message_id = message_id;
                out.push(NewMessage {
                    role: "assistant",
                    parts,
                    id: uuid,
                    timestamp,
                    kind: None,
                    model,
                    lines: vec![span],
                });
            }
            "system" => {
                last_message_id = None;
                if let Some((kind, text)) = system_text(line) {
                    out.push(NewMessage {
                        role: "system",
                        parts: vec![text_part(text)],
                        id: uuid,
                        timestamp,
                        kind: Some(kind),
                        model: None,
                        lines: vec![span],
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A slash command's text parts read as Claude Code shows them (`/init
/// args`, a local command's output), not as its tags.
fn show_commands(parts: &mut [Value]) {
    for part in parts {
        if part.get("type").and_then(Value::as_str) != Some("text") {
            continue;
        }
        let shown = part
            .get("text")
            .and_then(Value::as_str)
            .and_then(super::command::shown);
        if let Some(shown) = shown {
            part["text"] = Value::String(shown);
        }
    }
}

/// The parts of a line (made when it was parsed, or now), counting the
/// block types not known; and whether they were all tool results.
fn take_parts(line: &mut Line, skipped: &mut Skipped) -> (Vec<Value>, bool) {
    line.with_parts();
    for kind in line.unknown_blocks.drain(..) {
        skipped.unknown_block(&kind);
    }
    (line.parts.take().unwrap_or_default(), line.only_results)
}

/// What a system line shows, if anything: a compaction boundary as such,
/// an API error, a command's output; bookkeeping (turn durations, hook
/// summaries) shows nothing.
fn system_text(line: &Line) -> Option<(&'static str, String)> {
    let content = line.content.as_ref().and_then(Value::as_str).unwrap_or("");
    match line.subtype.as_deref() {
        Some("compact_boundary") => {
            let meta = line.compact_metadata.as_ref();
            let trigger = meta.and_then(|m| m.get("trigger")).and_then(Value::as_str);
            let before = meta
                .and_then(|m| m.get("preTokens"))
                .and_then(Value::as_u64);
            let mut text = String::from("[compaction boundary]");
            if let Some(t) = trigger {
                text.push_str(&format!(" {t}"));
            }
            if let Some(b) = before {
                text.push_str(&format!(", {b} tokens before"));
            }
            if !content.is_empty() {
                text.push_str(&format!(": {content}"));
            }
            Some(("CompactionBoundary", text))
        }
        // Claude Code 2.1 clears old tool results and attachments from
        // what it sends, leaving the lines: a marker, as a compaction.
        Some("microcompact_boundary") => {
            let meta = line.microcompact_metadata.as_ref();
            let saved = meta
                .and_then(|m| m.get("tokensSaved"))
                .and_then(Value::as_u64);
            let mut text = String::from("[microcompaction: old tool results cleared]");
            if let Some(saved) = saved {
                text = format!("[microcompaction: old tool results cleared, {saved} tokens saved]");
            }
            Some(("CompactionBoundary", text))
        }
        Some("api_error") => {
            let detail = line
                .error
                .as_ref()
                .map(|e| e.to_string())
                .unwrap_or_default();
            Some(("ApiError", format!("[api error] {detail}")))
        }
        Some("turn_duration" | "stop_hook_summary") => None,
        _ if content.is_empty() => None,
        // A local command and its output, as Claude Code shows them.
        _ => Some((
            "SystemNote",
            super::command::shown(content).unwrap_or_else(|| content.to_string()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(lines: &[&str]) -> Vec<Parsed> {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| Parsed {
                span: LineSpan {
                    line: i as u32 + 1,
                    offset: 0,
                    len: l.len() as u32,
                },
                line: Box::new(Line::parse(l.as_bytes()).unwrap()),
            })
            .collect()
    }

    #[test]
    fn the_chain_runs_from_the_last_leaf_through_compactions_and_skips_branches() {
        let mut lines = parsed(&[
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"one"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"A"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"m1","content":[{"type":"text","text":"B"}]}}"#,
            r#"{"type":"user","uuid":"x1","parentUuid":"a2","message":{"role":"user","content":"abandoned"}}"#,
            r#"{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"a2","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155000}}"#,
            r#"{"type":"user","uuid":"s1","parentUuid":"c1","isCompactSummary":true,"message":{"role":"user","content":"summary"}}"#,
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"one"}}"#,
            r#"{"type":"assistant","uuid":"z1","parentUuid":"s1","isSidechain":true,"message":{"id":"m9","content":[]}}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}"#,
            // A resume replays an old line last: it is no new leaf.
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"A"}]}}"#,
        ]);
        let mut skipped = Skipped::default();
        let order = main_chain(&lines, &Uuids::new(&lines), false, &mut skipped);
        assert_eq!(order, vec![0, 1, 2, 4, 5, 8]);
        let built = messages(&mut lines, &order, &mut skipped);
        let thread = built
            .finish("s", None, std::path::Path::new("s.jsonl"))
            .unwrap();
        let rows: Vec<(String, String)> = thread
            .context
            .messages()
            .map(|m| (m.role().to_string(), m.one_line()))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("user".into(), "one".into()),
                ("assistant".into(), "A | B".into()),
                (
                    "system".into(),
                    "[compaction boundary] auto, 155000 tokens before: Conversation compacted"
                        .into()
                ),
                ("user".into(), "summary".into()),
                ("tool".into(), "[tool result t] ok".into()),
            ]
        );
        assert_eq!(
            thread.lines[1].iter().map(|s| s.line).collect::<Vec<_>>(),
            [2, 3]
        );
        let notes = skipped.sentences().join("\n");
        assert!(notes.contains("1 messages on other branches"), "{notes}");
        assert!(notes.contains("2 lines replayed"), "{notes}");
        let side = side_chains(&lines, &Uuids::new(&lines), &mut Skipped::default());
        assert_eq!(side, vec![vec![7]]);
    }

    #[test]
    fn side_chains_that_share_their_start_are_each_whole() {
        let lines = parsed(&[
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"go"}}"#,
            r#"{"type":"user","uuid":"s1","parentUuid":"u1","isSidechain":true,"message":{"content":"task"}}"#,
            r#"{"type":"assistant","uuid":"s2","parentUuid":"s1","isSidechain":true,"message":{"id":"m2","content":[{"type":"text","text":"one way"}]}}"#,
            r#"{"type":"assistant","uuid":"s3","parentUuid":"s1","isSidechain":true,"message":{"id":"m3","content":[{"type":"text","text":"another"}]}}"#,
        ]);
        let mut skipped = Skipped::default();
        let side = side_chains(&lines, &Uuids::new(&lines), &mut skipped);
        // The second chain passes the line the first one passed too.
        assert_eq!(side, vec![vec![1, 2], vec![1, 3]]);
        assert!(skipped.sentences().is_empty(), "{:?}", skipped.sentences());
    }
}
