//! loki-sessions: browse, search, read, trim and purge AI-agent sessions.
//!
//! [`store`] reads and writes the on-disk formats; [`cli`] and [`tui`] are
//! its two faces.

pub mod store;
