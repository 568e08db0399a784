//! Where sessions come from: a user's Loki tree or a folder of bare peteos
//! sessions, and the other agents' folders. Each other agent is one
//! folder here (`claude`, `codex`, `gemini`, `copilot`, `qwen`, `cursor`,
//! `opencode`) holding its reader and its [`provider::Provider`]: where its
//! sessions are, how each is read, watched, forked, moved and cleaned up.
//! `Agent::provider` (`agent.rs`) is the one registry; `agents` reads a
//! folder (or its part of our archive) through it. Each source reads into
//! [`SessionRecord`]s; everything they share (purge, locate, changes) lives
//! once in `ops` and `api`.

pub mod agent;
pub mod agent_read;
pub mod agents;
pub mod archived;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod derived;
pub mod gemini;
mod import;
pub mod jsonl;
pub mod layout;
pub mod listing_cache;
pub mod loki;
pub mod opencode;
pub mod parsed;
pub mod peteos_folder;
pub mod provider;
pub mod qwen;
pub mod record;
pub mod retention;
pub mod watch;

pub use loki::LokiTree;
pub use peteos_folder::PeteosFolder;
