//! Giving the memory freed by finished work back to the system. The
//! start-up work (the listing, the rows' stats, the index's update) runs on
//! the pool's threads, and glibc keeps what they freed in each thread's
//! arena for reuse: an idle UI would hold it for the rest of its run. Once
//! the whole pool has been quiet for a few seconds after work (no task
//! running, none ended meanwhile), it is handed back.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the pool is quiet before what finished work freed goes back.
pub const QUIET_BEFORE_TRIM: Duration = Duration::from_secs(3);

/// Set when a task ran since memory was last given back.
static WORKED: AtomicBool = AtomicBool::new(false);

/// Tasks running now, on any of the pool's threads.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// When a task last ended, in milliseconds since [`epoch`].
static LAST_ENDED_MS: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn now_ms() -> u64 {
    u64::try_from(epoch().elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Notes that a task starts.
pub fn task_started() {
    RUNNING.fetch_add(1, Ordering::SeqCst);
}

/// Notes that a task ended (it may have freed memory).
pub fn task_ended() {
    WORKED.store(true, Ordering::SeqCst);
    LAST_ENDED_MS.store(now_ms(), Ordering::SeqCst);
    RUNNING.fetch_sub(1, Ordering::SeqCst);
}

/// True when a task ran since memory was last given back.
pub fn has_worked() -> bool {
    WORKED.load(Ordering::SeqCst)
}

/// True when no task runs and none has ended for `quiet`: each thread's
/// wait is its own, and a trim while another thread reads a session slows
/// that read (the pages it unmaps are flushed from every core's TLB, the
/// reader's too).
fn pool_is_quiet_for(quiet: Duration) -> bool {
    RUNNING.load(Ordering::SeqCst) == 0
        && now_ms().saturating_sub(LAST_ENDED_MS.load(Ordering::SeqCst))
            >= u64::try_from(quiet.as_millis()).unwrap_or(u64::MAX)
}

/// Gives back the memory freed since a task last ran, once the whole pool
/// has been quiet for a while; once for a quiet stretch, whichever idle
/// thread comes first.
pub fn give_back_if_quiet() {
    if pool_is_quiet_for(QUIET_BEFORE_TRIM) && WORKED.swap(false, Ordering::SeqCst) {
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

#[cfg(test)]
mod tests {
    use super::*;

    // Other tests' tasks may run meanwhile in the same process: they only
    // make the pool busier, so only "not quiet" is asserted.

    #[test]
    fn a_running_task_keeps_the_memory_from_being_given_back() {
        task_started();
        let quiet = pool_is_quiet_for(Duration::ZERO);
        task_ended();
        assert!(!quiet);
    }

    #[test]
    fn a_task_that_just_ended_keeps_the_pool_from_being_quiet() {
        task_started();
        task_ended();
        assert!(!pool_is_quiet_for(QUIET_BEFORE_TRIM));
    }
}
