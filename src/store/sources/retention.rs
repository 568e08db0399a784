//! What an agent's own cleanup will delete, and when. Claude Code deletes,
//! when it starts, the session files not modified for longer than
//! `cleanupPeriodDays` (its `settings.json`, 30 by default); Gemini CLI,
//! those older than `general.sessionRetention.maxAge` or beyond its
//! `maxCount` (its `settings.json`; on, 30 days, by default). Read only;
//! a settings file that is missing, malformed or hostile leaves the
//! agent's defaults, and a note says why.

use crate::store::format::jsonfile;
use crate::store::sources::agent::Agent;
use crate::store::sources::record::SessionRecord;
use serde_json::Value;
use std::path::Path;

pub(crate) const DAY: f64 = 86_400.0;

/// The settings files read are small; anything larger is not them.
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// One agent's cleanup rule.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Rule {
    /// Whose.
    pub agent: Agent,
    /// Sessions unused for longer than this (seconds) are deleted.
    pub max_age: Option<f64>,
    /// Sessions beyond this many, the most recently used first, are deleted.
    pub max_count: Option<usize>,
    /// Nothing younger than this (seconds) is deleted.
    pub min_age: f64,
    /// Where the rule comes from: a settings file, or the agent's default.
    pub from: String,
    /// Why the settings file was not used, if it was not.
    pub note: Option<String>,
}

impl Rule {
    /// What the rule says in a line: "Claude Code deletes sessions unused
    /// for 30 days (cleanupPeriodDays, ~/.claude/settings.json)".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(age) = self.max_age {
            parts.push(format!("unused for {} days", (age / DAY).round()));
        }
        if let Some(count) = self.max_count {
            parts.push(format!("beyond the {count} most recent"));
        }
        format!(
            "{} deletes sessions {} ({})",
            self.agent.display_name(),
            parts.join(" or "),
            self.from
        )
    }
}

/// The cleanup rules of the agents whose folders these are (Claude Code's
/// `projects` folder, Gemini CLI's home); agents without one are left out.
pub fn rules(folders: &[(Agent, &Path)]) -> Vec<Rule> {
    folders
        .iter()
        .filter_map(|(agent, folder)| agent.provider().cleanup_rule(folder))
        .collect()
}

/// A settings file as JSON: None when it is not there; an error naming
/// the file when it cannot be read as one object.
pub(crate) fn settings(path: &Path) -> Result<Option<Value>, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let bytes = jsonfile::read_no_follow_at_most(path, MAX_SETTINGS_BYTES)
        .map_err(|e| format!("{e}; the agent's defaults are assumed"))?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v @ Value::Object(_)) => Ok(Some(v)),
        Ok(_) => Err(format!(
            "{}: not a JSON object; the agent's defaults are assumed",
            path.display()
        )),
        Err(e) => Err(format!(
            "{}: not JSON ({e}); the agent's defaults are assumed",
            path.display()
        )),
    }
}

/// The moment a session's age is counted from by its agent's cleanup:
/// Claude Code compares the file's modification time (so a restored or
/// touched file starts again), the others their last activity.
fn aged_from(r: &SessionRecord) -> f64 {
    // The listing's own look at the file when it took one, else the
    // disk's: a second look at every session is a path walk each.
    let modified = || {
        if let Some(at) = r.modified_at() {
            return Some(at);
        }
        let m = std::fs::symlink_metadata(&r.path).ok()?.modified().ok()?;
        Some(m.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64())
    };
    if r.agent.provider().ages_by_modification() {
        modified().unwrap_or(r.last_used_at)
    } else {
        r.last_used_at
    }
}

/// When each session would be deleted by its agent's cleanup, by id
/// (hashed fast: a listing looks up each of its rows).
pub type DeletesAt = std::collections::HashMap<String, f64, rustc_hash::FxBuildHasher>;

/// When each of `records` would be deleted by its agent's cleanup (seconds
/// since the epoch; the next start of the agent, `now`, for one already
/// due), by id. Sessions of agents without a rule are left out.
pub fn deletes_at(rules: &[Rule], records: &[SessionRecord], now: f64) -> DeletesAt {
    records
        .iter()
        .zip(deletes_at_each(rules, records, now))
        .filter_map(|(r, at)| Some((r.id.as_str().to_owned(), at?)))
        .collect()
}

