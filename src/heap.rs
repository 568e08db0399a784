//! The allocator's settings for this process, set once at start.
//!
//! glibc grows a heap by only what each allocation needs: a listing of
//! 10,000 sessions, whose threads each fill an arena of their own, spent
//! about a tenth of its time in the kernel growing them (`mprotect`,
//! `brk`, in a profile). Growing by 16 MB at a time asks far less often;
//! pages are still only backed when touched, so the peak memory is the
//! same (checked with `/usr/bin/time -f %M`), and the UI gives back what
//! it freed when idle (`tui/memory.rs`).

/// Grows the allocator's heaps in large steps (glibc only; elsewhere the
/// system allocator is left as it is).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn grow_in_large_steps() {
    /// How much more than asked a heap grows by.
    const GROWTH: libc::c_int = 16 << 20;
    // SAFETY: mallopt only changes a setting of the allocator, under its
    // own lock; it is called before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, GROWTH);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn grow_in_large_steps() {}
