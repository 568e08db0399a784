//! `watch`: the lines it prints while an agent (`tests/agent_sim.py`,
//! another process) appends, checked against the files; `--once`; polling
//! asked for in the config.

use crate::common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

fn store(n: usize) -> (tempfile::TempDir, PathBuf) {
    demo_store(n, 8, &["--plain"])
}

/// `watch` running, its stdout and stderr lines arriving on channels.
struct Watching {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines(read: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(read).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn watch(root: &Path, config: Option<&Path>, args: &[&str]) -> Watching {
    let mut command = command();
    command
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .arg("--root")
        .arg(root)
        .args(["--user", "tester"]);
    if let Some(config) = config {
        command.arg("--config").arg(config);
    }
    let mut child = command
        .arg("watch")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines(child.stdout.take().unwrap());
    let err = lines(child.stderr.take().unwrap());
    Watching { child, out, err }
}

impl Watching {
    /// The stderr line saying it watches (it is ready then).
    fn ready(&self) -> String {
        let line = self
            .err
            .recv_timeout(patience(Duration::from_secs(30)))
            .expect("watch never said it was ready");
        assert!(line.contains("watching"), "{line}");
        line
    }

    /// The next `n` lines of stdout, as JSON.
    fn take(&self, n: usize) -> Vec<Value> {
        let end = Instant::now() + patience(Duration::from_secs(60));
        let mut got = Vec::new();
        while got.len() < n {
            let left = end.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(line) => got.push(serde_json::from_str(&line).unwrap()),
                Err(_) => panic!("{} of {n} lines came: {got:?}", got.len()),
            }
        }
        got
    }
}

fn agent(root: &Path, id: &str, rounds: usize) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agent_sim.py");
    let status = Command::new("python3")
        .arg(script)
        .arg(sessions(root).join(id))
        .arg(rounds.to_string())
        .arg(root.with_extension("agent.log"))
        .arg("0.01")
        .status()
        .unwrap();
    assert!(status.success());
}

