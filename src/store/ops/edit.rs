//! Edits by hand: plan a drop or a clear of the active context, then fork
//! it into place under the lock exactly as a window trim does (the parent
//! is untouched but for its `children`; `activate` undoes the edit).

use crate::store::clock;
use crate::store::error::Result;
use crate::store::format::clear;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::Encoding;
use crate::store::format::{Context, Session, check_fork, fork_with, ids, jsonfile};
use crate::store::ops::agent_fork::AgentFork;
use crate::store::ops::counting::{cleared_counts, message_counts, replaced_counts};
use crate::store::ops::edit_plan::{
    ClearedCounts, EditPlan, EditRequest, PairDrop, clear_targets, plan_edit,
};
use crate::store::ops::forking::{self, Expected};
use crate::store::ops::resumable;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// What an edit did (or, for a dry run, would do).
#[derive(Clone, Debug)]
pub struct EditOutcome {
    /// The plan, over the context that was active.
    pub plan: EditPlan,
    /// The facts of that context the plan was made on.
    pub index: EditFacts,
    /// The context that was active.
    pub parent: Context,
    /// The new active context, when the edit forked one (None for dry runs).
    pub child: Option<Context>,
    /// Another agent's session: the new session the edit writes beside it.
    pub fork: Option<AgentFork>,
    /// A Loki or peteos context: the size of its file and of the fork's
    /// (the fork's as it would be written, for a preview).
    pub bytes: Option<(u64, u64)>,
}

/// A cleared message as reported: its id in the parent, its id in the fork
/// (None before one is written) and its count before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClearedReport {
    /// The message's id in the parent.
    pub id: String,
    /// The cleared copy's id in the fork.
    pub new_id: Option<String>,
    /// Its count before.
    pub tokens_before: u64,
    /// Its count once cleared.
    pub tokens_after: u64,
    /// Tool results it clears.
    pub results: usize,
    /// Media parts it replaces.
    pub media: usize,
}

impl EditOutcome {
    /// Ids (in the parent) of the messages the result holds, cleared ones included.
    pub fn kept_ids(&self) -> Vec<String> {
        self.ids(&self.plan.kept)
    }

    /// Ids of the messages the result drops.
    pub fn dropped_ids(&self) -> Vec<String> {
        self.ids(&self.plan.dropped)
    }

    /// Ids (in the parent) of the messages whose tool results are cleared.
    pub fn cleared_ids(&self) -> Vec<String> {
        let indices: Vec<usize> = self.plan.cleared.iter().map(|c| c.index).collect();
        self.ids(&indices)
    }

    /// The messages dropped as partners of tool pairs, with why.
    pub fn partners(&self) -> impl Iterator<Item = (&PairDrop, String)> + '_ {
        self.plan
            .partners
            .iter()
            .map(|p| (p, p.reason(&self.index)))
    }

    /// Every cleared message, with its new id once the fork is written.
    pub fn cleared(&self) -> Vec<ClearedReport> {
        let new_ids: HashMap<&str, &str> = self
            .child
            .iter()
            .flat_map(|c| c.messages())
            .filter_map(|m| {
                let from = m.raw().get(clear::CLEARED_FROM)?.as_str()?;
                Some((from, m.id()))
            })
            .collect();
        self.plan
            .cleared
            .iter()
            .map(|c| {
                let id = self.index.id(c.index).to_string();
                ClearedReport {
                    new_id: new_ids.get(id.as_str()).map(|s| s.to_string()),
                    id,
                    tokens_before: c.tokens_before,
                    tokens_after: c.tokens_after,
                    results: c.results.len(),
                    media: c.media.len(),
                }
            })
            .collect()
    }

    /// What a person should know about the plan besides the figures.
    pub fn notes(&self) -> Vec<String> {
        self.plan.notes(&self.index)
    }

    fn ids(&self, indices: &[usize]) -> Vec<String> {
        indices
            .iter()
            .map(|&i| self.index.id(i).to_string())
            .collect()
    }
}

