//! Operations on sessions, written once for both kinds of store: finding a
//! session from an argument, stats, counting, loading a conversation for
//! display, managing contexts (forks), one change to a context (a window,
//! a drop, a clear, the fix for resuming: planned as data, then forked),
//! comparing and exporting contexts, the purge (plan as data, then a
//! careful apply), the trash, moves, the archive and pulls.

pub mod agent_fork;
pub mod agent_purge;
pub mod agent_threads;
pub mod archive;
pub mod change;
pub mod context_figure;
pub mod contexts;
pub mod conversation;
pub mod count_cache;
pub mod counting;
pub mod diff;
pub mod edit_plan;
pub mod export;
pub mod forking;
pub mod locate;
pub mod moving;
pub mod native_fork;
pub mod pricing;
pub mod pull;
pub mod purge_apply;
pub mod purge_checks;
pub mod purge_facts;
pub mod purge_plan;
pub mod resumable;
pub mod stats;
pub mod trash;
pub mod usage_report;
pub mod window_plan;
