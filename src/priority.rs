//! The one place a thread's priority is set: the UI thread always wins a
//! core over the background work.

/// Lowers the calling thread's priority a little (nice 10): it still uses
/// every idle core, but the UI thread wins when both want one. Threads it
/// starts inherit it.
pub fn nice_10() {
    let _ = rustix::process::setpriority_process(None, 10);
}

/// Lets the calling thread (and the threads it starts) run only when the
/// cores are otherwise idle, so the UI and the matcher never wait for it.
/// Linux schedules threads one by one; if SCHED_IDLE is refused, nice 19.
/// (`libc`: rustix has no call to set a scheduling policy.)
pub fn only_when_idle() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: it only changes the scheduling of the calling thread; the
    // parameter lives for the call.
    let refused = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0;
    if refused {
        let _ = rustix::process::setpriority_process(None, 19);
    }
}