/// The active context of `id` as `show --json` reads it: ids, roles, tokens.
fn shown(root: &Path, id: &str) -> Vec<(String, String, u64)> {
    let show = json(root, &["show", id, "--json"]);
    show["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["role"].as_str().unwrap().to_string(),
                m["tokens"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every line of an append, checked against the file afterwards.
fn check_against_files(root: &Path, id: &str, got: &[Value], window: u64) {
    let messages = shown(root, id);
    let logged: Vec<String> = std::fs::read_to_string(root.with_extension("agent.log"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let first = messages.len() - got.len();
    for (k, line) in got.iter().enumerate() {
        let index = first + k;
        let (mid, role, tokens) = &messages[index];
        assert_eq!(line["event"], "message", "{line}");
        assert_eq!(line["session"], id);
        assert_eq!(line["agent"], "loki");
        assert_eq!(line["message_id"].as_str().unwrap(), mid);
        assert_eq!(&logged[k], mid, "in the order written");
        assert_eq!(line["role"].as_str().unwrap(), role);
        assert_eq!(line["index"].as_u64().unwrap() as usize, index);
        assert_eq!(line["tokens"].as_u64().unwrap(), *tokens, "{line}");
        let total: u64 = messages[..=index].iter().map(|m| m.2).sum();
        assert_eq!(line["total"].as_u64().unwrap(), total, "{line}");
        assert_eq!(line["messages"].as_u64().unwrap() as usize, index + 1);
        assert_eq!(line["window"].as_u64().unwrap(), window);
        let fraction = line["fraction"].as_f64().unwrap();
        assert!(
            (fraction - total as f64 / window as f64).abs() < 1e-9,
            "{line}"
        );
    }
}

#[test]
fn watch_json_prints_a_line_per_message_an_agent_appends_checked_against_the_files() {
    let (_tmp, root) = store(10);
    let id = json(&root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let w = watch(&root, None, &[&id, "--json", "--window", "50000"]);
    assert!(w.ready().contains("1 session"));
    agent(&root, &id, 9);
    let got = w.take(9);
    check_against_files(&root, &id, &got, 50_000);
    // Nothing more came than was written.
    assert!(w.out.recv_timeout(Duration::from_millis(300)).is_err());
}

#[test]
fn watch_of_every_session_polls_as_the_config_asks_and_measures_its_window() {
    let (tmp, root) = store(6);
    let config = tmp.path().join("config.toml");
    std::fs::write(&config, "watch = \"poll\"\n[windows]\nloki = 64000\n").unwrap();
    let w = watch(&root, Some(&config), &["--json"]);
    let ready = w.ready();
    assert!(ready.contains("polling"), "{ready}");
    assert!(ready.contains("every session (6)"), "{ready}");
    let id = json(&root, &["list", "--json"])[2]["id"]
        .as_str()
        .unwrap()
        .to_string();
    agent(&root, &id, 4);
    let got = w.take(4);
    check_against_files(&root, &id, &got, 64_000);
}

#[test]
fn watch_once_says_where_each_session_stands_and_exits() {
    let (_tmp, root) = store(4);
    let out = run_bounded(&root, &["watch", "--once", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    for line in &lines {
        let id = line["session"].as_str().unwrap();
        let messages = shown(&root, id);
        assert_eq!(line["event"], "state");
        assert_eq!(line["messages"].as_u64().unwrap() as usize, messages.len());
        let total: u64 = messages.iter().map(|m| m.2).sum();
        assert_eq!(line["total"].as_u64().unwrap(), total);
        assert_eq!(line["window"].as_u64().unwrap(), 128_000);
    }
}

/// A store of two Loki sessions and, under `<tmp>/home`, the demo's other
/// agents: the home, and the first Claude Code session's id and file.
fn with_claude(tmp: &Path, root: &Path) -> (PathBuf, String, PathBuf) {
    let (home, other) = (tmp.join("home"), tmp.join("other"));
    std::fs::create_dir(&other).unwrap();
    ok(
        &other,
        &[
            "demo",
            "--sessions",
            "1",
            "--plain",
            "--agents-home",
            home.to_str().unwrap(),
        ],
    );
    let claude = listed_in(&home, root, &["list", "--json", "--agent", "claude"])[0].clone();
    (
        home,
        claude["id"].as_str().unwrap().to_string(),
        PathBuf::from(claude["path"].as_str().unwrap()),
    )
}

/// The JSON the binary prints for `args` with `home` as HOME.
fn listed_in(home: &Path, root: &Path, args: &[&str]) -> Value {
    let out = command()
        .at_home(home)
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .args(["--root", root.to_str().unwrap(), "--user", "tester"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout).unwrap()
}

/// `watch` with `home` as HOME.
fn watch_in(home: &Path, root: &Path, args: &[&str]) -> Watching {
    let mut child = command()
        .at_home(home)
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .args([
            "--root",
            root.to_str().unwrap(),
            "--user",
            "tester",
            "watch",
        ])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Watching {
        out: lines(child.stdout.take().unwrap()),
        err: lines(child.stderr.take().unwrap()),
        child,
    }
}

/// A prompt appended as Claude Code appends: a line at the end, in place.
fn append_claude_prompt(file: &Path) {
    let body = std::fs::read_to_string(file).unwrap();
    let last: Value = body
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v.get("uuid").is_some() && v["isSidechain"] != Value::Bool(true))
        .unwrap();
    let line = serde_json::json!({
        "parentUuid": last["uuid"], "isSidechain": false, "userType": "external",
        "cwd": last["cwd"], "sessionId": last["sessionId"], "version": last["version"],
        "type": "user", "message": {"role": "user", "content": "and now the other test"},
        "uuid": "6f1c0c84-9a57-4a43-a3f5-0f7de3a1c0aa", "timestamp": "2099-01-01T00:00:00.000Z"
    });
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
}

#[test]
fn watch_of_every_session_prints_what_is_appended_to_an_agents_session_not_its_history() {
    let (tmp, root) = store(2);
    let (home, id, file) = with_claude(tmp.path(), &root);
    let w = watch_in(&home, &root, &["--json"]);
    assert!(w.ready().contains("every session"));
    append_claude_prompt(&file);
    let got = w.take(1);
    let messages = listed_in(&home, &root, &["show", &id, "--json"])["messages"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(got[0]["session"], id.as_str(), "{}", got[0]);
    assert_eq!(got[0]["index"].as_u64().unwrap() as usize, messages - 1);
    // One append, one line: the session's history is not printed again.
    let more = w.out.recv_timeout(Duration::from_millis(1_500));
    assert!(more.is_err(), "a line more than was appended: {more:?}");
}

#[test]
fn watch_follows_another_agents_session_appended_to_in_place() {
    let (tmp, root) = store(2);
    let (home, id, file) = with_claude(tmp.path(), &root);
    let listed = |args: &[&str]| listed_in(&home, &root, args);
    let w = watch_in(&home, &root, &[&id, "--json"]);
    w.ready();
    append_claude_prompt(&file);
    let got = w.take(1);
    let shown = listed(&["show", &id, "--json"]);
    let messages = shown["messages"].as_array().unwrap();
    let total: u64 = messages.iter().map(|m| m["tokens"].as_u64().unwrap()).sum();
    assert_eq!(got[0]["event"], "message", "{}", got[0]);
    assert_eq!(got[0]["agent"], "claude");
    assert_eq!(got[0]["role"], "user");
    assert_eq!(
        got[0]["index"].as_u64().unwrap() as usize,
        messages.len() - 1
    );
    assert_eq!(got[0]["total"].as_u64().unwrap(), total);
    assert_eq!(
        got[0]["window"].as_u64().unwrap(),
        200_000,
        "Claude Code's window"
    );
}

#[test]
fn watch_says_a_folder_went_and_watches_it_again_when_it_is_back() {
    let (tmp, root) = store(2);
    let (home, id, file) = with_claude(tmp.path(), &root);
    let w = watch_in(&home, &root, &["--json"]);
    w.ready();
    let projects = home.join(".claude/projects");
    let aside = tmp.path().join("projects-aside");
    std::fs::rename(&projects, &aside).unwrap();
    let said = |needle: &str| {
        let end = Instant::now() + patience(Duration::from_secs(20));
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match w.err.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => {}
                Err(_) => panic!("watch never said {needle:?}"),
            }
        }
    };
    let gone = said("went");
    assert!(gone.contains(".claude/projects"), "{gone}");
    // Made again (here: put back as it was).
    std::fs::rename(&aside, &projects).unwrap();
    said("there again");
    // What it held is a baseline, not news; an append after it is.
    append_claude_prompt(&file);
    let got = w.take(1);
    assert_eq!(got[0]["session"], id.as_str(), "{}", got[0]);
    assert_eq!(got[0]["event"], "message", "{}", got[0]);
    let more = w.out.recv_timeout(Duration::from_millis(1_500));
    assert!(more.is_err(), "a line more than was appended: {more:?}");
}
