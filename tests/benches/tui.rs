//! The UI and store figures of the performance table, measured through the
//! real runtime (keymap, update, worker and matcher threads) on a virtual
//! screen, on generated stores.
//!
//!   cargo bench --bench tui
//!
//! Stores: LOKI_BENCH_10K and LOKI_BENCH_100K name roots made by
//! `loki-sessions demo` (user `bench`); without them they are generated in a
//! temporary directory first. scripts/bench.sh sets them and also runs the
//! whole-process comparisons. Results are printed and written as JSON to
//! target/bench-tui.json.

// A benchmark stops at its first failure (its figures would mean nothing
// after one), as a test does: unwrap is allowed here as in the tests.
#![allow(clippy::unwrap_used)]

#[path = "support.rs"]
mod support;

#[path = "hand_edit.rs"]
mod hand_edit;

use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::demo::{self, DemoSpec};
use loki_sessions::store::format::Session;
use loki_sessions::store::format::tokens::{self, Encoding};
use loki_sessions::store::{Store, message_counts, now_seconds};
use loki_sessions::tui::live::Live;
use loki_sessions::tui::model::Screen;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::*;

fn first_frame(root: &Path, runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let mut live = Live::open(source(root), settings(), 120, 40);
            live.run_until(LIMIT, |m| !m.list.visible.is_empty())
                .expect("rows appear");
            started.elapsed()
        })
        .collect();
    percentile(&mut times, 0.5)
}

/// The whole process: from starting the binary in a terminal (tmux) to the
/// screen showing session rows, median of `runs`; and the same for a
/// command that prints a row at once (`sh`), what tmux and the looking
/// cost by themselves. The index is the one the bench built beside the
/// store; no agent's folder is listed (a HOME of its own).
fn first_frame_process(root: &Path, runs: usize) -> (Duration, Duration) {
    let home = root.join("bench-home");
    std::fs::create_dir_all(home.join("config")).unwrap();
    let ours = format!(
        "exec env -u CLAUDE_CONFIG_DIR -u CODEX_HOME -u COPILOT_HOME -u QWEN_HOME HOME={home} XDG_CONFIG_HOME={home}/config XDG_DATA_HOME={home}/data XDG_CACHE_HOME={cache} {bin} --root {root} --user {USER}",
        home = home.display(),
        cache = root.join("cache").display(),
        bin = env!("CARGO_BIN_EXE_loki-sessions"),
        root = root.display(),
    );
    let baseline = "exec sh -c 'echo \"loki   a-session   1 hour ago\"; exec sleep 60'".to_string();
    let time = |command: &str| -> Duration {
        let mut times: Vec<Duration> = (0..runs)
            .map(|n| {
                let socket = format!("loki-first-{}-{n}", std::process::id());
                let tmux = |args: &[&str]| {
                    std::process::Command::new("tmux")
                        .args(["-L", &socket])
                        .args(args)
                        .output()
                        .unwrap()
                };
                let started = Instant::now();
                tmux(&[
                    "-f",
                    "/dev/null",
                    "new-session",
                    "-d",
                    "-x",
                    "120",
                    "-y",
                    "40",
                    command,
                ]);
                // A row shows its last use: "… ago".
                while !String::from_utf8_lossy(&tmux(&["capture-pane", "-p"]).stdout)
                    .contains(" ago")
                {
                    assert!(started.elapsed() < LIMIT, "no row on the screen");
                }
                let took = started.elapsed();
                tmux(&["kill-server"]);
                took
            })
            .collect();
        percentile(&mut times, 0.5)
    };
    (time(&ours), time(&baseline))
}

