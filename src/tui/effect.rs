//! Work `update` asks the runtime to do; each result comes back as a `Msg`.

use crate::store::{IndexedStats, WatchOptions};
use crate::tui::finder::FindJob;
use crate::tui::matcher::MatcherJob;
use crate::tui::ops::StoreOp;
use crate::tui::searcher::SearchJob;
use std::collections::HashMap;

/// A side effect, performed off the UI thread.
#[derive(Clone, Debug)]
pub enum Effect {
    /// A call of the store's door on a worker, for the screen that asked
    /// (answered by `Msg::Reply { req, .. }`, after any progress).
    Store { req: u64, op: StoreOp },
    /// Work for the fuzzy matcher of the list (a query answers `Filtered`;
    /// the newest query wins).
    Matcher(MatcherJob),
    /// Search the text of every message (answers `MessageHits`; latest wins).
    Search(SearchJob),
    /// Find text in every part of every message of the open transcript
    /// (answers `TranscriptFound`, a first match early, then all; latest
    /// wins).
    Find(FindJob),
    /// Hand `FillIndexed { generation }` back at once: the rows are filled
    /// from the index's stats a slice per turn, so keys are answered in
    /// between (a large store's rows at once held the loop for frames).
    ContinueFill { generation: u64 },
    /// Free the index's previous stats on a worker thread: freeing a
    /// large map holds the thread that does it.
    FreeStats {
        stats: HashMap<String, IndexedStats>,
    },
    /// Start following the disk: a watcher of every source, reporting as
    /// `Msg::Disk` for as long as the UI runs.
    Watch(WatchOptions),
    /// Ask another machine for its sessions over ssh, on a thread of its
    /// own (answered by `Msg::Reply { req, .. }` within `deadline`).
    AskHost {
        /// The request the answer comes as.
        req: u64,
        /// The host.
        host: crate::hosts::Host,
        /// How long it has.
        deadline: std::time::Duration,
    },
    /// Bring another machine's session here (planned, or written), on a
    /// thread of its own (answered by `Msg::Reply { req, .. }`).
    Pull(crate::tui::ops::PullJob),
}

impl Effect {
    /// Store operation `op`, asked as request `req`.
    pub fn store(req: u64, op: impl Into<StoreOp>) -> Self {
        Effect::Store { req, op: op.into() }
    }
}
