//! The message search on its own thread: the index is opened once and kept
//! open while the person types; only the newest query is answered.

use crate::store::{LiveSearch, SearchQuery, Store};
use crate::tui::msg::Msg;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

/// Hits a message search shows at most.
pub const HITS_SHOWN: usize = 200;

/// A query to answer.
#[derive(Debug)]
pub struct SearchJob {
    /// The request tag.
    pub req: u64,
    /// What was typed.
    pub query: String,
    /// Sessions in the store (the index may cover fewer).
    pub sessions: usize,
}

/// Answers jobs until the UI goes away.
pub fn run(store: Arc<Store>, jobs: Receiver<SearchJob>, replies: Sender<Msg>) {
    let mut live: Option<LiveSearch> = None;
    while let Ok(first) = jobs.recv() {
        // Only the newest query matters.
        let job = jobs.try_iter().last().unwrap_or(first);
        let result = answer(&store, &mut live, &job);
        let reply = Msg::MessageHits {
            req: job.req,
            query: job.query,
            result,
        };
        if replies.send(reply).is_err() {
            return;
        }
    }
}

/// Answers one job with an index opened for it.
pub fn answer_once(store: &Store, job: SearchJob) -> Msg {
    let mut live = None;
    let result = answer(store, &mut live, &job);
    Msg::MessageHits {
        req: job.req,
        query: job.query,
        result,
    }
}

fn answer(
    store: &Store,
    live: &mut Option<LiveSearch>,
    job: &SearchJob,
) -> Result<crate::store::SearchOutcome, String> {
    let query = SearchQuery::parse(&job.query, true)?;
    if live.is_none() {
        *live = Some(store.live_search().map_err(|e| e.to_string())?);
    }
    let searcher = live.as_mut().expect("opened above");
    match searcher.search(&query, HITS_SHOWN, job.sessions) {
        Ok(outcome) => Ok(outcome),
        Err(e) => {
            // Open it afresh next time (the updater may have rebuilt it).
            *live = None;
            Err(e.to_string())
        }
    }
}