/// Keystroke to the frame showing the filtered list, for every key of some
/// realistic queries.
fn keystrokes(root: &Path) -> (Vec<Duration>, Vec<Duration>, Duration) {
    let mut live = scanned(root);
    live.longest_turn = Duration::ZERO;
    let mut samples = Vec::new();
    let mut complete = Vec::new();
    for query in [
        "fix login bug",
        "pagination",
        "docker image",
        "zz",
        "upgrade react",
        "東京",
    ] {
        let mut typed = String::new();
        for c in query.chars() {
            typed.push(c);
            live.key(KeyCode::Char(c), KeyModifiers::NONE);
            let want = typed.clone();
            let took = live
                .run_until(LIMIT, |m| m.list.visible_query == want)
                .expect("filtered");
            if std::env::var_os("LOKI_BENCH_VERBOSE").is_some() {
                eprintln!("key {want:?}: {:.1} ms", ms(took));
            }
            samples.push(took);
            // The full ranking (the first answer may rank the most recent sessions only).
            let sent = Instant::now() - took;
            live.run_until(LIMIT, |m| {
                m.list.visible_query == want && m.list.visible_complete
            })
            .expect("ranked");
            complete.push(sent.elapsed());
        }
        live.key(KeyCode::Char('u'), KeyModifiers::CONTROL);
        live.run_until(LIMIT, |m| m.list.visible_query.is_empty())
            .expect("cleared");
    }
    (samples, complete, live.longest_turn)
}

struct Opened {
    first_frame: Duration,
    all_counts: Duration,
    key_latency_max: Duration,
    keys_during_count: usize,
    trim_step: Vec<Duration>,
    messages: usize,
    /// The loop's longest turn from the key that opens to the last count.
    open_turn: Duration,
}

/// Opening the long session: first frame, all counts (keys pressed meanwhile
/// must answer), then a trim adjusted step by step.
fn open_big(root: &Path, big_id: &str) -> Opened {
    let mut live = scanned(root);
    for c in big_id.chars().take(18) {
        live.key(KeyCode::Char(c), KeyModifiers::NONE);
    }
    let prefix: String = big_id.chars().take(18).collect();
    live.run_until(LIMIT, |m| {
        m.list.visible_query == prefix
            && m.list.selected_row().is_some_and(|r| r.record.id == big_id)
    })
    .expect("the long session is selected");
    // Let the list settle (its preview of the long session loads too).
    live.run_until(LIMIT, |m| {
        m.list.preview.as_ref().is_some_and(|p| p.id == big_id)
    })
    .expect("preview");
    live.run_until(Duration::from_millis(300), |_| false);
    // From here the loop's longest turn covers opening and counting too.
    live.longest_turn = Duration::ZERO;
    let started = Instant::now();
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.loaded.is_some()))
        .expect("opens");
    let first_frame = started.elapsed();
    let messages = live.model.viewer().unwrap().loaded.as_ref().unwrap().len();
    // Keys while counting: each must be handled at once.
    let mut key_latency_max = Duration::ZERO;
    let mut keys_during_count = 0;
    let complete = |m: &loki_sessions::tui::model::Model| {
        m.viewer()
            .and_then(|v| v.complete_counts(Encoding::Cl100kBase))
            .is_some()
    };
    while !complete(&live.model) {
        let before = live.model.viewer().unwrap().selected;
        let sent = Instant::now();
        live.key(KeyCode::Up, KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.viewer().is_some_and(|v| v.selected != before))
            .expect("key handled");
        key_latency_max = key_latency_max.max(sent.elapsed());
        keys_during_count += 1;
        live.run_until(Duration::from_millis(30), |_| false);
    }
    let all_counts = started.elapsed();
    let open_turn = live.longest_turn;
    // Trim by budget, adjusted step by step through the real loop: a key
    // sent, to the frame that shows the new plan.
    live.key(KeyCode::Char('b'), KeyModifiers::NONE);
    live.run_until(LIMIT, |m| {
        m.viewer()
            .is_some_and(|v| v.trim().is_some_and(|t| t.plan.is_some()))
    })
    .unwrap();
    let mut trim_step = Vec::new();
    for step in 0..60 {
        let value = |m: &loki_sessions::tui::model::Model| {
            m.viewer()
                .and_then(|v| v.trim())
                .map(|t| (t.value, t.plan.is_some()))
        };
        let before = value(&live.model).unwrap().0;
        let key = if step % 2 == 0 { '-' } else { '+' };
        live.key(KeyCode::Char(key), KeyModifiers::NONE);
        let took = live
            .run_until(LIMIT, |m| {
                value(m).is_some_and(|(v, planned)| v != before && planned)
            })
            .expect("re-planned");
        trim_step.push(took);
    }
    Opened {
        first_frame,
        all_counts,
        key_latency_max,
        keys_during_count,
        trim_step,
        messages,
        open_turn,
    }
}

