//! The peteos conversation format: Session, Context, Message (FORMATS.md §2).

mod assemble;
mod context;
pub mod count;
mod fork;
pub mod ids;
mod message;
mod session;
pub mod window;

pub use assemble::Assembler;
pub use context::Context;
pub use fork::fork;
pub use message::{Message, Part, Special, collapse_whitespace};
pub use session::{SESSION_FILE, Session};
