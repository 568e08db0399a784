//! The figures of other agents' sessions (README "Performance"):
//!
//!   cargo bench --bench agents
//!
//! - `view`: a 100 MB Claude Code session, Tab in the list to the first
//!   frame of the viewer showing its messages (through the real runtime on a
//!   virtual screen), and the store's read of it alone;
//! - `list`: `list --json --agent claude` over 10,000 Claude Code sessions,
//!   whole process, page cache warm, against reading the first and last
//!   4 KB of every session file (the same files, in this process; the best
//!   of one thread and all cores);
//! - `fork`: on the same 100 MB session, `trim --keep-messages 200` and
//!   `trim --drop <its second message> --with-pairs` (a fork of nearly the
//!   whole file), whole process, each fork deleted after its run, with the
//!   token counts kept by the run before and without (removed before each
//!   run), against `cp` of the same file; and the viewer's preview of a
//!   drop, planned again at every mark (300 marks);
//! - `search`: `search` over every agent (10,000 Claude Code sessions and
//!   the fixtures of the others), whole process, warm index, against the
//!   same query over 10,000 Loki sessions.
//!
//! The data is generated in a temporary folder (or in `LOKI_BENCH_AGENTS`,
//! kept and reused). `LOKI_BENCH_ONLY=view,list` runs some parts. Results
//! are printed and written to target/bench-agents.json.
//! `LOKI_BENCH_SMOKE=1` (CI) makes small data and runs each part once: its
//! figures mean nothing, only that every part answers.

// A benchmark stops at its first failure (its figures would mean nothing
// after one), as a test does: unwrap is allowed here as in the tests.
#![allow(clippy::unwrap_used)]

// Shared with the other benches; this one needs only part of it.
#[allow(dead_code)]
#[path = "support.rs"]
mod support;

use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::demo::agents::{self, AgentsSpec};
use loki_sessions::store::{AgentHomes, Encoding, Store, now_seconds};
use loki_sessions::tui::live::Live;
use serde_json::json;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

/// Runs of each measure (one in a smoke).
static RUNS: std::sync::LazyLock<usize> = std::sync::LazyLock::new(|| if smoke() { 1 } else { 7 });

/// True for a smoke run (CI): small data, each part once.
fn smoke() -> bool {
    std::env::var_os("LOKI_BENCH_SMOKE").is_some()
}

fn wanted(part: &str) -> bool {
    std::env::var("LOKI_BENCH_ONLY").map_or(true, |only| only.split(',').any(|p| p == part))
}

/// A home folder under `work` named `name`, made by `make` the first time.
fn home(work: &Path, name: &str, make: impl FnOnce(&Path)) -> PathBuf {
    let home = work.join(name);
    let done = home.join(".made");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).unwrap();
        let started = Instant::now();
        make(&home);
        std::fs::write(&done, b"").unwrap();
        eprintln!("made {name} in {:.1} s", started.elapsed().as_secs_f64());
    }
    home
}

fn store_of(home: &Path) -> Store {
    Store::loki(&home.join("no-loki"), USER)
        .unwrap()
        .with_agents(&AgentHomes::under(home))
        .primary_optional(true)
        .with_cache_dir(&home.join("cache"))
}

