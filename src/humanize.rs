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

/// `1 image or document`, `3 images and documents` (what a fix for
/// resuming replaces).
pub fn media(n: u64) -> String {
    if n == 1 {
        "1 image or document".into()
    } else {
        format!("{} images and documents", count(n))
    }
}

/// How long ago `then` was, as of `now` (seconds), in its largest unit:
/// `just now`, `1 minute ago`, `3 hours ago`, `2 days ago`, `1 month ago`.
pub fn ago(then: f64, now: f64) -> String {
    // A session without a date (damaged, or a 0 in meta.json) has no age.
    if then <= 0.0 || !then.is_finite() {
        return "unknown".into();
    }
    match span((now - then).max(0.0)) {
        Some(span) => format!("{span} ago"),
        None => "just now".into(),
    }
}

/// How long until `then`, from `now`: "3 days", "5 hours", "less than a
/// minute".
pub fn ahead(then: f64, now: f64) -> String {
    span((then - now).max(0.0)).unwrap_or_else(|| "less than a minute".into())
}

/// The first `chars` characters of `id`, for a column (an id from a file
/// may hold any character, so it is never cut inside one).
pub fn id_prefix(id: &str, chars: usize) -> &str {
    let end = id.char_indices().nth(chars).map_or(id.len(), |(at, _)| at);
    &id[..end]
}

/// When an agent's cleanup due at `at` deletes a session, from `now`:
/// "in 3 days", or "when it next starts" (it deletes as it starts).
pub fn cleanup_when(at: f64, now: f64) -> String {
    if at <= now {
        "when it next starts".into()
    } else {
        format!("in {}", ahead(at, now))
    }
}

/// `secs` in the largest unit it holds once ("2 months", "1 day"); None
/// under a minute.
fn span(secs: f64) -> Option<String> {
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 60.0 * MINUTE;
    const DAY: f64 = 24.0 * HOUR;
    // The lengths humantime uses: a mean month and a Julian year.
    const MONTH: f64 = 30.44 * DAY;
    const YEAR: f64 = 365.25 * DAY;
    const UNITS: [(f64, &str); 5] = [
        (YEAR, "year"),
        (MONTH, "month"),
        (DAY, "day"),
        (HOUR, "hour"),
        (MINUTE, "minute"),
    ];
    UNITS
        .iter()
        .find(|(size, _)| secs >= *size)
        .map(|(size, unit)| plural((secs / size) as u64, unit))
}

/// `n` and the noun, in the plural unless `n` is 1: `1 session`,
/// `2 sessions`, `1,234 messages`.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", count(n))
    }
}

/// A number of days as given: `1 day`, `30 days`, `0.5 days`.
pub fn days(n: f64) -> String {
    if n == 1.0 {
        "1 day".into()
    } else {
        format!("{n} days")
    }
}

/// `text` padded with spaces to `width` terminal columns (wide characters
/// count two), so columns after it line up; longer text is left as it is.
pub fn pad(text: &str, width: usize) -> String {
    let used = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(width.saturating_sub(used)))
}

/// When a session was last used, as [`ago`]; `-` for a damaged session,
/// which has no time of its own (0).
pub fn last_used(at: f64, now: f64) -> String {
    if at > 0.0 { ago(at, now) } else { "-".into() }
}