/// Token counting throughput on the long context: one thread, and the
/// parallel path the viewer and trim use.
fn counting(root: &Path, big_id: &str) -> (f64, f64, u64) {
    let memory = root
        .join("users")
        .join(USER)
        .join("session")
        .join(big_id)
        .join("memory");
    let session = Session::load(&memory).unwrap();
    let ctx = session.active_context().unwrap().unwrap();
    let texts: Vec<String> = ctx.messages().map(|m| tokens::message_text(&m)).collect();
    tokens::tokenizer(Encoding::Cl100kBase).unwrap();
    let mut best_single = f64::MAX;
    let mut total = 0;
    for _ in 0..3 {
        let t = Instant::now();
        total = texts
            .iter()
            .map(|s| tokens::count_text(s, Encoding::Cl100kBase).unwrap())
            .sum::<u64>();
        best_single = best_single.min(t.elapsed().as_secs_f64());
    }
    let mut best_parallel = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let counts = message_counts(&ctx, Encoding::Cl100kBase).unwrap();
        assert_eq!(counts.iter().sum::<u64>(), total);
        best_parallel = best_parallel.min(t.elapsed().as_secs_f64());
    }
    (
        total as f64 / best_single,
        total as f64 / best_parallel,
        total,
    )
}

struct TranscriptFigures {
    /// Tab in the viewer to the frame showing the transcript.
    switch: Duration,
    /// Messages laid out for that frame.
    laid_on_switch: usize,
    /// The same the second time.
    switch_again: Duration,
    /// A search pasted at once (first search: no search text made yet), to
    /// the frame showing its first match, and to the complete counter.
    first_match: Duration,
    counter: Duration,
    hits: usize,
    /// The same on a second search (texts made), one with no match.
    warm_counter: Duration,
    /// Each scrolling key to the frame that shows it: the longest.
    scroll_key_max: Duration,
    scroll_keys: usize,
    /// The loop's longest turn from the switch to the last key.
    longest_turn: Duration,
    /// Messages laid out after all that scrolling.
    laid_after: usize,
}

