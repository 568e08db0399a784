//! The watcher of the disk as the UI runs it: the store's watch
//! (`Store::watch`, a thread of its own) reporting each batch of changed
//! sessions as a `Msg::Disk`, stamped with the time it was seen. The
//! session's driver and the headless one start it alike, once.

use crate::store::{Store, StoreWatch, WatchOptions};
use crate::tui::msg::Msg;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

/// The running watch, held for as long as the UI runs (shared by the
/// clones of a worker).
#[derive(Clone, Default)]
pub struct Watching {
    watch: Arc<Mutex<Option<StoreWatch>>>,
}

impl Watching {
    /// Starts watching `store` (a second start replaces the first):
    /// every event goes to `replies` as `Msg::Disk`, timed by `clock`.
    pub fn start(
        &self,
        store: &Store,
        options: WatchOptions,
        replies: Sender<Msg>,
        clock: fn() -> f64,
    ) {
        let watch = store.watch(options, move |event| {
            replies.send(Msg::Disk { event, at: clock() }).is_ok()
        });
        if let Ok(mut held) = self.watch.lock() {
            // The old one stops when dropped, outside of nothing else.
            *held = Some(watch);
        }
    }
}