/// Tab on the 100 MB session to the frame showing its messages.
fn view(home: &Path, id: &str) -> serde_json::Value {
    let store = store_of(home);
    // The index is brought up to date first, as a person's UI finds it
    // (else the UI's own update at start reads the 100 MB session beside
    // the viewer, on the same two cores).
    store.update_index(now_seconds(), &|_, _| {}).unwrap();
    let record = store
        .list()
        .unwrap()
        .into_iter()
        .find(|r| r.id == id)
        .unwrap();
    let mut reads: Vec<Duration> = (0..*RUNS)
        .map(|_| {
            let started = Instant::now();
            let c = store.load_conversation(&store.target(&record)).unwrap();
            assert!(c.context.len() > if smoke() { 10 } else { 1000 });
            started.elapsed()
        })
        .collect();
    let mut frames = Vec::new();
    for _ in 0..*RUNS {
        let mut live = Live::open(store_of(home), settings(), 120, 40);
        live.run_until(LIMIT, |m| !m.list.scanning && !m.list.rows.is_empty())
            .expect("rows");
        for c in id.chars().take(13) {
            live.key(KeyCode::Char(c), KeyModifiers::NONE);
        }
        live.run_until(LIMIT, |m| {
            m.list.selected_row().is_some_and(|r| r.record.id == id)
        })
        .expect("selected");
        live.run_until(Duration::from_millis(500), |_| false);
        let started = Instant::now();
        live.key(KeyCode::Tab, KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.loaded.is_some()))
            .expect("opens");
        frames.push(started.elapsed());
        // The counting the viewer starts once its first frame is drawn
        // (about a second of both cores for this session) ends before the
        // next run starts: else it runs on beside the next run's read.
        live.run_until(LIMIT, |m| {
            m.viewer()
                .is_some_and(|v| v.complete_counts(Encoding::Cl100kBase).is_some())
        })
        .expect("counted");
    }
    let size = std::fs::metadata(&record.path).unwrap().len();
    let read = percentile(&mut reads, 0.5);
    let frame = percentile(&mut frames, 0.5);
    println!(
        "view: {:.0} MB session, {} messages: first frame {:.1} ms (median of {}), the read alone {:.1} ms",
        size as f64 / 1e6,
        store
            .load_conversation(&store.target(&record))
            .unwrap()
            .context
            .len(),
        ms(frame),
        *RUNS,
        ms(read)
    );
    json!({"bytes": size, "first_frame_ms": ms(frame), "read_ms": ms(read)})
}

/// The first and last 4 KB of every session file, in this process.
fn ends_of_every_file(files: &[PathBuf], threads: usize) -> Duration {
    let started = Instant::now();
    let per = files.len().div_ceil(threads.max(1));
    std::thread::scope(|scope| {
        for part in files.chunks(per.max(1)) {
            scope.spawn(move || {
                let mut buf = vec![0u8; 4096];
                for f in part {
                    let mut file = std::fs::File::open(f).unwrap();
                    let _ = file.read(&mut buf).unwrap();
                    let len = file.metadata().unwrap().len();
                    file.seek(SeekFrom::Start(len.saturating_sub(4096)))
                        .unwrap();
                    let _ = file.read(&mut buf).unwrap();
                }
            });
        }
    });
    started.elapsed()
}

/// The median wall time of running the binary with `args` under `home`.
fn whole_process(home: &Path, args: &[&str]) -> Duration {
    whole_process_in(home, &home.join("cache"), args)
}

/// [`whole_process`] with `cache` as the cache folder.
fn whole_process_in(home: &Path, cache: &Path, args: &[&str]) -> Duration {
    once(home, cache, args);
    let mut times: Vec<Duration> = (0..*RUNS).map(|_| once(home, cache, args)).collect();
    percentile(&mut times, 0.5)
}

/// One run of the binary with `args` under `home` (its cache folder
/// `cache`), and how long it took.
fn once(home: &Path, cache: &Path, args: &[&str]) -> Duration {
    let started = Instant::now();
    let out = command_at(home, cache).args(args).output().unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    started.elapsed()
}

