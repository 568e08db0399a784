//! What a change did (or, previewed, would do): one report for every kind
//! of change and every agent, which the CLI prints and the viewer shows.

use crate::store::format::Context;
use crate::store::format::clear;
use crate::store::format::edit_facts::EditFacts;
use crate::store::ops::edit_plan::{EditPlan, PairDrop};
use std::collections::HashMap;
use std::path::PathBuf;

/// What a fork of another agent's session writes (or, previewed, would).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentFork {
    /// The new session's id (drawn for a preview too, never used then).
    pub new_session_id: String,
    /// The new session's file.
    pub path: PathBuf,
    /// True once the file is written.
    pub written: bool,
}

/// What a change did (or, for a preview, would do).
#[derive(Clone, Debug)]
pub struct ChangeReport {
    /// The plan, over the context that was active.
    pub plan: EditPlan,
    /// The facts of that context the plan was made on.
    pub facts: EditFacts,
    /// What a person should know about the plan besides the figures.
    pub notes: Vec<String>,
    /// The context that was active.
    pub parent: Context,
    /// A Loki or peteos session: the new active context (None previewed).
    pub child: Option<Context>,
    /// Another agent's session: the new session written beside it.
    pub fork: Option<AgentFork>,
    /// The size of the file before, and of the new one as it is (or would
    /// be) written; None when nothing changes.
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

impl ChangeReport {
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
            .map(|p| (p, p.reason(&self.facts)))
    }

    /// The new active context's id, or the new session's: what to resume
    /// or switch back from.
    pub fn made(&self) -> Option<String> {
        let child = self.child.as_ref().map(|c| c.id().to_string());
        child.or_else(|| self.fork.as_ref().map(|f| f.new_session_id.clone()))
    }

    /// Tool results the change clears.
    pub fn results_cleared(&self) -> usize {
        self.plan.cleared.iter().map(|c| c.results.len()).sum()
    }

    /// Images and documents the change replaces.
    pub fn media_replaced(&self) -> usize {
        self.plan.cleared.iter().map(|c| c.media.len()).sum()
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
                let id = self.facts.id(c.index).to_string();
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

    fn ids(&self, indices: &[usize]) -> Vec<String> {
        indices
            .iter()
            .map(|&i| self.facts.id(i).to_string())
            .collect()
    }
}
