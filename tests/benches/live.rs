//! Following the disk, measured: an agent's append to the frame showing
//! it (the list's row, the viewer following the end) with 10k sessions;
//! the real binary's CPU while nothing changes; memory over a long run of
//! appends (the soak).
//!
//!   cargo bench --bench live
//!   LOKI_BENCH_ONLY=soak LOKI_SOAK_SECS=3600 cargo bench --bench live
//!   LOKI_BENCH_ONLY=scale cargo bench --bench live   (100k sessions)
//!   LOKI_BENCH_ONLY=idle20k cargo bench --bench live (20k: CPU and memory, asserted)
//!   LOKI_BENCH_SMOKE=1: small stores and short windows (CI: it answers)
//!
//! Stores: LOKI_BENCH_10K and LOKI_BENCH_100K name roots made by
//! `loki-sessions demo` (user `bench`); without them they are generated. Results are printed and
//! written as JSON to target/bench-live.json.

// A benchmark stops at its first failure (its figures would mean nothing
// after one), as a test does: unwrap is allowed here as in the tests.
#![allow(clippy::unwrap_used)]

// Shared with the other benches; this one needs only part of it.
#[allow(dead_code)]
#[path = "support.rs"]
mod support;

use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::{Store, StoreEvent, WatchMode, WatchOptions};
use loki_sessions::tui::live::Live;
use loki_sessions::tui::model::{Model, Settings};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

fn watching() -> Settings {
    Settings {
        watch: Some(WatchOptions::default()),
        ..settings()
    }
}

/// A session's active context file and its JSON.
struct Agent {
    path: PathBuf,
    doc: Value,
    original: Vec<u8>,
    appended: usize,
}

impl Agent {
    fn of(root: &Path, id: &str) -> Agent {
        let memory = root
            .join("users")
            .join(USER)
            .join("session")
            .join(id)
            .join("memory");
        let session: Value =
            serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
        let path = memory.join(format!(
            "{}.json",
            session["active_context_id"].as_str().unwrap()
        ));
        let original = std::fs::read(&path).unwrap();
        Agent {
            doc: serde_json::from_slice(&original).unwrap(),
            path,
            original,
            appended: 0,
        }
    }

    fn len(&self) -> usize {
        self.doc["messages"].as_array().unwrap().len()
    }

