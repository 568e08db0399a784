//! The clock. Everything else in the store takes the time as an argument,
//! so tests and the UI's ticks decide what "now" is.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as seconds since the epoch, like Python's `time.time()`.
pub fn now_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The local date (`YYYY-MM-DD`, the time zone of `TZ` or the system's) of
/// the moment `seconds` since the epoch: what a report by day groups by,
/// as ccusage does.
pub fn local_day(seconds: f64) -> String {
    let time = seconds.max(0.0) as libc::time_t;
    // SAFETY: `tm` is plain data that localtime_r fills in; both pointers
    // are valid for the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let done = unsafe { libc::localtime_r(&time, &mut tm) };
    if done.is_null() {
        let days = (seconds / 86_400.0).floor() as i64;
        return format!("day {days}");
    }
    format!(
        "{:04}-{:02}-{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday
    )
}
