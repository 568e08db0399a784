//! The session store: reads and writes Loki session trees and peteos
//! conversations exactly as `FORMATS.md` specifies. Pure data types and
//! plans; I/O at the edges; time is passed in as seconds since the epoch.

pub mod atomic;
pub mod derived;
pub mod disk;
pub mod error;
pub mod jsonfile;
pub mod layout;
pub mod locate;
pub mod lock;
pub mod loki;
pub mod parallel;
pub mod peteos;
pub mod peteos_folder;
pub mod purge_apply;
pub mod purge_plan;
pub mod pyjson;
pub mod record;
pub mod source;
pub mod tokens;
pub mod trim;

pub use error::{Result, StoreError};
pub use loki::{LokiStore, name_from_prompt};
pub use purge_plan::{KEEP, MAX_AGE_DAYS, PurgePlan, PurgePolicy};
pub use record::{SessionRecord, SessionStats};
pub use source::SessionSource;
pub use tokens::Encoding;
