//! The one door to the store. Every operation the UI and the CLI share is a
//! method of [`Store`], called the same way by both; the rules (damaged
//! sessions are read-only, some operations need a Loki tree, a purge spares
//! what it cannot vouch for) are checked here or in the one predicate each
//! has, never again by a caller.
//!
//! "The seed" in the docs below is the first Loki session library, whose
//! functions (`start`, `list`, `resume`, `purge`, `touch`,
//! `name_from_prompt`) the door keeps by name and by meaning: where a
//! method is "the seed's `start`", it does what that function did.

use crate::store::error::{Result, StoreError};
use crate::store::format::Context;
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::Encoding;
use crate::store::format::transcript::TranscriptFormat;
use crate::store::fs::{disk, trash};
use crate::store::index::{
    self, IndexStatus, IndexedStats, Layout, LiveSearch, SearchIndex, SearchOptions, SearchOutcome,
    SearchQuery, UpdateReport,
};
use crate::store::ops::contexts::{self, ContextInfo, DeletedContext};
use crate::store::ops::conversation::{self, Conversation};
use crate::store::ops::counting;
use crate::store::ops::diff::{self, ContextDiff};
use crate::store::ops::edit::{self, EditOutcome};
use crate::store::ops::edit_plan::{ClearedCounts, EditRequest};
use crate::store::ops::export;
use crate::store::ops::locate::{self, Target};
use crate::store::ops::purge_apply::{self, PurgeProgress, PurgeReport};
use crate::store::ops::purge_facts;
use crate::store::ops::purge_plan::{Candidate, PurgePlan, PurgePolicy};
use crate::store::ops::stats::{self, SessionStats};
use crate::store::ops::trim::{self, Expected, TrimOutcome, TrimRequest};
use crate::store::sources::record::{SessionRecord, listed};
use crate::store::sources::{LokiTree, PeteosFolder};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub mod watch;

/// The user's sessions: a Loki tree or a folder of bare peteos sessions.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
    /// Where search indexes live (None: the user's cache directory).
    cache: Option<PathBuf>,
}

#[derive(Clone, Debug)]
enum Backend {
    /// `<root>/users/<user>/session/<id>/` with meta.json.
    Loki(LokiTree),
    /// `<dir>/<uuid>/session.json`, no meta.json.
    Folder(PeteosFolder),
}

/// Which kind of store this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// A Loki tree: sessions have meta.json and a workspace.
    Loki,
    /// A folder of bare peteos sessions, used in place.
    PeteosFolder,
}

/// Operations that exist only in a Loki tree (they write meta.json or make
/// a session directory, which a bare peteos folder does not have).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LokiOnly {
    /// Starting a session.
    NewSession,
    /// Renaming a session.
    Rename,
    /// Copying a peteos session in.
    Import,
    /// Filling an empty tree with generated sessions.
    Demo,
}

impl StoreKind {
    /// Why this kind of store cannot do `op`, if it cannot: the one rule
    /// for Loki-only operations, read by the CLI and by the UI (which asks
    /// before it opens a dialog for something that cannot be done).
    pub fn refusal(self, op: LokiOnly) -> Option<&'static str> {
        if self == StoreKind::Loki {
            return None;
        }
        Some(match op {
            LokiOnly::NewSession => {
                "new sessions need a Loki tree; this is a peteos sessions folder"
            }
            LokiOnly::Rename => {
                "renaming needs a Loki tree; names of peteos sessions come from their first prompt"
            }
            LokiOnly::Import => "import needs a Loki tree; this is a peteos sessions folder",
            LokiOnly::Demo => "demo needs a Loki tree; this is a peteos sessions folder",
        })
    }
}

/// What [`Store::start`] did.
#[derive(Clone, Debug)]
pub struct Started {
    /// The new session.
    pub record: SessionRecord,
    /// The purge that ran first, if any: its plan and what applying it did.
    pub purged: Option<(PurgePlan, PurgeReport)>,
}

impl Store {
    /// The Loki tree of `user` under `root` (`<root>/users/<user>/session`).
    /// Opening does no I/O.
    pub fn loki(root: &Path, user: &str) -> Result<Store> {
        Ok(Store {
            backend: Backend::Loki(LokiTree::open(root, user)?),
            cache: None,
        })
    }

