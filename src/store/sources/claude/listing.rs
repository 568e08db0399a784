//! A Claude Code session as the list shows it, read from the two ends of
//! its file only: the first prompt, the folder and the start from the first
//! lines; the last use and the titles (`custom-title`, `ai-title`,
//! `summary`) from the last ones. Listing 10,000 sessions reads a few KB of
//! each, never a whole file.

use crate::store::format::SessionId;
use crate::store::format::naming::name_from_prompt;
use crate::store::fs::stamp::FileStamp;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::parse_time;
use crate::store::sources::claude::line::Line;
use crate::store::sources::jsonl::{self, HeadTail};
use crate::store::sources::listing_cache::Remembered;
use crate::store::sources::record::SessionRecord;
use std::borrow::Cow;
use std::path::Path;

mod prompt;

use super::command;

/// Bytes read from each end first; most sessions say all the list needs there.
const FIRST_READ: usize = 4 * 1024;
/// Bytes read from each end when the first read held no whole line that says it.
const SECOND_READ: usize = 64 * 1024;

/// The key of a line's time, with the quote that opens its value.
const TIMESTAMP: &[u8] = b"\"timestamp\":\"";

/// What the ends of a file said.
#[derive(Debug, Default)]
struct Ends {
    prompt: Option<String>,
    /// The first slash command a person typed (`/init`): the name of a
    /// session that starts with one, until a prompt is typed.
    command: Option<String>,
    cwd: Option<String>,
    first_time: Option<f64>,
    last_time: Option<f64>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary: Option<String>,
    /// The folder a `relocated` line (Claude Code 2.1) moved it to, the last.
    relocated: Option<String>,
    readable_lines: usize,
}

/// The record of the session file `path` (its name is the session id);
/// `side_folder`: whether `<id>/` lies beside it (its size counts), when
/// the caller's listing of the folder knows (None: look).
pub fn record(path: &Path, side_folder: Option<bool>) -> SessionRecord {
    record_in(None, path, side_folder).0
}

/// [`record`], the file opened relative to its open folder `dir`; with
/// what its open descriptor said before it was read, when the file was
/// read as a session (not a refused name, a failed open or a damage).
pub fn record_in(
    dir: Option<&rustix::fd::OwnedFd>,
    path: &Path,
    side_folder: Option<bool>,
) -> (SessionRecord, Option<rustix::fs::Stat>) {
    let base = match Base::of(path) {
        Ok(base) => base,
        Err(damaged) => return (*damaged, None),
    };
    let read = |size: usize| jsonl::head_and_tail_in(dir, path, size, size);
    let (mut ends, mut file) = match read(FIRST_READ) {
        Ok(file) => (read_ends(&file), file),
        Err(e) => return (base.damaged(e.to_string()), None),
    };
    let wants_more = ends.prompt.is_none() || ends.cwd.is_none() || ends.last_time.is_none();
    if wants_more && !file.head_is_whole() {
        match read(SECOND_READ) {
            Ok(bigger) => {
                ends = read_ends(&bigger);
                file = bigger;
            }
            Err(e) => return (base.damaged(e.to_string()), None),
        }
    }
    if ends.readable_lines == 0 && file.size > 0 {
        let error = format!(
            "{}: no line in its first and last {} KB is a Claude Code line",
            path.display(),
            SECOND_READ / 1024
        );
        return (base.damaged(error), None);
    }
    let record = base.with_disk(file.stat.as_ref(), file.size, file.mtime, side_folder);
    let prompt = ends.prompt.or(ends.command).unwrap_or_default();
    let title = ends
        .custom_title
        .or(ends.ai_title)
        .or(ends.summary)
        .unwrap_or_else(|| prompt.clone());
    let record = SessionRecord {
        name: name_from_prompt(&title),
        title,
        // Where Claude Code keeps it now (and resumes it): moved, or begun.
        cwd: ends.relocated.or(ends.cwd),
        first_prompt: prompt,
        created_at: ends.first_time.unwrap_or(file.mtime),
        last_used_at: ends.last_time.unwrap_or(file.mtime),
        ..record
    };
    (record, file.stat)
}

/// The record of the session file `path` from what a listing remembered
/// its bytes said, the file not opened: `st` is what the file is now
/// (looked at without following a link) and matched the remembered stamp.
pub fn record_recalled(
    path: &Path,
    side_folder: Option<bool>,
    st: &rustix::fs::Stat,
    remembered: Remembered<'_>,
) -> SessionRecord {
    match Base::of(path) {
        Ok(base) => {
            let mtime = st.st_mtime as f64 + st.st_mtime_nsec as f64 / 1e9;
            let size = st.st_size.max(0) as u64;
            remembered.into_record(base.with_disk(Some(st), size, mtime, side_folder))
        }
        Err(damaged) => *damaged,
    }
}