/// Plans `request` on the active context of the conversation in `dir`. Reads only.
pub fn preview(dir: &Path, request: &EditRequest, encoding: Encoding) -> Result<EditOutcome> {
    let parent = forking::active(&Session::load(dir)?)?;
    let (plan, index, _) = plan_on(&parent, request, encoding)?;
    let bytes = if plan.changed {
        // The fork as the write would lay it out: ids and times of the
        // same lengths, so the same size.
        let now = clock::now_seconds();
        let replaced = replaced_copies(&parent, &plan);
        let child = fork_with(
            &parent,
            &plan.kept,
            &replaced,
            &ids::dated_id(now),
            &ids::iso_timestamp(now),
        )?;
        Some((
            file_size(&parent),
            jsonfile::render(child.raw_dict()).len() as u64,
        ))
    } else {
        None
    };
    Ok(EditOutcome {
        plan,
        index,
        parent,
        child: None,
        fork: None,
        bytes,
    })
}

/// Applies `request` to the active context of the conversation in `dir`,
/// holding the lock on `lock_dir`: re-read and planned again under the
/// lock, refused if it is not what `expected` describes, then forked
/// (the cleared messages get new ids and `cleared_from`).
pub fn apply(
    dir: &Path,
    lock_dir: &Path,
    request: &EditRequest,
    encoding: Encoding,
    expected: Option<&Expected>,
    now: f64,
) -> Result<EditOutcome> {
    let mut locked = forking::lock_active(dir, lock_dir, expected)?;
    let (plan, index, _) = plan_on(&locked.parent, request, encoding)?;
    let (child, bytes) = if plan.changed {
        let before = file_size(&locked.parent);
        let replaced = replaced_copies(&locked.parent, &plan);
        let child = locked.write_fork(&plan.kept, &replaced, &ids::dated_id(now), now)?;
        let after = jsonfile::render(child.raw_dict()).len() as u64;
        (Some(child), Some((before, after)))
    } else {
        (None, None)
    };
    Ok(EditOutcome {
        plan,
        index,
        parent: locked.parent,
        child,
        fork: None,
        bytes,
    })
}

/// The new copies of the messages whose results (or media) the plan
/// replaces, each with a new id naming the original in `cleared_from`.
fn replaced_copies(parent: &Context, plan: &EditPlan) -> HashMap<usize, Map<String, Value>> {
    plan.cleared
        .iter()
        .filter_map(|c| {
            let message = parent.message(c.index)?;
            let copy = clear::cleared_message(&message, &c.results, &c.media, &ids::message_id());
            Some((c.index, copy))
        })
        .collect()
}

/// The size of the context's file (0 if it cannot be told).
fn file_size(ctx: &Context) -> u64 {
    std::fs::symlink_metadata(ctx.path()).map_or(0, |m| m.len())
}

/// Counts `ctx`, counts the cleared copies a clear needs, and plans.
pub(crate) fn plan_on(
    ctx: &Context,
    request: &EditRequest,
    encoding: Encoding,
) -> Result<(EditPlan, EditFacts, Vec<u64>)> {
    plan_on_counts(ctx, request, encoding, message_counts(ctx, encoding)?)
}