    /// Appends a message as peteos does (at the messages anchor), written
    /// by an atomic replace; returns when the rename is done.
    fn append(&mut self, text: &str) {
        let anchors = self.doc["anchor_points"].as_array().unwrap().clone();
        let at = anchors.iter().position(|a| a[0] == "messages").unwrap();
        let position = anchors[at][1].as_u64().unwrap() as usize;
        let n = self.len();
        let message = json!({
            "id": format!("bench-{}-{n}", self.appended), "role": if n.is_multiple_of(2) { "user" } else { "assistant" },
            "_sequence_number": n + 100, "content": [{"type": "text", "text": text}]
        });
        self.doc["messages"]
            .as_array_mut()
            .unwrap()
            .insert(position, message);
        for a in self.doc["anchor_points"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .skip(at)
        {
            a[1] = (a[1].as_u64().unwrap() + 1).into();
        }
        let counter = self.doc["_mutation_counter"].as_i64().unwrap_or(0) + 1;
        self.doc["_mutation_counter"] = counter.into();
        self.appended += 1;
        let tmp = self.path.with_file_name(".bench-agent-tmp");
        std::fs::write(&tmp, serde_json::to_vec(&self.doc).unwrap()).unwrap();
        std::fs::rename(&tmp, &self.path).unwrap();
    }

    /// Puts the context back as it was (the soak keeps its data bounded).
    fn reset(&mut self) {
        let tmp = self.path.with_file_name(".bench-agent-tmp");
        std::fs::write(&tmp, &self.original).unwrap();
        std::fs::rename(&tmp, &self.path).unwrap();
        self.doc = serde_json::from_slice(&self.original).unwrap();
    }
}

fn row_messages(m: &Model, id: &str) -> Option<usize> {
    let row = &m.list.rows[*m.list.by_id.get(id)?];
    row.stats.as_ref()?.messages
}

fn ready(root: &Path) -> Live {
    let mut live = Live::open(source(root), watching(), 120, 40);
    live.run_until(LIMIT, |m| {
        !m.list.scanning && m.app.watch.is_some() && !m.list.visible.is_empty()
    })
    .expect("the list and the watcher come up");
    // Let the start-up work (stats, the index) settle.
    live.run_until(Duration::from_secs(3), |_| false);
    live
}

/// Append to the list's row showing it, for sessions spread over the store.
fn list_latency(root: &Path, samples: usize) -> Vec<Duration> {
    let mut live = ready(root);
    let ids: Vec<String> = live
        .model
        .list
        .rows
        .iter()
        .map(|r| r.record.id.to_string())
        .collect();
    let mut times = Vec::new();
    for k in 0..samples {
        let id = &ids[(k * 7919) % ids.len()];
        let mut agent = Agent::of(root, id);
        let want = agent.len() + 1;
        agent.append("a message from the agent");
        let written = Instant::now();
        live.run_until(Duration::from_secs(60), |m| {
            row_messages(m, id) == Some(want)
        })
        .expect("the row shows the append");
        times.push(written.elapsed());
        live.run_until(Duration::from_millis(30), |_| false);
    }
    times
}

/// Append to the viewer following the end showing it counted.
fn viewer_latency(root: &Path, samples: usize) -> Vec<Duration> {
    let mut live = ready(root);
    let id = live.model.list.selected_row().unwrap().record.id.clone();
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    let counted = |m: &Model| {
        m.viewer().is_some_and(|v| {
            v.loaded.is_some()
                && v.complete_counts(loki_sessions::store::Encoding::Cl100kBase)
                    .is_some()
        })
    };
    live.run_until(LIMIT, counted).expect("the viewer opens");
    live.key(KeyCode::Char('F'), KeyModifiers::NONE);
    let mut agent = Agent::of(root, &id);
    let mut times = Vec::new();
    for _ in 0..samples {
        let want = agent.len() + 1;
        agent.append("a message from the agent, followed");
        let written = Instant::now();
        live.run_until(Duration::from_secs(60), |m| {
            counted(m)
                && m.viewer().is_some_and(|v| {
                    v.loaded.as_ref().unwrap().len() == want && v.selected == want - 1
                })
        })
        .expect("the viewer shows the append");
        times.push(written.elapsed());
        live.run_until(Duration::from_millis(30), |_| false);
    }
    agent.reset();
    times
}

/// CPU seconds the process `pid` has used (user and system).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // SAFETY: sysconf has no memory effects.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// The real binary left alone, measured once it settled.
struct Idle {
    /// Its share of a core over the window.
    cpu_share: f64,
    /// Seconds from its start to the window.
    settled: f64,
    /// Its resident memory at the end of the window, in bytes.
    rss: u64,
}

/// Resident memory of process `pid`, in bytes.
fn rss_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

/// True for a smoke run (CI): small stores, short windows, figures that
/// mean nothing, only that every part answers.
fn smoke() -> bool {
    std::env::var_os("LOKI_BENCH_SMOKE").is_some()
}

/// The real binary in tmux on `root`, left alone: its CPU share over
/// `window` once it has settled (the index built, the stats gathered), and
/// its resident memory then; `config` is its config file.
fn idle(root: &Path, window: Duration, config: &str) -> Idle {
    let name = format!("loki-live-bench-{}", std::process::id());
    // A home of its own: no agent's folder of this machine is listed.
    let home = root.join("bench-home");
    std::fs::create_dir_all(home.join("config/loki-sessions")).unwrap();
    std::fs::write(home.join("config/loki-sessions/config.toml"), config).unwrap();
    let command = format!(
        "exec env -u CLAUDE_CONFIG_DIR -u CODEX_HOME -u COPILOT_HOME -u QWEN_HOME HOME={} XDG_CONFIG_HOME={} XDG_CACHE_HOME={} {} --root {} --user {USER}",
        home.display(),
        home.join("config").display(),
        root.join("cache-bin").display(),
        env!("CARGO_BIN_EXE_loki-sessions"),
        root.display()
    );
    // Its search index built first, as a person's is after the first run:
    // what is measured is the binary with nothing to do.
    let indexed = Command::new(env!("CARGO_BIN_EXE_loki-sessions"))
        .args([
            "--root",
            &root.display().to_string(),
            "--user",
            USER,
            "index",
        ])
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("QWEN_HOME")
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", root.join("cache-bin"))
        .output()
        .unwrap();
    assert!(
        indexed.status.success(),
        "{}",
        String::from_utf8_lossy(&indexed.stderr)
    );
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &name])
            .args(args)
            .output()
            .unwrap()
    };
    tmux(&["new-session", "-d", "-x", "120", "-y", "40", &command]);
    let pid: u32 = String::from_utf8(tmux(&["list-panes", "-F", "#{pane_pid}"]).stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Settled: a minute gone (on a busy machine the start-up work, at a
    // low priority, can wait for a core and look done) and then a 5 s
    // stretch under 2% of a core, or five minutes.
    let started = Instant::now();
    let (first, stretch) = if smoke() { (2, 1) } else { (60, 5) };
    std::thread::sleep(Duration::from_secs(first));
    let mut last = cpu_seconds(pid);
    while started.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_secs(stretch));
        let now = cpu_seconds(pid);
        if smoke() || (now - last) / (stretch as f64) < 0.02 {
            break;
        }
        last = now;
    }
    let settled = started.elapsed().as_secs_f64();
    let before = cpu_seconds(pid);
    std::thread::sleep(window);
    let used = cpu_seconds(pid) - before;
    let rss = rss_of(pid);
    tmux(&["kill-server"]);
    Idle {
        cpu_share: used / window.as_secs_f64(),
        settled,
        rss,
    }
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

