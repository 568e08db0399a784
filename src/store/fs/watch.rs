//! Watching folders for changes, off the caller's thread: the operating
//! system's notifications (the `notify` crate: inotify on Linux, FSEvents
//! or kqueue elsewhere) for a bounded number of folders, polling for the
//! rest. Folders are watched, never single files: a write that replaces a
//! file (temp file, rename) and an append in place both show as an event
//! in the folder. What changed is handed over in coalesced batches of
//! paths; what those paths mean is the sources' business (this layer
//! knows no format).
//!
//! Which folders get a watch: the roots first, then the folders changed
//! most recently (their modification time at start, then what changes),
//! up to [`WatchOptions::max_watches`]. A polled folder that changes takes
//! the watch of the watched folder unchanged for longest. Polled folders
//! are looked at as often as they are likely to change: those changed in
//! the last minutes at every poll, the others in a cold round, those
//! unchanged for a day at a slower pace. When the system
//! refuses a watch (its limit, `fs.inotify.max_user_watches`), or has no
//! notifications at all, or polling is asked for, the folders left are
//! polled, and [`FolderEvent::Mode`] says so.

mod folders;

use crate::store::clock::now_seconds;
use folders::{Folders, Pace};
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A folder tree to watch: `dir`, and the folders below it down to `depth`
/// levels (0: `dir` alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchRoot {
    /// The folder.
    pub dir: PathBuf,
    /// How many levels of folders below it are watched too.
    pub depth: usize,
    /// At these levels (1: the folders in `dir`), only folders of these
    /// names are watched (a Loki session's `memory/`, not the agent's
    /// `workspace/`); at other levels, every folder.
    pub only: Vec<(usize, Vec<String>)>,
}

impl WatchRoot {
    /// `dir` and every folder below it down to `depth` levels.
    pub fn new(dir: PathBuf, depth: usize) -> WatchRoot {
        WatchRoot {
            dir,
            depth,
            only: Vec::new(),
        }
    }

    /// True when a folder named `name` at `level` below `dir` is watched.
    pub fn admits(&self, level: usize, name: &std::ffi::OsStr) -> bool {
        level <= self.depth
            && self
                .only
                .iter()
                .filter(|(l, _)| *l == level)
                .all(|(_, names)| names.iter().any(|n| std::ffi::OsStr::new(n) == name))
    }
}

/// How the watcher works: limits and timings.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchOptions {
    /// Poll every folder; ask the system for no notifications.
    pub polling: bool,
    /// Folders given a notification watch at most (each costs the kernel
    /// about a kilobyte, and the per-user limit is shared by every program).
    pub max_watches: usize,
    /// A batch is handed over once no event came for this long...
    pub quiet: Duration,
    /// ...or this long after its first event, whichever comes first.
    pub max_delay: Duration,
    /// How often the polled folders changed within `hot_for` are looked
    /// at (every file in them).
    pub poll_interval: Duration,
    /// A polled folder changed this recently is looked at every poll.
    pub hot_for: Duration,
    /// How long a round of every other polled folder takes (file by
    /// file: an append in place changes a file's stamp, not the folder's).
    pub cold_interval: Duration,
    /// How often a polled folder unchanged for a day is looked at: an old
    /// session resumed is seen within this, then followed closely.
    pub quiet_interval: Duration,
}

/// At most this many recently changed polled folders are looked at file
/// by file at each poll.
pub const HOT_POLLED: usize = 128;

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            polling: false,
            max_watches: 32_768,
            quiet: Duration::from_millis(15),
            max_delay: Duration::from_millis(60),
            poll_interval: Duration::from_millis(500),
            hot_for: Duration::from_secs(600),
            cold_interval: Duration::from_secs(30),
            quiet_interval: Duration::from_secs(300),
        }
    }
}

/// How the folders are being watched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchMode {
    /// Every folder has a notification watch.
    Notify {
        /// Watches held.
        watches: usize,
    },
    /// Some folders are watched, the others polled.
    Mixed {
        /// Watches held.
        watches: usize,
        /// Folders polled.
        polled: usize,
        /// Why not all are watched.
        why: String,
    },
    /// Every folder is polled.
    Polling {
        /// Folders polled.
        polled: usize,
        /// Why.
        why: String,
    },
}

/// What the watcher reports.
#[derive(Clone, Debug, PartialEq)]
pub enum FolderEvent {
    /// These paths (files or folders) changed, appeared or went; each once.
    Changed(Vec<PathBuf>),
    /// Events were lost (the system's queue overflowed): anything may have
    /// changed.
    Lost,
    /// How the folders are watched, at start and when it changes.
    Mode(WatchMode),
    /// A root that was there went (its folder removed or moved); it is
    /// looked for at every poll until it is back.
    RootGone(PathBuf),
    /// A root is there again (or for the first time): what it holds is
    /// watched, and anything in it may be new.
    RootBack(PathBuf),
}

enum Input {
    Fs(notify::Result<notify::Event>),
    Stop,
}

