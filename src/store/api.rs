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
use crate::store::format::tokens::Encoding;
use crate::store::format::transcript::TranscriptFormat;
use crate::store::ops::agent_fork;
use crate::store::ops::agent_threads;
use crate::store::ops::contexts::{self, ContextInfo, DeletedContext};
use crate::store::ops::conversation::{self, Conversation};
use crate::store::ops::diff::{self, ContextDiff};
use crate::store::ops::export;
use crate::store::ops::locate::Target;
use crate::store::ops::pricing::{ModelPrice, PriceTable, Prices};
use crate::store::ops::purge_apply::PurgeReport;
use crate::store::ops::purge_plan::PurgePlan;
use crate::store::ops::stats::{self, SessionStats};
use crate::store::sources::agent::Agent;
use crate::store::sources::agents::AgentSource;
use crate::store::sources::record::SessionRecord;
use crate::store::sources::{LokiTree, PeteosFolder};
use std::path::{Path, PathBuf};

mod archive;
mod lifecycle;
mod pull;
mod search;
mod sources;
mod trash;
mod trims;
mod usage;
pub mod watch;

/// The user's sessions: a Loki tree or a folder of bare peteos sessions,
/// and the sessions other agents keep (Claude Code, Codex, Gemini CLI,
/// Copilot CLI, Qwen Code, the Cursor CLI, OpenCode),
/// listed, searched and read as one store.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
    /// The other agents' folders found.
    agents: Vec<AgentSource>,
    /// The archive's parts for the agents (`<archive>/<agent>/`): sessions
    /// their agents deleted, kept.
    archived: Vec<AgentSource>,
    /// The agents shown (None: every one).
    only: Option<Vec<Agent>>,
    /// True when the Loki tree was not asked for by name (the default
    /// `~/.loki`): its absence is no mistake while other agents' sessions
    /// are there.
    primary_optional: bool,
    /// Where search indexes live (None: the user's cache directory).
    cache: Option<PathBuf>,
    /// Where other agents' deleted sessions go (None: the user's data directory).
    trash: Option<PathBuf>,
    /// Where other agents' sessions are archived (None: the user's data folder).
    archive: Option<PathBuf>,
    /// What other agents' recorded usage costs, for the estimates.
    prices: std::sync::Arc<Prices>,
    /// Reports by day use UTC dates rather than local ones (tests).
    days_in_utc: bool,
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
            agents: Vec::new(),
            archived: Vec::new(),
            only: None,
            primary_optional: false,
            cache: None,
            trash: None,
            archive: None,
            prices: std::sync::Arc::new(Prices::shipped_with(None)),
            days_in_utc: false,
        })
    }

    /// The folder `dir` of bare peteos sessions, used in place.
    pub fn peteos_folder(dir: &Path) -> Store {
        Store {
            backend: Backend::Folder(PeteosFolder::open(dir)),
            agents: Vec::new(),
            archived: Vec::new(),
            only: None,
            primary_optional: false,
            cache: None,
            trash: None,
            archive: None,
            prices: std::sync::Arc::new(Prices::shipped_with(None)),
            days_in_utc: false,
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

    pub(super) fn tree(&self, op: LokiOnly) -> Result<&LokiTree> {
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
        if !self.shows_primary() {
            return Ok(());
        }
        let checked = match &self.backend {
            Backend::Loki(tree) => tree.check_folder(),
            Backend::Folder(folder) => folder.check_folder(),
        };
        match checked {
            Err(StoreError::Missing { .. })
                if self.primary_optional && self.agent_sources().next().is_some() =>
            {
                Ok(())
            }
            other => other,
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
        let mut all = stats::gather_stats(records, encoding, progress);
        let mut estimate = self.prices.estimator();
        for s in &mut all {
            s.cost = s.usage.as_deref().map(&mut estimate).map(Box::new);
        }
        drop(estimate);
        all
    }

    /// [`Store::stats`]' message counts alone, exact for every agent (an
    /// agent's file is read whole when the search index does not know it
    /// as it is now): what `watch` counts new messages from.
    pub fn message_counts(&self, records: &[SessionRecord]) -> Vec<Option<usize>> {
        let known = self.current_indexed_stats(records);
        crate::store::parallel::map_ordered(records, |r| match known.get(r.id.as_str()) {
            Some(indexed) if indexed.error.is_none() => Some(indexed.messages),
            _ => stats::message_count(r),
        })
    }

    /// The session's active context and a summary of its contexts, with
    /// another agent's usage and its estimated cost. Reads only.
    pub fn load_conversation(&self, target: &Target) -> Result<Conversation> {
        let mut c = conversation::load(&target.record)?;
        c.cost = c.usage.as_ref().map(|u| self.prices.estimate(u));
        Ok(c)
    }

    /// The same store estimating costs with the table shipped and the
    /// config's `overrides` on top, made when first asked for.
    pub fn with_price_overrides(
        mut self,
        overrides: Option<std::collections::BTreeMap<String, ModelPrice>>,
    ) -> Store {
        self.prices = std::sync::Arc::new(Prices::shipped_with(overrides));
        self
    }

    /// The price table its estimates use (made at this first ask).
    pub fn prices(&self) -> &PriceTable {
        &self.prices
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

    /// How context `context` (id or unique prefix; None: the active one)
    /// differs from its parent. Reads only.
    pub fn diff(
        &self,
        target: &Target,
        context: Option<&str>,
        encoding: Encoding,
    ) -> Result<ContextDiff> {
        if target.record.agent.is_external() {
            // A fork made here, against the original it was made from.
            return agent_fork::diff(&target.record, encoding);
        }
        diff::diff(target.conversation_dir(), context, encoding)
    }

    /// Context `id` of the session (an id or unique prefix: a fork of a
    /// Loki session, another agent's subagent or side thread). Reads only.
    pub fn read_context(&self, target: &Target, id: &str) -> Result<Context> {
        export::context(&target.record, id)
    }

    /// The transcript of context `context` (id or unique prefix; None: the
    /// active one) in `format`. Reads only.
    pub fn export(
        &self,
        target: &Target,
        context: Option<&str>,
        format: TranscriptFormat,
    ) -> Result<String> {
        // A page to share says on top what the session spent, where the
        // agent recorded it.
        let usage = (format == TranscriptFormat::Html && target.record.agent.is_external())
            .then(|| self.spent_line(&target.record))
            .flatten();
        export::transcript(&target.record, context, format, usage.as_deref())
    }

    /// What another agent's session spent, one line: its tokens as
    /// recorded, and the cost estimated at the price list's prices.
    fn spent_line(&self, record: &SessionRecord) -> Option<String> {
        let read = crate::store::sources::agents::read(record).ok()?;
        let u = read.usage.total();
        if u.input + u.output + u.cache_read + u.cache_write == 0 {
            return None;
        }
        let count = crate::humanize::count;
        let estimate = self.prices.estimate(&read.usage);
        let cost = match estimate.usd {
            Some(usd) => format!(" · ≈ ${usd:.2} at the prices of {}", estimate.prices_of),
            None => " · cost unknown (no price for its models)".to_string(),
        };
        Some(format!(
            "input {} · output {} · cache read {} · cache write {} tokens{cost}",
            count(u.input),
            count(u.output),
            count(u.cache_read),
            count(u.cache_write)
        ))
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
        let mut forbidden: Vec<&Path> = vec![&sessions, target.lock_dir()];
        if target.record.agent.is_external() {
            forbidden.push(target.conversation_dir());
            if let Some(root) = self.agent_folder(target.record.agent) {
                forbidden.push(root);
            }
        }
        export::write(path, text, force, &forbidden)
    }

    /// Every context (fork) of the session: messages, creation time, how it
    /// stands to the active one; `encoding` also counts tokens. Reads only.
    pub fn contexts(
        &self,
        target: &Target,
        encoding: Option<Encoding>,
    ) -> Result<Vec<ContextInfo>> {
        if target.record.agent.is_external() {
            return agent_threads::list(&target.record, encoding);
        }
        contexts::list(target.conversation_dir(), encoding)
    }

    /// The context id `arg` names in the session: itself or a unique prefix.
    pub fn find_context(&self, target: &Target, arg: &str) -> Result<String> {
        if target.record.agent.is_external() {
            return agent_threads::find(&target.record, arg);
        }
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
}

/// Refuses to write to another agent's session, saying so: those formats
/// are read here, not written (yet).
pub(super) fn refuse_external(target: &Target) -> Result<()> {
    if target.record.agent.is_external() {
        return target.record.writable();
    }
    Ok(())
}