/// How a person reads the position of message `index` (counted from 0 in
/// the files and in JSON): `#1` is the first, `#10,000` the last of ten
/// thousand.
pub fn message_number(index: usize) -> String {
    format!("#{}", count(index as u64 + 1))
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

/// A count in at most four characters, for a narrow header: `912`,
/// `2.4k`, `64k`, `1.2M`, `12M`.
pub fn short_count(n: u64) -> String {
    let scaled = |n: u64, unit: u64, suffix: &str| {
        let value = n as f64 / unit as f64;
        if value < 9.95 {
            format!("{value:.1}{suffix}")
        } else {
            format!("{}{suffix}", value.round() as u64)
        }
    };
    match n {
        0..1_000 => n.to_string(),
        1_000..999_500 => scaled(n, 1_000, "k"),
        _ => scaled(n, 1_000_000, "M"),
    }
}

/// `n` in full (`987,654`) when it fits `width` columns, else shortened
/// (`15M`): a right-aligned table cell too narrow for it would cut its
/// first digits off (`,870,530`).
pub fn count_within(n: u64, width: u16) -> String {
    let full = count(n);
    if full.len() <= usize::from(width) {
        full
    } else {
        short_count(n)
    }
}

/// A UTC date and time to the minute: `2026-11-29 08:12`.
pub fn datetime(seconds: f64) -> String {
    let time = std::time::UNIX_EPOCH + Duration::from_secs(seconds.max(0.0) as u64);
    let text = humantime::format_rfc3339_seconds(time).to_string();
    text.get(..16).unwrap_or(&text).replace('T', " ")
}

/// An estimated cost as a person reads it: `≈$0.05`; `≈$0.05+?` when some
/// models used have no price (their tokens are not in it); `?` when none
/// has (unpriced, never `$0`).
pub fn cost(c: &crate::store::CostEstimate) -> String {
    match c.usd {
        None => "?".into(),
        Some(_) => format!("≈{}", dollars(c.usd, !c.unpriced_models.is_empty())),
    }
}

/// US dollars added up: `$1.23`; `$1.23+?` when some models of it have no
/// price; `?` when none has.
pub fn dollars(usd: Option<f64>, some_unpriced: bool) -> String {
    match (usd, some_unpriced) {
        (None, _) => "?".into(),
        (Some(usd), false) => format!("${usd:.2}"),
        (Some(usd), true) => format!("${usd:.2}+?"),
    }
}

/// At most `max` terminal columns of `text` (wide characters count two),
/// with `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    // Made safe first, so a cut never leaves half an escape sequence.
    let text = &*crate::store::safe_text::safe_line(text);
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
    #[test]
    fn short_counts_keep_to_four_characters() {
        let shown: Vec<String> = [
            0, 912, 999, 1_000, 2_380, 9_949, 9_950, 64_166, 999_499, 999_500, 1_234_567,
            12_345_678,
        ]
        .map(super::short_count)
        .into();
        assert_eq!(
            shown,
            [
                "0", "912", "999", "1.0k", "2.4k", "9.9k", "10k", "64k", "999k", "1.0M", "1.2M",
                "12M"
            ]
        );
    }

    use super::*;

    #[test]
    fn a_count_too_wide_for_its_column_is_shortened_not_cut() {
        assert_eq!(count_within(987_654, 8), "987,654");
        assert_eq!(count_within(1_234_567, 8), "1.2M");
        assert_eq!(count_within(14_870_530, 8), "15M");
        assert_eq!(count_within(14_870_530, 10), "14,870,530");
        assert_eq!(count_within(99_999, 6), "99,999");
        assert_eq!(count_within(123_456, 6), "123k");
    }

    #[test]
    fn readable_forms() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(50 * 1024 * 1024), "50 MiB");
        let t = 1_000.0;
        assert_eq!(ago(t, t + 30.0), "just now");
        assert_eq!(ago(t, t + 60.0), "1 minute ago");
        assert_eq!(ago(t, t + 59.0 * 60.0 + 59.0), "59 minutes ago");
        assert_eq!(ago(t, t + 3.0 * 3600.0 + 100.0), "3 hours ago");
        assert_eq!(ago(t, t + 86400.0), "1 day ago");
        assert_eq!(ago(t, t + 2.0 * 86400.0 + 5.0), "2 days ago");
        assert_eq!(ago(t, t + 31.0 * 86400.0), "1 month ago");
        assert_eq!(ago(t, t + 70.0 * 86400.0), "2 months ago");
        assert_eq!(ago(t, t + 400.0 * 86400.0), "1 year ago");
        assert_eq!(ago(t + 100.0, t), "just now", "a time in the future");
        assert_eq!(ago(0.0, t), "unknown", "no date is not 56 years");
        assert_eq!(plural(1, "session"), "1 session");
        assert_eq!(plural(0, "session"), "0 sessions");
        assert_eq!(plural(1234, "message"), "1,234 messages");
        assert_eq!(days(30.0), "30 days");
        assert_eq!(days(0.5), "0.5 days");
        assert_eq!(days(1.0), "1 day");
        assert_eq!(pad("東京", 6), "東京  ");
        assert_eq!(pad("ab", 6), "ab    ");
        assert_eq!(pad("abcdefgh", 6), "abcdefgh");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(count(12), "12");
        assert_eq!(datetime(1_795_910_460.0), "2026-11-29 00:01");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("東京オフィス", 7), "東京オ…");
    }
}
