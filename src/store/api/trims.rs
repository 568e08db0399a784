//! The door's counting and changes: the token counts of a context (kept
//! between runs where a cache folder can be used), and one call for every
//! change to a context (a window, a drop, a clear, the fix for resuming),
//! previewed or written, for every agent.

use super::Store;
use crate::store::error::Result;
use crate::store::format::Context;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::Encoding;
use crate::store::ops::change::{Change, ChangeReport, Mode};
use crate::store::ops::counting;
use crate::store::ops::edit_plan::ClearedCounts;
use crate::store::ops::locate::Target;
use crate::store::ops::resumable::{self, ResumableFix};
use crate::store::ops::{agent_fork, native_fork};

impl Store {
    /// Counts every message of `context`, handing counted slices to
    /// `on_slice(first index, counts)`; it returns false to stop early.
    pub fn count_tokens(
        &self,
        context: &Context,
        encoding: Encoding,
        on_slice: &(dyn Fn(usize, Vec<u64>) -> bool + Sync),
    ) -> Result<()> {
        counting::count_messages(context, encoding, on_slice)
    }

    /// [`Store::count_tokens`] taking the counts kept for `target` by an
    /// earlier look or trim (where a cache folder can be used), and keeping
    /// them once all are counted: what the viewer counts, a trim or a fork
    /// of the same session need not count again.
    pub fn count_tokens_kept(
        &self,
        target: &Target,
        context: &Context,
        encoding: Encoding,
        on_slice: &(dyn Fn(usize, Vec<u64>) -> bool + Sync),
    ) -> Result<()> {
        match self.count_cache(target) {
            Some(cache) => counting::count_messages_kept(context, encoding, &cache, on_slice),
            None => counting::count_messages(context, encoding, on_slice),
        }
    }

    /// [`Store::count_tokens`] for the messages from index `from` on: the
    /// ones an agent appended since the others were counted.
    pub fn count_tokens_from(
        &self,
        context: &Context,
        from: usize,
        encoding: Encoding,
        on_slice: &(dyn Fn(usize, Vec<u64>) -> bool + Sync),
    ) -> Result<()> {
        counting::count_messages_from(context, from, encoding, on_slice)
    }

    /// Plans `change` on the active context and, in [`Mode::Write`], forks
    /// it: a new active context under the session's lock for a Loki or
    /// peteos session, a new session beside the original for another
    /// agent's. A preview reads only and refuses what the write would, so
    /// a dry run answers as the write. The one place a change asks which
    /// kind of session it has.
    pub fn change(
        &self,
        target: &Target,
        change: &Change,
        encoding: Encoding,
        mode: Mode<'_>,
        now: f64,
    ) -> Result<ChangeReport> {
        let cache = self.count_cache(target);
        if target.record.agent.is_external() {
            return agent_fork::change(&target.record, change, encoding, cache.as_ref(), mode, now);
        }
        target.writable()?;
        native_fork::change(
            target.conversation_dir(),
            target.lock_dir(),
            change,
            encoding,
            cache.as_ref(),
            mode,
            now,
        )
    }

    /// The count of each message in `which` once its tool results are
    /// cleared (what `plan_clear` needs), counted with the same counter on
    /// all cores. The viewer asks once, for `index.clearable_messages()`.
    pub fn cleared_counts(
        &self,
        context: &Context,
        index: &EditFacts,
        counts: &[u64],
        encoding: Encoding,
        which: &[usize],
    ) -> Result<ClearedCounts> {
        counting::cleared_counts(context, index, counts, encoding, which)
    }

    /// The count of each message the fix for resuming replaces something
    /// in, once replaced, for every turn (what `plan_resumable` needs for
    /// any number of turns kept at this size of results cleared). The
    /// viewer asks once per size.
    pub fn replaced_counts(
        &self,
        context: &Context,
        index: &EditFacts,
        counts: &[u64],
        encoding: Encoding,
        results_over: u64,
    ) -> Result<ClearedCounts> {
        let every_turn = ResumableFix {
            results_over,
            keep_turns: None,
        };
        let wanted = resumable::replacements(index, counts, &every_turn)?;
        counting::replaced_counts(context, encoding, &wanted)
    }
}