/// A running watcher; dropping it stops it.
pub struct FolderWatch {
    tx: Sender<Input>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for FolderWatch {
    fn drop(&mut self) {
        let _ = self.tx.send(Input::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts watching `roots` on a thread of its own; `on_event` gets each
/// batch (and returns false to stop). The folders are read on that thread,
/// so this returns at once.
pub fn watch(
    roots: Vec<WatchRoot>,
    options: WatchOptions,
    on_event: Box<dyn FnMut(FolderEvent) -> bool + Send>,
) -> FolderWatch {
    let (tx, rx) = mpsc::channel::<Input>();
    let notify_tx = tx.clone();
    let thread = std::thread::Builder::new()
        .name("folder-watch".into())
        .spawn(move || {
            let mut engine = Engine::start(roots, options, notify_tx, on_event);
            engine.run(&rx);
        })
        .ok();
    FolderWatch { tx, thread }
}

struct Engine {
    folders: Folders,
    notifier: Option<notify::RecommendedWatcher>,
    options: WatchOptions,
    on_event: Box<dyn FnMut(FolderEvent) -> bool + Send>,
    /// Why some folders are polled (None: none has to be).
    why_polled: Option<String>,
    /// The system refused a watch: no more are asked for.
    limit_hit: bool,
    pending: HashSet<PathBuf>,
    lost: bool,
    first: Option<Instant>,
    last: Instant,
    next_poll: Instant,
    mode: Option<WatchMode>,
    /// Nobody listens any more.
    stopped: bool,
}

impl Engine {
    fn start(
        roots: Vec<WatchRoot>,
        options: WatchOptions,
        tx: Sender<Input>,
        on_event: Box<dyn FnMut(FolderEvent) -> bool + Send>,
    ) -> Engine {
        let mut why_polled = None;
        let notifier = if options.polling {
            why_polled = Some("polling was asked for (watch = \"poll\")".to_string());
            None
        } else {
            let handler = move |event| {
                let _ = tx.send(Input::Fs(event));
            };
            match notify::recommended_watcher(handler) {
                Ok(w) => Some(w),
                Err(e) => {
                    why_polled = Some(format!("file notifications are unavailable ({e})"));
                    None
                }
            }
        };
        let now = Instant::now();
        let mut engine = Engine {
            folders: Folders::discover(&roots),
            notifier,
            options,
            on_event,
            why_polled,
            limit_hit: false,
            pending: HashSet::new(),
            lost: false,
            first: None,
            last: now,
            next_poll: now,
            mode: None,
            stopped: false,
        };
        let order = engine.folders.by_priority();
        for index in order {
            if !engine.try_watch(index) {
                break;
            }
        }
        // Every polled folder's files are learnt before the watcher says
        // it is ready: what changes after that is reported.
        let pace = Pace {
            cold_share: 1.0,
            ..engine.pace()
        };
        let _ = engine.folders.poll(now_seconds(), pace);
        engine.next_poll = Instant::now() + engine.options.poll_interval;
        engine.report_mode();
        engine
    }

    /// Gives folder `index` a watch if the budget and the system allow;
    /// false once no more can be had.
    fn try_watch(&mut self, index: usize) -> bool {
        if self.limit_hit || self.folders.watched_count() >= self.options.max_watches {
            if self.notifier.is_some() && self.why_polled.is_none() {
                self.why_polled = Some(format!(
                    "{} folders at most are watched (watch_limit)",
                    self.options.max_watches
                ));
            }
            return false;
        }
        let Some(notifier) = self.notifier.as_mut() else {
            return false;
        };
        let path = self.folders.path(index).to_path_buf();
        match notifier.watch(&path, RecursiveMode::NonRecursive) {
            Ok(()) => {
                self.folders.set_watched(index, true);
                true
            }
            Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                self.limit_hit = true;
                self.why_polled = Some(
                    "the system's limit of file watches was reached (fs.inotify.max_user_watches)"
                        .into(),
                );
                false
            }
            // Gone meanwhile, or unreadable: polling finds out which.
            Err(_) => true,
        }
    }

    fn report_mode(&mut self) {
        let watches = self.folders.watched_count();
        let polled = self.folders.len() - watches;
        let why = self.why_polled.clone().unwrap_or_default();
        let mode = if polled == 0 && self.notifier.is_some() {
            WatchMode::Notify { watches }
        } else if watches == 0 {
            WatchMode::Polling { polled, why }
        } else {
            WatchMode::Mixed {
                watches,
                polled,
                why,
            }
        };
        // Counts move as sessions come and go; only a change of kind is news.
        let same_kind = self
            .mode
            .as_ref()
            .is_some_and(|m| std::mem::discriminant(m) == std::mem::discriminant(&mode));
        if !same_kind {
            self.mode = Some(mode.clone());
            if !(self.on_event)(FolderEvent::Mode(mode)) {
                self.stopped = true;
            }
        }
    }

    fn run(&mut self, rx: &mpsc::Receiver<Input>) {
        while !self.stopped {
            let now = Instant::now();
            let flush_at = self
                .first
                .map(|first| (self.last + self.options.quiet).min(first + self.options.max_delay));
            // The roots are looked at every poll interval, watched or not.
            let wake = match flush_at {
                Some(f) => f.min(self.next_poll),
                None => self.next_poll,
            };
            match rx.recv_timeout(wake.saturating_duration_since(now)) {
                Ok(Input::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Ok(Input::Fs(event)) => self.on_fs(event),
                Err(RecvTimeoutError::Timeout) => {}
            }
            let now = Instant::now();
            if now >= self.next_poll {
                if self.folders.polled_count() > 0 {
                    self.poll();
                }
                self.folders.check_roots();
                self.roots_back();
                self.next_poll = Instant::now() + self.options.poll_interval;
            }
            self.say_roots_gone();
            if self.first.is_some_and(|first| {
                now >= (self.last + self.options.quiet).min(first + self.options.max_delay)
            }) && !self.flush()
            {
                return;
            }
        }
    }

    fn note(&mut self, path: PathBuf) {
        let now = Instant::now();
        self.first.get_or_insert(now);
        self.last = now;
        self.pending.insert(path);
    }

    fn on_fs(&mut self, event: notify::Result<notify::Event>) {
        let event = match event {
            Ok(event) => event,
            Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                self.limit_hit = true;
                return;
            }
            Err(_) => return,
        };
        if event.need_rescan() {
            self.lost = true;
            let now = Instant::now();
            self.first.get_or_insert(now);
            self.last = now;
            return;
        }
        if !matters(&event.kind) {
            return;
        }
        for path in event.paths {
            let (added, removed) = self.folders.on_path(&path);
            self.watch_new(added);
            if removed {
                self.report_mode();
            }
            self.note(path);
        }
    }

    /// Watches the folders just found, and notes what they hold as new
    /// (it may have been written before the watch). A folder made inside
    /// one after it was listed but before its watch was added sent no
    /// event: it is found here, among the entries, and watched in turn.
    fn watch_new(&mut self, added: Vec<usize>) {
        let mut todo = added;
        while let Some(index) = todo.pop() {
            self.try_watch(index);
            for entry in self.folders.entries(index) {
                let (more, _) = self.folders.on_path(&entry);
                todo.extend(more);
                self.note(entry);
            }
        }
    }

    /// How often polled folders are looked at, from the options.
    fn pace(&self) -> Pace {
        let o = &self.options;
        Pace {
            hot: HOT_POLLED,
            hot_for: o.hot_for.as_secs_f64(),
            cold_share: o.poll_interval.as_secs_f64().max(0.001)
                / o.cold_interval.as_secs_f64().max(0.001),
            quiet_interval: o.quiet_interval.as_secs_f64(),
        }
    }

    fn poll(&mut self) {
        let outcome = self.folders.poll(now_seconds(), self.pace());
        for index in outcome.promote {
            if !self.folders.is_watched(index) && !self.try_watch(index) {
                // At the budget: the folder unchanged for longest gives its watch up.
                if !self.limit_hit
                    && let Some(old) = self.folders.stalest_watched()
                    && let Some(n) = self.notifier.as_mut()
                {
                    let _ = n.unwatch(self.folders.path(old));
                    self.folders.set_watched(old, false);
                    self.try_watch(index);
                }
            }
        }
        self.watch_new(outcome.added);
        let changed = !outcome.changed.is_empty();
        for path in outcome.changed {
            self.note(path);
        }
        if changed {
            self.report_mode();
        }
    }

    /// Says which roots went since it was last asked.
    fn say_roots_gone(&mut self) {
        for dir in self.folders.roots_gone() {
            if !(self.on_event)(FolderEvent::RootGone(dir)) {
                self.stopped = true;
            }
        }
    }

    /// Watches the roots that are there again, and says so.
    fn roots_back(&mut self) {
        let (back, added) = self.folders.roots_back();
        if back.is_empty() {
            return;
        }
        self.watch_new(added);
        self.report_mode();
        for dir in back {
            if !(self.on_event)(FolderEvent::RootBack(dir)) {
                self.stopped = true;
            }
        }
    }

    /// Hands the batch over; false when nobody listens any more.
    fn flush(&mut self) -> bool {
        self.first = None;
        if std::mem::take(&mut self.lost) {
            self.pending.clear();
            return (self.on_event)(FolderEvent::Lost);
        }
        let mut paths: Vec<PathBuf> = self.pending.drain().collect();
        if paths.is_empty() {
            return true;
        }
        paths.sort();
        let now = now_seconds();
        for path in &paths {
            self.folders.touched(path, now);
        }
        (self.on_event)(FolderEvent::Changed(paths))
    }
}

/// True for events that say something changed; opening and reading (ours
/// among them) do not.
fn matters(kind: &EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

#[cfg(test)]
mod tests;
