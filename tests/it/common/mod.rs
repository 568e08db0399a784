//! Helpers shared by the integration tests: running the binary on a temp
//! store and snapshotting a tree to prove nothing changed.

pub mod tmux;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub mod peteos;

/// The built binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_loki-sessions"))
}

/// A config directory that does not exist: runs see no config file (the
/// default config file may be absent; a `--config FILE` may not).
pub const NO_CONFIG_HOME: &str = "/nonexistent-loki-sessions-test-config";

/// The binary, reading no config file and no `LOKI_HOME`.
pub fn command() -> Command {
    let mut command = Command::new(bin());
    command
        .env("XDG_CONFIG_HOME", NO_CONFIG_HOME)
        .env_remove("LOKI_HOME");
    command
}

/// Runs the binary with `--root root --user tester` and `args`, no stdin;
/// its search index lives beside the store (`<root>.cache`), never in the
/// user's cache.
pub fn run(root: &Path, args: &[&str]) -> Output {
    command()
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .arg("--root")
        .arg(root)
        .args(["--user", "tester"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run loki-sessions")
}

/// Stdout of a run that must succeed.
pub fn ok(root: &Path, args: &[&str]) -> String {
    let out = run(root, args);
    assert!(
        out.status.success(),
        "{args:?} failed with {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Parsed JSON stdout of a successful run.
pub fn json(root: &Path, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(root, args)).expect("JSON output")
}

/// The session folder of the test user.
pub fn sessions(root: &Path) -> PathBuf {
    root.join("users/tester/session")
}

/// Every file under `dir` with its bytes (symlinks as their target text).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(path, target.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                out.insert(path.clone(), b"<dir>".to_vec());
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Seconds since the epoch.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Sets `last_used_at` of session `id` to `days` days ago by editing meta.json.
pub fn age_session(root: &Path, id: &str, days: f64) {
    let path = sessions(root).join(id).join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    meta["last_used_at"] = serde_json::json!(now() - days * 86_400.0);
    std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
}

/// Creates a session with `prompt` and returns its id.
pub fn new_session(root: &Path, prompt: &str) -> String {
    ok(root, &["new", prompt, "--no-purge"]).trim().to_string()
}

/// True under CI (`CI` set, and not "", "0" or "false"): there a check that
/// cannot run must fail, never skip, and no variable may redirect one.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// The size of a long loop: `full` under CI or with `LOKI_TEST_SCALE=full`
/// (the CI setting, for a long local run), else `quick`, so that a
/// newcomer's `cargo test` stays short while CI keeps the full loops.
pub fn sized(full: usize, quick: usize) -> usize {
    let asked_full = std::env::var("LOKI_TEST_SCALE").is_ok_and(|v| v == "full");
    if in_ci() || asked_full { full } else { quick }
}

/// Under CI, fails unless the harness runs the ignored checks too
/// (`cargo test -- --include-ignored`): they need root or peteos, which a
/// local run may lack (the summary shows them as ignored) but CI provides.
pub fn assert_ci_runs_ignored_checks() {
    if in_ci() {
        let args: Vec<String> = std::env::args().collect();
        assert!(
            args.iter()
                .any(|a| a == "--include-ignored" || a == "--ignored"),
            "CI must run the ignored checks: cargo test -- --include-ignored (args: {args:?})"
        );
    }
}

/// The settings a headless UI test runs with: cl100k_base, a 128k window,
/// the default purge policy, on a store of `kind`.
pub fn ui_settings(kind: loki_sessions::store::StoreKind) -> loki_sessions::tui::model::Settings {
    loki_sessions::tui::model::Settings {
        encoding: loki_sessions::store::Encoding::Cl100kBase,
        window_tokens: 128_000,
        policy: loki_sessions::store::PurgePolicy::default(),
        store_kind: kind,
        display: Default::default(),
    }
}
