//! Ids and timestamps in the forms peteos writes them.

use std::time::{Duration, UNIX_EPOCH};

/// A session or context id: `YYYYMMDD-<uuid4>` (UTC date of `now`).
pub fn dated_id(now: f64) -> String {
    let date: String = iso_timestamp(now)[..10]
        .chars()
        .filter(|c| *c != '-')
        .collect();
    format!("{date}-{}", uuid::Uuid::new_v4())
}

/// A message id: a bare uuid4.
pub fn message_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `now` (seconds since the epoch) as `YYYY-MM-DDTHH:MM:SS.ffffff`, the
/// naive ISO form Python's `datetime.isoformat()` writes (here in UTC).
pub fn iso_timestamp(now: f64) -> String {
    let time = UNIX_EPOCH + Duration::from_secs_f64(now.max(0.0));
    let text = humantime::format_rfc3339_micros(time).to_string();
    text.trim_end_matches('Z').to_string()
}

/// The start of a session id that tells it apart from others of one name,
/// in the list and in a `SESSION` argument (`name · 20261128-da8c`): the
/// creation date and four characters of the uuid.
pub fn id_start(id: &str) -> &str {
    const SHOWN: usize = 13;
    let end = id.char_indices().nth(SHOWN).map_or(id.len(), |(at, _)| at);
    &id[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_match_peteos() {
        assert_eq!(
            iso_timestamp(1_764_403_200.25),
            "2025-11-29T08:00:00.250000"
        );
        let id = dated_id(1_764_403_200.0);
        assert!(id.starts_with("20251129-") && id.len() == 45, "{id}");
    }
}
