//! The file formats, with no I/O policy: the peteos conversation (session,
//! context, message, content parts), Loki's meta.json and names, Python's
//! JSON text, token counting, the two rolling windows, the token breakdown,
//! cleared tool results, removed media and the fork.
//! Everything here reads from and builds dicts; writing them is `fs`'s job.

mod assemble;
pub mod breakdown;
pub mod clear;
mod context;
pub mod edit_facts;
pub mod fork;
pub mod ids;
pub mod jsonfile;
pub mod media;
mod message;
pub mod meta;
pub mod naming;
pub mod pyjson;
pub mod safe_text;
mod session;
pub mod session_id;
pub mod shape_check;
pub mod tail;
pub mod token_count;
pub mod tokens;
pub mod transcript;
pub mod usage;
pub mod window;

pub use assemble::Assembler;
pub use context::Context;
pub use fork::{check_fork, fork, fork_with};
pub use message::{Message, Part, Special, collapse_whitespace, the_one_match};
pub use meta::Meta;
pub use naming::name_from_prompt;
pub use session::{SESSION_FILE, Session};
pub use session_id::SessionId;
pub use tokens::Encoding;