/// The binary measured, run under `home` with `cache` as its cache folder
/// and none of the agents' folders but those in `home`.
fn command_at(home: &Path, cache: &Path) -> Command {
    let mut command = Command::new(bin());
    command
        .env("HOME", home)
        .env("XDG_CACHE_HOME", cache)
        .env("XDG_CONFIG_HOME", home.join("no-config"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("QWEN_HOME")
        .env_remove("LOKI_HOME");
    command
}

/// Removes what listings remembered under `dir` (`listing.postcard`).
fn forget_listings(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            forget_listings(&path);
        } else if entry.file_name() == "listing.postcard" {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

/// The binary measured: `LOKI_BENCH_BIN`, else this build's (a target
/// folder shared with another checkout may hold another build's).
fn bin() -> PathBuf {
    std::env::var_os("LOKI_BENCH_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_loki-sessions")),
        PathBuf::from,
    )
}

/// The count files kept under `home`'s cache (one per session counted).
fn count_files(home: &Path) -> Vec<PathBuf> {
    let slots = std::fs::read_dir(home.join("cache/loki-sessions")).into_iter();
    slots
        .flatten()
        .flatten()
        .flat_map(|slot| {
            std::fs::read_dir(slot.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|f| f.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("counts-"))
        })
        .collect()
}

/// A fork of the big session, whole process: the median of [`RUNS`] runs
/// of `trim` with `args`, each fork deleted before the next run; `cold`
/// removes the kept token counts before each run (a first fork), else
/// they are kept from the run before (a fork after a preview or another
/// fork). The tokens it reported come back too, to check they agree.
fn fork_run(home: &Path, id: &str, args: &[&str], cold: bool) -> (Duration, u64, (u64, u64)) {
    let mut bytes = 0;
    let mut tokens = (0, 0);
    let mut run = || {
        if cold {
            for f in count_files(home) {
                std::fs::remove_file(f).unwrap();
            }
        }
        let mut all = vec!["trim", id];
        all.extend(args);
        all.push("--json");
        let started = Instant::now();
        let out = command_at(home, &home.join("cache"))
            .args(&all)
            .output()
            .unwrap();
        let took = started.elapsed();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let done: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        bytes = done["bytes_after"].as_u64().unwrap();
        tokens = (
            done["tokens_before"].as_u64().unwrap(),
            done["tokens_after"].as_u64().unwrap(),
        );
        std::fs::remove_file(done["new_session_file"].as_str().unwrap()).unwrap();
        took
    };
    run();
    let mut times: Vec<Duration> = (0..*RUNS).map(|_| run()).collect();
    (percentile(&mut times, 0.5), bytes, tokens)
}

/// The baseline of a fork: `cp` of the same file into `home` (the same
/// file system), whole process, the copy deleted after each run (median of
/// [`RUNS`]).
fn copy_run(file: &Path, home: &Path) -> Duration {
    let copy = home.join("cp-baseline.jsonl");
    let run = || {
        let started = Instant::now();
        let status = Command::new("cp").arg(file).arg(&copy).status().unwrap();
        let took = started.elapsed();
        assert!(status.success());
        std::fs::remove_file(&copy).unwrap();
        took
    };
    run();
    let mut times: Vec<Duration> = (0..*RUNS).map(|_| run()).collect();
    percentile(&mut times, 0.5)
}

fn fork(home: &Path, store: &Store, id: &str) -> serde_json::Value {
    use loki_sessions::store::{EditFacts, Encoding, message_counts, plan_drop_at};
    let target = store.locate(id).unwrap();
    let started = Instant::now();
    let context = store.active_context(&target).unwrap().unwrap();
    let read = started.elapsed();
    let second = context.message(1).unwrap().id().to_string();
    let keep: &[&str] = &["--keep-messages", if smoke() { "20" } else { "200" }];
    let drop: &[&str] = &["--drop", &second, "--with-pairs"];
    let copy = copy_run(&target.record.path, home);
    let (window_cold, _, window_cold_tokens) = fork_run(home, id, keep, true);
    let (window, window_bytes, window_tokens) = fork_run(home, id, keep, false);
    let (drop_cold, _, drop_cold_tokens) = fork_run(home, id, drop, true);
    let (drop_warm, drop_bytes, drop_tokens) = fork_run(home, id, drop, false);
    // The viewer's preview of a drop: planned again at every mark.
    let index = EditFacts::new(&context);
    let started = Instant::now();
    let counts = message_counts(&context, Encoding::Cl100kBase).unwrap();
    let counting = started.elapsed();
    // Kept counts or not, a fork reports what counting afresh gives.
    let total: u64 = counts.iter().sum();
    for (before, _) in [
        window_cold_tokens,
        window_tokens,
        drop_cold_tokens,
        drop_tokens,
    ] {
        assert_eq!(
            before, total,
            "a fork's tokens_before is the sum of the counts"
        );
    }
    assert_eq!(window_cold_tokens, window_tokens);
    assert_eq!(drop_cold_tokens, drop_tokens);
    let ordinary: Vec<usize> = (0..context.len())
        .filter(|&i| index.special(i).is_none())
        .collect();
    let mut marks = Vec::new();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut per_mark: Vec<Duration> = (0..300)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            marks.push(ordinary[(seed % ordinary.len() as u64) as usize]);
            let started = Instant::now();
            plan_drop_at(&index, &counts, &marks, true).unwrap();
            started.elapsed()
        })
        .collect();
    let p50 = percentile(&mut per_mark, 0.5);
    let p95 = percentile(&mut per_mark, 0.95);
    let max = percentile(&mut per_mark, 1.0);
    let ratio = |d: Duration| d.as_secs_f64() / copy.as_secs_f64();
    println!(
        "fork: {} messages, {total} tokens; in this process: reading it {:.1} ms, counting its tokens {:.1} ms",
        context.len(),
        ms(read),
        ms(counting)
    );
    println!(
        "fork: cp of the session file {:.1} ms; trim --keep-messages {} ({} bytes written) {:.1} ms ({:.1}x cp), its counts not kept yet {:.1} ms ({:.1}x); trim --drop one --with-pairs ({} bytes written) {:.1} ms ({:.1}x), its counts not kept yet {:.1} ms ({:.1}x); a drop's preview per mark p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms",
        ms(copy),
        keep[1],
        window_bytes,
        ms(window),
        ratio(window),
        ms(window_cold),
        ratio(window_cold),
        drop_bytes,
        ms(drop_warm),
        ratio(drop_warm),
        ms(drop_cold),
        ratio(drop_cold),
        ms(p50),
        ms(p95),
        ms(max)
    );
    json!({"messages": context.len(), "tokens": total, "read_ms": ms(read), "count_ms": ms(counting), "cp_ms": ms(copy),
           "keep_200_ms": ms(window), "keep_200_cold_ms": ms(window_cold), "keep_200_bytes": window_bytes,
           "drop_one_ms": ms(drop_warm), "drop_one_cold_ms": ms(drop_cold), "drop_one_bytes": drop_bytes,
           "preview_per_mark_ms": {"p50": ms(p50), "p95": ms(p95), "max": ms(max), "marks": 300}})
}