/// Appends at `rate` a second for `secs`, round robin over 20 sessions
/// (each put back after 100 appends, so the data stays the same size),
/// the viewer following one of them; the resident memory every 10 s.
fn soak(root: &Path, secs: u64, rate: u64) -> Vec<(u64, u64)> {
    let mut live = ready(root);
    let ids: Vec<String> = live
        .model
        .list
        .rows
        .iter()
        .take(20)
        .map(|r| r.record.id.to_string())
        .collect();
    live.key(KeyCode::Tab, KeyModifiers::NONE);
    live.run_until(Duration::from_secs(5), |m| {
        m.viewer().is_some_and(|v| v.loaded.is_some())
    });
    live.key(KeyCode::Char('F'), KeyModifiers::NONE);
    let mut agents: Vec<Agent> = ids.iter().map(|id| Agent::of(root, id)).collect();
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut next_sample = Duration::ZERO;
    let mut k = 0usize;
    let gap = Duration::from_millis(1000 / rate.max(1));
    while started.elapsed() < Duration::from_secs(secs) {
        let agent = &mut agents[k % 20];
        if agent.appended >= 100 {
            agent.reset();
            agent.appended = 0;
        } else {
            agent.append("soak");
        }
        k += 1;
        live.run_until(gap, |_| false);
        if started.elapsed() >= next_sample {
            samples.push((started.elapsed().as_secs(), rss_bytes()));
            if samples.len() % 6 == 1 {
                let (t, rss) = samples[samples.len() - 1];
                eprintln!("soak: {t} s, RSS {:.1} MiB", rss as f64 / 1048576.0);
            }
            next_sample += Duration::from_secs(10);
        }
    }
    for agent in &mut agents {
        agent.reset();
    }
    samples.push((started.elapsed().as_secs(), rss_bytes()));
    samples
}

/// How the watcher covers the folders of `root`: the first mode it
/// reports and how long it took to say it.
fn watch_mode(root: &Path) -> (WatchMode, Duration) {
    let (tx, rx) = std::sync::mpsc::channel();
    let started = Instant::now();
    let _watch = source(root).watch(WatchOptions::default(), move |event| {
        if let StoreEvent::Mode(mode) = event {
            let _ = tx.send(mode);
        }
        true
    });
    let mode = rx
        .recv_timeout(LIMIT)
        .expect("the watcher says how it watches");
    (mode, started.elapsed())
}

fn summary(name: &str, mut times: Vec<Duration>) -> Value {
    let p50 = ms(percentile(&mut times, 0.5));
    let p95 = ms(percentile(&mut times, 0.95));
    let max = ms(*times.iter().max().unwrap());
    println!(
        "{name}: p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms ({} samples)",
        times.len()
    );
    json!({"p50_ms": p50, "p95_ms": p95, "max_ms": max, "samples": times.len()})
}

/// How long an idle binary is measured.
fn window() -> Duration {
    Duration::from_secs(if smoke() { 3 } else { 60 })
}

