//! Loki session trees (FORMATS.md §1): meta.json, naming, the seed's API.

mod import;
pub mod meta;
pub mod naming;
mod purge;
mod store;

pub use meta::Meta;
pub use naming::name_from_prompt;
pub use purge::Started;
pub use store::LokiStore;