/// [`plan_on`] given the counts of `ctx`'s messages (kept by an earlier run).
pub(crate) fn plan_on_counts(
    ctx: &Context,
    request: &EditRequest,
    encoding: Encoding,
    counts: Vec<u64>,
) -> Result<(EditPlan, EditFacts, Vec<u64>)> {
    let index = EditFacts::new(ctx);
    let cleared = match request {
        EditRequest::Drop { .. } => ClearedCounts::new(ctx.len()),
        EditRequest::Clear(choice) => {
            let targets = clear_targets(&index, &counts, choice)?;
            cleared_counts(ctx, &index, &counts, encoding, &targets)?
        }
        EditRequest::Resumable(fix) => {
            let replacements = resumable::replacements(&index, &counts, fix)?;
            replaced_counts(ctx, encoding, &replacements)?
        }
    };
    let plan = plan_edit(&index, &counts, &cleared, request)?;
    // A dry run refuses what the write would.
    if plan.changed {
        check_fork(ctx, &plan.kept)?;
    }
    Ok((plan, index, counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ops::contexts::activate;
    use crate::store::ops::edit_plan::ClearChoice;
    use serde_json::json;

    /// A session whose active context holds a prompt, a call, its long
    /// result and an answer.
    fn session() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let messages = json!([
            {"role": "user", "id": "u", "_sequence_number": 3,
             "content": [{"type": "text", "text": "list the files"}]},
            {"role": "assistant", "id": "a", "_sequence_number": 4,
             "content": [{"type": "tool_use", "call_id": "k", "name": "bash", "arguments": "{}"}]},
            {"role": "tool", "id": "t", "_sequence_number": 5, "token_count": 7, "x_kept": true,
             "content": [{"type": "tool_result", "call_id": "k", "content": "file ".repeat(500),
                          "execution_status": "executed"}]},
            {"role": "assistant", "id": "b", "_sequence_number": 6,
             "content": [{"type": "text", "text": "done"}]}
        ]);
        let context = json!({"messages": messages, "id": "c1", "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 4]],
            "message_sequence": 4, "_mutation_counter": 7, "children": []});
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

    #[test]
    fn a_clear_forks_a_copy_naming_the_original_and_activate_undoes_it() {
        let dir = session();
        let parent_before = std::fs::read(dir.path().join("c1.json")).unwrap();
        let request = EditRequest::Clear(ClearChoice::Messages(vec!["t".into()]));
        let outcome = apply(
            dir.path(),
            dir.path(),
            &request,
            Encoding::O200kBase,
            None,
            1.8e9,
        )
        .unwrap();
        let child = outcome.child.as_ref().unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some(child.id()));
        let copied = child.message(2).unwrap();
        assert_ne!(copied.id(), "t", "a cleared message gets a new id");
        assert_eq!(copied.raw()[clear::CLEARED_FROM], "t");
        assert_eq!(copied.raw()["x_kept"], true, "other fields survive");
        assert!(
            copied.cached_token_count().is_none(),
            "the old count is gone"
        );
        let part = &copied.raw()["content"][0];
        assert_eq!(part["call_id"], "k");
        assert_eq!(part["execution_status"], "executed");
        let stated = outcome.plan.cleared[0].results[0].1;
        assert_eq!(part["content"], clear::placeholder(stated).as_str());
        // The plan's count of the copy is what the counter says of it.
        let recounted = message_counts(child, Encoding::O200kBase).unwrap();
        assert_eq!(recounted.iter().sum::<u64>(), outcome.plan.tokens_after);
        assert_eq!(outcome.cleared()[0].new_id.as_deref(), Some(copied.id()));
        // The parent gained its child and nothing else; activate undoes.
        let mut before: Value = serde_json::from_slice(&parent_before).unwrap();
        before["children"] = json!([child.id()]);
        let after: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("c1.json")).unwrap()).unwrap();
        assert_eq!(after, before);
        activate(dir.path(), dir.path(), "c1").unwrap();
        assert_eq!(
            Session::load(dir.path()).unwrap().active_context_id(),
            Some("c1")
        );
    }

    #[test]
    fn a_drop_forks_without_the_pair_and_a_changed_context_is_refused() {
        let dir = session();
        let request = EditRequest::Drop {
            messages: vec!["t".into()],
            with_pairs: true,
        };
        let stale = Expected {
            context_id: "c1".into(),
            mutation_counter: 6,
        };
        let err = apply(
            dir.path(),
            dir.path(),
            &request,
            Encoding::Cl100kBase,
            Some(&stale),
            1.8e9,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("changed since the preview"),
            "{err}"
        );
        let fresh = Expected {
            context_id: "c1".into(),
            mutation_counter: 7,
        };
        let outcome = apply(
            dir.path(),
            dir.path(),
            &request,
            Encoding::Cl100kBase,
            Some(&fresh),
            1.8e9,
        )
        .unwrap();
        assert_eq!(outcome.dropped_ids(), ["a", "t"]);
        let child = outcome.child.unwrap();
        let kept: Vec<&str> = child.messages().map(|m| m.id()).collect();
        assert_eq!(kept, ["u", "b"]);
        assert_eq!(child.raw_dict()["origin_context_id"], "c1");
    }
}
