//! Search against an independent reference: tests/search_reference.py
//! reads the session files with Python's json and applies the documented
//! rules itself, sharing no code with loki-sessions (the direct scan shares
//! its text extraction and its words with the index, so comparing those
//! two checks neither). Generated stores hold every kind of message and
//! part, forks sharing messages, messages without ids, special messages, a
//! damaged session, words planted at random, long tokens, CJK, Cyrillic,
//! emoji and punctuation. Every query is compared on full hits (session,
//! context, message, role, session name): the index (`search`), the files
//! (`search --no-index`), and the UI's search as one types
//! (`Store::live_search`, prefixes of one and two letters over more than
//! 1,000 distinct words), before and after renames, appends and trims.
//! The seed is printed; LOKI_SEARCH_SEED replays it.

use crate::common::*;
use loki_sessions::store::{SearchOptions, SearchQuery, Store};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A hit: session, context, message, role, session name.
type Tuple = [String; 5];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn seed() -> u64 {
    let given = std::env::var("LOKI_SEARCH_SEED").ok();
    let seed = given.and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        since.unwrap().as_nanos() as u64
    });
    eprintln!("search reference seed {seed} (LOKI_SEARCH_SEED={seed} replays it)");
    seed | 1
}

/// Words to plant: plain, accented, Cyrillic and Greek, CJK and kana,
/// Hangul, emoji and symbols, code-like tokens, and tokens longer than 64
/// characters (or bytes).
fn vocabulary(rng: &mut Rng) -> Vec<String> {
    let syllables = [
        "ka", "zo", "qui", "ber", "lun", "ta", "vex", "mo", "rif", "dal",
    ];
    let mut words: Vec<String> = (0..120)
        .map(|_| {
            (0..2 + rng.below(3))
                .map(|_| *rng.pick(&syllables))
                .collect()
        })
        .collect();
    for fixed in [
        "Überprüfung",
        "façade",
        "naïve",
        "Straße",
        "привет",
        "Сервер",
        "λόγος",
        "東京",
        "請求書",
        "オフィス",
        "ひらがな",
        "서울",
        "🚀",
        "✅",
        "→",
        "€",
        "session.py",
        "login_handler",
        "src/auth/x.rs",
        "PR#4123",
        "v1.2.3",
        "don't",
        "e-mail",
        "C++",
        "3.14159",
        "x86_64",
        "ÄNDERUNG",
        "MiXeD",
    ] {
        words.push(fixed.to_string());
    }
    words.push("z".repeat(65));
    words.push(format!("{}{}", "longtoken".repeat(8), rng.next() % 1000));
    words.push("д".repeat(40)); // 40 characters, 80 bytes
    words.push(format!(
        "sha{:x}{:x}{:x}{:x}",
        rng.next(),
        rng.next(),
        rng.next(),
        rng.next()
    ));
    words
}

fn text(rng: &mut Rng, vocab: &[String]) -> String {
    let separators = [
        " ", " ", " ", ", ", ". ", "\n", " (", ") ", ": ", "; ", " — ",
    ];
    let mut out = String::new();
    for i in 0..3 + rng.below(12) {
        if i > 0 {
            let separator: &&str = rng.pick(&separators);
            out.push_str(separator);
        }
        out.push_str(rng.pick(vocab).as_str());
    }
    out
}

