//! Crash consistency: writers (new, touch, trim by a window, drop, clear,
//! purge, and the search index's: `index --rebuild`, a `search` that
//! updates it) are killed with SIGKILL at random moments. After every kill
//! each visible file parses, each visible session is whole, every fork is
//! linked both ways (the active one in its parent's `children`, every
//! child in `children` on disk and naming its parent), leftovers are hidden
//! from readers, and the next writers clean them up; after a kill of an
//! index writer, searches answer as the files do. Each kind of writer is
//! killed after its first write often enough (a tenth of its kills at
//! least). Kills: LOKI_CRASH_KILLS, else 300 under CI and 40 in
//! a local run (`common::sized`):
//! writers killed while still running; the random choices come from a seed
//! printed at the start and in the failure message (LOKI_CRASH_SEED replays
//! them; kill timings still vary from run to run).

mod agents;

use crate::common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

fn kills() -> usize {
    std::env::var("LOKI_CRASH_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| crate::common::sized(300, 40))
}

/// The seed of this run: LOKI_CRASH_SEED, else the clock.
fn seed() -> u64 {
    let given = std::env::var("LOKI_CRASH_SEED").ok();
    let seed = given.and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        since.unwrap().as_nanos() as u64
    });
    seed | 1
}

/// xorshift: enough randomness for kill timings; the seed is printed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn is_hidden(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root)
        .unwrap()
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
}

fn parse(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("torn or broken {}: {e}", path.display()))
}

/// Every fork of the conversation in `memory` is linked both ways: the
/// active context, when a fork whose parent is there, is in the parent's
/// `children` (session.json is written last); every id in a `children` is a
/// context on disk that names that parent (the parent is written after
/// its child).
fn check_links(memory: &Path, active: &str) {
    let context = |id: &str| {
        let path = memory.join(format!("{id}.json"));
        path.exists().then(|| parse(&path))
    };
    let children = |ctx: &Value| -> Vec<String> {
        (ctx["children"].as_array().into_iter().flatten())
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect()
    };
    let head = context(active).unwrap();
    if let Some(parent_id) = head["origin_context_id"].as_str()
        && let Some(parent) = context(parent_id)
    {
        assert!(
            children(&parent).iter().any(|c| c == active),
            "{}: the active fork {active} is missing from its parent's children",
            memory.display()
        );
    }
    for entry in std::fs::read_dir(memory).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(id) = name.strip_suffix(".json") else {
            continue;
        };
        if name.starts_with('.') || name == "session.json" {
            continue;
        }
        for child in children(&parse(&memory.join(&name))) {
            let Some(ctx) = context(&child) else {
                panic!(
                    "{}: {id} lists {child}, which is not on disk",
                    memory.display()
                );
            };
            assert_eq!(
                ctx["origin_context_id"],
                id,
                "{}: {child} is in the children of {id}",
                memory.display()
            );
        }
    }
}

/// What a reader sees is consistent: every visible JSON file parses and every
/// visible session is whole (meta, session.json, its active context) with
/// its forks linked.
fn check_store(root: &Path) -> usize {
    for (path, bytes) in snapshot(root) {
        if bytes != b"<dir>"
            && path.extension().is_some_and(|e| e == "json")
            && !is_hidden(&path, root)
        {
            parse(&path);
        }
    }
    let folder = sessions(root);
    let mut whole = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let dir = entry.unwrap().path();
        if is_hidden(&dir, root) {
            continue;
        }
        parse(&dir.join("meta.json"));
        let session = parse(&dir.join("memory/session.json"));
        let active = session["active_context_id"].as_str().unwrap();
        parse(&dir.join("memory").join(format!("{active}.json")));
        check_links(&dir.join("memory"), active);
        assert!(
            dir.join("workspace").is_dir() && dir.join("cache").is_dir(),
            "{} is not whole",
            dir.display()
        );
        whole += 1;
    }
    whole
}

