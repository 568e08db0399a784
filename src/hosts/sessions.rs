//! A host's rows (`list --json`, `search --json`) as the CLI and the UI
//! both take them: the program's version checked, its exit code read, its
//! JSON checked row by row ([`answer::rows`]); and a host's session list as
//! the UI shows it ([`RemoteSession`]).

use super::answer::{self, Kind};
use super::{Host, Reply};
use crate::store::safe_text::safe_line;
use serde_json::{Map, Value};
use std::time::Duration;

/// The most a host's answer may hold: a list of every session, or a whole
/// long transcript.
pub const MAX_ANSWER: u64 = 512 * 1024 * 1024;

/// The rows of a host's answer, each holding `fields` of their kinds, every
/// string made safe; else why not (the host is named by the caller).
pub fn answered_rows(
    reply: &Reply,
    fields: &[(&str, Kind)],
) -> Result<Vec<Map<String, Value>>, String> {
    answer::check_version(&reply.version)?;
    // 1 is a search that found nothing, or a list with an unreadable
    // session: the rows are still the answer.
    if reply.code > 1 {
        return Err(format!("failed (exit {}): {}", reply.code, reply.said));
    }
    answer::rows(&reply.stdout, fields).map_err(|why| format!("{why} (refused)"))
}

/// A session another machine listed, as the UI shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteSession {
    /// The host's name in the config.
    pub host: String,
    /// Its id there (checked as ids from files are).
    pub id: String,
    /// Its agent's name (`claude`, `codex`, ...), as the host says it.
    pub agent: String,
    /// Its title, else its name.
    pub title: String,
    /// The folder it was worked in there.
    pub cwd: Option<String>,
    /// Seconds since the epoch.
    pub last_used_at: f64,
    /// Its messages, where the host counted them.
    pub messages: Option<u64>,
    /// Kept in the host's archive (its agent deleted it there).
    pub archived: bool,
}

impl RemoteSession {
    /// The session of a checked `list --json` row of `host`.
    fn from_row(host: &str, row: &Map<String, Value>) -> RemoteSession {
        // One line each: a row of the pane holds one.
        let text = |key: &str| {
            safe_line(row.get(key).and_then(Value::as_str).unwrap_or_default()).into_owned()
        };
        let title = Some(text("title"))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| text("name"));
        let cwd = row.get("cwd").and_then(Value::as_str).map(|_| text("cwd"));
        RemoteSession {
            host: host.into(),
            id: text("id"),
            agent: text("agent"),
            title,
            cwd,
            last_used_at: row
                .get("last_used_at")
                .and_then(Value::as_f64)
                .unwrap_or_default(),
            messages: row.get("messages").and_then(Value::as_u64),
            archived: row
                .get("archived")
                .and_then(Value::as_bool)
                .unwrap_or_default(),
        }
    }

    /// The line `resume` runs on the host for it, as a person would type
    /// it here (what Enter runs, for the screen to say).
    pub fn resume_line(&self) -> String {
        format!("loki-sessions --host {} resume {}", self.host, self.id)
    }
}

/// Asks `host` for every session it has (`list --json`), within
/// `deadline`, checked; newest first.
pub fn list(host: &Host, deadline: Duration) -> Result<Vec<RemoteSession>, String> {
    let args = ["list".to_string(), "--json".to_string()];
    let reply = super::ask(std::slice::from_ref(host), &args, deadline, MAX_ANSWER).remove(0);
    let rows = answered_rows(&reply?, answer::LIST_ROW)?;
    let mut sessions: Vec<RemoteSession> = rows
        .iter()
        .map(|row| RemoteSession::from_row(&host.name, row))
        .collect();
    sessions.sort_by(|a, b| b.last_used_at.total_cmp(&a.last_used_at));
    Ok(sessions)
}

/// Asks `host` for the files of its session `session` (`pack`), within
/// `deadline`, and checks them: what `pull` writes here.
pub fn fetch_pack(
    host: &Host,
    session: &str,
    deadline: Duration,
) -> Result<crate::store::Pack, String> {
    let args = ["pack".to_string(), session.to_string()];
    let reply = super::ask(std::slice::from_ref(host), &args, deadline, MAX_ANSWER).remove(0)?;
    answer::check_version(&reply.version)?;
    if reply.code != 0 {
        return Err(format!("{} (exit {})", reply.said, reply.code));
    }
    crate::store::Pack::from_bytes(&reply.stdout).map_err(|why| format!("{why} (refused)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(code: i32, stdout: &str) -> Reply {
        Reply {
            version: format!("loki-sessions {}", answer::VERSION),
            stdout: stdout.as_bytes().to_vec(),
            code,
            said: "it broke".into(),
        }
    }

    #[test]
    fn a_rows_title_is_its_name_when_it_has_none_and_its_text_is_made_safe() {
        let rows = answered_rows(
            &reply(
                0,
                r#"[{"id":"s1","agent":"claude","name":"fix-it","title":"","last_used_at":5,"cwd":"/w\u001b[2J","messages":3}]"#,
            ),
            answer::LIST_ROW,
        )
        .unwrap();
        let session = RemoteSession::from_row("dev", &rows[0]);
        assert_eq!(session.title, "fix-it");
        assert_eq!(session.cwd.as_deref(), Some("/w\\x1b[2J"));
        assert_eq!(session.messages, Some(3));
        assert_eq!(session.resume_line(), "loki-sessions --host dev resume s1");
    }

    #[test]
    fn a_failed_run_another_version_or_a_wrong_shape_is_an_error() {
        assert!(
            answered_rows(&reply(2, "[]"), answer::LIST_ROW)
                .unwrap_err()
                .contains("it broke")
        );
        assert!(answered_rows(&reply(1, "[]"), answer::LIST_ROW).is_ok());
        assert!(
            answered_rows(&reply(0, r#"{"id":1}"#), answer::LIST_ROW)
                .unwrap_err()
                .contains("refused")
        );
        let other = Reply {
            version: "loki-sessions 99.1.0".into(),
            ..reply(0, "[]")
        };
        assert!(
            answered_rows(&other, answer::LIST_ROW)
                .unwrap_err()
                .contains("same version")
        );
    }
}