/// One message of a random kind, with `id` (None: no id).
fn message(rng: &mut Rng, vocab: &[String], id: Option<String>, seq: usize) -> Value {
    let t = |rng: &mut Rng| text(rng, vocab);
    let (role, content) = match rng.below(9) {
        0 => ("user", json!([{"type": "text", "text": t(rng)}])),
        1 => (
            "assistant",
            json!([{"type": "thinking", "text": t(rng)}, {"type": "text", "text": t(rng)}]),
        ),
        2 => (
            "assistant",
            json!([{"type": "tool_use", "call_id": "c", "name": "bash",
            "arguments": json!({"cmd": t(rng), "n": 3}).to_string(), "approval_status": "approved"}]),
        ),
        3 => (
            "assistant",
            json!([{"type": "tool_use", "call_id": "c", "name": "grep",
            "arguments": {"pattern": t(rng), "flags": ["-r", "-i"]}}]),
        ),
        4 => (
            "tool",
            json!([{"type": "tool_result", "call_id": "c", "content": t(rng), "execution_status": "executed"}]),
        ),
        5 => (
            "tool",
            json!([{"type": "tool_result", "call_id": "c",
            "content": [{"type": "text", "text": t(rng)}, {"type": "text", "text": t(rng)}]}]),
        ),
        6 => (
            "tool",
            json!([{"type": "tool_result", "call_id": "c", "content": {"out": t(rng), "code": 1}}]),
        ),
        7 => ("user", json!(t(rng))),
        _ => (
            "user",
            json!([{"type": "text", "text": t(rng)},
            {"type": "image", "source": {"type": "base64", "data": "imagebytesneverfound", "media_type": "image/png"}},
            {"type": "hologram", "text": "unknownpartneverfound"}]),
        ),
    };
    let mut m =
        json!({"role": role, "content": content, "_type": "Message", "_sequence_number": seq});
    if let Some(id) = id {
        m["id"] = json!(id);
    }
    m
}

fn context(id: &str, messages: Vec<Value>, extra: Value) -> Value {
    let n = messages.len();
    let mut ctx = json!({"messages": messages, "id": id, "content_map": {},
        "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", n]],
        "message_sequence": n, "_mutation_counter": 3 + n, "children": []});
    for (k, v) in extra.as_object().unwrap() {
        ctx[k] = v.clone();
    }
    ctx
}

/// A store of `count` sessions with random conversations; returns its root.
fn generate(root: &Path, rng: &mut Rng, vocab: &[String], count: usize) -> Vec<String> {
    let ids: Vec<String> = (0..count)
        .map(|i| new_session(root, &format!("{} {i}", text(rng, vocab))))
        .collect();
    for (n, id) in ids.iter().enumerate() {
        let memory = sessions(root).join(id).join("memory");
        let session: Value =
            serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
        let active = session["active_context_id"].as_str().unwrap().to_string();
        let mut messages = Vec::new();
        let mut extra = json!({});
        if rng.below(3) == 0 {
            // The special messages: the system prompt is searched, the tool
            // definitions are not.
            messages.push(
                json!({"role": "system", "id": format!("{id}-sys"), "_type": "SystemPromptMessage",
                "content": [{"type": "text", "text": text(rng, vocab)}], "_sequence_number": 1}),
            );
            messages.push(json!({"role": "system", "id": format!("{id}-tools"), "_type": "ToolDefinitionsMessage",
                "content": [{"type": "tool", "name": "bash", "description": "tooldefinitionneverfound"}], "_sequence_number": 2}));
            extra = json!({"system_prompt_message_id": format!("{id}-sys"),
                "tool_definitions_message_id": format!("{id}-tools")});
        }
        for i in 0..3 + rng.below(15) {
            let id = (rng.below(10) != 0).then(|| format!("{id}-{i}"));
            messages.push(message(rng, vocab, id, 3 + i));
        }
        if n % 7 == 3 {
            // A fork: the parent holds the shared messages and some of its own.
            let parent = format!("{active}-parent");
            let mut older: Vec<Value> = messages.clone();
            older.push(message(rng, vocab, Some(format!("{id}-old")), 90));
            older.insert(0, message(rng, vocab, Some(format!("{id}-older")), 91));
            let mut ctx = context(&parent, older, extra.clone());
            ctx["children"] = json!([active]);
            write(&memory.join(format!("{parent}.json")), &ctx);
            extra["origin_context_id"] = json!(parent);
        }
        write(
            &memory.join(format!("{active}.json")),
            &context(&active, messages, extra),
        );
    }
    // One damaged session: its active context cut in the middle.
    let damaged = &ids[count - 1];
    let memory = sessions(root).join(damaged).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let path = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    ids
}