/// The transcript of the long session: switching to it, a search over
/// every message, scrolling.
fn transcript(root: &Path, big_id: &str) -> TranscriptFigures {
    use loki_sessions::tui::model::{Model, TranscriptView};
    let mut live = scanned(root);
    let prefix: String = big_id.chars().take(18).collect();
    for c in prefix.chars() {
        live.key(KeyCode::Char(c), KeyModifiers::NONE);
    }
    live.run_until(LIMIT, |m| {
        m.list.visible_query == prefix
            && m.list.selected_row().is_some_and(|r| r.record.id == big_id)
    })
    .expect("the long session is selected");
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| {
        m.viewer()
            .is_some_and(|v| v.complete_counts(Encoding::Cl100kBase).is_some())
    })
    .expect("opened and counted");
    live.run_until(Duration::from_millis(300), |_| false);
    let view = |m: &Model| -> Option<TranscriptView> { m.viewer()?.transcript().cloned() };
    live.longest_turn = Duration::ZERO;
    let started = Instant::now();
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| view(m).is_some())
        .expect("transcript");
    let switch = started.elapsed();
    let laid_on_switch = view(&live.model).unwrap().laid_count();
    // Again, the grammars ready: back to the table, and to the transcript.
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| {
        m.viewer().is_some_and(|v| v.transcript().is_none())
    })
    .unwrap();
    let started = Instant::now();
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| view(m).is_some())
        .expect("transcript");
    let switch_again = started.elapsed();
    live.key(KeyCode::Char('/'), KeyModifiers::NONE);
    live.run_until(LIMIT, |m| view(m).is_some_and(|v| v.find.is_some()))
        .unwrap();
    let started = Instant::now();
    live.paste("timeout");
    live.run_until(LIMIT, |m| {
        view(m).is_some_and(|v| v.find.is_some_and(|f| f.current.is_some()))
    })
    .expect("a first match");
    let first_match = started.elapsed();
    live.run_until(LIMIT, |m| {
        view(m).is_some_and(|v| v.find.is_some_and(|f| f.complete && !f.hits.is_empty()))
    })
    .expect("every match");
    let counter = started.elapsed();
    let hits = view(&live.model).unwrap().find.unwrap().hits.len();
    live.key(KeyCode::Char('u'), KeyModifiers::CONTROL);
    let started = Instant::now();
    live.paste("zzqx");
    live.run_until(LIMIT, |m| {
        view(m).is_some_and(|v| {
            v.find
                .is_some_and(|f| f.complete && f.field.value() == "zzqx" && f.hits.is_empty())
        })
    })
    .expect("no match");
    let warm_counter = started.elapsed();
    live.key(KeyCode::Esc, KeyModifiers::NONE);
    live.key(KeyCode::Home, KeyModifiers::NONE);
    live.run_until(LIMIT, |m| {
        view(m).is_some_and(|v| v.find.is_none() && v.top == 0)
    })
    .unwrap();
    let mut scroll_key_max = Duration::ZERO;
    let mut scroll_keys = 0;
    let place = |m: &Model| view(m).map(|v| (v.top, v.top_row, m.viewer().unwrap().selected));
    let keys = std::iter::repeat_n(KeyCode::PageDown, 60)
        .chain(std::iter::repeat_n(KeyCode::Char(']'), 60))
        .chain([KeyCode::End])
        .chain(std::iter::repeat_n(KeyCode::PageUp, 60))
        .chain(std::iter::repeat_n(KeyCode::Char('['), 60))
        .chain(std::iter::repeat_n(KeyCode::Char('u'), 30))
        .chain([KeyCode::Home]);
    for code in keys {
        let before = place(&live.model);
        let sent = Instant::now();
        live.key(code, KeyModifiers::NONE);
        live.run_until(LIMIT, |m| place(m) != before)
            .expect("the key moved the transcript");
        scroll_key_max = scroll_key_max.max(sent.elapsed());
        scroll_keys += 1;
    }
    TranscriptFigures {
        switch,
        laid_on_switch,
        switch_again,
        first_match,
        counter,
        hits,
        warm_counter,
        scroll_key_max,
        scroll_keys,
        longest_turn: live.longest_turn,
        laid_after: view(&live.model).unwrap().laid_count(),
    }
}

struct Purged {
    /// Sessions in the plan's removals.
    planned: usize,
    /// Session folders gone from disk afterwards.
    removed: usize,
    took: Duration,
    progress_updates: usize,
    /// The longest single wait for a key while deleting.
    key_latency_max: Duration,
    /// The loop's longest turn while deleting.
    longest_turn: Duration,
    kept_intact: bool,
}