/// [`deletes_at`] of each of `records`, in their order (None: its agent
/// has no rule, or the rule keeps it): a listing's rows take theirs by
/// place, with no map of ids made and looked up.
pub fn deletes_at_each(rules: &[Rule], records: &[SessionRecord], now: f64) -> Vec<Option<f64>> {
    let mut out = vec![None; records.len()];
    for rule in rules {
        let mut mine: Vec<usize> = (0..records.len())
            .filter(|&i| {
                let r = &records[i];
                // An archived session is ours: its agent deleted it already.
                r.agent == rule.agent && r.is_readable() && !r.archived
            })
            .collect();
        // Stable: among equals, the records' order.
        mine.sort_by(|&a, &b| records[b].last_used_at.total_cmp(&records[a].last_used_at));
        for (rank, &i) in mine.iter().enumerate() {
            let aged = aged_from(&records[i]);
            let by_age = rule.max_age.map(|age| aged + age);
            let by_count = rule.max_count.filter(|max| rank >= *max).map(|_| now);
            let at = match (by_age, by_count) {
                (Some(a), Some(c)) => Some(a.min(c)),
                (a, c) => a.or(c),
            };
            // Nothing younger than the minimum goes.
            if let Some(at) = at.map(|at| at.max(aged + rule.min_age)) {
                out[i] = Some(at);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(agent: Agent, id: &str, used: f64) -> SessionRecord {
        SessionRecord {
            agent,
            id: id.into(),
            last_used_at: used,
            ..SessionRecord::default()
        }
    }

    #[test]
    fn settings_are_read_and_bad_ones_leave_the_defaults_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let claude_dir = dir.path().join(".claude");
        std::fs::create_dir_all(claude_dir.join("projects")).unwrap();
        let gemini_dir = dir.path().join(".gemini");
        std::fs::create_dir_all(&gemini_dir).unwrap();
        let projects = claude_dir.join("projects");
        let read = || rules(&[(Agent::Claude, &projects), (Agent::Gemini, &gemini_dir)]);
        // Missing: the defaults, no note.
        let r = read();
        assert_eq!(r[0].max_age, Some(30.0 * DAY));
        assert_eq!((r[1].max_age, r[1].min_age), (Some(30.0 * DAY), DAY));
        assert!(r.iter().all(|r| r.note.is_none()));
        std::fs::write(
            claude_dir.join("settings.json"),
            r#"{"cleanupPeriodDays": 365}"#,
        )
        .unwrap();
        std::fs::write(
            gemini_dir.join("settings.json"),
            r#"{"general":{"sessionRetention":{"enabled":true,"maxAge":"2w","maxCount":200}}}"#,
        )
        .unwrap();
        let r = read();
        assert_eq!(r[0].max_age, Some(365.0 * DAY));
        assert!(
            r[0].describe().contains("unused for 365 days"),
            "{}",
            r[0].describe()
        );
        assert_eq!(
            (r[1].max_age, r[1].max_count),
            (Some(14.0 * DAY), Some(200))
        );
        // Broken and hostile: the defaults, and why.
        std::fs::write(claude_dir.join("settings.json"), "{nope").unwrap();
        std::fs::write(gemini_dir.join("settings.json"), "[1,2]").unwrap();
        let r = read();
        assert_eq!(r[0].max_age, Some(30.0 * DAY));
        assert!(r[0].note.as_deref().unwrap().contains("not JSON"));
        assert!(r[1].note.as_deref().unwrap().contains("not a JSON object"));
        std::fs::write(
            claude_dir.join("settings.json"),
            r#"{"cleanupPeriodDays": "forever"}"#,
        )
        .unwrap();
        assert!(read()[0].note.as_deref().unwrap().contains("not a number"));
        // Turned off: nothing is due.
        std::fs::write(
            gemini_dir.join("settings.json"),
            r#"{"general":{"sessionRetention":{"enabled":false}}}"#,
        )
        .unwrap();
        let r = read();
        assert_eq!((r[1].max_age, r[1].max_count), (None, None));
    }

    #[test]
    fn sessions_are_due_by_age_or_beyond_the_count_never_younger_than_the_minimum() {
        let now = 1_800_000_000.0;
        let rules = [
            Rule {
                agent: Agent::Claude,
                max_age: Some(30.0 * DAY),
                max_count: None,
                min_age: 0.0,
                from: String::new(),
                note: None,
            },
            Rule {
                agent: Agent::Gemini,
                max_age: Some(30.0 * DAY),
                max_count: Some(1),
                min_age: DAY,
                from: String::new(),
                note: None,
            },
        ];
        let records = [
            record(Agent::Claude, "c-old", now - 29.0 * DAY),
            record(Agent::Gemini, "g-new", now - 3600.0),
            record(Agent::Gemini, "g-second", now - 3600.0 * 2.0),
            record(Agent::Codex, "x", now - 90.0 * DAY),
        ];
        let due = deletes_at(&rules, &records, now);
        assert_eq!(due["c-old"], now + DAY, "in a day");
        assert_eq!(due["g-new"], now + 29.0 * DAY + 23.0 * 3600.0);
        // Beyond the count, but not a day old yet: when it is.
        assert_eq!(due["g-second"], now - 7200.0 + DAY);
        assert!(!due.contains_key("x"), "Codex deletes nothing by itself");
    }

    #[test]
    fn gemini_ages_read_as_gemini_reads_them() {
        assert_eq!(
            crate::store::sources::gemini::provider::age_of("30d"),
            Some(30.0 * DAY)
        );
        assert_eq!(
            crate::store::sources::gemini::provider::age_of("12h"),
            Some(12.0 * 3600.0)
        );
        assert_eq!(
            crate::store::sources::gemini::provider::age_of("2m"),
            Some(60.0 * DAY)
        );
        assert_eq!(crate::store::sources::gemini::provider::age_of("0d"), None);
        assert_eq!(
            crate::store::sources::gemini::provider::age_of("soon"),
            None
        );
    }
}