/// The binary idle on 20,000 sessions (more folders than the 32,768 watches
/// it takes: the rest polled), dated over three months as a person's are:
/// at most 0.1% of a core and 150 MiB, asserted (a smoke: 300 sessions,
/// nothing asserted but that it ran).
fn idle_20k(temps: &mut Vec<tempfile::TempDir>) -> Value {
    let sessions = if smoke() { 300 } else { 20_000 };
    let root = store_root("LOKI_BENCH_20K", sessions, 12, 0, temps);
    let idle = idle(&root, window(), "");
    let mib = idle.rss as f64 / 1048576.0;
    println!(
        "idle, the binary on {sessions} sessions: {:.3}% of a core over {} s (settled after {:.0} s), {mib:.0} MiB resident",
        100.0 * idle.cpu_share,
        window().as_secs(),
        idle.settled
    );
    if !smoke() {
        assert!(
            idle.cpu_share <= 0.001,
            "idle CPU over 0.1% of a core: {:.3}%",
            100.0 * idle.cpu_share
        );
        assert!(mib <= 150.0, "idle memory over 150 MiB: {mib:.0} MiB");
    }
    json!({"sessions": sessions, "cpu_share": idle.cpu_share, "rss_bytes": idle.rss, "settled_s": idle.settled})
}

fn main() {
    let mut temps = Vec::new();
    let only = std::env::var("LOKI_BENCH_ONLY").unwrap_or_default();
    let run = |part: &str| only.is_empty() || only.split(',').any(|p| p == part);
    // The 10k store, made (and indexed) only for the parts that use it.
    let root10k = if ["latency", "idle", "soak"].iter().any(|p| run(p)) {
        let root = store_root("LOKI_BENCH_10K", 10_000, 12, 0, &mut temps);
        Store::loki(&root, USER)
            .unwrap()
            .with_cache_dir(&root.join("cache"))
            .update_index(loki_sessions::store::now_seconds(), &|_, _| {})
            .unwrap();
        root
    } else {
        PathBuf::new()
    };
    let mut out = serde_json::Map::new();
    if run("latency") {
        out.insert(
            "list_10k".into(),
            summary(
                "append → list row, 10k sessions",
                list_latency(&root10k, if smoke() { 20 } else { 200 }),
            ),
        );
        out.insert(
            "viewer_10k".into(),
            summary(
                "append → viewer following, 10k sessions",
                viewer_latency(&root10k, if smoke() { 20 } else { 200 }),
            ),
        );
    }
    if run("idle") {
        for (part, config) in [("notify", ""), ("polling", "watch = \"poll\"\n")] {
            let idle = idle(&root10k, window(), config);
            println!(
                "idle CPU, the binary on 10k sessions ({part}): {:.2}% of a core over {} s (settled after {:.0} s)",
                100.0 * idle.cpu_share,
                window().as_secs(),
                idle.settled
            );
            out.insert(format!("idle_cpu_share_{part}"), json!(idle.cpu_share));
        }
    }
    if run("idle20k") {
        out.insert("idle_20k".into(), idle_20k(&mut temps));
    }
    if run("soak") {
        let secs: u64 = std::env::var("LOKI_SOAK_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(if smoke() { 10 } else { 120 });
        let samples = soak(&root10k, secs, 10);
        let mb = |b: u64| b as f64 / 1048576.0;
        let first = samples.get(1).or(samples.first()).unwrap().1;
        let last = samples.last().unwrap().1;
        let max = samples.iter().map(|s| s.1).max().unwrap();
        println!(
            "soak, {secs} s of appends at 10/s: RSS {:.1} MiB after 10 s, {:.1} MiB at the end, {:.1} MiB at most",
            mb(first),
            mb(last),
            mb(max)
        );
        out.insert(
            "soak".into(),
            json!({"secs": secs, "rss_after_10s": first, "rss_end": last, "rss_max": max,
                "samples": samples}),
        );
    }
    if only.split(',').any(|p| p == "scale") {
        let root100k = store_root("LOKI_BENCH_100K", 100_000, 6, 0, &mut temps);
        let (mode, took) = watch_mode(&root100k);
        println!(
            "watching 100k sessions: {mode:?}, said after {:.0} ms",
            ms(took)
        );
        let idle = idle(&root100k, window(), "");
        println!(
            "idle CPU, the binary on 100k sessions: {:.2}% of a core over {} s (settled after {:.0} s)",
            100.0 * idle.cpu_share,
            window().as_secs(),
            idle.settled
        );
        out.insert(
            "scale_100k".into(),
            json!({"mode": format!("{mode:?}"), "mode_ms": ms(took), "idle_cpu_share": idle.cpu_share}),
        );
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-live.json");
    let _ = std::fs::create_dir_all(path.parent().unwrap());
    let _ = std::fs::write(
        &path,
        serde_json::to_string_pretty(&Value::Object(out)).unwrap(),
    );
}
