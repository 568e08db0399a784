//! What the screens ask of the store, and what comes back: one typed home
//! for every background operation. Each screen has an enum of operations
//! (`ListOp`, `ViewerOp`, `PurgeOp`, `TrashOp`, `DashboardOp`), each operation one call of the door
//! ([`Store`]) in its `run`, and an enum of replies (`ListReply`,
//! `ViewerReply`, `PurgeReply`, `TrashReply`, `DashboardReply`) that its `on_reply` matches exhaustively.
//! [`Runner::perform`] runs one, on a worker thread in a session and on the
//! calling thread in the headless driver: the same code either way.
//!
//! Adding an operation touches two files: the screen's file here (the
//! operation, its arm in `run`, its reply) and the screen's module under
//! `update/` (asking for it, handling the reply). See "Adding an operation"
//! in docs/ARCHITECTURE.md.

mod dashboard;
mod error;
mod hosts;
mod list;
mod purge;
mod trash;
mod viewer;

pub use dashboard::{DashboardOp, DashboardReply, DashboardReports, OwnedUsage};
pub use error::{ErrorKind, UiError};
pub use hosts::{HostsReply, PullJob, ask as ask_host};
pub use list::{DeleteCheck, ListOp, ListReply};
pub use purge::{PurgeOp, PurgeReply};
pub use trash::{TrashOp, TrashReply};
pub use viewer::{EditDone, EditPreview, ViewerOp, ViewerReply};

use crate::store::Store;
use crate::tui::msg::Msg;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One call of the store's door, for the screen that asked.
#[derive(Clone, Debug)]
pub enum StoreOp {
    /// For the list (alive the whole run).
    List(ListOp),
    /// For the viewer.
    Viewer(ViewerOp),
    /// For the purge preview.
    Purge(PurgeOp),
    /// For the trash pane.
    Trash(TrashOp),
    /// For the usage dashboard.
    Dashboard(DashboardOp),
}

/// An answer (or progress) for the screen that asked; the request's tag
/// travels beside it in `Msg::Reply`.
#[derive(Clone, Debug)]
pub enum Reply {
    /// For the list.
    List(ListReply),
    /// For the viewer (dropped when it was closed meanwhile).
    Viewer(ViewerReply),
    /// For the purge preview (dropped when it was closed meanwhile).
    Purge(PurgeReply),
    /// For the trash pane (dropped when it was closed meanwhile).
    Trash(TrashReply),
    /// For the dashboard (dropped when it was closed meanwhile).
    Dashboard(DashboardReply),
    /// For the other machines' pane (alive the whole run).
    Hosts(HostsReply),
}

impl From<HostsReply> for Reply {
    fn from(reply: HostsReply) -> Self {
        Reply::Hosts(reply)
    }
}

impl From<DashboardOp> for StoreOp {
    fn from(op: DashboardOp) -> Self {
        StoreOp::Dashboard(op)
    }
}

impl From<DashboardReply> for Reply {
    fn from(reply: DashboardReply) -> Self {
        Reply::Dashboard(reply)
    }
}

impl From<ListOp> for StoreOp {
    fn from(op: ListOp) -> Self {
        StoreOp::List(op)
    }
}

impl From<ViewerOp> for StoreOp {
    fn from(op: ViewerOp) -> Self {
        StoreOp::Viewer(op)
    }
}

impl From<PurgeOp> for StoreOp {
    fn from(op: PurgeOp) -> Self {
        StoreOp::Purge(op)
    }
}

impl From<TrashOp> for StoreOp {
    fn from(op: TrashOp) -> Self {
        StoreOp::Trash(op)
    }
}

impl From<TrashReply> for Reply {
    fn from(reply: TrashReply) -> Self {
        Reply::Trash(reply)
    }
}

impl From<ListReply> for Reply {
    fn from(reply: ListReply) -> Self {
        Reply::List(reply)
    }
}

impl From<ViewerReply> for Reply {
    fn from(reply: ViewerReply) -> Self {
        Reply::Viewer(reply)
    }
}

impl From<PurgeReply> for Reply {
    fn from(reply: PurgeReply) -> Self {
        Reply::Purge(reply)
    }
}

