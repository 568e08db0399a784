//! Comparing a context with its parent: which messages a fork dropped,
//! which it cleared (a copy naming the original in `cleared_from`), which
//! were added since, and the token totals of both. Reads only.

use crate::store::error::{Result, StoreError};
use crate::store::format::clear::CLEARED_FROM;
use crate::store::format::tokens::Encoding;
use crate::store::format::{Context, Session};
use crate::store::ops::contexts;
use crate::store::ops::counting::message_counts;
use crate::store::ops::forking;
use std::collections::HashMap;
use std::path::Path;

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DiffSide {
    /// The context id.
    pub id: String,
    /// Its messages.
    pub messages: usize,
    /// Its total tokens.
    pub tokens: u64,
}

/// A message on one side only.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DiffMessage {
    /// Its index in its context.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// Its role.
    pub role: String,
    /// Its tokens.
    pub tokens: u64,
    /// The start of its text on one line (tool calls and media as
    /// placeholders), so a person sees what went without opening it.
    pub text: String,
}

/// Characters of a message's text a diff shows.
const DIFF_TEXT_CHARS: usize = 120;

/// A message of the context that replaces a parent's message with its
/// tool results cleared.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DiffCleared {
    /// Its index in the context.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// Its role.
    pub role: String,
    /// The id of the message it replaces (in the parent).
    pub cleared_from: String,
    /// The parent message's tokens.
    pub tokens_before: u64,
    /// Its tokens.
    pub tokens_after: u64,
}

/// How a context differs from its parent.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ContextDiff {
    /// The context compared.
    pub context: DiffSide,
    /// Its parent (`origin_context_id`).
    pub parent: DiffSide,
    /// Messages present in both, by id.
    pub kept: usize,
    /// Parent messages the context does not hold (nor a cleared copy of).
    pub dropped: Vec<DiffMessage>,
    /// Messages of the context that are cleared copies of parent messages.
    pub cleared: Vec<DiffCleared>,
    /// Messages of the context the parent does not hold: added since the fork.
    pub added: Vec<DiffMessage>,
}

/// Compares context `context` (an id or a unique prefix; None: the active
/// one) of the conversation in `dir` with its parent.
pub fn diff(dir: &Path, context: Option<&str>, encoding: Encoding) -> Result<ContextDiff> {
    let session = Session::load(dir)?;
    let child = match context {
        Some(arg) => session.load_context(&contexts::find(dir, arg)?)?,
        None => forking::active(&session)?,
    };
    let Some(origin) = child.origin_context_id() else {
        return Err(StoreError::NotFound(format!(
            "context {} is not a fork (no origin_context_id in {}): there is no parent to compare it with",
            child.id(),
            child.path().display()
        )));
    };
    let parent = session.load_context(origin).map_err(|e| {
        if e.is_not_found() {
            StoreError::NotFound(format!(
                "the parent {origin} of context {} is not on disk any more",
                child.id()
            ))
        } else {
            e
        }
    })?;
    let child_counts = message_counts(&child, encoding)?;
    let parent_counts = message_counts(&parent, encoding)?;
    Ok(compare(&child, &child_counts, &parent, &parent_counts))
}

/// The comparison of `child` with `parent`, given each one's counts.
pub fn compare(
    child: &Context,
    child_counts: &[u64],
    parent: &Context,
    parent_counts: &[u64],
) -> ContextDiff {
    let mut in_parent: HashMap<&str, usize> = HashMap::new();
    for (i, m) in parent.messages().enumerate() {
        in_parent.entry(m.id()).or_insert(i);
    }
    let mut matched = vec![false; parent.len()];
    let (mut kept, mut cleared, mut added) = (0, Vec::new(), Vec::new());
    for (i, m) in child.messages().enumerate() {
        if let Some(&p) = in_parent.get(m.id()) {
            matched[p] = true;
            kept += 1;
            continue;
        }
        let from = m.raw().get(CLEARED_FROM).and_then(|v| v.as_str());
        match from.and_then(|f| in_parent.get(f).map(|&p| (f, p))) {
            Some((from, p)) if !matched[p] => {
                matched[p] = true;
                cleared.push(DiffCleared {
                    index: i,
                    id: m.id().to_string(),
                    role: m.role().to_string(),
                    cleared_from: from.to_string(),
                    tokens_before: parent_counts[p],
                    tokens_after: child_counts[i],
                });
            }
            _ => added.push(DiffMessage {
                index: i,
                id: m.id().to_string(),
                role: m.role().to_string(),
                tokens: child_counts[i],
                text: m.one_line_limited(DIFF_TEXT_CHARS),
            }),
        }
    }
    let dropped = parent
        .messages()
        .enumerate()
        .filter(|(p, _)| !matched[*p])
        .map(|(p, m)| DiffMessage {
            index: p,
            id: m.id().to_string(),
            role: m.role().to_string(),
            tokens: parent_counts[p],
            text: m.one_line_limited(DIFF_TEXT_CHARS),
        })
        .collect();
    let side = |ctx: &Context, counts: &[u64]| DiffSide {
        id: ctx.id().to_string(),
        messages: ctx.len(),
        tokens: counts.iter().sum(),
    };
    ContextDiff {
        context: side(child, child_counts),
        parent: side(parent, parent_counts),
        kept,
        dropped,
        cleared,
        added,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn ctx(id: &str, messages: Value) -> Context {
        let v = json!({"id": id, "messages": messages});
        Context::from_raw(v.as_object().unwrap().clone(), Path::new("c.json")).unwrap()
    }

    #[test]
    fn dropped_cleared_and_added_messages_are_told_apart() {
        let parent = ctx(
            "p",
            json!([{"id": "a", "role": "user"}, {"id": "b", "role": "tool"},
                   {"id": "c", "role": "tool"}, {"id": "d", "role": "assistant"}]),
        );
        let child = ctx(
            "k",
            json!([{"id": "a", "role": "user"}, {"id": "b2", "role": "tool", "cleared_from": "b"},
                   {"id": "d", "role": "assistant"}, {"id": "e", "role": "user"},
                   {"id": "f", "role": "tool", "cleared_from": "gone"}]),
        );
        let d = compare(&child, &[1, 2, 3, 4, 5], &parent, &[1, 20, 30, 3]);
        assert_eq!(d.kept, 2);
        assert_eq!(
            d.dropped.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
            ["c"]
        );
        assert_eq!(d.cleared.len(), 1);
        assert_eq!(
            (
                d.cleared[0].cleared_from.as_str(),
                d.cleared[0].tokens_before,
                d.cleared[0].tokens_after
            ),
            ("b", 20, 2)
        );
        let added: Vec<&str> = d.added.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            added,
            ["e", "f"],
            "a cleared_from naming nothing in the parent is new"
        );
        assert_eq!((d.context.tokens, d.parent.tokens), (15, 54));
    }
}
