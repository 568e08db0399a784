//! Trimming a conversation: plan a window, then fork it into place under the lock.

use crate::store::error::{Result, StoreError};
use crate::store::format::jsonfile;
use crate::store::format::tokens::Encoding;
use crate::store::format::window::WindowIndex;
use crate::store::format::{Context, Session, fork, ids};
use crate::store::fs::atomic;
use crate::store::fs::lock::{self, SessionLock};
use crate::store::ops::counting::message_counts;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// What to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrimRequest {
    /// `rolling_sequence_window(count)`: the last N non-special messages.
    KeepMessages(usize),
    /// `rolling_token_window(max_tokens)`: fit a token budget.
    MaxTokens(u64),
}

/// The effect of a trim on one context, before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrimPlan {
    /// False when peteos would not fork (nothing to drop).
    pub changed: bool,
    /// Indices of the messages the result holds, in order.
    pub kept: Vec<usize>,
    /// Indices of the messages the result drops, in order.
    pub dropped: Vec<usize>,
    /// Total tokens of the context now.
    pub tokens_before: u64,
    /// Total tokens of the result.
    pub tokens_after: u64,
    /// Tokens of the system prompt and tool definitions, which every trim
    /// keeps: a budget below this keeps only them.
    pub fixed_tokens: u64,
    /// Kept messages holding a tool result whose call was dropped (a count
    /// window can leave these, as peteos's does; a token window never does).
    pub dangling_tool_results: usize,
}

impl TrimPlan {
    /// What a person should know before applying the plan, if anything.
    pub fn warnings(&self, request: TrimRequest) -> Vec<String> {
        let mut out = Vec::new();
        if let TrimRequest::MaxTokens(budget) = request
            && budget < self.fixed_tokens
        {
            out.push(format!(
                "the system prompt and tool definitions alone take {} tokens, more than the budget of {}: only they are kept",
                self.fixed_tokens, budget
            ));
        }
        match self.dangling_tool_results {
            0 => {}
            1 => out.push(
                "1 kept tool result belongs to a call that is cut off (peteos keeps it too)".into(),
            ),
            n => out.push(format!(
                "{n} kept tool results belong to calls that are cut off (peteos keeps them too)"
            )),
        }
        out
    }
}

/// Plans `request` on `ctx`, given the token count of each message.
pub fn plan_trim(ctx: &Context, counts: &[u64], request: TrimRequest) -> Result<TrimPlan> {
    plan_with_index(&WindowIndex::new(ctx), counts, request)
}

/// [`plan_trim`] on an index read beforehand (the viewer re-plans at every key).
pub fn plan_with_index(
    index: &WindowIndex,
    counts: &[u64],
    request: TrimRequest,
) -> Result<TrimPlan> {
    let window = match request {
        TrimRequest::KeepMessages(n) => index.sequence_window(n)?,
        TrimRequest::MaxTokens(budget) => index.token_window(counts, budget),
    };
    let tokens_before: u64 = counts.iter().sum();
    let fixed_tokens = index.fixed_tokens(counts);
    let Some(kept) = window else {
        return Ok(TrimPlan {
            changed: false,
            kept: (0..index.len()).collect(),
            dropped: Vec::new(),
            tokens_before,
            tokens_after: tokens_before,
            fixed_tokens,
            dangling_tool_results: 0,
        });
    };
    let mut keep_mask = vec![false; index.len()];
    for &i in &kept {
        keep_mask[i] = true;
    }
    let dropped: Vec<usize> = (0..index.len()).filter(|&i| !keep_mask[i]).collect();
    let tokens_after = kept.iter().map(|&i| counts[i]).sum();
    let dangling_tool_results = index.dangling_results(&kept);
    Ok(TrimPlan {
        changed: true,
        kept,
        dropped,
        tokens_before,
        tokens_after,
        fixed_tokens,
        dangling_tool_results,
    })
}

/// What a trim did (or, for a dry run, would do).
#[derive(Clone, Debug)]
pub struct TrimOutcome {
    /// The plan, over the context that was active.
    pub plan: TrimPlan,
    /// The context that was active.
    pub parent: Context,
    /// The new active context, when the trim forked one (None for dry runs).
    pub child: Option<Context>,
}

impl TrimOutcome {
    /// Ids of the messages the result holds.
    pub fn kept_ids(&self) -> Vec<String> {
        ids_at(&self.parent, &self.plan.kept)
    }
    /// Ids of the messages the result drops.
    pub fn dropped_ids(&self) -> Vec<String> {
        ids_at(&self.parent, &self.plan.dropped)
    }
}

fn ids_at(ctx: &Context, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .filter_map(|&i| ctx.message(i).map(|m| m.id().to_string()))
        .collect()
}

/// What the caller saw when it planned; the trim is refused if it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The active context id at preview time.
    pub context_id: String,
    /// Its `_mutation_counter` at preview time.
    pub mutation_counter: i64,
}

/// Plans a trim of the active context of the conversation in `dir`. Reads only.
pub fn preview(dir: &Path, request: TrimRequest, encoding: Encoding) -> Result<TrimOutcome> {
    let session = Session::load(dir)?;
    let parent = active(&session)?;
    let counts = message_counts(&parent, encoding)?;
    let plan = plan_trim(&parent, &counts, request)?;
    Ok(TrimOutcome {
        plan,
        parent,
        child: None,
    })
}