fn list(home: &Path, files: &[PathBuf]) -> serde_json::Value {
    let args = ["--agent", "claude", "list", "--json"];
    // Without a search index (a cache folder of its own): a listing after
    // another (what the list remembered taken), and a first one (nothing
    // remembered: every file read, and remembered). With the search index
    // the UI keeps (its stats shown in each row), brought up to date first.
    let plain = home.join("cache-without-index");
    let cache = home.join("cache");
    whole_process(home, &["--agent", "claude", "index"]);
    once(home, &plain, &args);
    once(home, &cache, &args);
    ends_of_every_file(files, 1);
    // Each run of ours and of the baseline taken in turn, so that their
    // medians come from the same minutes of a machine whose load drifts
    // (taken one after the other, the ratio moved with the drift).
    let (mut lists, mut firsts, mut indexeds, mut one, mut all) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..*RUNS {
        lists.push(once(home, &plain, &args));
        indexeds.push(once(home, &cache, &args));
        one.push(ends_of_every_file(files, 1));
        all.push(ends_of_every_file(files, workers()));
        forget_listings(&plain);
        firsts.push(once(home, &plain, &args));
    }
    let list = percentile(&mut lists, 0.5);
    let first = percentile(&mut firsts, 0.5);
    let indexed = percentile(&mut indexeds, 0.5);
    // The store's listing alone, in this process (no index, no output).
    let store = store_of(home).only_agents(&[loki_sessions::store::Agent::Claude]);
    let mut scans: Vec<Duration> = (0..*RUNS)
        .map(|_| {
            let started = Instant::now();
            assert_eq!(store.list().unwrap().len(), files.len());
            started.elapsed()
        })
        .collect();
    let scan = percentile(&mut scans, 0.5);
    let base = percentile(&mut one, 0.5).min(percentile(&mut all, 0.5));
    let ratio = |d: Duration| d.as_secs_f64() / base.as_secs_f64();
    println!(
        "list: {} Claude Code sessions, list --json {:.1} ms (the store's listing alone {:.1} ms), a first listing {:.1} ms, with the search index {:.1} ms; first and last 4 KB of every file {:.1} ms: {:.2}x, a first listing {:.2}x, with the index {:.2}x",
        files.len(),
        ms(list),
        ms(scan),
        ms(first),
        ms(indexed),
        ms(base),
        ratio(list),
        ratio(first),
        ratio(indexed)
    );
    json!({"sessions": files.len(), "list_ms": ms(list), "scan_ms": ms(scan), "first_ms": ms(first), "indexed_ms": ms(indexed), "ends_ms": ms(base), "ratio": ratio(list), "first_ratio": ratio(first), "indexed_ratio": ratio(indexed)})
}

