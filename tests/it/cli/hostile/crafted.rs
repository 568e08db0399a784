//! Files crafted as an attacker would write them into the agents' folders
//! (anyone who can write there, or into a project shared with them,
//! chooses ids, titles, folders and text): an id that climbs out of its
//! folder, names another folder or reads as an option is listed as damaged
//! and never names a path or an argv; a delete, a purge and a restore move
//! nothing outside the session's own files; a recorded folder is checked
//! before anything runs in it; no escape from a file reaches stdout or
//! stderr raw.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, SystemTime};

/// A home of crafted agent files, with a cache, a data folder (the trash)
/// and a folder of fake agent programs that leave a mark when run.
struct Crafted {
    _tmp: tempfile::TempDir,
    /// Beside the home: what an escaping move would reach.
    outside: PathBuf,
    home: PathBuf,
    cache: PathBuf,
    data: PathBuf,
    bin: PathBuf,
    /// Written by a fake agent program, should one ever run.
    ran: PathBuf,
}

impl Crafted {
    fn new() -> Crafted {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let outside = tmp.path().join("outside");
        std::fs::create_dir_all(outside.join("victim")).unwrap();
        std::fs::write(outside.join("victim/keep.txt"), b"not yours").unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let ran = tmp.path().join("ran");
        for program in ["claude", "codex", "gemini"] {
            let script = bin.join(program);
            std::fs::write(
                &script,
                format!("#!/bin/sh\nprintf '%s\\n' \"$*\" >> {}\n", ran.display()),
            )
            .unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Crafted {
            cache: tmp.path().join("cache"),
            data: tmp.path().join("data"),
            outside,
            home,
            bin,
            ran,
            _tmp: tmp,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        command()
            .at_home(&self.home)
            .env("XDG_CACHE_HOME", &self.cache)
            .env("XDG_DATA_HOME", &self.data)
            .env("PATH", format!("{}:/usr/bin:/bin", self.bin.display()))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn projects(&self) -> PathBuf {
        self.home.join(".claude/projects")
    }

    /// A Claude Code session file `<project>/<stem>.jsonl`.
    fn claude(&self, project: &str, stem: &str, f: &Fields) -> PathBuf {
        let dir = self.projects().join(project);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{stem}.jsonl"));
        let line = |v: Value| format!("{v}\n");
        let text = [
            line(json!({"type": "custom-title", "customTitle": f.title, "sessionId": stem})),
            line(json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": stem,
                "cwd": f.cwd, "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": "user", "content": f.text}})),
            line(json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": stem,
                "cwd": f.cwd, "timestamp": "2026-01-01T00:00:05Z", "requestId": "r1",
                "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": f.text},
                                {"type": "tool_use", "id": "t1", "name": f.tool, "input": {"x": f.text}}],
                    "usage": {"input_tokens": 10, "output_tokens": 5}}})),
        ]
        .concat();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A Codex rollout named for `name_id` whose `session_meta` says `id`.
    fn codex(&self, name_id: &str, id: &str, f: &Fields) -> PathBuf {
        let dir = self.home.join(".codex/sessions/2026/01/01");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("rollout-2026-01-01T00-00-00-{name_id}.jsonl"));
        let lines = [
            json!({"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
                "payload": {"id": id, "cwd": f.cwd, "timestamp": "2026-01-01T00:00:00Z"}}),
            json!({"timestamp": "2026-01-01T00:00:01Z", "type": "event_msg",
                "payload": {"type": "user_message", "message": f.text}}),
            json!({"timestamp": "2026-01-01T00:00:01Z", "type": "response_item",
                "payload": {"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": f.text}]}}),
            json!({"timestamp": "2026-01-01T00:00:02Z", "type": "response_item",
                "payload": {"type": "function_call", "name": f.tool, "call_id": "c1",
                    "arguments": "{}"}}),
            json!({"timestamp": "2026-01-01T00:00:03Z", "type": "event_msg",
                "payload": {"type": "thread_name_updated", "thread_name": f.title}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A Gemini CLI chat `tmp/<project>/chats/<file>` whose id is `id`.
    fn gemini(&self, project: &str, file: &str, id: &str, f: &Fields) -> PathBuf {
        let dir = self.home.join(".gemini/tmp").join(project);
        std::fs::create_dir_all(dir.join("chats")).unwrap();
        std::fs::write(dir.join(".project_root"), &f.cwd).unwrap();
        let path = dir.join("chats").join(file);
        let lines = [
            json!({"sessionId": id, "projectHash": "h", "startTime": "2026-01-01T00:00:00Z",
                "lastUpdated": "2026-01-01T00:00:09Z", "kind": "main", "summary": f.title}),
            json!({"id": "m1", "timestamp": "2026-01-01T00:00:01Z", "type": "user",
                "content": [{"text": f.text}]}),
            json!({"id": "m2", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini",
                "content": f.text, "model": "gemini-2.5-pro",
                "toolCalls": [{"id": "c1", "name": f.tool, "args": {}, "status": "success",
                    "timestamp": "2026-01-01T00:00:02Z"}],
                "tokens": {"input": 10, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 15}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Every file under the temp folder (home, outside) but the trash and
    /// the caches: bytes and modification time.
    fn state(&self) -> BTreeMap<PathBuf, (Vec<u8>, i64, i64)> {
        let mut out = tree_state(&self.home);
        out.extend(tree_state(&self.outside));
        out
    }

    /// Makes every file look a day old (not busy for a delete).
    fn age(&self) {
        let old = SystemTime::now() - Duration::from_secs(86_400);
        for path in self.state().keys() {
            if path.is_file() {
                let f = std::fs::File::options().append(true).open(path).unwrap();
                f.set_modified(old).unwrap();
            }
        }
    }

    fn marks(&self) -> String {
        std::fs::read_to_string(&self.ran).unwrap_or_default()
    }
}

/// What a crafted file says of itself.
struct Fields {
    title: String,
    cwd: String,
    text: String,
    tool: String,
}

impl Fields {
    /// Every payload in every field.
    fn hostile() -> Fields {
        let payload = PAYLOADS.concat();
        Fields {
            title: format!("Title {payload}"),
            cwd: format!("/work/{payload}"),
            text: format!("findme {payload} end"),
            tool: format!("tool{payload}"),
        }
    }

    fn plain(cwd: &Path) -> Fields {
        Fields {
            title: "A plain title".into(),
            cwd: cwd.display().to_string(),
            text: "hello there".into(),
            tool: "bash".into(),
        }
    }
}

fn tree_state(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, i64, i64)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            // A link or a FIFO by what it is (reading a FIFO would wait).
            let bytes = if m.is_dir() {
                todo.push(e.path());
                Vec::new()
            } else if m.is_file() {
                std::fs::read(e.path()).unwrap()
            } else if m.file_type().is_symlink() {
                std::fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                b"special".to_vec()
            };
            let (mtime, nsec) = if m.is_dir() {
                (0, 0)
            } else {
                (m.mtime(), m.mtime_nsec())
            };
            out.insert(e.path(), (bytes, mtime, nsec));
        }
    }
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn rows(list: &Value) -> &Vec<Value> {
    list.as_array().unwrap()
}

/// The ids crafted for each agent, and what the file holding each is.
fn crafted_ids(c: &Crafted) -> Vec<(&'static str, PathBuf)> {
    let victim = c.outside.join("victim");
    let victim = victim.to_str().unwrap();
    let plain = Fields::plain(&c.outside);
    vec![
        (
            "claude",
            c.claude("app", "--dangerously-skip-permissions", &plain),
        ),
        ("claude", c.claude("app", "-y", &plain)),
        ("codex", c.codex("a1", "../../../../escaped", &plain)),
        ("codex", c.codex("a2", "-y", &plain)),
        ("codex", c.codex("a3", victim, &plain)),
        (
            "gemini",
            c.gemini("proj", "session-1.jsonl", "../../p", &plain),
        ),
        (
            "gemini",
            c.gemini("proj", "session-2.jsonl", victim, &plain),
        ),
        ("gemini", c.gemini("proj", "session-3.jsonl", "-y", &plain)),
    ]
}

#[test]
fn a_crafted_id_is_listed_as_damaged_and_moves_nothing_outside_its_own_file() {
    let c = Crafted::new();
    let crafted = crafted_ids(&c);
    // Siblings written before them, in the same folders.
    let good = "0b8f2c1e-4a6d-4e0e-9f3a-2f8f6f1d2a10";
    c.claude("app", good, &Fields::plain(&c.outside));
    c.gemini(
        "proj",
        "session-good.jsonl",
        good,
        &Fields::plain(&c.outside),
    );
    // A folder a `../../p` id would name, beside the project's chats.
    std::fs::create_dir_all(c.home.join(".gemini/tmp/proj/chats/../../p")).unwrap();
    c.age();
    let before = c.state();
    let list = c.json(&["list", "--json"]);
    for (agent, path) in &crafted {
        let row = rows(&list)
            .iter()
            .find(|r| r["path"] == path.to_str().unwrap())
            .unwrap_or_else(|| panic!("{} is not listed: {list}", path.display()));
        assert_eq!(row["agent"], *agent, "{row}");
        let error = row["error"]
            .as_str()
            .unwrap_or_else(|| panic!("not damaged: {row}"));
        assert!(error.contains("the id"), "{row}");
        assert!(row["id"].as_str().unwrap().starts_with("refused-"), "{row}");
        // Never resumed: nothing runs, nothing is printed to run.
        let id = row["id"].as_str().unwrap();
        for args in [vec!["resume", id], vec!["resume", id, "--print", "command"]] {
            let out = c.run(&args);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?}: {}",
                text(&out.stdout)
            );
        }
    }
    assert_eq!(c.marks(), "", "an agent program ran");
    // Each deleted: only its own file leaves; the trash names it by a uuid.
    for (_, path) in &crafted {
        let id = rows(&list)
            .iter()
            .find(|r| r["path"] == path.to_str().unwrap())
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let out = c.run(&["delete", &id, "--yes", "--json"]);
        assert!(out.status.success(), "{id}: {}", text(&out.stderr));
        let now = c.state();
        for (p, was) in &before {
            if crafted.iter().any(|(_, f)| f == p) {
                continue;
            }
            assert_eq!(
                now.get(p),
                Some(was),
                "{} changed deleting {id}",
                p.display()
            );
        }
    }
    let trash = c.data.join("loki-sessions/trash");
    let entries: Vec<String> = std::fs::read_dir(&trash)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(entries.len(), crafted.len(), "{entries:?}");
    assert!(
        entries
            .iter()
            .all(|n| n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit())),
        "entries are named by a uuid: {entries:?}"
    );
    assert!(!c.data.join("escaped").exists() && !c.home.join("escaped").exists());
    // Each put back, byte for byte and time for time.
    for entry in &entries {
        let out = c.run(&["restore", entry]);
        assert!(out.status.success(), "{entry}: {}", text(&out.stderr));
    }
    assert_eq!(c.state(), before, "restore brought every file back exactly");
    // A purge of every agent takes them into the trash the same way.
    for agent in ["claude", "codex", "gemini"] {
        let out = c.run(&[
            "purge",
            "--agent",
            agent,
            "--keep",
            "0",
            "--max-age",
            "0d",
            "--yes",
        ]);
        assert!(
            out.status.code() != Some(101),
            "{agent}: {}",
            text(&out.stderr)
        );
    }
    let now = c.state();
    for (p, was) in &before {
        let own = crafted.iter().any(|(_, f)| f == p)
            || p.starts_with(c.projects().join("app"))
            || p.starts_with(c.home.join(".gemini/tmp/proj/chats"))
            || p.starts_with(c.home.join(".codex/sessions"));
        if !own {
            assert_eq!(now.get(p), Some(was), "{} changed by a purge", p.display());
        }
    }
    let listed = c.json(&["trash", "--json"]);
    for entry in rows(&listed) {
        let name = entry["entry"].as_str().unwrap();
        let out = c.run(&["restore", name]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
    }
    assert_eq!(c.state(), before, "the purge's moves came back exactly");
}

#[test]
fn a_restore_never_writes_through_a_folder_replaced_by_a_link() {
    let c = Crafted::new();
    let good = "0b8f2c1e-4a6d-4e0e-9f3a-2f8f6f1d2a10";
    let path = c.claude("app", good, &Fields::plain(&c.outside));
    c.age();
    let out = c.run(&["delete", good, "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The project folder is replaced by a link to somewhere else.
    let project = path.parent().unwrap();
    std::fs::remove_dir(project).unwrap();
    std::os::unix::fs::symlink(c.outside.join("victim"), project).unwrap();
    let before = tree_state(&c.outside);
    let out = c.run(&["restore", good]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("not followed"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        tree_state(&c.outside),
        before,
        "nothing written through the link"
    );
    let listed = c.json(&["trash", "--json"]);
    assert_eq!(rows(&listed).len(), 1, "the session stays in the trash");
}

#[test]
fn a_recorded_folder_is_checked_before_anything_runs_in_it() {
    let c = Crafted::new();
    let cases = [
        (
            "11111111-1111-4111-8111-111111111111",
            "/tmp\0; touch pwned".to_string(),
            "NUL",
        ),
        (
            "22222222-2222-4222-8222-222222222222",
            "../../../../etc".into(),
            "not an absolute path",
        ),
        (
            "33333333-3333-4333-8333-333333333333",
            "-P".into(),
            "not an absolute path",
        ),
        (
            "44444444-4444-4444-8444-444444444444",
            String::new(),
            "empty folder",
        ),
        (
            "55555555-5555-4555-8555-555555555555",
            "/no/such/folder".into(),
            "is not there",
        ),
    ];
    for (id, cwd, _) in &cases {
        let fields = Fields {
            cwd: cwd.clone(),
            ..Fields::plain(&c.outside)
        };
        c.claude("app", id, &fields);
        c.codex(id, &id.replace('1', "a").replace('2', "b"), &fields);
    }
    c.age();
    for (id, _, why) in &cases {
        // A folder not (yet) there may be printed in a command; it is
        // never run in.
        let printing = *why != "is not there";
        for args in [vec!["resume", id], vec!["resume", id, "--print", "command"]]
            .into_iter()
            .filter(|a| printing || a.len() == 2)
        {
            let out = c.run(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(why), "{args:?}: {err}");
            assert!(!err.contains('\0'), "{err:?}");
        }
    }
    assert_eq!(c.marks(), "", "an agent program ran");
    // A good folder resumes, the id passed as the option's own value.
    let fields = Fields::plain(&c.outside);
    let id = "66666666-6666-4666-8666-666666666666";
    c.claude("app", id, &fields);
    let printed = c.run(&["resume", id, "--print", "command"]);
    let line = text(&printed.stdout);
    assert!(
        line.trim_end().ends_with(&format!("claude --resume={id}")),
        "{line}"
    );
    let out = c.run(&["resume", id]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(c.marks(), format!("--resume={id}\n"));
}

/// The escapes and controls a file may hold, each marked so a raw copy of
/// it in any output can be told from our own.
const PAYLOADS: &[&str] = &[
    "\x1b]0;PWNED-TITLE\x07\x1b[2J",
    "\x1b]52;c;UFdORUQ=\x07",
    "\x1b]8;;http://pwned.example/\x1b\\link\x1b]8;;\x1b\\",
    "\u{9b}31mPWNED-C1",
    "bell\x07PWNED",
    "over\rPWNED",
    "back\x08PWNED",
    "rev\u{202e}PWNED\u{2066}",
    "\x1b]0;unterminated PWNED",
];

/// Where in the bytes a character a terminal acts on sits, if anywhere
/// (newlines and tabs are layout).
fn raw_control(bytes: &[u8]) -> Option<(usize, String)> {
    let text = String::from_utf8_lossy(bytes);
    text.char_indices()
        .find(|&(_, ch)| {
            (ch.is_control() && ch != '\n' && ch != '\t')
                || matches!(ch, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .map(|(at, ch)| {
            let from = at.saturating_sub(40);
            (
                at,
                format!(
                    "U+{:04X} in {:?}",
                    ch as u32,
                    &text[from..(at + 40).min(text.len())]
                ),
            )
        })
}

#[test]
fn no_escape_from_a_file_reaches_stdout_or_stderr_raw() {
    let c = Crafted::new();
    let fields = Fields::hostile();
    let ids = [
        "aaaaaaaa-1111-4111-8111-111111111111",
        "bbbbbbbb-2222-4222-8222-222222222222",
        "cccccccc-3333-4333-8333-333333333333",
    ];
    c.claude("app", ids[0], &fields);
    c.codex(ids[1], ids[1], &fields);
    c.gemini("proj", "session-x.jsonl", ids[2], &fields);
    // A file name holding the payload (its id is refused: damaged).
    c.claude("app", &format!("name{}", PAYLOADS[0]), &fields);
    c.age();
    let mut runs: Vec<Vec<String>> = [
        vec!["list"],
        vec!["list", "--json"],
        vec!["search", "findme"],
        vec!["search", "findme", "--json"],
        vec![
            "purge",
            "--agent",
            "claude",
            "--keep",
            "0",
            "--max-age",
            "0d",
            "--dry-run",
        ],
        vec!["trash"],
        vec!["show", "no-such-session-\x1b]0;x"],
    ]
    .iter()
    .map(|a| a.iter().map(std::string::ToString::to_string).collect())
    .collect();
    for id in ids {
        for args in [
            vec!["show", id],
            vec!["show", id, "--json"],
            vec!["show", id, "--transcript"],
            vec!["export", id, "--format", "md"],
            vec!["export", id, "--format", "txt"],
            vec!["export", id, "--format", "json"],
            vec!["resume", id, "--print", "workspace"],
            vec!["resume", id, "--print", "command"],
            vec!["resume", id],
        ] {
            runs.push(args.iter().map(std::string::ToString::to_string).collect());
        }
    }
    runs.push(vec!["delete".into(), ids[0].into(), "--yes".into()]);
    runs.push(vec!["trash".into()]);
    runs.push(vec!["trash".into(), "--json".into()]);
    runs.push(vec!["restore".into(), ids[0].into()]);
    let mut shown = 0;
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = c.run(&args);
        assert_ne!(
            out.status.code(),
            Some(101),
            "{args:?} panicked: {}",
            text(&out.stderr)
        );
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            if let Some((_, what)) = raw_control(bytes) {
                panic!("{args:?}: a raw {what} on {stream}");
            }
            shown += usize::from(text(bytes).contains("PWNED"));
        }
        if args.contains(&"--json") && out.status.success() {
            // JSON still says exactly what the file said.
            let value: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(value.to_string().contains("PWNED"), "{args:?}");
        }
    }
    assert!(
        shown > 10,
        "the payloads were shown, made safe ({shown} outputs)"
    );
    assert_eq!(c.marks(), "", "nothing ran in a folder holding escapes");
}

#[test]
fn the_ui_draws_no_escape_from_a_file() {
    let c = Crafted::new();
    let fields = Fields::hostile();
    c.claude("app", "aaaaaaaa-1111-4111-8111-111111111111", &fields);
    c.codex("b1", "bbbbbbbb-2222-4222-8222-222222222222", &fields);
    c.gemini(
        "proj",
        "session-x.jsonl",
        "cccccccc-3333-4333-8333-333333333333",
        &fields,
    );
    c.age();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pty_term.py");
    // Wait, open the first session (Tab), its transcript (Tab), then quit.
    let out = std::process::Command::new("python3")
        .at_home(&c.home)
        .env("XDG_CACHE_HOME", &c.cache)
        .env("XDG_DATA_HOME", &c.data)
        .env("PATH", format!("{}:/usr/bin:/bin", c.bin.display()))
        .arg(driver)
        .args(["legacy", "\t|\t|\x1b|\x1b|\x03", "--"])
        .arg(bin())
        .output()
        .expect("python3 runs the terminal driver");
    let seen: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    let raw = base64_decode(seen["raw"].as_str().unwrap());
    let screen = String::from_utf8_lossy(&raw);
    assert!(
        screen.contains("Title"),
        "the sessions were drawn: {screen:?}"
    );
    for marker in [
        &b"\x1b]0;PWNED"[..],
        b"\x1b]52;c;UFdORUQ",
        b"\x1b]8;;http://pwned",
        b"\xc2\x9b",
        "\u{202e}".as_bytes(),
        "\u{2066}".as_bytes(),
        b"\x07PWNED",
        b"\x08PWNED",
        b"\rPWNED",
    ] {
        assert!(
            !raw.windows(marker.len()).any(|w| w == marker),
            "the UI wrote {marker:?} raw"
        );
    }
    assert_eq!(c.marks(), "", "nothing was run");
}

/// Standard base64 (the driver's encoding of what the UI wrote).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|&b| b != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &c)| {
            acc | (u32::from(value(c)) << (18 - 6 * i))
        });
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

#[test]
fn a_linked_or_fifo_session_goes_to_the_trash_only_with_damaged_and_comes_back() {
    let c = Crafted::new();
    let project = c.projects().join("app");
    std::fs::create_dir_all(&project).unwrap();
    let link = project.join("11111111-aaaa-4aaa-8aaa-111111111111.jsonl");
    std::os::unix::fs::symlink(c.outside.join("victim/keep.txt"), &link).unwrap();
    let fifo = project.join("22222222-bbbb-4bbb-8bbb-222222222222.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let before = c.state();
    let old = SystemTime::now() - Duration::from_secs(86_400);
    for path in [&link, &fifo] {
        // Not busy: its own time a day old (a link's own, not its target's).
        let when = libc::timespec {
            tv_sec: old
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs() as i64,
            tv_nsec: 0,
        };
        let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid path and two valid timespecs.
        let done = unsafe {
            libc::utimensat(
                libc::AT_FDCWD,
                c_path.as_ptr(),
                [when, when].as_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        assert_eq!(done, 0);
    }
    let before = {
        let mut b = before;
        b.extend(c.state());
        b
    };
    for path in [&link, &fifo] {
        let id = path.file_stem().unwrap().to_str().unwrap();
        let out = c.run(&["delete", id, "--yes"]);
        assert_eq!(out.status.code(), Some(2), "{id}: {}", text(&out.stdout));
        assert!(
            text(&out.stderr).contains("--damaged"),
            "{}",
            text(&out.stderr)
        );
        let out = c.run(&["delete", id, "--yes", "--damaged"]);
        assert!(out.status.success(), "{id}: {}", text(&out.stderr));
        assert!(std::fs::symlink_metadata(path).is_err(), "{id} moved");
    }
    assert_eq!(
        std::fs::read(c.outside.join("victim/keep.txt")).unwrap(),
        b"not yours",
        "the link's target is untouched"
    );
    for path in [&link, &fifo] {
        let id = path.file_stem().unwrap().to_str().unwrap();
        let out = c.run(&["restore", id]);
        assert!(out.status.success(), "{id}: {}", text(&out.stderr));
    }
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(c.state().len(), before.len());
}