/// What a session file's record takes from its name and place.
struct Base<'a> {
    path: &'a Path,
    id: SessionId,
    folder: std::path::PathBuf,
    user: String,
}

impl<'a> Base<'a> {
    /// The file's name is its id: one that could be a path or an option is
    /// never read further, named or run (the damaged record says why).
    fn of(path: &'a Path) -> Result<Base<'a>, Box<SessionRecord>> {
        let raw_id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let folder = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let user = crate::store::sources::agents::user_name();
        match SessionId::check(&raw_id) {
            Ok(id) => Ok(Base {
                path,
                id,
                folder,
                user,
            }),
            Err(why) => Err(Box::new(SessionRecord {
                agent: Agent::Claude,
                ..SessionRecord::damaged(&raw_id, path.to_path_buf(), folder, &user, why)
            })),
        }
    }

    fn damaged(&self, error: String) -> SessionRecord {
        SessionRecord {
            agent: Agent::Claude,
            ..SessionRecord::damaged(
                self.id.as_str(),
                self.path.to_path_buf(),
                self.folder.clone(),
                &self.user,
                error,
            )
        }
    }

    /// The record with what the disk says: the file's `size` and `mtime`,
    /// its stamp (`st`, what the look at it said), and the size of the
    /// `<id>/` folder beside it (`side_folder`: whether
    /// it is there, when the caller's listing of the folder knows; None:
    /// look). The file's own fields are left to be filled. Its parts are
    /// moved into the record, not copied (10k records: 30k allocations).
    fn with_disk(
        self,
        st: Option<&rustix::fs::Stat>,
        size: u64,
        mtime: f64,
        side_folder: Option<bool>,
    ) -> SessionRecord {
        let side = || self.folder.join(&self.id);
        let side_folder = side_folder.unwrap_or_else(|| side().is_dir());
        let beside = if side_folder {
            crate::store::fs::disk::tree_facts(&side()).map_or(0, |f| f.bytes)
        } else {
            0
        };
        SessionRecord {
            agent: Agent::Claude,
            user: self.user,
            created_at: mtime,
            last_used_at: mtime,
            bytes: Some(size + beside),
            stamp: st.map(|st| Box::new(FileStamp::of(st))),
            path: self.path.to_path_buf(),
            conversation_dir: self.folder,
            error: None,
            id: self.id,
            archived: false,
            ..SessionRecord::default()
        }
    }
}

/// The few fields of a line the list reads, borrowed from the line where
/// they need no unescaping; the rest (a message's content above all) is
/// skipped without being built.
#[derive(Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Peek<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow)]
    timestamp: Option<Cow<'a, str>>,
    is_sidechain: Option<bool>,
    is_meta: Option<bool>,
    is_compact_summary: Option<bool>,
    #[serde(borrow)]
    summary: Option<Cow<'a, str>>,
    #[serde(borrow)]
    custom_title: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ai_title: Option<Cow<'a, str>>,
    origin: Option<Origin<'a>>,
    #[serde(borrow)]
    relocated_cwd: Option<Cow<'a, str>>,
}

/// Who wrote a user line (Claude Code 2.1): `human` for a person's typing;
/// `task-notification`, `channel`, `peer`, `coordinator` for the others.
#[derive(Default, serde::Deserialize)]
struct Origin<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
}

impl Peek<'_> {
    fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// A user line that may hold the person's first prompt: not a side
    /// chain's, meta or a summary, and typed by a person where the line
    /// says who wrote it.
    fn may_be_prompt(&self) -> bool {
        self.kind() == "user"
            && self.is_sidechain != Some(true)
            && self.is_meta != Some(true)
            && self.is_compact_summary != Some(true)
            && self
                .origin
                .as_ref()
                .and_then(|o| o.kind.as_deref())
                .is_none_or(|kind| kind == "human")
    }
}

