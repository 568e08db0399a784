//! How long a test waits: what a thing takes on an idle machine, scaled to
//! how busy this one is. A fixed wall-clock window fails on a machine
//! running another build beside the tests; a check that something happens
//! "at once" is about the program, not about the machine's other work.
//! `LOKI_TEST_PATIENCE=N` multiplies every wait again (a slow machine).

use std::time::Duration;

/// `base` (what the wait would be on an idle machine) times the machine's
/// load per core over the last minute (at least 1) and the
/// `LOKI_TEST_PATIENCE` factor.
pub fn patience(base: Duration) -> Duration {
    base.mul_f64(load_factor() * user_factor())
}

/// The 1-minute load average over the cores, at least 1 (1 when unknown).
fn load_factor() -> f64 {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as f64;
    (load / cores).max(1.0)
}

fn user_factor() -> f64 {
    std::env::var("LOKI_TEST_PATIENCE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|f| *f >= 1.0)
        .unwrap_or(1.0)
}

/// CPU seconds process `pid` has used (user and system), 0 once it is gone.
pub fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    let Some(after) = stat.rfind(')').map(|at| &stat[at + 2..]) else {
        return 0.0;
    };
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // SAFETY: sysconf has no memory effects.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    (ticks(11) + ticks(12)) / per_second
}

#[test]
fn patience_never_shortens_a_wait() {
    let base = Duration::from_secs(3);
    assert!(patience(base) >= base);
}
