//! loki-sessions: browse, search, read, trim and purge AI-agent sessions.
//!
//! [`store`] reads and writes the on-disk formats; [`cli`] exposes it to
//! scripts.

pub mod cli;
pub(crate) mod config;
pub mod demo;
pub mod hosts;
pub(crate) mod humanize;
pub mod store;
pub mod tui;
