//! A Claude Code session as the list shows it, read from the two ends of
//! its file only: the first prompt, the folder and the start from the first
//! lines; the last use and the titles (`custom-title`, `ai-title`,
//! `summary`) from the last ones. Listing 10,000 sessions reads a few KB of
//! each, never a whole file.

use crate::store::format::naming::name_from_prompt;
use crate::store::fs::disk;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::parse_time;
use crate::store::sources::claude::line::Line;
use crate::store::sources::jsonl::{self, HeadTail};
use crate::store::sources::record::SessionRecord;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Bytes read from each end first; most sessions say all the list needs there.
const FIRST_READ: usize = 4 * 1024;
/// Bytes read from each end when the first read held no whole line that says it.
const SECOND_READ: usize = 64 * 1024;

/// What the ends of a file said.
#[derive(Debug, Default)]
struct Ends {
    prompt: Option<String>,
    cwd: Option<String>,
    first_time: Option<f64>,
    last_time: Option<f64>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary: Option<String>,
    readable_lines: usize,
}

/// The record of the session file `path` (its name is the session id).
pub fn record(path: &Path) -> SessionRecord {
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let user = disk::os_user_name().unwrap_or_default();
    let damaged = |error: String| SessionRecord {
        agent: Agent::Claude,
        ..SessionRecord::damaged(&id, path.to_path_buf(), folder.clone(), &user, error)
    };
    let read = |size: usize| jsonl::head_and_tail(path, size, size);
    let (mut ends, mut file) = match read(FIRST_READ) {
        Ok(file) => (read_ends(&file), file),
        Err(e) => return damaged(e.to_string()),
    };
    let wants_more = ends.prompt.is_none() || ends.cwd.is_none() || ends.last_time.is_none();
    if wants_more && !file.head_is_whole() {
        match read(SECOND_READ) {
            Ok(bigger) => {
                ends = read_ends(&bigger);
                file = bigger;
            }
            Err(e) => return damaged(e.to_string()),
        }
    }
    let mtime = file.meta.mtime() as f64 + file.meta.mtime_nsec() as f64 / 1e9;
    if ends.readable_lines == 0 && file.meta.len() > 0 {
        return damaged(format!(
            "{}: no line in its first and last {} KB is a Claude Code line",
            path.display(),
            SECOND_READ / 1024
        ));
    }
    let prompt = ends.prompt.unwrap_or_default();
    let title = ends
        .custom_title
        .or(ends.ai_title)
        .or(ends.summary)
        .unwrap_or_else(|| prompt.clone());
    SessionRecord {
        agent: Agent::Claude,
        name: name_from_prompt(&title),
        title,
        cwd: ends.cwd,
        first_prompt: prompt,
        user,
        created_at: ends.first_time.unwrap_or(mtime),
        last_used_at: ends.last_time.unwrap_or(mtime),
        path: path.to_path_buf(),
        conversation_dir: folder,
        error: None,
        id,
    }
}

fn read_ends(file: &HeadTail) -> Ends {
    let mut ends = Ends::default();
    for bytes in file.head_lines() {
        let Some(line) = Line::parse(bytes) else {
            continue;
        };
        ends.readable_lines += 1;
        if ends.cwd.is_none() {
            ends.cwd = line.cwd.clone();
        }
        if ends.first_time.is_none() {
            ends.first_time = line.timestamp.as_deref().and_then(parse_time);
        }
        if ends.prompt.is_none() && !line.sidechain() {
            ends.prompt = line.prompt_text();
        }
        if ends.summary.is_none() && line.kind() == "summary" {
            ends.summary = line.summary.clone().filter(|s| !s.trim().is_empty());
        }
    }
    for bytes in file.tail_lines_rev() {
        let Some(line) = Line::parse(bytes) else {
            continue;
        };
        ends.readable_lines += 1;
        if ends.last_time.is_none() {
            ends.last_time = line.timestamp.as_deref().and_then(parse_time);
        }
        if ends.custom_title.is_none() && line.kind() == "custom-title" {
            ends.custom_title = line.custom_title.clone().filter(|s| !s.trim().is_empty());
        }
        if ends.ai_title.is_none() && line.kind() == "ai-title" {
            ends.ai_title = line.ai_title.clone().filter(|s| !s.trim().is_empty());
        }
        if ends.summary.is_none() && line.kind() == "summary" {
            ends.summary = line.summary.clone().filter(|s| !s.trim().is_empty());
        }
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_reads_prompt_folder_and_titles_from_the_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a7e.jsonl");
        let mut text = String::new();
        text.push_str(r#"{"type":"file-history-snapshot","messageId":"x","snapshot":{}}"#);
        text.push('\n');
        text.push_str(r#"{"type":"user","uuid":"u1","parentUuid":null,"cwd":"/home/ann/app","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"Fix the login bug"}}"#);
        text.push('\n');
        for i in 0..200 {
            text.push_str(&format!(
                r#"{{"type":"assistant","uuid":"a{i}","parentUuid":"u1","timestamp":"2026-11-20T10:{:02}:00Z","message":{{"id":"m{i}","content":[{{"type":"text","text":"{}"}}]}}}}"#,
                i % 60,
                "x".repeat(100)
            ));
            text.push('\n');
        }
        text.push_str(r#"{"type":"custom-title","customTitle":"Login fix","sessionId":"s"}"#);
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let r = record(&path);
        assert_eq!(r.error, None);
        assert_eq!(r.id, "0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a7e");
        assert_eq!(
            (r.title.as_str(), r.name.as_str()),
            ("Login fix", "login-fix")
        );
        assert_eq!(r.first_prompt, "Fix the login bug");
        assert_eq!(r.cwd.as_deref(), Some("/home/ann/app"));
        assert_eq!(r.created_at, parse_time("2026-11-20T10:00:00Z").unwrap());
        assert_eq!(r.last_used_at, parse_time("2026-11-20T10:19:00Z").unwrap());
    }

    #[test]
    fn a_file_with_nothing_readable_is_listed_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, b"garbage\n\xff\xfe\n").unwrap();
        let r = record(&path);
        assert!(r.error.as_deref().unwrap().contains("no line"), "{r:?}");
        assert_eq!(r.agent, Agent::Claude);
    }
}
