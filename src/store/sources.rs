//! Where sessions come from: a user's Loki tree or a folder of bare peteos
//! sessions, and the other agents' folders (`claude`, `codex`, `gemini`,
//! `copilot`, `qwen`, `cursor`, sent to by `agents`). Each reads its folder into
//! [`SessionRecord`]s; everything they share (purge, locate, trims) lives
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