/// How an operation shares the cores with the UI thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// As the UI: what the person waits for (a load, a write).
    Normal,
    /// Nice 10: it still uses every idle core, but the UI thread wins when
    /// both want one (token counting, the index's update).
    Nice,
    /// Scheduled only when a core is otherwise idle (SCHED_IDLE, else
    /// nice 19): sizes and totals of the list's rows, which can wait.
    Idle,
}

/// Requests of which only the newest matters: an older one still running
/// stops early (its later replies would be dropped anyway).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Reading the store for the list.
    Scan,
    /// The viewer's conversation: loading, counting, trimming, switching.
    Conversation,
}

/// What an operation runs with: the door, the time of a write, and a way
/// to send progress before its answer.
pub struct Job<'a> {
    /// The store's door.
    pub store: &'a Store,
    /// Seconds since the epoch, read when the operation started.
    pub now: f64,
    progress: &'a (dyn Fn(Reply) -> bool + Sync),
    current: &'a (dyn Fn() -> bool + Sync),
}

impl Job<'_> {
    /// Sends progress (a batch, a slice of counts) ahead of the answer;
    /// false when the UI is gone.
    pub fn send(&self, reply: impl Into<Reply>) -> bool {
        (self.progress)(reply.into())
    }

    /// False once a newer request of the same lane started: stop.
    pub fn current(&self) -> bool {
        (self.current)()
    }
}

impl StoreOp {
    /// Runs the operation, sending any progress through `job`; returns the
    /// answer.
    pub fn run(self, job: &Job) -> Reply {
        match self {
            StoreOp::List(op) => op.run(job).into(),
            StoreOp::Viewer(op) => op.run(job).into(),
            StoreOp::Purge(op) => op.run(job).into(),
            StoreOp::Trash(op) => op.run(job).into(),
            StoreOp::Dashboard(op) => op.run(job).into(),
        }
    }

    /// How it shares the cores with the UI.
    pub fn priority(&self) -> Priority {
        match self {
            StoreOp::List(op) => op.priority(),
            StoreOp::Viewer(op) => op.priority(),
            StoreOp::Purge(_) | StoreOp::Trash(_) | StoreOp::Dashboard(_) => Priority::Normal,
        }
    }

    /// The lane it belongs to, if a newer request makes it moot.
    pub fn lane(&self) -> Option<Lane> {
        match self {
            StoreOp::List(op) => op.lane(),
            StoreOp::Viewer(op) => op.lane(),
            StoreOp::Purge(_) | StoreOp::Trash(_) | StoreOp::Dashboard(_) => None,
        }
    }
}

/// What store operations run with, shared by the threads that run them.
pub struct Runner {
    store: Arc<Store>,
    /// The clock for writes (seconds since the epoch).
    clock: fn() -> f64,
    /// The newest request of each lane.
    newest: [AtomicU64; 2],
}

impl Runner {
    /// Runs operations on `store`, reading the time from `clock`.
    pub fn new(store: Arc<Store>, clock: fn() -> f64) -> Self {
        Runner {
            store,
            clock,
            newest: [AtomicU64::new(0), AtomicU64::new(0)],
        }
    }

    /// Makes request `req` the newest of `op`'s lane, so an older one still
    /// running stops early. The worker calls it when the operation is
    /// handed over, before it waits for a thread; `perform` calls it again.
    pub fn claim(&self, req: u64, op: &StoreOp) {
        if let Some(lane) = op.lane() {
            self.newest[lane as usize].fetch_max(req, Ordering::Relaxed);
        }
    }

    /// Runs `op`, asked as request `req`: its progress and then its answer
    /// go to `send` as `Msg::Reply { req, .. }`. Nothing is skipped: an
    /// operation whose lane moved on still runs (a write was asked for);
    /// only those that look at `Job::current` stop early.
    pub fn perform(&self, req: u64, op: StoreOp, send: &(dyn Fn(Msg) -> bool + Sync)) {
        self.claim(req, &op);
        let lane = op.lane();
        let progress = |reply| send(Msg::Reply { req, reply });
        let current =
            || lane.is_none_or(|lane| self.newest[lane as usize].load(Ordering::Relaxed) == req);
        let job = Job {
            store: &self.store,
            now: (self.clock)(),
            progress: &progress,
            current: &current,
        };
        let reply = op.run(&job);
        send(Msg::Reply { req, reply });
    }
}
