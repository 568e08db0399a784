//! Performs effects off the UI thread and reports back as `Msg`s: store
//! operations on a small pool of threads ([`Runner::perform`], the same
//! code the headless driver calls), the matcher's, the message search's and
//! the transcript search's jobs on a latest-wins thread each, the
//! watcher of the disk (`watcher`) on its own, and each question to
//! another machine on a thread of its own (it may take its whole timeout).

use crate::store::Store;
use crate::tui::effect::Effect;
use crate::tui::finder::{FindJob, Finder};
use crate::tui::latest;
use crate::tui::matcher::{Matcher, MatcherJob};
use crate::tui::msg::Msg;
use crate::tui::ops::{Priority, Runner};
use crate::tui::pool::Pool;
use crate::tui::searcher::{SearchJob, Searcher};
use crate::tui::watcher::Watching;
use std::sync::Arc;
use std::sync::mpsc::Sender;

/// Where effects are performed in a session.
#[derive(Clone)]
pub struct Worker {
    runner: Arc<Runner>,
    pool: Arc<Pool>,
    replies: Sender<Msg>,
    matcher: Sender<MatcherJob>,
    searcher: Sender<SearchJob>,
    finder: Sender<FindJob>,
    store: Arc<Store>,
    watching: Watching,
    clock: fn() -> f64,
}

impl Worker {
    /// A worker over `store` answering on `replies`, reading the time of a
    /// write from `clock`; it starts the matcher's, the message search's
    /// and the transcript search's threads.
    pub fn new(store: Arc<Store>, replies: Sender<Msg>, clock: fn() -> f64) -> Self {
        let matcher = latest::spawn(Matcher::default(), replies.clone());
        let searcher = latest::spawn(Searcher::new(store.clone()), replies.clone());
        let finder = latest::spawn(Finder::default(), replies.clone());
        Worker {
            watching: Watching::default(),
            clock,
            store: store.clone(),
            runner: Arc::new(Runner::new(store, clock)),
            pool: Arc::new(Pool::new()),
            replies,
            matcher,
            searcher,
            finder,
        }
    }

    /// Starts `effect`; never blocks on I/O.
    pub fn perform(&self, effect: Effect) {
        match effect {
            Effect::Store { req, op } => {
                self.runner.claim(req, &op);
                let (runner, replies) = (self.runner.clone(), self.replies.clone());
                self.pool.run(op.priority(), move || {
                    runner.perform(req, op, &|msg| replies.send(msg).is_ok());
                });
            }
            Effect::Matcher(job) => {
                let _ = self.matcher.send(job);
            }
            Effect::Search(job) => {
                let _ = self.searcher.send(job);
            }
            Effect::Find(job) => {
                let _ = self.finder.send(job);
            }
            Effect::ContinueFill { generation } => {
                let _ = self.replies.send(Msg::FillIndexed { generation });
            }
            Effect::FreeStats { stats } => self.pool.run(Priority::Normal, move || drop(stats)),
            Effect::Watch(options) => {
                self.watching
                    .start(&self.store, options, self.replies.clone(), self.clock)
            }
            Effect::AskHost {
                req,
                host,
                deadline,
            } => {
                let replies = self.replies.clone();
                std::thread::spawn(move || {
                    let _ =
                        replies.send(Msg::reply(req, crate::tui::ops::ask_host(&host, deadline)));
                });
            }
            Effect::Pull(job) => {
                let (replies, store) = (self.replies.clone(), self.store.clone());
                std::thread::spawn(move || {
                    let req = job.req;
                    let _ = replies.send(Msg::reply(req, job.run(&store)));
                });
            }
        }
    }
}
