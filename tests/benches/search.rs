//! The search figures of the performance table: building the index cold,
//! an incremental update after one session changed, the index's size, the
//! UI's keystroke-to-hits time on a warm index (10k and 100k sessions), and
//! the UI loop while the index builds in the background.
//!
//!   cargo bench --bench search
//!
//! Stores as for the tui bench (LOKI_BENCH_10K, LOKI_BENCH_100K). The
//! whole-process comparison with rg and the peak memory of a cold build are
//! in scripts/bench.sh. Results go to target/bench-search.json.

// A benchmark stops at its first failure (its figures would mean nothing
// after one), as a test does: unwrap is allowed here as in the tests.
#![allow(clippy::unwrap_used)]

#[path = "support.rs"]
mod support;

use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::now_seconds;
use loki_sessions::tui::live::Live;
use loki_sessions::tui::model::{IndexState, ListMode, Model};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use support::*;

/// Bytes of every conversation file of the store (what the index covers).
fn conversation_bytes(root: &Path) -> u64 {
    let sessions = root.join("users").join(USER).join("session");
    std::fs::read_dir(sessions)
        .unwrap()
        .flatten()
        .filter_map(|s| std::fs::read_dir(s.path().join("memory")).ok())
        .flat_map(std::iter::Iterator::flatten)
        .filter_map(|f| f.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// Removes the index, builds it again through the store; the time it took.
fn cold_build(root: &Path) -> Duration {
    let _ = std::fs::remove_dir_all(root.join("cache"));
    let started = Instant::now();
    source(root)
        .update_index(now_seconds(), &|_, _| {})
        .unwrap();
    started.elapsed()
}

/// One session's context gains a message (rewritten in place, as an agent
/// does); the update that follows, timed, several times.
fn incremental(root: &Path, rounds: usize) -> Vec<Duration> {
    let store = source(root);
    // A session of a typical size (the long one would measure its own reading).
    let records = store.list().unwrap();
    let stats = store.stats(&records, None, &|_| {});
    let mut by_size: Vec<_> = records.into_iter().zip(stats).collect();
    by_size.sort_by_key(|(_, s)| s.bytes);
    let record = by_size.swap_remove(by_size.len() / 2).0;
    let memory = record.path.join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let path = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    (0..rounds)
        .map(|round| {
            let mut ctx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let messages = ctx["messages"].as_array_mut().unwrap();
            let n = messages.len();
            messages.push(json!({"role": "user", "id": format!("bench-{round}"),
                "content": [{"type": "text", "text": format!("appended word{round}")}],
                "_sequence_number": 100_000 + round}));
            ctx["anchor_points"]
                .as_array_mut()
                .unwrap()
                .last_mut()
                .unwrap()[1] = json!(n + 1);
            ctx["message_sequence"] = json!(n + 1);
            std::fs::write(&path, serde_json::to_vec_pretty(&ctx).unwrap()).unwrap();
            let started = Instant::now();
            let report = store.update_index(now_seconds(), &|_, _| {}).unwrap();
            let took = started.elapsed();
            assert_eq!(report.read, 1, "only the changed session is read again");
            took
        })
        .collect()
}

/// Keystroke to the frame showing that query's hits, for every key of some
/// queries, in the list's message search on a warm index.
fn keystrokes(root: &Path) -> (Vec<Duration>, Duration) {
    let mut live = scanned(root);
    live.run_until(LIMIT, |m| m.list.index == IndexState::Ready)
        .expect("the index is up to date");
    live.key(KeyCode::Char('f'), KeyModifiers::CONTROL);
    live.run_until(LIMIT, |m| m.list.mode == ListMode::Messages)
        .unwrap();
    live.longest_turn = Duration::ZERO;
    let mut samples = Vec::new();
    for query in [
        "connection refused",
        "grafana dashboard",
        "token expired",
        "src/auth",
        "role:tool failed",
        "東京",
        "zzqq",
    ] {
        let mut typed = String::new();
        for c in query.chars() {
            typed.push(c);
            live.key(KeyCode::Char(c), KeyModifiers::NONE);
            let want = typed.clone();
            let took = live
                .run_until(LIMIT, |m| m.list.hits.query == want && m.list.hits.answered)
                .expect("answered");
            samples.push(took);
        }
        live.key(KeyCode::Char('u'), KeyModifiers::CONTROL);
        live.run_until(LIMIT, |m| m.list.query.is_empty()).unwrap();
    }
    (samples, live.longest_turn)
}

/// The UI opened on a store without an index: keys pressed every 20 ms until
/// the background build ends; the loop's longest turn, the longest wait for
/// a key, and how long the build took.
fn while_building(root: &Path) -> (Duration, Duration, Duration) {
    let _ = std::fs::remove_dir_all(root.join("cache"));
    let started = Instant::now();
    let mut live = Live::open(source(root), settings(), 120, 40);
    live.run_until(LIMIT, |m| !m.list.scanning).unwrap();
    live.longest_turn = Duration::ZERO;
    let mut key_wait = Duration::ZERO;
    while live.model.list.index != IndexState::Ready {
        let before = live.model.list.selected;
        // The row too: a reply handled in the same burst as the key may
        // order the rows anew, the selection following its row, so the
        // selected number alone can end where it started.
        let row = |m: &Model| m.list.selected_row().map(|r| r.record.id.clone());
        let before_row = row(&live.model);
        let key = if before == 0 {
            KeyCode::Down
        } else {
            KeyCode::Up
        };
        let sent = Instant::now();
        live.key(key, KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.list.selected != before || row(m) != before_row)
            .expect("the key is handled");
        key_wait = key_wait.max(sent.elapsed());
        live.run_until(Duration::from_millis(20), |_| false);
    }
    (live.longest_turn, key_wait, started.elapsed())
}

fn main() {
    let mut temps = Vec::new();
    let root10k = store_root("LOKI_BENCH_10K", 10_000, 12, 10_000, &mut temps);
    let root100k = store_root("LOKI_BENCH_100K", 100_000, 6, 0, &mut temps);
    let only = std::env::var("LOKI_BENCH_ONLY").unwrap_or_default();
    let run = |part: &str| only.is_empty() || only.split(',').any(|p| p == part);
    let mut results = serde_json::Map::new();
    let mut put = |key: &str, value: Value| {
        eprintln!("{key}: {value}");
        results.insert(key.into(), value);
    };
    if run("build") {
        let took = cold_build(&root10k);
        let status = source(&root10k).index_status();
        let conversations = conversation_bytes(&root10k);
        put("index_build_10k_s", json!(took.as_secs_f64()));
        put("index_bytes_10k", json!(status.bytes));
        put("conversation_bytes_10k", json!(conversations));
        put(
            "index_size_ratio_10k",
            json!(status.bytes as f64 / conversations as f64),
        );
        let mut updates = incremental(&root10k, 7);
        put(
            "index_update_one_changed_10k_p50_ms",
            json!(ms(percentile(&mut updates, 0.5))),
        );
        put(
            "index_update_one_changed_10k_max_ms",
            json!(ms(percentile(&mut updates, 1.0))),
        );
    }
    if run("build100k") {
        put(
            "index_build_100k_s",
            json!(cold_build(&root100k).as_secs_f64()),
        );
    }
    if run("keys") {
        for (name, root) in [("10k", &root10k), ("100k", &root100k)] {
            source(root)
                .update_index(now_seconds(), &|_, _| {})
                .unwrap();
            let (mut samples, turn) = keystrokes(root);
            put(
                &format!("hits_keystroke_{name}_p50_ms"),
                json!(ms(percentile(&mut samples, 0.5))),
            );
            put(
                &format!("hits_keystroke_{name}_p95_ms"),
                json!(ms(percentile(&mut samples, 0.95))),
            );
            put(
                &format!("hits_keystroke_{name}_max_ms"),
                json!(ms(percentile(&mut samples, 1.0))),
            );
            put(
                &format!("hits_loop_longest_turn_{name}_ms"),
                json!(ms(turn)),
            );
        }
    }
    if run("during") {
        let (turn, wait, took) = while_building(&root10k);
        put("building_10k_loop_longest_turn_ms", json!(ms(turn)));
        put("building_10k_key_wait_max_ms", json!(ms(wait)));
        put("building_10k_in_ui_s", json!(took.as_secs_f64()));
    }
    let results = Value::Object(results);
    println!("{}", serde_json::to_string_pretty(&results).unwrap());
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-search.json");
    let _ = std::fs::write(out, serde_json::to_vec_pretty(&results).unwrap());
}