fn search(home: &Path, loki: &Path) -> serde_json::Value {
    let query = ["search", "connection", "refused", "--json"];
    whole_process(home, &["index"]);
    let agents = whole_process(home, &query);
    let loki_home = loki.join("home");
    std::fs::create_dir_all(&loki_home).unwrap();
    let root = loki.to_string_lossy().to_string();
    let mut args = vec!["--root", root.as_str(), "--user", USER];
    whole_process(&loki_home, &[&args[..], &["index"]].concat());
    args.extend_from_slice(&query);
    let on_loki = whole_process(&loki_home, &args);
    println!(
        "search: every agent {:.1} ms; 10,000 Loki sessions {:.1} ms (warm index, whole process)",
        ms(agents),
        ms(on_loki)
    );
    json!({"agents_ms": ms(agents), "loki_ms": ms(on_loki)})
}

fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
}

fn main() {
    // As the program's own main does: the in-process parts (the viewer's
    // first frame, the store's listing) measure what it runs.
    loki_sessions::heap::grow_in_large_steps();
    let mut keep = Vec::new();
    let work = match std::env::var_os("LOKI_BENCH_AGENTS") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().to_path_buf();
            keep.push(dir);
            path
        }
    };
    std::fs::create_dir_all(&work).unwrap();
    let now = now_seconds();
    let mut figures = serde_json::Map::new();
    if wanted("view") || wanted("fork") {
        let big = home(&work, "big", |h| {
            let bytes = if smoke() { 2_000_000 } else { 100_000_000 };
            agents::big_claude_session(&h.join(".claude/projects"), bytes, 9, now).unwrap();
        });
        let store = store_of(&big);
        let id = store.list().unwrap()[0].id.clone();
        if wanted("view") {
            figures.insert("view".into(), view(&big, &id));
        }
        if wanted("fork") {
            figures.insert("fork".into(), fork(&big, &store, &id));
        }
    }
    if !wanted("list") && !wanted("search") {
        let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-agents.json");
        let _ = std::fs::write(out, serde_json::to_string_pretty(&figures).unwrap());
        return;
    }
    let many = home(&work, "many", |h| {
        let sessions = if smoke() { 200 } else { 10_000 };
        agents::many_claude_sessions(&h.join(".claude/projects"), sessions, 11, now).unwrap();
        let mut spec = AgentsSpec::fixtures(now);
        spec.claude = 0;
        spec.codex = 200;
        spec.gemini = 200;
        spec.hostile = false;
        agents::generate(h, &spec).unwrap();
    });
    if wanted("list") {
        let files: Vec<PathBuf> = store_of(&many)
            .only_agents(&[loki_sessions::store::Agent::Claude])
            .list()
            .unwrap()
            .into_iter()
            .map(|r| r.path)
            .collect();
        figures.insert("list".into(), list(&many, &files));
    }
    if wanted("search") {
        let sessions = if smoke() { 200 } else { 10_000 };
        let loki = store_root("LOKI_BENCH_10K", sessions, 12, 0, &mut keep);
        figures.insert("search".into(), search(&many, &loki));
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-agents.json");
    let _ = std::fs::write(out, serde_json::to_string_pretty(&figures).unwrap());
}
