//! The store the search tests share: demo sessions, planted sessions, and
//! its own cache folder; hits as full tuples.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A hit: session, context, message, role.
pub type Tuple = (String, String, String, String);

/// A store with demo sessions, planted sessions, and its own cache folder.
pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub cache: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
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

    pub fn run(&self, args: &[&str]) -> Output {
        command()
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

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// (session, context, message, role) of every hit, and stderr.
    pub fn hits(&self, query: &str, extra: &[&str]) -> (BTreeSet<Tuple>, String) {
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
        let text = |h: &Value, k: &str| h[k].as_str().unwrap().to_string();
        let set = hits
            .iter()
            .map(|h| {
                (
                    text(h, "session_id"),
                    text(h, "context_id"),
                    text(h, "message_id"),
                    text(h, "role"),
                )
            })
            .collect();
        (set, String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// Both ways give the same hits; returns them.
    pub fn same_both_ways(&self, query: &str) -> BTreeSet<Tuple> {
        let (indexed, _) = self.hits(query, &[]);
        let (direct, _) = self.hits(query, &["--no-index"]);
        assert_eq!(indexed, direct, "index and files disagree on {query:?}");
        indexed
    }

    pub fn index_dir(&self) -> PathBuf {
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
pub fn plant(f: &Fixture, prompt: &str, messages: &[(&str, Value)]) -> String {
    let id = f.ok(&["new", prompt, "--no-purge"]).trim().to_string();
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    write_context(&memory.join(format!("{ctx_id}.json")), &ctx_id, messages);
    id
}

pub fn write_context(path: &Path, ctx_id: &str, messages: &[(&str, Value)]) {
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

pub fn planted(f: &Fixture) -> String {
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