/// A purge of 10,000 sessions through the UI: progress, keys answered,
/// nothing lost that the plan kept.
fn purge(sessions: usize) -> Purged {
    let dir = tempfile::tempdir().unwrap();
    let spec = DemoSpec {
        sessions,
        messages: 4,
        big_context: 0,
        seed: 7,
        user: USER.into(),
        now: now_seconds(),
        extras: false,
    };
    demo::generate(dir.path(), &spec, &|_| {}).unwrap();
    let mut live = scanned(dir.path());
    live.key(KeyCode::Char('g'), KeyModifiers::CONTROL);
    live.run_until(LIMIT, |m| m.purge().is_some_and(|p| p.plan.is_some()))
        .expect("planned");
    // Keep 100: everything else goes.
    let plan = live.model.purge().unwrap().plan.clone().unwrap();
    let kept: Vec<PathBuf> = plan
        .kept()
        .map(|e| e.candidate.record.path.clone())
        .collect();
    let removals = plan.removals().count();
    let folder = dir.path().join("users").join(USER).join("session");
    let count = |folder: &Path| {
        std::fs::read_dir(folder)
            .unwrap()
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .count()
    };
    let before = count(&folder);
    live.key(KeyCode::Char('y'), KeyModifiers::NONE);
    live.key(KeyCode::Char('y'), KeyModifiers::NONE);
    live.run_until(LIMIT, |m| m.purge().is_some_and(|p| p.applying.is_some()))
        .expect("started");
    let started = Instant::now();
    live.longest_turn = Duration::ZERO;
    let mut progress_updates = 0;
    let mut last = None;
    let mut key_latency_max = Duration::ZERO;
    while live.model.purge().is_some_and(|p| p.applying.is_some()) {
        if live.model.purge().and_then(|p| p.applying) != last {
            progress_updates += 1;
            last = live.model.purge().and_then(|p| p.applying);
        }
        // The help overlay opens and closes: keys answer while deleting.
        // Each key's own wait counts (the longest one is reported).
        let sent = Instant::now();
        live.key(KeyCode::F(1), KeyModifiers::NONE);
        live.run_until(LIMIT, |m| {
            m.app.overlay.is_some() || m.purge().is_some_and(|p| p.applying.is_none())
        })
        .unwrap();
        key_latency_max = key_latency_max.max(sent.elapsed());
        let sent = Instant::now();
        live.key(KeyCode::Esc, KeyModifiers::NONE);
        live.run_until(LIMIT, |m| m.app.overlay.is_none()).unwrap();
        key_latency_max = key_latency_max.max(sent.elapsed());
        live.run_until(Duration::from_millis(20), |_| false);
    }
    let took = started.elapsed();
    assert!(matches!(live.model.screen, Screen::Purge(_)));
    let longest_turn = live.longest_turn;
    let kept_intact = kept.iter().all(|p| p.join("meta.json").is_file());
    Purged {
        planned: removals,
        removed: before - count(&folder),
        took,
        progress_updates,
        key_latency_max,
        longest_turn,
        kept_intact,
    }
}

