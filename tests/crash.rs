//! Crash consistency: writers (new, touch, trim, purge) are killed with
//! SIGKILL at random moments. After every kill each visible file parses, each
//! visible session is whole, leftovers are hidden from readers, and the next
//! writers clean them up. Kills: LOKI_CRASH_KILLS (default 300, the CI setting).

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

fn kills() -> usize {
    std::env::var("LOKI_CRASH_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(300)
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

/// What a reader sees is consistent: every visible JSON file parses and every
/// visible session is whole (meta, session.json, its active context).
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

fn spawn(root: &Path, args: &[String]) -> std::process::Child {
    command()
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
    let tmp = tempfile::tempdir().unwrap();
    let root: PathBuf = tmp.path().to_path_buf();
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
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    let mut rng = Rng(seed);
    let kills = kills();
    let mut killed_mid_run = 0;
    // How long each kind of writer takes, learned as we go, so the kill lands
    // anywhere in its run rather than after it.
    let mut typical_us = [20_000u64; 4];
    for round in 0..kills {
        let ids = live_ids(&root);
        if ids.len() < 6 {
            for i in 0..10 {
                new_session(&root, &format!("refill {round} {i}"));
            }
            continue;
        }
        let id = ids[rng.below(ids.len() as u64) as usize].clone();
        let args: Vec<String> = match round % 4 {
            0 => vec!["new".into(), format!("task {round}"), "--no-purge".into()],
            1 => vec!["resume".into(), id],
            2 => vec![
                "trim".into(),
                id,
                "--keep-messages".into(),
                (1 + rng.below(20)).to_string(),
            ],
            _ => vec![
                "purge".into(),
                "--yes".into(),
                "--keep".into(),
                (ids.len() as u64 - 1 - rng.below(3)).to_string(),
            ],
        };
        let kind = round % 4;
        let started = std::time::Instant::now();
        let mut child = spawn(&root, &args);
        std::thread::sleep(Duration::from_micros(rng.below(typical_us[kind] + 1)));
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        } else {
            let took = started.elapsed().as_micros() as u64;
            typical_us[kind] = (typical_us[kind] * 3 + took) / 4;
        }
        // SIGKILL: no destructor, no cleanup, as a crash or an OOM kill.
        child.kill().unwrap_or(());
        child.wait().unwrap();
        check_store(&root);
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
        "{kills} writers killed ({killed_mid_run} while still running; seed {seed}); {whole} sessions whole, no leftovers"
    );
    assert!(killed_mid_run > kills / 4, "the kills must land mid-write");
}