/// A title field, if it holds more than blanks.
fn title(value: &Option<Cow<'_, str>>) -> Option<String> {
    value
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// A user line's text: the first prompt, or the first command (tags, such
/// as a task's notification, are neither).
fn take_prompt(ends: &mut Ends, text: Option<String>) {
    match text {
        Some(text) if text.starts_with('<') => {
            ends.command = ends.command.take().or_else(|| command::invocation(&text));
        }
        Some(text) => ends.prompt = Some(text),
        None => {}
    }
}

fn read_ends(file: &HeadTail) -> Ends {
    let mut ends = Ends::default();
    for bytes in file.head_lines() {
        let Ok(line) = serde_json::from_slice::<Peek>(bytes) else {
            // A field of an unexpected type: read the line leniently.
            if let Some(line) = Line::parse(bytes) {
                ends.readable_lines += 1;
                if ends.prompt.is_none() && !line.sidechain() {
                    take_prompt(&mut ends, line.user_text());
                }
            }
            continue;
        };
        ends.readable_lines += 1;
        if ends.cwd.is_none() {
            ends.cwd = line.cwd.as_deref().map(str::to_string);
        }
        if ends.first_time.is_none() {
            ends.first_time = line.timestamp.as_deref().and_then(parse_time);
        }
        if ends.prompt.is_none() && line.may_be_prompt() {
            // Only now is the message built: the one line that needs it.
            let text = prompt::text(bytes)
                .unwrap_or_else(|| Line::parse(bytes).and_then(|l| l.user_text()));
            take_prompt(&mut ends, text);
        }
        if ends.summary.is_none() && line.kind() == "summary" {
            ends.summary = title(&line.summary);
        }
        if ends.cwd.is_some() && ends.first_time.is_some() && ends.prompt.is_some() {
            break;
        }
    }
    let titled = memchr::memmem::Finder::new(b"-title\"");
    let relocated = memchr::memmem::Finder::new(b"\"relocated\"");
    let summary = memchr::memmem::Finder::new(b"\"summary\"");
    let stamp = memchr::memmem::FinderRev::new(TIMESTAMP);
    for bytes in file.tail_lines_rev() {
        // The last use is the last line's `timestamp`, found without
        // parsing the line (often a long tool result): the key can only be
        // a key, as a quote inside a string is escaped.
        if ends.last_time.is_none()
            && let Some(at) = stamp.rfind(bytes)
        {
            let value = &bytes[at + TIMESTAMP.len()..];
            let end = memchr::memchr(b'"', value).unwrap_or(0);
            if let Some(t) = std::str::from_utf8(&value[..end]).ok().and_then(parse_time) {
                ends.last_time = Some(t);
                ends.readable_lines += 1;
            }
        }
        // Past it only a title is looked for: a line that names none is
        // not parsed at all.
        let wanted = ends.last_time.is_none()
            || titled.find(bytes).is_some()
            || (ends.relocated.is_none() && relocated.find(bytes).is_some())
            || (ends.summary.is_none() && summary.find(bytes).is_some());
        if !wanted {
            continue;
        }
        let Ok(line) = serde_json::from_slice::<Peek>(bytes) else {
            if Line::parse(bytes).is_some() {
                ends.readable_lines += 1;
            }
            continue;
        };
        ends.readable_lines += 1;
        if ends.last_time.is_none() {
            ends.last_time = line.timestamp.as_deref().and_then(parse_time);
        }
        if ends.custom_title.is_none() && line.kind() == "custom-title" {
            ends.custom_title = title(&line.custom_title);
        }
        if ends.ai_title.is_none() && line.kind() == "ai-title" {
            ends.ai_title = title(&line.ai_title);
        }
        if ends.relocated.is_none() && line.kind() == "relocated" {
            ends.relocated = title(&line.relocated_cwd);
        }
        if ends.summary.is_none() && line.kind() == "summary" {
            ends.summary = title(&line.summary);
        }
        // A `relocated` line may lie before the title: looked for to the
        // end of what was read (lines without one are not parsed).
        if ends.custom_title.is_some() && ends.last_time.is_some() && ends.relocated.is_some() {
            break;
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
        let r = record(&path, None);
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

    /// What a listing remembered makes the same records, to the last
    /// field (the size of the folder beside a session included), without
    /// opening the files.
    #[test]
    fn a_remembered_record_is_the_record_read() {
        use crate::store::sources::claude::ClaudeProjects;
        use crate::store::sources::listing_cache::ListingCache;
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("-home-ann-app");
        let ids = [
            "0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a7e",
            "1b8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a7e",
        ];
        std::fs::create_dir_all(project.join(ids[1]).join("subagents")).unwrap();
        std::fs::write(
            project.join(ids[1]).join("subagents/agent-a1.jsonl"),
            b"{}\n",
        )
        .unwrap();
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (n, id) in ids.iter().enumerate() {
            let path = project.join(format!("{id}.jsonl"));
            let text = format!(
                "{}\n{}\n",
                r#"{"type":"user","uuid":"u1","parentUuid":null,"cwd":"/home/ann/app","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"Fix the login bug"}}"#,
                format_args!(
                    r#"{{"type":"custom-title","customTitle":"Title {n}","sessionId":"{id}"}}"#
                )
            );
            std::fs::write(&path, text).unwrap();
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(an_hour_ago)
                .unwrap();
        }
        let scan = |cache: &ListingCache| {
            let mut out = Vec::new();
            ClaudeProjects::open(dir.path())
                .scan(cache, &mut |batch| {
                    out.extend(batch);
                    true
                })
                .unwrap();
            out
        };
        let first = ListingCache::from_bytes(None, dir.path(), 7);
        let read = scan(&first);
        let mut bytes = first.to_save().expect("a first listing is remembered");
        // Each title changed in what was remembered: what the second
        // listing shows comes from there, the files unopened.
        for n in 0..2 {
            let title = format!("Title {n}");
            let at = bytes
                .windows(title.len())
                .position(|w| w == title.as_bytes())
                .unwrap();
            bytes[at + 6] = b'X';
        }
        let second = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
        let mut recalled = scan(&second);
        assert_eq!(read.len(), 2);
        for r in &mut recalled {
            assert_eq!(r.title, "Title X", "{r:?}");
            r.title = read.iter().find(|x| x.id == r.id).unwrap().title.clone();
        }
        assert_eq!(recalled, read);
        assert!(read[1].bytes.unwrap() > 3, "the folder beside it counts");
    }

    #[test]
    fn a_file_with_nothing_readable_is_listed_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, b"garbage\n\xff\xfe\n").unwrap();
        let r = record(&path, None);
        assert!(r.error.as_deref().unwrap().contains("no line"), "{r:?}");
        assert_eq!(r.agent, Agent::Claude);
    }

    #[test]
    fn a_session_is_named_by_what_a_person_typed_else_by_its_first_command() {
        let dir = tempfile::tempdir().unwrap();
        let line = |uuid: &str, content: &str, origin: Option<&str>| {
            let mut v = serde_json::json!({"type": "user", "uuid": uuid, "parentUuid": null,
                "cwd": "/home/ann/app", "timestamp": "2026-11-20T10:00:00Z",
                "message": {"role": "user", "content": content}});
            if let Some(kind) = origin {
                v["origin"] = serde_json::json!({"kind": kind});
            }
            format!("{v}\n")
        };
        let init = "<command-name>/init</command-name>\n  <command-message>init</command-message>\n  <command-args></command-args>";
        let cases = [
            // A command, then a prompt: the prompt names it.
            (
                vec![
                    line("u1", init, None),
                    line("u2", "Add a README", Some("human")),
                ],
                "Add a README",
            ),
            // Only a command: the command names it, as Claude Code shows it.
            (vec![line("u1", init, None)], "/init"),
            // A task's notification is nobody's typing.
            (
                vec![
                    line("u1", "Background build finished", Some("task-notification")),
                    line("u2", "Ship it", Some("human")),
                ],
                "Ship it",
            ),
        ];
        for (n, (lines, title)) in cases.into_iter().enumerate() {
            let path = dir
                .path()
                .join(format!("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a7{n}.jsonl"));
            std::fs::write(&path, lines.concat()).unwrap();
            let r = record(&path, None);
            assert_eq!((r.title.as_str(), r.first_prompt.as_str()), (title, title));
        }
    }

    #[test]
    fn a_relocated_session_lists_in_the_folder_it_moved_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join("0a8f5c1e-4b1d-4c55-9e7a-2b6f0d4c1a70.jsonl");
        let text = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"cwd":"/home/ann/app","timestamp":"2026-11-20T10:00:00Z","message":{"role":"user","content":"Fix it"}}"#,
            r#"{"type":"relocated","relocatedCwd":"/home/ann/app/.claude/worktrees/fix-1","sessionId":"s"}"#,
            r#"{"type":"custom-title","customTitle":"Fix","sessionId":"s"}"#,
            r#"{"type":"atis-latch","atis":"","sessionId":"s"}"#,
        ]
        .join("\n")
            + "\n";
        std::fs::write(&path, text).unwrap();
        let r = record(&path, None);
        assert_eq!(
            r.cwd.as_deref(),
            Some("/home/ann/app/.claude/worktrees/fix-1")
        );
        assert_eq!(r.title, "Fix");
    }
}