fn main() {
    let mut temps = Vec::new();
    let root10k = store_root("LOKI_BENCH_10K", 10_000, 12, 10_000, &mut temps);
    let root100k = store_root("LOKI_BENCH_100K", 100_000, 6, 0, &mut temps);
    let big_id = {
        let store = Store::loki(&root10k, USER).unwrap();
        let records = store.list().unwrap();
        // The long session is the biggest one on disk.
        records
            .iter()
            .max_by_key(|r| loki_sessions::store::tree_facts(&r.path).map_or(0, |f| f.bytes))
            .unwrap()
            .id
            .clone()
    };

    // The search index is built before anything is timed (as it is after the
    // first run); its own figures are the search bench's.
    for root in [&root10k, &root100k] {
        source(root)
            .update_index(now_seconds(), &|_, _| {})
            .unwrap();
    }

    // LOKI_BENCH_ONLY=first,keys,open,transcript,edit,count,purge runs a
    // subset (while tuning).
    let only = std::env::var("LOKI_BENCH_ONLY").unwrap_or_default();
    let run = |part: &str| only.is_empty() || only.split(',').any(|p| p == part);
    let zero = Duration::ZERO;
    let (first100k, first10k) = if run("first") {
        (first_frame(&root100k, 5), first_frame(&root10k, 5))
    } else {
        (zero, zero)
    };
    let (process100k, tmux_alone) = if run("first") {
        let (ours, tmux_alone) = first_frame_process(&root100k, 5);
        eprintln!(
            "first frame showing rows, 100k sessions, the whole process in tmux: {:.0} ms (tmux and the looking alone: {:.0} ms; the difference {:.0} ms); in process: {:.0} ms",
            ms(ours),
            ms(tmux_alone),
            ms(ours.saturating_sub(tmux_alone)),
            ms(first100k)
        );
        (ours, tmux_alone)
    } else {
        (zero, zero)
    };
    let ((mut keys10k, mut full10k, turn10k), (mut keys100k, mut full100k, turn100k)) =
        if run("keys") {
            (keystrokes(&root10k), keystrokes(&root100k))
        } else {
            (
                (vec![zero], vec![zero], zero),
                (vec![zero], vec![zero], zero),
            )
        };
    let opened = if run("open") {
        open_big(&root10k, &big_id)
    } else {
        Opened {
            first_frame: zero,
            all_counts: zero,
            key_latency_max: zero,
            keys_during_count: 0,
            trim_step: vec![zero],
            messages: 0,
            open_turn: zero,
        }
    };
    let figures = run("transcript").then(|| transcript(&root10k, &big_id));
    let edits = run("edit").then(|| hand_edit::measure(&root10k, &big_id));
    let (single, parallel, tokens_total) = if run("count") {
        counting(&root10k, &big_id)
    } else {
        (0.0, 0.0, 0)
    };
    let purged = if run("purge") {
        let purged = purge(10_000);
        // What the figures stand on: the purge removed what it planned
        // and every session it kept is still whole.
        assert_eq!(
            purged.removed, purged.planned,
            "the purge removed what it planned"
        );
        assert!(purged.kept_intact, "a session the purge kept was lost");
        purged
    } else {
        Purged {
            planned: 0,
            removed: 0,
            took: zero,
            progress_updates: 0,
            key_latency_max: zero,
            longest_turn: zero,
            kept_intact: false,
        }
    };
    let mut trim = opened.trim_step.clone();
    if run("phases") {
        let dir = root10k
            .join("users")
            .join(USER)
            .join("session")
            .join(&big_id)
            .join("memory");
        let t = Instant::now();
        tokens::tokenizer(Encoding::Cl100kBase).unwrap();
        let init = t.elapsed();
        let t = Instant::now();
        let session = Session::load(&dir).unwrap();
        let ctx = session.active_context().unwrap().unwrap();
        let parse = t.elapsed();
        let t = Instant::now();
        let texts: Vec<String> = ctx.messages().map(|m| tokens::message_text(&m)).collect();
        let text = t.elapsed();
        let t = Instant::now();
        let counts = message_counts(&ctx, Encoding::Cl100kBase).unwrap();
        let count = t.elapsed();
        eprintln!(
            "phases: tokenizer init {:.1} ms, parse {:.1} ms, texts {:.1} ms, counting {:.1} ms ({} texts, {} tokens)",
            ms(init),
            ms(parse),
            ms(text),
            ms(count),
            texts.len(),
            counts.iter().sum::<u64>()
        );
    }
    if run("load") {
        let store = Store::loki(&root10k, USER).unwrap();
        let target = store.locate(&big_id).unwrap();
        for _ in 0..3 {
            let t = Instant::now();
            let loaded = store.load_conversation(&target).unwrap();
            eprintln!(
                "load_conversation: {:.1} ms ({} messages)",
                ms(t.elapsed()),
                loaded.context.len()
            );
        }
    }
    if run("matcher") {
        for root in [&root10k, &root100k] {
            let records = Store::loki(root, USER).unwrap().list().unwrap();
            let mut m = loki_sessions::tui::matcher::Matcher::default();
            m.add(records.into_iter().enumerate().collect());
            m.query("");
            for q in [
                "f", "fi", "fix", "fix ", "fix l", "p", "pa", "u", "up", "z", "zz", "東",
            ] {
                let t = Instant::now();
                let n = m.query(q).len();
                eprintln!("matcher {q:?}: {n} rows in {:.1} ms", ms(t.elapsed()));
            }
        }
    }

    let results = json!({
        "first_frame_100k_ms": ms(first100k),
        "first_frame_100k_process_ms": ms(process100k),
        "first_frame_tmux_alone_ms": ms(tmux_alone),
        "first_frame_10k_ms": ms(first10k),
        "keystroke_10k_p50_ms": ms(percentile(&mut keys10k, 0.5)),
        "keystroke_10k_p95_ms": ms(percentile(&mut keys10k, 0.95)),
        "keystroke_10k_max_ms": ms(percentile(&mut keys10k, 1.0)),
        "keystroke_100k_p50_ms": ms(percentile(&mut keys100k, 0.5)),
        "keystroke_100k_p95_ms": ms(percentile(&mut keys100k, 0.95)),
        "keystroke_100k_max_ms": ms(percentile(&mut keys100k, 1.0)),
        "keystroke_10k_complete_p95_ms": ms(percentile(&mut full10k, 0.95)),
        "keystroke_100k_complete_p50_ms": ms(percentile(&mut full100k, 0.5)),
        "keystroke_100k_complete_p95_ms": ms(percentile(&mut full100k, 0.95)),
        "loop_longest_turn_10k_ms": ms(turn10k),
        "loop_longest_turn_100k_ms": ms(turn100k),
        "open_10k_messages": opened.messages,
        "open_first_frame_ms": ms(opened.first_frame),
        "open_all_counts_ms": ms(opened.all_counts),
        "open_keys_during_count": opened.keys_during_count,
        "open_key_latency_max_ms": ms(opened.key_latency_max),
        "open_loop_longest_turn_ms": ms(opened.open_turn),
        "trim_key_to_plan_p50_ms": ms(percentile(&mut trim, 0.5)),
        "trim_key_to_plan_p95_ms": ms(percentile(&mut trim, 0.95)),
        "count_tokens_total": tokens_total,
        "count_tokens_per_s_single": single,
        "count_tokens_per_s_parallel": parallel,
        "purge_planned": purged.planned,
        "purge_removed_on_disk": purged.removed,
        "purge_loop_longest_turn_ms": ms(purged.longest_turn),
        "purge_seconds": purged.took.as_secs_f64(),
        "purge_progress_updates": purged.progress_updates,
        "purge_key_latency_max_ms": ms(purged.key_latency_max),
        "purge_kept_intact": purged.kept_intact,
    });
    let mut results = results;
    if let Some(t) = figures {
        let more = json!({
            "transcript_switch_ms": ms(t.switch),
            "transcript_laid_on_switch": t.laid_on_switch,
            "transcript_switch_again_ms": ms(t.switch_again),
            "transcript_search_first_match_ms": ms(t.first_match),
            "transcript_search_counter_ms": ms(t.counter),
            "transcript_search_hits": t.hits,
            "transcript_search_warm_no_match_ms": ms(t.warm_counter),
            "transcript_scroll_key_max_ms": ms(t.scroll_key_max),
            "transcript_scroll_keys": t.scroll_keys,
            "transcript_loop_longest_turn_ms": ms(t.longest_turn),
            "transcript_laid_after_scrolling": t.laid_after,
        });
        if let (Some(all), Some(more)) = (results.as_object_mut(), more.as_object()) {
            all.extend(more.clone());
        }
    }
    if let Some(mut e) = edits {
        let more = json!({
            "edit_mark_key_to_frame_p50_ms": ms(percentile(&mut e.marks, 0.5)),
            "edit_mark_key_to_frame_p95_ms": ms(percentile(&mut e.marks, 0.95)),
            "edit_mark_key_to_frame_max_ms": ms(percentile(&mut e.marks, 1.0)),
            "edit_marks_and_unmarks": e.marks.len(),
            "edit_marked_at_most": e.marked,
            "edit_partners_planned": e.partners,
            "sort_largest_first_p50_ms": ms(percentile(&mut e.sort, 0.5)),
            "sort_largest_first_p95_ms": ms(percentile(&mut e.sort, 0.95)),
            "sort_back_in_order_p95_ms": ms(percentile(&mut e.unsort, 0.95)),
            "jump_to_big_message_p95_ms": ms(percentile(&mut e.jumps, 0.95)),
            "edit_loop_longest_turn_ms": ms(e.longest_turn),
        });
        if let (Some(all), Some(more)) = (results.as_object_mut(), more.as_object()) {
            all.extend(more.clone());
        }
    }
    println!("{}", serde_json::to_string_pretty(&results).unwrap());
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-tui.json");
    let _ = std::fs::write(out, serde_json::to_vec_pretty(&results).unwrap());
}
