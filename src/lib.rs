//! loki-sessions: browse, search, read, trim and purge AI-agent sessions.
//!
//! [`store`] reads and writes the on-disk formats; [`cli`] exposes it to
//! scripts; [`tui`] is the terminal UI; [`render`] draws a transcript as
//! both print and show it.

pub mod cli;
pub(crate) mod config;
pub mod demo;
pub mod heap;
pub mod hosts;
pub(crate) mod humanize;
pub(crate) mod priority;
pub mod render;
pub mod store;
pub mod tui;