fn write(path: &Path, value: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// The reference's hits for each of `queries`.
fn reference(root: &Path, queries: &[String], typing: bool) -> Vec<BTreeSet<Tuple>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/search_reference.py");
    let mut command = Command::new("python3");
    command.arg(script).arg(sessions(root)).arg("loki");
    if typing {
        command.arg("--typing");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the search reference");
    let mut input = child.stdin.take().unwrap();
    for q in queries {
        writeln!(input, "{q}").unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the reference failed");
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), queries.len());
    lines
        .iter()
        .zip(queries)
        .map(|(line, q)| {
            let hits: Vec<Tuple> = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("the reference on {q:?}: {e}: {line}"));
            hits.into_iter().collect()
        })
        .collect()
}

/// The hits of `search QUERY --json` (with `extra`).
fn cli_hits(root: &Path, query: &str, extra: &[&str]) -> BTreeSet<Tuple> {
    let mut args = vec!["search", query, "--json", "--limit", "100000"];
    args.extend(extra);
    let out = run_bounded(root, &args);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let field = |h: &Value, k: &str| h[k].as_str().unwrap_or_default().to_string();
    hits.iter()
        .map(|h| {
            [
                "session_id",
                "context_id",
                "message_id",
                "role",
                "session_name",
            ]
            .map(|k| field(h, k))
        })
        .collect()
}

/// Asserts `got` is `want` for `query`, showing the difference.
fn same(what: &str, query: &str, got: &BTreeSet<Tuple>, want: &BTreeSet<Tuple>) {
    if got != want {
        let missing: Vec<_> = want.difference(got).take(5).collect();
        let extra: Vec<_> = got.difference(want).take(5).collect();
        panic!(
            "{what} on {query:?}: {} hits, the reference {}; missing {missing:?}; extra {extra:?}",
            got.len(),
            want.len()
        );
    }
}

/// Queries: planted words (in any case), absent words, phrases taken from
/// the planted texts, role filters, and the hard cases.
fn queries(rng: &mut Rng, vocab: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for _ in 0..40 {
        out.push(rng.pick(vocab).clone());
    }
    for _ in 0..10 {
        out.push(rng.pick(vocab).to_uppercase());
    }
    for _ in 0..15 {
        out.push(format!("\"{} {}\"", rng.pick(vocab), rng.pick(vocab)));
        out.push(format!("{} {}", rng.pick(vocab), rng.pick(vocab)));
    }
    for role in ["user", "assistant", "tool", "system"] {
        out.push(format!("role:{role} {}", rng.pick(vocab)));
    }
    for hard in [
        "z".repeat(65),
        "д".repeat(40),
        "東京".into(),
        "\"京 請\"".into(),
        "session.py".into(),
        "py".into(),
        "🚀".into(),
        "imagebytesneverfound".into(),
        "unknownpartneverfound".into(),
        "tooldefinitionneverfound".into(),
        "cmd".into(),
        "flags".into(),
        "absentwordxyz".into(),
    ] {
        out.push(hard);
    }
    out
}

