//! Search: the index and the direct scan of the files (`--no-index`, the
//! reference) find the same messages, for strings planted in every kind of
//! part and script, and still after appends, trims, deletions and purges;
//! a damaged, foreign or busy index changes how an answer is found, never
//! what it is.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A store with demo sessions, planted sessions, and its own cache folder.
struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    cache: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("store");
        std::fs::create_dir(&root).unwrap();
        let cache = tmp.path().join("cache");
        let f = Fixture {
            _tmp: tmp,
            root,
            cache,
        };
        f.ok(&[
            "demo",
            "--sessions",
            "40",
            "--messages",
            "10",
            "--big-context",
            "0",
            "--plain",
        ]);
        f
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(bin())
            .arg("--root")
            .arg(&self.root)
            .args(["--user", "tester"])
            .args(args)
            .env("XDG_CACHE_HOME", &self.cache)
            .env("XDG_CONFIG_HOME", self.cache.with_extension("no-config"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// (session, message) of every hit, and stderr.
    fn hits(&self, query: &str, extra: &[&str]) -> (BTreeSet<(String, String)>, String) {
        let mut args = vec!["search", query, "--json", "--limit", "100000"];
        args.extend(extra);
        let out = self.run(&args);
        let code = out.status.code();
        assert!(
            code == Some(0) || code == Some(1),
            "{query:?} {extra:?} exited {code:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hits: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let set = hits
            .iter()
            .map(|h| {
                (
                    h["session_id"].as_str().unwrap().to_string(),
                    h["message_id"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        (set, String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// Both ways give the same hits; returns them.
    fn same_both_ways(&self, query: &str) -> BTreeSet<(String, String)> {
        let (indexed, _) = self.hits(query, &[]);
        let (direct, _) = self.hits(query, &["--no-index"]);
        assert_eq!(indexed, direct, "index and files disagree on {query:?}");
        indexed
    }

    fn index_dir(&self) -> PathBuf {
        let base = self.cache.join("loki-sessions");
        std::fs::read_dir(&base)
            .unwrap()
            .next()
            .expect("an index")
            .unwrap()
            .path()
    }
}

/// Writes a session whose active context holds `messages` (role, content).
fn plant(f: &Fixture, prompt: &str, messages: &[(&str, Value)]) -> String {
    let id = f.ok(&["new", prompt, "--no-purge"]).trim().to_string();
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    write_context(&memory.join(format!("{ctx_id}.json")), &ctx_id, messages);
    id
}

fn write_context(path: &Path, ctx_id: &str, messages: &[(&str, Value)]) {
    let list: Vec<Value> = messages
        .iter()
        .enumerate()
        .map(|(i, (role, content))| {
            json!({"role": role, "id": format!("{ctx_id}-m{i}"), "_type": "Message",
                   "content": content, "_sequence_number": 3 + i})
        })
        .collect();
    let n = list.len();
    let ctx = json!({"messages": list, "id": ctx_id, "content_map": {},
        "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", n]],
        "message_sequence": n, "_mutation_counter": 3 + n, "children": []});
    std::fs::write(path, serde_json::to_vec_pretty(&ctx).unwrap()).unwrap();
}

fn planted(f: &Fixture) -> String {
    plant(
        f,
        "planted strings",
        &[
            (
                "user",
                json!([{"type": "text", "text": "Why does zebrafoil fail at 東京オフィス?"}]),
            ),
            (
                "assistant",
                json!([
                    {"type": "thinking", "text": "maybe the quasarwidget cache"},
                    {"type": "text", "text": "Let me look 🚀 at src/auth/quokka_login.py"},
                    {"type": "tool_use", "call_id": "c1", "name": "bash", "arguments": "{\"cmd\": \"grep -r nebulakey .\"}"}
                ]),
            ),
            (
                "tool",
                json!([{"type": "tool_result", "call_id": "c1", "content": "ERROR: token expired for Überprüfung"}]),
            ),
            ("user", json!("plain string content with marmaladepath")),
        ],
    )
}

#[test]
fn index_and_files_find_the_same_messages_in_every_part_and_script() {
    let f = Fixture::new();
    let id = planted(&f);
    for (query, count) in [
        ("zebrafoil", 1),
        ("quasarwidget", 1),
        ("nebulakey", 1),
        ("\"token expired\"", 1),
        ("überprüfung", 1),
        ("東京", 1),
        ("オフィス", 1),
        ("🚀", 1),
        ("quokka_login.py", 1),
        ("login.py quokka", 1),
        ("marmaladepath", 1),
        ("role:tool expired", 1),
        ("role:user expired", 0),
        ("zebrafoil quasarwidget", 0),
    ] {
        let hits = f.same_both_ways(query);
        assert_eq!(hits.len(), count, "{query:?}: {hits:?}");
        assert!(hits.iter().all(|(s, _)| *s == id), "{query:?}");
    }
    // Common words across the demo sessions agree too.
    for query in [
        "login",
        "the build",
        "\"connection refused\"",
        "role:assistant test",
    ] {
        let hits = f.same_both_ways(query);
        assert!(!hits.is_empty(), "{query:?} finds something in the demo");
    }
}

#[test]
fn updates_are_incremental_and_follow_appends_trims_deletes_and_purges() {
    let f = Fixture::new();
    let id = planted(&f);
    let built: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(built["status"]["sessions"], 41);
    // Nothing changed: nothing is read again.
    let again: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(again["update"]["read"], 0);
    // An append (the agent writes the context in place) is found at once.
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    write_context(
        &memory.join(format!("{ctx_id}.json")),
        &ctx_id,
        &[
            ("user", json!("first zebrafoil")),
            ("assistant", json!("then a newword appears")),
        ],
    );
    assert_eq!(f.same_both_ways("newword").len(), 1);
    let after: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(
        after["update"]["read"], 0,
        "the search already read it again"
    );
    // A trim forks: the message is in both contexts, and found once.
    f.ok(&["trim", &id, "--keep-messages", "1"]);
    let hits = f.same_both_ways("zebrafoil");
    assert_eq!(
        hits.len(),
        1,
        "a message shared by a fork and its parent is one hit"
    );
    // A deleted session leaves the index.
    f.ok(&["delete", &id, "--yes"]);
    assert!(f.same_both_ways("newword").is_empty());
    // A purge too.
    f.ok(&["purge", "--keep", "5", "--max-age", "365d", "--yes"]);
    let hits = f.same_both_ways("login");
    let left: BTreeSet<String> = hits.into_iter().map(|(s, _)| s).collect();
    assert!(left.len() <= 5, "{left:?}");
    let status: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(status["status"]["sessions"], 5);
}

#[test]
fn a_damaged_foreign_or_unwritable_index_changes_how_not_what() {
    let f = Fixture::new();
    planted(&f);
    let want = f.same_both_ways("zebrafoil");
    assert_eq!(want.len(), 1);
    let dir = f.index_dir();
    // A manifest of garbage: rebuilt, same answer, a note.
    let manifest = dir.join("sessions.postcard");
    std::fs::write(&manifest, b"\xff\xfe not a manifest").unwrap();
    let (hits, err) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(err.contains("damaged") || err.contains("rebuilt"), "{err}");
    let status: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert!(
        status["status"]["built_at"].as_f64().unwrap_or(0.0) > 0.0,
        "a search that rebuilt the index says when: {status}"
    );
    // tantivy's own files damaged: rebuilt, same answer.
    std::fs::write(dir.join("meta.json"), b"{ truncated").unwrap();
    let (hits, err) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(err.contains("rebuilt"), "{err}");
    // A cache that cannot hold a folder (a file where it should be): the
    // files are searched directly, and the note says why.
    std::fs::remove_dir_all(&f.cache).unwrap();
    std::fs::write(&f.cache, b"not a folder").unwrap();
    let (hits, err) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(err.contains("searched directly"), "{err}");
    // A missing cache folder is made.
    std::fs::remove_file(&f.cache).unwrap();
    let (hits, _) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(f.cache.join("loki-sessions").is_dir());
}

#[test]
fn while_another_process_writes_the_index_changed_sessions_are_read_directly() {
    let f = Fixture::new();
    let id = planted(&f);
    f.ok(&["index"]);
    let lock = f.index_dir().join(".tantivy-writer.lock");
    // Another writer holds tantivy's lock (as a running UI would).
    let mut holder = Command::new("python3")
        .arg("-c")
        .arg(
            "import fcntl, sys, time\n\
             f = open(sys.argv[1], 'a')\n\
             fcntl.flock(f, fcntl.LOCK_EX)\n\
             print('locked', flush=True)\n\
             time.sleep(30)",
        )
        .arg(&lock)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "locked");
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    write_context(
        &memory.join(format!("{ctx_id}.json")),
        &ctx_id,
        &[("user", json!("a lockedword"))],
    );
    let (hits, err) = f.hits("lockedword", &[]);
    assert_eq!(hits.len(), 1, "found in the files: {err}");
    assert!(err.contains("another process"), "{err}");
    let _ = holder.kill();
    let _ = holder.wait();
}

#[test]
fn bad_queries_and_no_hits_have_their_exit_codes() {
    let f = Fixture::new();
    for bad in ["\"unclosed", "role:robot word", "   ", "role:user"] {
        assert_eq!(f.run(&["search", bad]).status.code(), Some(2), "{bad:?}");
    }
    assert_eq!(f.run(&["search", "zzqqxxyy"]).status.code(), Some(1));
    assert_eq!(f.run(&["search", "login"]).status.code(), Some(0));
}

#[test]
fn list_takes_tokens_from_the_index_and_sorts() {
    let f = Fixture::new();
    let before: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    assert!(
        before.iter().all(|i| i.get("tokens").is_none()),
        "no index yet"
    );
    f.ok(&["index"]);
    let listed: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    assert!(
        listed.iter().all(|i| i["tokens"].as_u64().is_some()),
        "every session"
    );
    let counted: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json", "--tokens"])).unwrap();
    let tokens = |items: &[Value]| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = items
            .iter()
            .map(|i| {
                (
                    i["id"].as_str().unwrap().to_string(),
                    i["tokens"].as_u64().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        tokens(&listed),
        tokens(&counted),
        "the index counts what --tokens counts"
    );
    // A session changed since it was indexed has no token count from it.
    let id = planted(&f);
    let listed: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    let planted_row = listed.iter().find(|i| i["id"] == id.as_str()).unwrap();
    assert!(planted_row.get("tokens").is_none(), "{planted_row}");
    for (key, field) in [
        ("size", "bytes"),
        ("messages", "messages"),
        ("tokens", "tokens"),
    ] {
        let sorted: Vec<Value> =
            serde_json::from_str(&f.ok(&["list", "--json", "--sort", key])).unwrap();
        let values: Vec<u64> = sorted
            .iter()
            .map(|i| i[field].as_u64().unwrap_or(0))
            .collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{key}: {values:?}");
    }
    let by_name: Vec<Value> =
        serde_json::from_str(&f.ok(&["list", "--json", "--sort", "name"])).unwrap();
    let names: Vec<String> = by_name
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_lowercase())
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(f.run(&["list", "--sort", "colour"]).status.code(), Some(2));
}
