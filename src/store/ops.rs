//! Operations on sessions, written once for both kinds of store: finding a
//! session from an argument, stats, counting, loading a conversation for
//! display, managing contexts (forks), trims and the purge (plan as data,
//! then a careful apply).

pub mod contexts;
pub mod conversation;
pub mod counting;
pub mod locate;
pub mod purge_apply;
pub mod purge_facts;
pub mod purge_plan;
pub mod stats;
pub mod trim;
