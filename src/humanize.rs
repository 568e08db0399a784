//! Human-readable sizes, ages and counts shared by the CLI and the TUI.

use std::time::Duration;

/// `1536` → `1.5 KiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else if value < 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// How long ago `then` was, as of `now` (seconds): `3h ago`, `2days ago`.
pub fn ago(then: f64, now: f64) -> String {
    // A session without a date (damaged, or a 0 in meta.json) has no age.
    if then <= 0.0 || !then.is_finite() {
        return "unknown".into();
    }
    let secs = (now - then).max(0.0);
    if secs < 60.0 {
        return "just now".into();
    }
    // humantime names the units; the largest one is precise enough for a list.
    let whole = Duration::from_secs(secs as u64);
    let text = humantime::format_duration(whole).to_string();
    let largest = text.split_whitespace().next().unwrap_or("");
    format!("{largest} ago")
}

/// `12345` → `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A UTC date and time to the minute: `2026-11-29 08:12`.
pub fn datetime(seconds: f64) -> String {
    let time = std::time::UNIX_EPOCH + Duration::from_secs(seconds.max(0.0) as u64);
    let text = humantime::format_rfc3339_seconds(time).to_string();
    text.get(..16).unwrap_or(&text).replace('T', " ")
}

/// At most `max` terminal columns of `text` (wide characters count two),
/// with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if unicode_width::UnicodeWidthStr::width(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_forms() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(50 * 1024 * 1024), "50 MiB");
        let t = 1_000.0;
        assert_eq!(ago(t, t + 30.0), "just now");
        assert_eq!(ago(t, t + 3.0 * 3600.0 + 100.0), "3h ago");
        assert_eq!(ago(t, t + 2.0 * 86400.0 + 5.0), "2days ago");
        assert_eq!(ago(0.0, t), "unknown", "no date is not 56 years");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(count(12), "12");
        assert_eq!(datetime(1_795_910_460.0), "2026-11-29 00:01");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("東京オフィス", 7), "東京オ…");
    }
}