    /// The folder `dir` of bare peteos sessions, used in place.
    pub fn peteos_folder(dir: &Path) -> Store {
        Store {
            backend: Backend::Folder(PeteosFolder::open(dir)),
            cache: None,
        }
    }

    /// The same store keeping its search index under `dir` instead of the
    /// user's cache directory (tests, benchmarks).
    pub fn with_cache_dir(mut self, dir: &Path) -> Store {
        self.cache = Some(dir.to_path_buf());
        self
    }

    /// True when some child directory of `dir` holds a session.json.
    pub fn looks_like_peteos_folder(dir: &Path) -> bool {
        PeteosFolder::looks_like_one(dir)
    }

    /// Which kind of store this is.
    pub fn kind(&self) -> StoreKind {
        match self.backend {
            Backend::Loki(_) => StoreKind::Loki,
            Backend::Folder(_) => StoreKind::PeteosFolder,
        }
    }

    /// The folder holding one directory per session.
    pub fn sessions_dir(&self) -> PathBuf {
        match &self.backend {
            Backend::Loki(tree) => tree.layout().sessions_dir(),
            Backend::Folder(folder) => folder.dir().to_path_buf(),
        }
    }

    /// Refuses `op` where this kind of store cannot do it, naming the folder.
    pub fn check(&self, op: LokiOnly) -> Result<()> {
        match self.kind().refusal(op) {
            None => Ok(()),
            Some(why) => Err(StoreError::Invalid(format!(
                "{why} ({})",
                self.sessions_dir().display()
            ))),
        }
    }

    fn tree(&self, op: LokiOnly) -> Result<&LokiTree> {
        self.check(op)?;
        match &self.backend {
            Backend::Loki(tree) => Ok(tree),
            Backend::Folder(_) => unreachable!("check refuses folders"),
        }
    }

    /// Refuses a store whose folder is not there, naming it: a missing root
    /// or peteos folder, or a user folder missing where `<root>/users` holds
    /// other users' (naming them). An existing but empty store is fine.
    /// Commands that read call it first; `new`, `import` and `demo` make the
    /// folders they need.
    pub fn check_folder(&self) -> Result<()> {
        match &self.backend {
            Backend::Loki(tree) => tree.check_folder(),
            Backend::Folder(folder) => folder.check_folder(),
        }
    }

    /// Every session, most recently used first; damaged ones are included
    /// with `error` set. A missing tree is an empty list (see
    /// [`Store::check_folder`]).
    pub fn list(&self) -> Result<Vec<SessionRecord>> {
        listed(|on_batch| self.scan(on_batch))
    }

    /// Every session, in batches as they are read, so a UI can show rows
    /// before the scan ends; `on_batch` returns false to stop.
    pub fn scan(&self, on_batch: impl FnMut(Vec<SessionRecord>) -> bool) -> Result<()> {
        match &self.backend {
            Backend::Loki(tree) => tree.scan(on_batch),
            Backend::Folder(folder) => folder.scan(on_batch),
        }
    }

    /// True when a `SESSION` argument is a path (it has a `/`, or is `.` or
    /// `..`): it names its session without the store.
    pub fn is_path_argument(arg: &str) -> bool {
        locate::looks_like_path(arg)
    }

    /// Resolves a `SESSION` argument: a path, an id, an exact name, a unique
    /// id prefix or a unique name prefix (`ops::locate::match_session` has
    /// the order). Several matches are `StoreError::Ambiguous`, listing them.
    pub fn locate(&self, arg: &str) -> Result<Target> {
        let records = if locate::looks_like_path(arg) {
            Vec::new()
        } else {
            self.list()?
        };
        locate::locate(
            arg,
            &records,
            |id| self.record(id),
            self.kind() == StoreKind::Loki,
        )
    }

    /// The record of the entry `id` of the session folder, damaged or not.
    fn record(&self, id: &str) -> SessionRecord {
        match &self.backend {
            Backend::Loki(tree) => tree.record(id),
            Backend::Folder(folder) => folder.record(id),
        }
    }

    /// The target for a listed record.
    pub fn target(&self, record: &SessionRecord) -> Target {
        Target {
            record: record.clone(),
            is_loki: self.kind() == StoreKind::Loki,
        }
    }

