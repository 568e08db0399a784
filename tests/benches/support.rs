//! What both benchmarks share: the generated stores, the settings, the
//! store opened with its index beside it, percentiles.

use loki_sessions::demo::{self, DemoSpec};
use loki_sessions::store::format::tokens::Encoding;
use loki_sessions::store::{PurgePolicy, Store, StoreKind, now_seconds};
use loki_sessions::tui::live::Live;
use loki_sessions::tui::model::Settings;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const USER: &str = "bench";
pub const LIMIT: Duration = Duration::from_secs(120);

pub fn settings() -> Settings {
    Settings {
        encoding: Encoding::Cl100kBase,
        window_tokens: 128_000,
        policy: PurgePolicy::default(),
        store_kind: StoreKind::Loki,
        display: Default::default(),
        watch: None,
        windows: Vec::new(),
        resume_check: Default::default(),
        looked_in: None,
        archive_due: None,
        hosts: Vec::new(),
        host_timeout: std::time::Duration::from_secs(20),
        open_hosts: Vec::new(),
    }
}

pub fn store_root(
    var: &str,
    sessions: usize,
    messages: usize,
    big: usize,
    keep: &mut Vec<tempfile::TempDir>,
) -> PathBuf {
    if let Some(root) = std::env::var_os(var) {
        return PathBuf::from(root);
    }
    let dir = tempfile::tempdir().unwrap();
    eprintln!(
        "generating {sessions} sessions in {} …",
        dir.path().display()
    );
    let spec = DemoSpec {
        sessions,
        messages,
        big_context: big,
        seed: 42,
        user: USER.into(),
        now: now_seconds(),
        extras: false,
    };
    demo::generate(dir.path(), &spec, &|_| {}).unwrap();
    let root = dir.path().to_path_buf();
    keep.push(dir);
    root
}

/// The store, its search index beside it (not in the user's cache).
pub fn source(root: &Path) -> Store {
    Store::loki(root, USER)
        .unwrap()
        .with_cache_dir(&root.join("cache"))
}

pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Start to the first frame that shows rows, median of `runs`.
pub fn scanned(root: &Path) -> Live {
    let mut live = Live::open(source(root), settings(), 120, 40);
    live.run_until(LIMIT, |m| {
        !m.list.scanning && m.list.visible.len() == m.list.rows.len() && !m.list.rows.is_empty()
    })
    .expect("the scan ends");
    live
}
