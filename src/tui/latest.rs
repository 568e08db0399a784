//! One background job that keeps its state between requests and answers
//! only the newest one ("latest wins"), as gitui's `AsyncSingleJob`: the
//! fuzzy matcher, the message search and the transcript's search are each a
//! [`LatestWins`], run on a thread of its own by [`spawn`] in a session and
//! on the calling thread by [`run_now`] in the headless driver.

use crate::tui::msg::Msg;
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};

/// Work whose state lasts between jobs: some jobs only change the state
/// (applied in order, never skipped), the others are queries, of which only
/// the newest waiting is answered.
pub trait LatestWins: Send + 'static {
    /// What the UI sends.
    type Job: Send + 'static;
    /// A job that asks for an answer.
    type Query;
    /// Applies `job` to the state, or hands it back as a query to answer.
    fn take(&mut self, job: Self::Job) -> Option<Self::Query>;
    /// True for a job that asks for an answer: one waiting abandons the
    /// query being answered.
    fn is_query(job: &Self::Job) -> bool;
    /// Answers `query` through `out`, which also says when a newer query
    /// waits (the answer may then stop early, sending nothing more).
    fn answer(&mut self, query: Self::Query, out: &mut Out<'_>);
}

/// Where an answer goes, and whether a newer query is waiting.
pub struct Out<'a> {
    send: &'a mut dyn FnMut(Msg) -> bool,
    superseded: &'a mut dyn FnMut() -> bool,
}

impl Out<'_> {
    /// Sends `msg` to the UI; false when the UI is gone.
    pub fn send(&mut self, msg: Msg) -> bool {
        (self.send)(msg)
    }

    /// True when a newer query waits: the answer in progress is not wanted.
    pub fn superseded(&mut self) -> bool {
        (self.superseded)()
    }
}

/// Starts `work` on a thread of its own, answering on `replies` until the
/// UI goes away; returns where to send it jobs.
pub fn spawn<W: LatestWins>(work: W, replies: Sender<Msg>) -> Sender<W::Job> {
    let (jobs, incoming) = mpsc::channel();
    std::thread::spawn(move || run(work, incoming, replies));
    jobs
}

/// Runs `work` on the calling thread until `jobs` closes or the UI goes away.
pub fn run<W: LatestWins>(mut work: W, jobs: Receiver<W::Job>, replies: Sender<Msg>) {
    // Jobs that arrived while a query was being answered, in order.
    let mut arrived: VecDeque<W::Job> = VecDeque::new();
    loop {
        if arrived.is_empty() {
            match jobs.recv() {
                Ok(job) => arrived.push_back(job),
                Err(_) => return,
            }
        }
        arrived.extend(jobs.try_iter());
        let mut query = None;
        for job in arrived.drain(..) {
            if let Some(newer) = work.take(job) {
                query = Some(newer);
            }
        }
        let Some(query) = query else {
            continue;
        };
        let mut gone = false;
        let mut send = |msg| {
            let sent = replies.send(msg).is_ok();
            gone |= !sent;
            sent
        };
        // Only a newer query abandons this one; other jobs that arrive
        // meanwhile wait for the answer (abandoning for them would leave
        // this query without a complete answer).
        let mut superseded = || {
            arrived.extend(jobs.try_iter());
            arrived.iter().any(W::is_query)
        };
        work.answer(
            query,
            &mut Out {
                send: &mut send,
                superseded: &mut superseded,
            },
        );
        if gone {
            return;
        }
    }
}

/// Takes `job` in and answers it at once on the calling thread, as the
/// headless driver does (nothing can supersede it there).
pub fn run_now<W: LatestWins>(work: &mut W, job: W::Job, send: &mut dyn FnMut(Msg) -> bool) {
    if let Some(query) = work.take(job) {
        work.answer(
            query,
            &mut Out {
                send,
                superseded: &mut || false,
            },
        );
    }
}
