//! The message search on its own thread: the index is opened once and kept
//! open while the person types; only the newest query is answered.

use crate::store::{LiveSearch, SearchQuery, Store};
use crate::tui::latest::{LatestWins, Out};
use crate::tui::msg::Msg;
use crate::tui::ops::{ErrorKind, ListReply, UiError};
use std::sync::Arc;

/// Hits a message search shows at most.
pub const HITS_SHOWN: usize = 200;

/// A query to answer.
#[derive(Clone, Debug)]
pub struct SearchJob {
    /// The request tag.
    pub req: u64,
    /// What was typed.
    pub query: String,
    /// Sessions in the store (the index may cover fewer).
    pub sessions: usize,
}

/// The message search over one store, keeping the index open between
/// queries.
pub struct Searcher {
    store: Arc<Store>,
    live: Option<LiveSearch>,
}

impl Searcher {
    /// A searcher of `store`; the index is opened at the first query.
    pub fn new(store: Arc<Store>) -> Self {
        Searcher { store, live: None }
    }

    fn search(&mut self, job: &SearchJob) -> Result<crate::store::SearchOutcome, UiError> {
        let query = SearchQuery::parse(&job.query, true)
            .map_err(|why| UiError::new(ErrorKind::Refused, why))?;
        if self.live.is_none() {
            self.live = Some(self.store.live_search()?);
        }
        let searcher = self.live.as_mut().expect("opened above");
        match searcher.search(&query, HITS_SHOWN, job.sessions) {
            Ok(outcome) => Ok(outcome),
            Err(e) => {
                // Open it afresh next time (the updater may have rebuilt it).
                self.live = None;
                Err(e.into())
            }
        }
    }
}

/// Every job is a query; only the newest waiting is answered.
impl LatestWins for Searcher {
    type Job = SearchJob;
    type Query = SearchJob;

    fn take(&mut self, job: SearchJob) -> Option<SearchJob> {
        Some(job)
    }

    fn is_query(_: &SearchJob) -> bool {
        true
    }

    fn answer(&mut self, job: SearchJob, out: &mut Out<'_>) {
        let result = self.search(&job);
        out.send(Msg::reply(
            job.req,
            ListReply::MessageHits {
                query: job.query,
                result,
            },
        ));
    }
}