fn live_ids(root: &Path) -> Vec<String> {
    json(root, &["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            assert!(i["error"].is_null(), "a reader sees damage: {i}");
            i["id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Identity and stamp of every path under `root`: files by inode, length
/// and modification time, directories by inode.
type State = BTreeMap<PathBuf, (u64, u64, i128)>;

fn state(root: &Path) -> State {
    let mut out = State::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            let stamp = if meta.is_dir() {
                stack.push(entry.path());
                (meta.ino(), 0, 0)
            } else {
                let mtime = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
                (meta.ino(), meta.len(), mtime)
            };
            out.insert(entry.path(), stamp);
        }
    }
    out
}

/// Modification times of `dirs`: one changes when an entry is made,
/// renamed or removed in it.
fn dir_stamps(dirs: &[PathBuf]) -> Vec<Option<std::time::SystemTime>> {
    dirs.iter()
        .map(|d| d.symlink_metadata().and_then(|m| m.modified()).ok())
        .collect()
}

/// True when the killed writer had written: a path appeared (a temp file,
/// a staging directory, trash), a file was replaced or changed, or a visible
/// path went away (a session purged). Removing hidden leftovers of earlier
/// kills, the cleanup every writer starts with, does not count.
fn wrote(before: &State, after: &State, root: &Path) -> bool {
    let added_or_changed = after.iter().any(|(p, s)| before.get(p) != Some(s));
    let removed_visible = (before.keys()).any(|p| !after.contains_key(p) && !is_hidden(p, root));
    added_or_changed || removed_visible
}

fn spawn(root: &Path, args: &[String]) -> std::process::Child {
    command()
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .arg("--root")
        .arg(root)
        .args(["--user", "tester"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn killed_writers_leave_every_file_whole_and_their_leftovers_are_cleaned() {
    let seed = seed();
    eprintln!("crash test seed {seed}");
    let run = std::panic::catch_unwind(|| kill_writers(seed));
    if let Err(e) = run {
        let message = (e.downcast_ref::<String>().map(String::as_str))
            .or_else(|| e.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        panic!("crash test failed with seed {seed} (LOKI_CRASH_SEED={seed} replays it): {message}");
    }
}

/// The writers killed, in turn.
const KINDS: [&str; 8] = [
    "new", "resume", "trim", "drop", "clear", "purge", "index", "search",
];

/// The queries searched after a kill of an index writer.
const QUERIES: [&str; 3] = ["the", "login", "\"connection refused\""];

/// A search through the index answers as the files do (session, context,
/// message and role of every hit).
fn searches_agree(root: &Path) {
    let hits = |query: &str, extra: &[&str]| {
        let mut args = vec!["search", query, "--json", "--limit", "100000"];
        args.extend(extra);
        let out = run(root, &args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hits: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let tuples: std::collections::BTreeSet<Vec<String>> = hits
            .iter()
            .map(|h| {
                ["session_id", "context_id", "message_id", "role"]
                    .iter()
                    .map(|k| h[*k].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .collect();
        tuples
    };
    for query in QUERIES {
        assert_eq!(
            hits(query, &[]),
            hits(query, &["--no-index"]),
            "after an index writer was killed, {query:?}"
        );
    }
}

/// The ids of the messages a drop may take from a session's active context
/// (not the system prompt or the tool definitions), oldest first.
fn droppable_message_ids(session: &Path) -> Vec<String> {
    let memory = session.join("memory");
    let head = parse(&memory.join("session.json"));
    let active = head["active_context_id"].as_str().unwrap_or_default();
    let context = parse(&memory.join(format!("{active}.json")));
    let specials = [
        &context["system_prompt_message_id"],
        &context["tool_definitions_message_id"],
    ];
    let messages = context["messages"].as_array().cloned().unwrap_or_default();
    (messages.iter())
        .filter(|m| !specials.contains(&&m["id"]))
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect()
}

fn kill_writers(seed: u64) {
    let tmp = tempfile::tempdir().unwrap();
    // The search index lives beside it, in <root>.cache (inside tmp).
    let root: PathBuf = tmp.path().join("store");
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "24",
            "--messages",
            "60",
            "--big-context",
            "600",
            "--plain",
        ],
    );
    let mut rng = Rng(seed);
    let kills = kills();
    let (mut killed, mut after_first_write, mut rounds) = (0, 0, 0);
    // Per kind of writer (see KINDS): killed, after a write.
    let mut per_kind = [[0usize; 2]; KINDS.len()];
    // How long each kind of writer takes, learned as we go, so that half of
    // the kills land anywhere in a run rather than after it. The other half
    // aim at the writes, which come at the end of a run: they wait until a
    // directory the writer changes first has changed, then a little more.
    let mut typical_us = [20_000u64; KINDS.len()];
    while killed < kills {
        rounds += 1;
        assert!(
            rounds < kills * 20,
            "only {killed} of {kills} writers were still running when killed"
        );
        let ids = live_ids(&root);
        if ids.len() < 6 {
            for i in 0..10 {
                new_session(&root, &format!("refill {rounds} {i}"));
            }
            continue;
        }
        let kind = rounds % KINDS.len();
        let start = rng.below(ids.len() as u64) as usize;
        // A drop needs a message to drop (the refills have none): the first
        // session from a random start that has one.
        let (id, droppable) = if KINDS[kind] == "drop" {
            let found = (0..ids.len()).find_map(|k| {
                let id = &ids[(start + k) % ids.len()];
                let messages = droppable_message_ids(&sessions(&root).join(id));
                (!messages.is_empty()).then(|| (id.clone(), messages))
            });
            match found {
                Some(found) => found,
                None => continue,
            }
        } else {
            (ids[start].clone(), Vec::new())
        };
        let session = sessions(&root).join(&id);
        let indexing = matches!(KINDS[kind], "index" | "search");
        // What the writer changes first: the session's folders, or the index's.
        let cache = root.with_extension("cache");
        let slot = std::fs::read_dir(cache.join("loki-sessions"))
            .ok()
            .and_then(|mut slots| slots.next())
            .and_then(std::result::Result::ok)
            .map(|slot| slot.path());
        let watched: Vec<PathBuf> = match (indexing, slot) {
            (true, Some(slot)) => vec![slot],
            (true, None) => vec![cache.clone()],
            (false, _) => vec![sessions(&root), session.join("memory"), session],
        };
        let written = if indexing {
            cache.clone()
        } else {
            root.clone()
        };
        if KINDS[kind] == "search" {
            // Without its manifest the index is rebuilt by the search: a
            // long write to kill.
            if let Some(slot) = watched.first() {
                let _ = std::fs::remove_file(slot.join("sessions.postcard"));
            }
        }
        let args: Vec<String> = match KINDS[kind] {
            "new" => vec!["new".into(), format!("task {rounds}"), "--no-purge".into()],
            "resume" => vec!["resume".into(), id],
            "trim" => vec![
                "trim".into(),
                id,
                "--keep-messages".into(),
                (1 + rng.below(20)).to_string(),
            ],
            "drop" => vec![
                "trim".into(),
                id,
                "--drop".into(),
                droppable[rng.below(droppable.len() as u64) as usize].clone(),
                "--with-pairs".into(),
            ],
            "clear" => vec![
                "trim".into(),
                id,
                "--clear-tool-results-over".into(),
                rng.below(40).to_string(),
            ],
            "index" => vec!["index".into(), "--rebuild".into()],
            "search" => vec![
                "search".into(),
                QUERIES[rng.below(QUERIES.len() as u64) as usize].into(),
            ],
            _ => vec![
                "purge".into(),
                "--yes".into(),
                "--keep".into(),
                (ids.len() as u64 - 1 - rng.below(3)).to_string(),
            ],
        };
        let before = state(&written);
        let started = std::time::Instant::now();
        let stamps = dir_stamps(&watched);
        let mut child = spawn(&root, &args);
        if rng.below(2) == 0 {
            std::thread::sleep(Duration::from_micros(rng.below(typical_us[kind] + 1)));
        } else {
            while dir_stamps(&watched) == stamps && child.try_wait().unwrap().is_none() {
                std::thread::sleep(Duration::from_micros(50));
            }
            std::thread::sleep(Duration::from_micros(rng.below(600)));
        }
        let running = child.try_wait().unwrap().is_none();
        // SIGKILL: no destructor, no cleanup, as a crash or an OOM kill.
        child.kill().unwrap_or(());
        child.wait().unwrap();
        if running {
            killed += 1;
            let had_written = usize::from(wrote(&before, &state(&written), &written));
            after_first_write += had_written;
            per_kind[kind][0] += 1;
            per_kind[kind][1] += had_written;
        } else {
            let took = started.elapsed().as_micros() as u64;
            typical_us[kind] = (typical_us[kind] * 3 + took) / 4;
        }
        check_store(&root);
        if indexing && running {
            searches_agree(&root);
        }
    }
    // The next writers clean up: trash and dead staging on new/purge, temp
    // files of a session when it is written again.
    new_session(&root, "after the crashes");
    for id in live_ids(&root) {
        ok(&root, &["resume", &id]);
        let out = run(&root, &["trim", &id, "--keep-messages", "100000"]);
        assert!(matches!(out.status.code(), Some(0) | Some(1)));
    }
    let leftovers: Vec<PathBuf> = snapshot(&root)
        .into_keys()
        .filter(|p| is_hidden(p, &root))
        .collect();
    assert!(leftovers.is_empty(), "not cleaned: {leftovers:?}");
    let whole = check_store(&root);
    eprintln!(
        "{killed} writers killed while running ({after_first_write} after their first write), {rounds} rounds; {whole} sessions whole, no leftovers"
    );
    let summary: Vec<String> = (KINDS.iter().zip(per_kind))
        .map(|(kind, [k, w])| format!("{kind} {k}/{w}"))
        .collect();
    eprintln!("killed/after a write: {}", summary.join(", "));
    assert!(
        after_first_write > killed / 3,
        "too few kills landed after a write: {after_first_write} of {killed}"
    );
    // A kind killed a handful of times (a short local run) may miss its
    // writes by chance; at CI's size each kind is killed dozens of times.
    for (kind, [k, w]) in KINDS.iter().zip(per_kind).filter(|(_, [k, _])| *k >= 10) {
        assert!(
            w >= k / 10,
            "too few {kind} writers were killed after a write: {w} of {k}"
        );
    }
    searches_agree(&root);
}
