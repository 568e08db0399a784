//! Giving the memory freed by finished work back to the system. The
//! start-up work (the listing, the rows' stats, the index's update) runs on
//! the pool's threads, and glibc keeps what they freed in each thread's
//! arena for reuse: an idle UI would hold it for the rest of its run. Once
//! the pool has been quiet for a few seconds after work, it is handed back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long the pool is quiet before what finished work freed goes back.
pub const QUIET_BEFORE_TRIM: Duration = Duration::from_secs(3);

/// Set when a task ran since memory was last given back.
static WORKED: AtomicBool = AtomicBool::new(false);

/// Notes that a task ran (it may have freed memory).
pub fn worked() {
    WORKED.store(true, Ordering::Relaxed);
}

/// True when a task ran since memory was last given back.
pub fn has_worked() -> bool {
    WORKED.load(Ordering::Relaxed)
}

/// Gives back the memory freed since a task last ran; once for a quiet
/// stretch, whichever idle thread comes first.
pub fn give_back_if_worked() {
    if WORKED.swap(false, Ordering::Relaxed) {
        give_back();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back() {
    // SAFETY: malloc_trim only releases free pages of the allocator's own
    // arenas; it takes their locks and is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}