#[test]
fn the_index_and_the_files_answer_as_an_independent_reference() {
    let mut rng = Rng(seed());
    let vocab = vocabulary(&mut rng);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let ids = generate(&root, &mut rng, &vocab, 36);
    let queries = queries(&mut rng, &vocab);
    let mut compared = 0;
    for round in ["as generated", "after renames", "after appends and trims"] {
        match round {
            "after renames" => {
                let store = sandbox::store(Store::loki(&root, "tester").unwrap());
                for id in ids.iter().take(6) {
                    let target = store.locate(id).unwrap();
                    store
                        .rename(&target, &format!("renamed {}", text(&mut rng, &vocab)))
                        .unwrap();
                }
            }
            "after appends and trims" => {
                for id in ids.iter().skip(6).take(6) {
                    let out = run_bounded(&root, &["trim", id, "--keep-messages", "2"]);
                    assert!(matches!(out.status.code(), Some(0 | 1)));
                }
                for id in ids.iter().skip(12).take(4) {
                    append(&root, id, &mut rng, &vocab);
                }
            }
            _ => {}
        }
        let want = reference(&root, &queries, false);
        for (query, want) in queries.iter().zip(&want) {
            same("search", query, &cli_hits(&root, query, &[]), want);
            same(
                "search --no-index",
                query,
                &cli_hits(&root, query, &["--no-index"]),
                want,
            );
            compared += 1;
        }
    }
    let found = reference(&root, &queries, false)
        .iter()
        .filter(|h| !h.is_empty())
        .count();
    assert!(
        found > queries.len() / 2,
        "most queries find something: {found}"
    );
    eprintln!(
        "{compared} queries agree with the reference ({} of {} find something)",
        found,
        queries.len()
    );
}

