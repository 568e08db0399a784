//! The door's counting and trims: the token counts of a context (kept
//! between runs where a cache folder can be used), and the window trims
//! and edits by hand, previewed and applied, for Loki and peteos sessions
//! (a fork beside the original for other agents').

use super::Store;
use crate::store::error::Result;
use crate::store::format::Context;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::Encoding;
use crate::store::ops::agent_fork;
use crate::store::ops::counting;
use crate::store::ops::edit::{self, EditOutcome};
use crate::store::ops::edit_plan::{ClearedCounts, EditRequest};
use crate::store::ops::locate::Target;
use crate::store::ops::resumable::{self, ResumableFix};
use crate::store::ops::trim::{self, Expected, TrimOutcome, TrimRequest};

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

    /// What a trim would do to the active context. Reads only; refuses
    /// what [`Store::trim`] refuses (a damaged session, a fork that could
    /// not be written), so a dry run answers as the write.
    pub fn trim_preview(
        &self,
        target: &Target,
        request: TrimRequest,
        encoding: Encoding,
    ) -> Result<TrimOutcome> {
        if target.record.agent.is_external() {
            let cache = self.count_cache(target);
            return agent_fork::trim(&target.record, request, encoding, cache.as_ref(), None, 0.0);
        }
        target.writable()?;
        let cache = self.count_cache(target);
        trim::preview(target.conversation_dir(), request, encoding, cache.as_ref())
    }

    /// Forks the active context keeping what `request` keeps, under the
    /// session's lock. `expected` (what a preview was made on) refuses the
    /// trim if an agent changed the context since.
    pub fn trim(
        &self,
        target: &Target,
        request: TrimRequest,
        encoding: Encoding,
        expected: Option<&Expected>,
        now: f64,
    ) -> Result<TrimOutcome> {
        if target.record.agent.is_external() {
            let cache = self.count_cache(target);
            return agent_fork::trim(
                &target.record,
                request,
                encoding,
                cache.as_ref(),
                Some(expected),
                now,
            );
        }
        target.writable()?;
        let cache = self.count_cache(target);
        trim::apply(
            target.conversation_dir(),
            target.lock_dir(),
            request,
            encoding,
            expected,
            now,
            cache.as_ref(),
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

    /// What an edit by hand (a drop or a clear) would do to the active
    /// context. Reads only; refuses what [`Store::edit`] refuses, as
    /// [`Store::trim_preview`] does.
    pub fn edit_preview(
        &self,
        target: &Target,
        request: &EditRequest,
        encoding: Encoding,
    ) -> Result<EditOutcome> {
        if target.record.agent.is_external() {
            let cache = self.count_cache(target);
            return agent_fork::edit(&target.record, request, encoding, cache.as_ref(), None, 0.0);
        }
        target.writable()?;
        edit::preview(target.conversation_dir(), request, encoding)
    }

    /// Forks the active context with `request` applied, under the session's
    /// lock, as a trim does; `expected` (what a preview was made on)
    /// refuses the edit if an agent changed the context since.
    pub fn edit(
        &self,
        target: &Target,
        request: &EditRequest,
        encoding: Encoding,
        expected: Option<&Expected>,
        now: f64,
    ) -> Result<EditOutcome> {
        if target.record.agent.is_external() {
            let cache = self.count_cache(target);
            return agent_fork::edit(
                &target.record,
                request,
                encoding,
                cache.as_ref(),
                Some(expected),
                now,
            );
        }
        target.writable()?;
        edit::apply(
            target.conversation_dir(),
            target.lock_dir(),
            request,
            encoding,
            expected,
            now,
        )
    }
}
