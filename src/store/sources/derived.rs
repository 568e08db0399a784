//! Session records derived from a bare peteos session directory, without
//! writing anything: there is no meta.json, so everything comes from the
//! conversation and the file times.

use crate::store::format::naming::name_from_prompt;
use crate::store::format::{Part, Session, SessionId};
use crate::store::fs::disk;
use crate::store::sources::PeteosFolder;
use crate::store::sources::record::SessionRecord;
use std::fs;
use std::path::Path;
use std::time::UNIX_EPOCH;

const DAY: f64 = 86_400.0;

/// The record of the peteos session in `dir` (damaged if session.json is unreadable).
pub fn derive_record(dir: &Path) -> SessionRecord {
    let raw_id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let user = disk::os_user_name().unwrap_or_default();
    let damaged = |error: String| SessionRecord {
        agent: PeteosFolder::AGENT,
        ..SessionRecord::damaged(&raw_id, dir.to_path_buf(), dir.to_path_buf(), &user, error)
    };
    let id = match SessionId::check(&raw_id) {
        Ok(id) => id,
        Err(why) => return damaged(why),
    };
    let session = match Session::load(dir) {
        Ok(s) => s,
        Err(e) => return damaged(e.to_string()),
    };
    let first_prompt = session
        .active_context()
        .ok()
        .flatten()
        .and_then(|ctx| {
            ctx.messages()
                .find(|m| m.role() == "user")
                .map(|m| first_user_text(&m.parts()))
        })
        .unwrap_or_default();
    let (oldest, newest) = file_times(dir);
    SessionRecord {
        agent: PeteosFolder::AGENT,
        name: name_from_prompt(&first_prompt),
        title: first_prompt.clone(),
        cwd: None,
        first_prompt,
        user,
        created_at: created_at(&id, oldest),
        last_used_at: newest,
        path: dir.to_path_buf(),
        conversation_dir: dir.to_path_buf(),
        error: None,
        bytes: None,
        stamp: None,
        id,
        archived: false,
    }
}

fn first_user_text(parts: &[Part<'_>]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(*t),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// Oldest and newest modification times (seconds) of the directory's files.
pub fn file_times(dir: &Path) -> (f64, f64) {
    let mut times: Vec<f64> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter_map(|e| e.metadata().ok()?.modified().ok())
                .filter_map(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs_f64())
                .collect()
        })
        .unwrap_or_default();
    times.sort_by(f64::total_cmp);
    (
        times.first().copied().unwrap_or(0.0),
        times.last().copied().unwrap_or(0.0),
    )
}

/// The uuid's `YYYYMMDD-` prefix gives the day; a file time on that day is
/// more precise, so it wins when it agrees.
fn created_at(id: &str, oldest_file: f64) -> f64 {
    match date_prefix_seconds(id) {
        Some(day) if (day..day + DAY).contains(&oldest_file) => oldest_file,
        Some(day) => day,
        None => oldest_file,
    }
}

/// Midnight UTC of the `YYYYMMDD` at the start of `id`, in seconds.
fn date_prefix_seconds(id: &str) -> Option<f64> {
    let digits = id.get(..8)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) || id.as_bytes().get(8) != Some(&b'-') {
        return None;
    }
    let text = format!(
        "{}-{}-{}T00:00:00Z",
        &digits[..4],
        &digits[4..6],
        &digits[6..8]
    );
    let time = humantime::parse_rfc3339(&text).ok()?;
    Some(time.duration_since(UNIX_EPOCH).ok()?.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_date_prefix_gives_the_day() {
        let day = date_prefix_seconds("20261129-abc").unwrap();
        assert_eq!(day, 1_795_910_400.0);
        assert_eq!(created_at("20261129-abc", day + 60.0), day + 60.0);
        assert_eq!(created_at("20261129-abc", day + 5.0 * DAY), day);
        assert_eq!(created_at("no-date", 42.0), 42.0);
        assert_eq!(date_prefix_seconds("2026112x-abc"), None);
    }
}
