//! The integration tests, one binary (one link of tantivy, syntect and
//! tiktoken instead of one per file), a module per area:
//!
//! - `store`: the store on temporary trees (search against the direct scan,
//!   purge safety, undo, modes, properties, and the long loops: concurrent
//!   writers and crashes);
//! - `cli`: the command line as a script sees it (contract, clear answers,
//!   hand trims, diff and export, hostile input, what it asks a person);
//! - `ui`: the real loop on a virtual screen (snapshots of every pane, hand
//!   trims through the loop);
//! - `terminal`: the binary in tmux, keys typed and the screen read;
//! - `peteos`: conformance with the real peteos;
//! - `architecture`: the rooms of docs/ARCHITECTURE.md, checked on the source;
//! - `ci_guard`: a green CI means every test ran as written.
//!
//! Shared helpers are in `common`. The long loops are sized by
//! `LOKI_TEST_SCALE` (see `common::sized`): small for a newcomer's
//! `cargo test`, the full size under CI.

// A test stops at its first failure: its helpers unwrap as its test
// functions do (clippy allows it in `#[test]` functions alone).
#![allow(clippy::unwrap_used)]

mod architecture;
mod ci_guard;
mod cli;
mod common;
mod peteos;
mod store;
mod terminal;
mod ui;