/// Trims the active context of the conversation in `dir`, holding the lock
/// on `lock_dir` (the Loki session directory, or `dir` itself). Everything is
/// re-read under the lock. Writes, in this order, each atomically: the new
/// context file, the parent with the child in `children`, session.json
/// pointing at the child; a crash in between leaves a consistent session.
pub fn apply(
    dir: &Path,
    lock_dir: &Path,
    request: TrimRequest,
    encoding: Encoding,
    expected: Option<&Expected>,
    now: f64,
) -> Result<TrimOutcome> {
    let _lock = SessionLock::acquire(lock_dir, lock::DEFAULT_WAIT)?;
    atomic::remove_stale_temps(dir, Duration::ZERO);
    let mut session = Session::load(dir)?;
    let mut parent = active(&session)?;
    if let Some(expected) = expected
        && (parent.id() != expected.context_id
            || parent.mutation_counter() != expected.mutation_counter)
    {
        return Err(StoreError::Invalid(format!(
            "the conversation in {} changed since the preview (an agent may have written to it); review the trim again",
            dir.display()
        )));
    }
    let counts = message_counts(&parent, encoding)?;
    let plan = plan_trim(&parent, &counts, request)?;
    if !plan.changed {
        return Ok(TrimOutcome {
            plan,
            parent,
            child: None,
        });
    }
    let child_id = ids::dated_id(now);
    let child = fork(&parent, &plan.kept, &child_id, &ids::iso_timestamp(now))?;
    // The parent is checked before anything is written: a bad "children"
    // must not leave an orphan context file behind.
    push_child(&mut parent, &child_id)?;
    jsonfile::create_object(child.path(), child.raw_dict())?;
    jsonfile::write_object(parent.path(), parent.raw_dict())?;
    session.set_active_context(&child_id);
    session.save()?;
    Ok(TrimOutcome {
        plan,
        parent,
        child: Some(child),
    })
}

fn active(session: &Session) -> Result<Context> {
    session.active_context()?.ok_or_else(|| {
        StoreError::NotFound(format!(
            "{} has no active context",
            session.session_path().display()
        ))
    })
}

fn push_child(parent: &mut Context, child_id: &str) -> Result<()> {
    let path = parent.path().to_path_buf();
    let raw = parent.raw_dict_mut();
    match raw
        .entry("children")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        Value::Array(children) => {
            children.push(Value::String(child_id.to_string()));
            Ok(())
        }
        other => Err(StoreError::shape(
            &path,
            format!("\"children\" is {}, not a list", jsonfile::kind_of(other)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ops::contexts::activate;
    use serde_json::json;

    /// A session in a temp dir whose active context has `messages` user
    /// messages and `children` as given.
    fn session(messages: usize, children: Value) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let list: Vec<Value> = (0..messages)
            .map(|i| {
                json!({"role": "user", "id": format!("m{i}"), "_sequence_number": 3 + i,
                "content": [{"type": "text", "text": format!("hello {i}")}]})
            })
            .collect();
        let context = json!({"messages": list, "id": "c1", "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", messages]],
            "message_sequence": messages, "_mutation_counter": 3 + messages, "children": children});
        let write = |name: &str, v: &Value| {
            std::fs::write(dir.path().join(name), serde_json::to_vec(v).unwrap()).unwrap()
        };
        write("c1.json", &context);
        write(
            "session.json",
            &json!({"uuid": "s", "active_context_id": "c1"}),
        );
        dir
    }

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_bad_children_field_refuses_the_trim_before_anything_is_written() {
        let dir = session(4, json!("not a list"));
        let before = files(dir.path());
        let err = apply(
            dir.path(),
            dir.path(),
            TrimRequest::KeepMessages(1),
            Encoding::Cl100kBase,
            None,
            1.8e9,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("c1.json") && err.contains("children"), "{err}");
        assert_eq!(files(dir.path()), before, "no orphan context file");
    }

    #[test]
    fn a_trim_forks_and_switching_back_undoes_it() {
        let dir = session(4, json!([]));
        let parent_before = std::fs::read(dir.path().join("c1.json")).unwrap();
        let outcome = apply(
            dir.path(),
            dir.path(),
            TrimRequest::KeepMessages(1),
            Encoding::Cl100kBase,
            None,
            1.8e9,
        )
        .unwrap();
        let child = outcome.child.unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some(child.id()));
        activate(dir.path(), dir.path(), "c1").unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some("c1"), "undone on disk");
        let parent = session.active_context().unwrap().unwrap();
        assert_eq!(parent.children(), vec![child.id()]);
        let mut before: Value = serde_json::from_slice(&parent_before).unwrap();
        let mut after = Value::Object(parent.into_raw());
        before["children"] = json!([]);
        after["children"] = json!([]);
        assert_eq!(
            before, after,
            "the parent changed only by gaining its child"
        );
        assert!(activate(dir.path(), dir.path(), "missing").is_err());
        assert_eq!(
            Session::load(dir.path()).unwrap().active_context_id(),
            Some("c1"),
            "never pointed at a context that cannot be read"
        );
    }
}
