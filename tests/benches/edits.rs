//! The figures of trimming by hand on the 10,002-message demo context: what
//! the viewer does once when a context is open (read the edit index, count
//! the cleared copies) and what it does at every key (the breakdown, and
//! planning a drop or a clear on the counts it holds).
//!
//!   cargo bench --bench edits
//!
//! LOKI_BENCH_10K names a root made by `loki-sessions demo --user bench
//! --big-context 10000` (scripts/bench.sh makes one); without it a store of
//! that one long session is generated first. Results are printed and
//! written as JSON to target/bench-edits.json.

// A benchmark stops at its first failure (its figures would mean nothing
// after one), as a test does: unwrap is allowed here as in the tests.
#![allow(clippy::unwrap_used)]

use loki_sessions::demo::{self, DemoSpec};
use loki_sessions::store::{
    ClearChoice, EditFacts, Encoding, Store, WindowFacts, clear_targets, cleared_counts,
    message_counts, now_seconds, plan_clear, plan_clear_at, plan_drop_at,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const USER: &str = "bench";
/// Marks, or changes of a number, per measured sequence.
const STEPS: usize = 300;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// (p50, p95, max) in milliseconds.
fn figures(mut samples: Vec<Duration>) -> (f64, f64, f64) {
    samples.sort();
    let at = |p: f64| ms(samples[((samples.len() - 1) as f64 * p).round() as usize]);
    (at(0.5), at(0.95), at(1.0))
}

/// Times `f` once per step.
fn timed(steps: usize, mut f: impl FnMut(usize)) -> Vec<Duration> {
    (0..steps)
        .map(|step| {
            let t = Instant::now();
            f(step);
            t.elapsed()
        })
        .collect()
}

/// A small deterministic generator (xorshift), so runs pick the same marks.
struct Picks(u64);

impl Picks {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn root(keep: &mut Option<tempfile::TempDir>) -> PathBuf {
    if let Some(root) = std::env::var_os("LOKI_BENCH_10K") {
        return PathBuf::from(root);
    }
    let dir = tempfile::tempdir().unwrap();
    eprintln!(
        "generating the 10,002-message session in {} …",
        dir.path().display()
    );
    let spec = DemoSpec {
        sessions: 1,
        messages: 12,
        big_context: 10_000,
        seed: 42,
        user: USER.into(),
        now: now_seconds(),
        extras: false,
    };
    demo::generate(dir.path(), &spec, &|_| {}).unwrap();
    let root = dir.path().to_path_buf();
    *keep = Some(dir);
    root
}

fn main() {
    let mut temp = None;
    let root = root(&mut temp);
    let store = Store::loki(&root, USER).unwrap();
    let records = store.list().unwrap();
    let record = records
        .iter()
        .max_by_key(|r| loki_sessions::store::tree_facts(&r.path).map_or(0, |f| f.bytes))
        .unwrap();
    let target = store.target(record);
    let ctx = store.active_context(&target).unwrap().unwrap();
    let encoding = Encoding::Cl100kBase;
    let counts = message_counts(&ctx, encoding).unwrap();
    let total: u64 = counts.iter().sum();
    eprintln!("{} messages, {total} tokens", ctx.len());

    // Once per opened context (the viewer's worker thread).
    let mut index_builds = Vec::new();
    let mut index = None;
    for _ in 0..5 {
        let t = Instant::now();
        index = Some(EditFacts::new(&ctx));
        index_builds.push(t.elapsed());
    }
    let index = index.unwrap();
    let mut window_builds = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        std::hint::black_box(WindowFacts::new(&ctx));
        window_builds.push(t.elapsed());
    }
    let clearable: Vec<usize> = index.clearable_messages().collect();
    let t = Instant::now();
    let cleared = cleared_counts(&ctx, &index, &counts, encoding, &clearable).unwrap();
    let cleared_once = t.elapsed();

    // At every key: the breakdown from the counts.
    let mut sum = 0;
    let breakdown = timed(STEPS, |_| sum += index.breakdown(&counts).total());
    assert_eq!(sum, total * STEPS as u64, "the breakdown adds up");

    // Marking messages to drop one by one, pairs following.
    let ordinary: Vec<usize> = (0..ctx.len())
        .filter(|&i| index.special(i).is_none())
        .collect();
    let mut picks = Picks(0x9e37_79b9_7f4a_7c15);
    let mut marks = Vec::new();
    let mut last_dropped = 0;
    let drop_marks = timed(STEPS, |_| {
        marks.push(ordinary[picks.below(ordinary.len())]);
        let plan = plan_drop_at(&index, &counts, &marks, true).unwrap();
        last_dropped = plan.dropped.len();
    });
    // Marking tool results to clear one by one.
    let mut marked = Vec::new();
    let clear_marks = timed(STEPS, |_| {
        marked.push(clearable[picks.below(clearable.len())]);
        plan_clear_at(&index, &counts, &cleared, &marked).unwrap();
    });
    // Adjusting the size limit and the number of turns, as ↑/↓ would.
    let over = timed(STEPS, |step| {
        let choice = ClearChoice::Over(50 * step as u64);
        plan_clear(&index, &counts, &cleared, &choice).unwrap();
    });
    let turns = timed(STEPS, |step| {
        let choice = ClearChoice::OlderThanTurns(step * 5);
        plan_clear(&index, &counts, &cleared, &choice).unwrap();
    });
    let everything = clear_targets(&index, &counts, &ClearChoice::Over(0)).unwrap();
    let all = plan_clear(&index, &counts, &cleared, &ClearChoice::Over(0)).unwrap();

    let (b50, b95, bmax) = figures(breakdown);
    let (d50, d95, dmax) = figures(drop_marks);
    let (c50, c95, cmax) = figures(clear_marks);
    let (o50, o95, omax) = figures(over);
    let (t50, t95, tmax) = figures(turns);
    let results = json!({
        "messages": ctx.len(),
        "tokens": total,
        "clearable_messages": clearable.len(),
        "edit_index_build_ms_median": figures(index_builds).0,
        "window_index_build_ms_median": figures(window_builds).0,
        "cleared_counts_once_ms": ms(cleared_once),
        "breakdown_ms": {"p50": b50, "p95": b95, "max": bmax},
        "plan_drop_per_mark_ms": {"p50": d50, "p95": d95, "max": dmax, "marks": STEPS, "dropped_at_the_end": last_dropped},
        "plan_clear_per_mark_ms": {"p50": c50, "p95": c95, "max": cmax, "marks": STEPS},
        "plan_clear_over_n_ms": {"p50": o50, "p95": o95, "max": omax},
        "plan_clear_older_than_turns_ms": {"p50": t50, "p95": t95, "max": tmax},
        "clear_every_result": {"targets": everything.len(), "cleared": all.cleared.len(),
                               "tokens_before": all.tokens_before, "tokens_after": all.tokens_after},
    });
    println!("{}", serde_json::to_string_pretty(&results).unwrap());
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-edits.json");
    let _ = std::fs::write(out, serde_json::to_vec_pretty(&results).unwrap());
}