/// An agent appends a message to the active context of `id`, in place.
fn append(root: &Path, id: &str, rng: &mut Rng, vocab: &[String]) {
    let memory = sessions(root).join(id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let path: PathBuf = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let mut ctx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let n = ctx["messages"].as_array().unwrap().len();
    let m = message(rng, vocab, Some(format!("{id}-appended")), 500);
    ctx["messages"].as_array_mut().unwrap().push(m);
    ctx["anchor_points"]
        .as_array_mut()
        .unwrap()
        .last_mut()
        .unwrap()[1] = json!(n + 1);
    ctx["message_sequence"] = json!(n + 1);
    write(&path, &ctx);
}

/// The UI's search as one types (a prefix query on a warm index, 1,000
/// expansions were its limit) finds what the files hold, for prefixes of
/// one and two letters over thousands of distinct words, and a session
/// changed since it was indexed is answered from its files.
#[test]
fn the_search_as_one_types_answers_as_the_files_over_thousands_of_words() {
    let mut rng = Rng(seed());
    let letters = |rng: &mut Rng, n: usize| -> String {
        (0..n)
            .map(|_| (b'a' + rng.below(26) as u8) as char)
            .collect()
    };
    // Words starting with q (half of them with qu) and with r.
    let vocab: Vec<String> = (0..4_500)
        .map(|i| match i % 3 {
            0 => format!("qu{}", letters(&mut rng, 4 + i % 4)),
            1 => format!("q{}", letters(&mut rng, 5 + i % 4)),
            _ => format!("r{}", letters(&mut rng, 5 + i % 4)),
        })
        .collect::<BTreeSet<String>>()
        .into_iter()
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let ids = generate(&root, &mut rng, &vocab, 40);
    let mut planted = Vec::new();
    for id in &ids[..ids.len() - 1] {
        planted = dense(&root, id, &mut rng, &vocab);
    }
    // More than 1,000 distinct words start with each prefix tested.
    let used = used_words(&root);
    for prefix in ["q", "qu", "r"] {
        let n = used.iter().filter(|w| w.starts_with(prefix)).count();
        assert!(n > 1_000, "{n} distinct words start with {prefix:?}");
    }
    let store = Store::loki(&root, "tester")
        .unwrap()
        .with_cache_dir(&tmp.path().join("cache"));
    store.update_index(now(), &|_, _| {}).unwrap();
    let mut typed: Vec<String> = ["q", "qu", "r", "qa", "ra", "x", "role:tool q"]
        .map(String::from)
        .to_vec();
    // A word then a prefix of the next (a phrase whose last word is being
    // typed), as written in a message.
    typed.push(format!("{} {}", planted[0], &planted[1][..1]));
    typed.push(format!("\"{} {}", planted[2], &planted[3][..2]));
    typed.push(format!("{} q", vocab[7]));
    let check = |store: &Store, label: &str| {
        let mut live = store.live_search().unwrap();
        let want = reference(&root, &typed, true);
        for (text, want) in typed.iter().zip(&want) {
            let query = SearchQuery::parse(text, true).unwrap();
            let outcome = live.search(&query, 100_000, ids.len()).unwrap();
            let got: BTreeSet<Tuple> = outcome
                .hits
                .iter()
                .map(|h| {
                    [
                        &h.session_id,
                        &h.context_id,
                        &h.message_id,
                        &h.role,
                        &h.session_name,
                    ]
                    .map(std::string::ToString::to_string)
                })
                .collect();
            same(&format!("live search {label}"), text, &got, want);
            assert_eq!(outcome.total, want.len(), "{label} {text:?}: the count");
            let options = SearchOptions {
                limit: 100_000,
                session: None,
                update: false,
                scan_stale: true,
            };
            let files = store.search_files(&query, &options).unwrap();
            assert_eq!(files.hits.len(), want.len(), "{label} {text:?}: the files");
            // The index read without updating it (its manifest borrowed):
            // what changed since it was indexed is searched in the files,
            // and the index's hits of it are dropped.
            let indexed = store.search(&query, &options, &|_, _| {}).unwrap();
            let got: BTreeSet<Tuple> = indexed
                .hits
                .iter()
                .map(|h| {
                    [
                        &h.session_id,
                        &h.context_id,
                        &h.message_id,
                        &h.role,
                        &h.session_name,
                    ]
                    .map(std::string::ToString::to_string)
                })
                .collect();
            same(&format!("index, no update, {label}"), text, &got, want);
            let counted = indexed.covered + indexed.unreadable.len();
            assert_eq!(counted, indexed.sessions, "{label} {text:?}: the coverage");
        }
    };
    check(&store, "on a fresh index");
    // Sessions changed since they were indexed: their new words are found,
    // their old ones no more.
    for id in ids.iter().take(5) {
        let memory = sessions(&root).join(id).join("memory");
        let session: Value =
            serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
        let path = memory.join(format!(
            "{}.json",
            session["active_context_id"].as_str().unwrap()
        ));
        let ctx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let messages: Vec<Value> = ctx["messages"]
            .as_array()
            .unwrap()
            .iter()
            .take(1)
            .cloned()
            .collect();
        write(
            &path,
            &context(ctx["id"].as_str().unwrap(), messages, json!({})),
        );
    }
    check(&store, "after changes the index has not seen");
}

/// Appends a message of 120 words of `vocab` to the active context of
/// `id`; returns them.
fn dense(root: &Path, id: &str, rng: &mut Rng, vocab: &[String]) -> Vec<String> {
    let memory = sessions(root).join(id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let path = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let mut ctx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let words: Vec<&str> = (0..120).map(|_| rng.pick(vocab).as_str()).collect();
    let n = ctx["messages"].as_array().unwrap().len();
    ctx["messages"]
        .as_array_mut()
        .unwrap()
        .push(json!({"role": "assistant", "id": format!("{id}-dense"),
        "content": [{"type": "text", "text": words.join(" ")}], "_sequence_number": 400}));
    ctx["anchor_points"]
        .as_array_mut()
        .unwrap()
        .last_mut()
        .unwrap()[1] = json!(n + 1);
    ctx["message_sequence"] = json!(n + 1);
    write(&path, &ctx);
    words.into_iter().map(str::to_string).collect()
}

/// The distinct ASCII words of every context file of the store.
fn used_words(root: &Path) -> BTreeSet<String> {
    snapshot(&sessions(root))
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "json"))
        .flat_map(|(_, bytes)| {
            String::from_utf8_lossy(&bytes)
                .split(|c: char| !c.is_ascii_alphanumeric())
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect()
}
