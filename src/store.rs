//! The session store: reads and writes every agent's sessions (Loki
//! session trees and peteos conversations exactly as `docs/FORMATS.md`
//! states; the other agents' files and OpenCode's database as their agents
//! write them, never changed in place). Five layers, each using only the
//! ones before it:
//!
//! - `fs`: careful file system work (the one safe open, atomic writes,
//!   locks, sizes, watching);
//! - [`format`]: the file formats as data (no policy);
//! - `sources`: each kind of store and each agent's folder read into
//!   records and conversations, each agent behind its `Provider` (the
//!   seam: `sources/provider.rs`, registered in `sources/agent.rs`);
//! - `ops`: operations written once over every kind (locate, stats,
//!   contexts, one change to a context (`Store::change`), diff, export,
//!   purges, the trash and the archive, moves and pulls);
//! - `index`: the message search, a cache kept outside the sessions.
//!
//! [`Store`] is the one door the UI and the CLI go through; the types they
//! need are re-exported here. Time is passed in as seconds since the epoch.

mod api;
mod clock;
pub(crate) mod error;
pub mod format;
pub(crate) mod fs;
pub(crate) mod index;
pub(crate) mod ops;
pub(crate) mod parallel;
pub(crate) mod sources;

pub use api::watch::{Reread, StoreEvent, StoreWatch};
pub use api::{LokiOnly, Started, Store, StoreKind};
pub use clock::{local_day, now_seconds};
pub use error::{Result, SessionMatch, StoreError};
pub use format::breakdown::{Breakdown, KindTotal, MessageShape, PartWeight, TokenKind};
pub use format::clear::{CLEARED_FROM, placeholder};
pub use format::edit_facts::{EditFacts, Partner};
pub use format::ids::{id_start, iso_timestamp};
pub use format::jsonfile;
pub use format::safe_text;
pub use format::session_id::SessionId;
pub use format::tokens::{Encoding, prewarm};
pub use format::transcript::TranscriptFormat;
pub use format::usage::{Usage, UsageByModel, UsageDetail};
pub use format::window::WindowFacts;
pub use format::{Context, Message, Part, Special, check_fork, name_from_prompt};
pub use fs::atomic::write_atomic;
pub use fs::disk::{current_uid, os_user_name, tree_facts};
pub use fs::open::regular_followed as open_regular_followed;
pub use fs::watch::{WatchMode, WatchOptions};
pub use index::{
    Hit, IndexStatus, IndexedStats, LiveSearch, Role, SearchOptions, SearchOutcome, SearchQuery,
    Snippet, Unreadable, UpdateReport, match_ranges,
};
pub use ops::agent_purge::{
    AGENT_KEEP, AGENT_MAX_AGE_DAYS, AgentPurgeFacts, default_policy as agent_purge_policy,
};
pub use ops::archive::{ArchiveOutcome, Archived, Manifest};
pub use ops::change::{AgentFork, Change, ChangeReport, ClearedReport, Mode};
pub use ops::context_figure::ContextFigure;
pub use ops::contexts::{ContextInfo, CreatedFrom, DeletedContext, Relation};
pub use ops::conversation::SourceLines;
pub use ops::conversation::{ContextSummary, Conversation};
pub use ops::counting::{cleared_counts, message_counts, replaced_counts};
pub use ops::diff::{ContextDiff, DiffCleared, DiffMessage, DiffSide};
pub use ops::edit_plan::{
    ClearChoice, ClearedCounts, ClearedMessage, EditPlan, PairDrop, clear_targets, plan_clear,
    plan_clear_at, plan_drop, plan_drop_at,
};
pub use ops::forking::Expected;
pub use ops::locate::Target;
pub use ops::moving::MovePlan;
pub use ops::pricing::{CostEstimate, ModelPrice, PriceTable};
pub use ops::pull::{Pack, PullPlan};
pub use ops::purge_apply::{PurgeProgress, PurgeReport};
pub use ops::purge_plan::{
    Candidate, Decision, Fingerprint, KEEP, KeepReason, MAX_AGE_DAYS, PlanEntry, PurgePlan,
    PurgePolicy, RemoveReason,
};
pub use ops::resumable::{
    RESULTS_OVER, Replacement, ResumableFix, plan as plan_resumable,
    replacements as resumable_replacements,
};
pub use ops::stats::{SessionStats, with_counted_after};
pub use ops::trash::{
    BUSY_SECONDS, Move as TrashMove, TrashEntry, changed_recently, trashed_before,
};
pub use ops::usage_report::{GroupBy, ReportQuery, ReportRow, SessionUsage, UsageReport};
pub use ops::window_plan::{Window, WindowPlan, keep_pairs_whole, plan_with_facts};
pub use parallel::workers;
pub use sources::agent::{Agent, AgentHomes};
pub use sources::agent_read::RecordedContext;
pub use sources::jsonl::LineSpan;
pub use sources::layout::SessionPaths;
pub use sources::record::SessionRecord;
pub use sources::retention::{DeletesAt, Rule as RetentionRule};
pub use sources::watch::SessionRef;
