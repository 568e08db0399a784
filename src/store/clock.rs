//! The clock. Everything else in the store takes the time as an argument,
//! so tests and the UI's ticks decide what "now" is.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as seconds since the epoch, like Python's `time.time()`.
pub fn now_seconds() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