    /// Size, messages and (with `encoding`) tokens of every record, on all
    /// cores; `progress(done)` is called as sessions finish.
    pub fn stats(
        &self,
        records: &[SessionRecord],
        encoding: Option<Encoding>,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<SessionStats> {
        stats::gather_stats(records, encoding, progress)
    }

    /// The session's active context and a summary of its contexts. Reads only.
    pub fn load_conversation(&self, target: &Target) -> Result<Conversation> {
        conversation::load(&target.record)
    }

    /// True when a running agent owns the session (`is_active`): writing to
    /// it (a trim, a resume) races with the agent, so callers warn or ask.
    pub fn agent_owns(&self, target: &Target) -> bool {
        conversation::agent_owned(&target.record)
    }

    /// The session's active context alone; None when it has none. Reads only.
    pub fn active_context(&self, target: &Target) -> Result<Option<Context>> {
        conversation::active_context(&target.record)
    }

    /// The last `n` messages as (role, one line of at most `chars` characters).
    pub fn last_messages(
        &self,
        target: &Target,
        n: usize,
        chars: usize,
    ) -> Result<Vec<(String, String)>> {
        conversation::last_messages(&target.record, n, chars)
    }

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
        target.writable()?;
        trim::preview(target.conversation_dir(), request, encoding)
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
        target.writable()?;
        trim::apply(
            target.conversation_dir(),
            target.lock_dir(),
            request,
            encoding,
            expected,
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

    /// What an edit by hand (a drop or a clear) would do to the active
    /// context. Reads only; refuses what [`Store::edit`] refuses, as
    /// [`Store::trim_preview`] does.
    pub fn edit_preview(
        &self,
        target: &Target,
        request: &EditRequest,
        encoding: Encoding,
    ) -> Result<EditOutcome> {
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

    /// How context `context` (id or unique prefix; None: the active one)
    /// differs from its parent. Reads only.
    pub fn diff(
        &self,
        target: &Target,
        context: Option<&str>,
        encoding: Encoding,
    ) -> Result<ContextDiff> {
        diff::diff(target.conversation_dir(), context, encoding)
    }

    /// The transcript of context `context` (id or unique prefix; None: the
    /// active one) in `format`. Reads only.
    pub fn export(
        &self,
        target: &Target,
        context: Option<&str>,
        format: TranscriptFormat,
    ) -> Result<String> {
        export::transcript(&target.record, context, format)
    }

    /// Writes an export to `path`: refused inside the store's session
    /// folder or the session's own tree, and over an existing file unless
    /// `force`.
    pub fn write_export(
        &self,
        target: &Target,
        path: &Path,
        text: &str,
        force: bool,
    ) -> Result<()> {
        let sessions = self.sessions_dir();
        export::write(path, text, force, &[&sessions, target.lock_dir()])
    }

    /// Every context (fork) of the session: messages, creation time, how it
    /// stands to the active one; `encoding` also counts tokens. Reads only.
    pub fn contexts(
        &self,
        target: &Target,
        encoding: Option<Encoding>,
    ) -> Result<Vec<ContextInfo>> {
        contexts::list(target.conversation_dir(), encoding)
    }

    /// The context id `arg` names in the session: itself or a unique prefix.
    pub fn find_context(&self, target: &Target, arg: &str) -> Result<String> {
        contexts::find(target.conversation_dir(), arg)
    }

    /// Makes context `context_id` active (the undo of a trim), under the lock.
    pub fn activate_context(&self, target: &Target, context_id: &str) -> Result<()> {
        target.writable()?;
        contexts::activate(target.conversation_dir(), target.lock_dir(), context_id)
    }

    /// Refuses what [`Store::delete_context`] would refuse, without writing
    /// (to ask the user only about a delete that can happen).
    pub fn check_delete_context(&self, target: &Target, context_id: &str) -> Result<()> {
        target.writable()?;
        contexts::check_delete(target.conversation_dir(), context_id)
    }

    /// Deletes context `context_id`, under the lock; refused for the active
    /// context and its ancestors, for a context with forks of its own, and
    /// for damaged sessions. Its parent's `children` is updated first.
    pub fn delete_context(&self, target: &Target, context_id: &str) -> Result<DeletedContext> {
        target.writable()?;
        contexts::delete(target.conversation_dir(), target.lock_dir(), context_id)
    }

    /// The index of the message `arg` names in `context`: its id or a unique
    /// prefix of it.
    pub fn find_message(&self, context: &Context, arg: &str) -> Result<usize> {
        conversation::find_message(context, arg)
    }

    /// The seed's `start`: purges stale sessions first (when `purge` is
    /// set), then creates a session for `first_prompt`. Loki trees only.
    pub fn start(
        &self,
        first_prompt: &str,
        purge: Option<PurgePolicy>,
        now: f64,
    ) -> Result<Started> {
        self.check(LokiOnly::NewSession)?;
        let plan = match purge {
            Some(policy) => Some(self.purge_plan(policy, &[], now)?),
            None => None,
        };
        self.start_with(first_prompt, plan, now)
    }

    /// [`Store::start`] with a purge plan made (and shown to a person)
    /// beforehand, or none: the plan is applied, each entry re-checked,
    /// then the session is created.
    pub fn start_with(
        &self,
        first_prompt: &str,
        plan: Option<PurgePlan>,
        now: f64,
    ) -> Result<Started> {
        let tree = self.tree(LokiOnly::NewSession)?;
        let purged = match plan {
            Some(plan) => {
                let report = self.apply_purge(&plan, &[], |_| {})?;
                Some((plan, report))
            }
            None => None,
        };
        let record = tree.create(first_prompt, now)?;
        Ok(Started { record, purged })
    }

    /// Renames a session (Loki trees only: the name lives in meta.json).
    pub fn rename(&self, target: &Target, name: &str) -> Result<SessionRecord> {
        let tree = self.tree(LokiOnly::Rename)?;
        target.writable()?;
        tree.rename(&target.record.id, name)
    }

    /// Copies the peteos session in `dir` into a new session of this tree.
    /// A session imported before is `StoreError::AlreadyImported` (naming
    /// the copy) unless `again` asks for a second copy.
    pub fn import(&self, dir: &Path, again: bool, now: f64) -> Result<SessionRecord> {
        self.tree(LokiOnly::Import)?.import(dir, again, now)
    }

    /// Marks a session used (Loki sessions only; bare peteos sessions have
    /// no meta.json, and resuming one writes nothing).
    pub fn touch(&self, target: &Target, now: f64) -> Result<()> {
        if target.is_loki {
            LokiTree::touch_at(target.lock_dir(), now)?;
        }
        Ok(())
    }

    /// The seed's `resume`: refuses a damaged session, else touches it.
    pub fn resume(&self, target: &Target, now: f64) -> Result<()> {
        target.writable()?;
        self.touch(target, now)
    }

    /// The facts a purge plan is decided on, for every session (the UI
    /// gathers them once and re-plans at every policy change).
    pub fn purge_candidates(&self) -> Result<Vec<Candidate>> {
        Ok(purge_facts::gather_candidates(self.list()?))
    }

    /// What a purge with `policy` would do now. Reads only.
    pub fn purge_plan(
        &self,
        policy: PurgePolicy,
        exclude: &[String],
        now: f64,
    ) -> Result<PurgePlan> {
        Ok(PurgePlan::build(
            self.purge_candidates()?,
            policy,
            exclude,
            now,
        ))
    }

    /// Applies a plan, re-checking each entry just before it goes.
    pub fn apply_purge(
        &self,
        plan: &PurgePlan,
        exclude: &[String],
        progress: impl FnMut(PurgeProgress),
    ) -> Result<PurgeReport> {
        let folder = self.sessions_dir();
        disk::check_owned_by_us(&folder)?;
        match &self.backend {
            Backend::Loki(tree) => {
                tree.check_ownership()?;
                tree.remove_stale_leftovers();
            }
            Backend::Folder(_) => trash::remove_stale_trash(&folder),
        }
        Ok(purge_apply::apply_plan(plan, &folder, exclude, progress))
    }

    /// The seed's `purge(user, keep, max_age_days, exclude)`: removes stale
    /// sessions and returns their ids.
    pub fn purge(
        &self,
        keep: usize,
        max_age_days: f64,
        exclude: &[String],
        now: f64,
    ) -> Result<Vec<String>> {
        let policy = PurgePolicy { keep, max_age_days };
        let plan = self.purge_plan(policy, exclude, now)?;
        Ok(self.apply_purge(&plan, exclude, |_| {})?.removed)
    }

    /// The search index of this store (in the user's cache directory).
    fn search_index(&self) -> SearchIndex {
        SearchIndex::for_store(&self.sessions_dir(), self.layout(), self.cache.as_deref())
    }

    fn layout(&self) -> Layout {
        match self.kind() {
            StoreKind::Loki => Layout::Loki,
            StoreKind::PeteosFolder => Layout::Folder,
        }
    }

    /// Messages matching `query`, from the search index where it knows the
    /// sessions as they are (brought up to date first when
    /// `options.update`), from the files otherwise. When the index cannot
    /// be used at all the files are searched and the note says why.
    pub fn search(
        &self,
        query: &SearchQuery,
        options: &SearchOptions,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<SearchOutcome> {
        let names = self.session_names()?;
        let record_of = |id: &str| self.record(id);
        match self
            .search_index()
            .search(query, options, names, &record_of, progress)
        {
            Ok(outcome) => Ok(outcome),
            Err(e) => {
                let mut outcome = self.search_files(query, options)?;
                outcome.note = Some(format!(
                    "{e}; the session files were searched directly instead"
                ));
                Ok(outcome)
            }
        }
    }

    /// Messages matching `query`, read from the session files (no index):
    /// slower, and the reference the index is tested against.
    pub fn search_files(
        &self,
        query: &SearchQuery,
        options: &SearchOptions,
    ) -> Result<SearchOutcome> {
        let mut records = self.list()?;
        if let Some(id) = &options.session {
            records.retain(|r| &r.id == id);
        }
        Ok(index::search::direct(
            &records,
            query,
            options.limit,
            self.layout(),
        ))
    }

    /// Brings the search index up to date, reading again only the sessions
    /// whose files changed; `progress(done, to_read)`.
    pub fn update_index(
        &self,
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        let record_of = |id: &str| self.record(id);
        self.search_index()
            .update(self.session_names()?, &record_of, now, progress)
    }

    /// Builds the search index again from nothing.
    pub fn rebuild_index(
        &self,
        now: f64,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<UpdateReport> {
        let record_of = |id: &str| self.record(id);
        self.search_index()
            .rebuild(self.session_names()?, &record_of, now, progress)
    }

    /// The stats the search index holds for those of `records` it knows as
    /// they are now (token counts in cl100k_base without counting again).
    pub fn current_indexed_stats(
        &self,
        records: &[SessionRecord],
    ) -> HashMap<String, IndexedStats> {
        let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
        self.search_index().current_stats(&ids)
    }

    /// The search index held open for searching as one types (the UI):
    /// it trusts the index as the background update leaves it, and says
    /// how many sessions it covers.
    pub fn live_search(&self) -> Result<LiveSearch> {
        self.search_index().live()
    }

    /// What the search index holds. Reads only.
    pub fn index_status(&self) -> IndexStatus {
        self.search_index().status()
    }

    /// Every session's stats as the index last saw them (by id). Reads only.
    pub fn indexed_stats(&self) -> HashMap<String, IndexedStats> {
        self.search_index().stats()
    }

    /// The names in the session folder that may be sessions (no hidden
    /// entries), without reading any of them.
    fn session_names(&self) -> Result<Vec<String>> {
        let dir = self.sessions_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("list sessions in", &dir, e)),
        };
        Ok(entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect())
    }

    /// What [`Store::delete`] would do with `target` now, before a person
    /// is asked: the plan of one entry, its decision (removed, or kept and
    /// why: active, locked, damaged, ...) and the bytes it holds, measured
    /// as the deletion measures what it frees.
    pub fn delete_preview(&self, target: &Target, now: f64, even_damaged: bool) -> PurgePlan {
        let candidate = purge_facts::candidate(target.record.clone());
        PurgePlan::single(candidate, &[], now, even_damaged)
    }

    /// Deletes one session the user chose, with every safety rule of a
    /// purge (live, active, locked, unreadable, other filesystem); a session
    /// a rule spares is an error saying which rule. `even_damaged` lifts the
    /// unreadable rule alone, for a person who was shown the damage and
    /// still wants the session gone (a purge never does this).
    pub fn delete(&self, target: &Target, now: f64, even_damaged: bool) -> Result<PurgeReport> {
        let plan = self.delete_preview(target, now, even_damaged);
        let report = self.apply_purge(&plan, &[], |_| {})?;
        match plan.entries.first() {
            Some(entry)
                if report.removed.is_empty()
                    && report.failed.is_empty()
                    && report.skipped.is_empty() =>
            {
                Err(StoreError::Invalid(format!(
                    "not deleted: {}",
                    entry.decision
                )))
            }
            _ => Ok(report),
        }
    }
}
