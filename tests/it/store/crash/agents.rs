//! Crash consistency of what is written for other agents' sessions: a
//! fork (`trim`), a delete into the trash and a restore, each killed with
//! SIGKILL at random moments. After every kill the original is as it was,
//! every visible session file is whole (each line JSON, the last one ended)
//! and each session is either where it was, whole, or in the trash, whole
//! (once the next trash command has finished what the kill left). The
//! kills are drawn over a run's usual length, measured on one run not
//! killed, and half of them aimed just after the first write; enough must
//! land after a write for the checks to mean something.

use super::{Rng, kills, seed};
use crate::common::*;
use loki_sessions::demo::agents;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
}

impl Home {
    fn cmd(&self, args: &[&str]) -> std::process::Command {
        let mut c = command();
        c.at_home(&self.home)
            .env("XDG_DATA_HOME", &self.data)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }
}

/// Every file under `dir` that a reader sees (hidden ones left out).
fn visible(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

fn whole(path: &Path, bytes: &[u8]) {
    assert!(bytes.ends_with(b"\n"), "{} ends mid-line", path.display());
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        assert!(
            serde_json::from_slice::<serde_json::Value>(line).is_ok(),
            "{}: a torn line",
            path.display()
        );
    }
}

/// Every file and folder under `dirs`, hidden ones too, with its size: a
/// write (a temporary file made, a file moved) changes it.
fn listing(dirs: &[&Path]) -> BTreeMap<PathBuf, u64> {
    let mut out = BTreeMap::new();
    let mut todo: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                todo.push(e.path());
            }
            out.insert(e.path(), meta.len());
        }
    }
    out
}

/// How long a run of `args` takes, in microseconds, measured on one run
/// that is not killed (which must succeed).
fn typical_us(h: &Home, args: &[&str]) -> u64 {
    let started = Instant::now();
    assert!(h.cmd(args).status().unwrap().success(), "{args:?}");
    started.elapsed().as_micros() as u64
}

/// Where a killed writer stood.
#[derive(Default)]
struct Kills {
    /// Writers killed while still running.
    running: usize,
    /// Of those, the ones killed after their first write.
    after_write: usize,
}

impl Kills {
    /// Fails unless a quarter of the kills landed after a write (half of
    /// them wait for one, but on a loaded machine a writer may finish
    /// between its first write and the kill, and then it is not counted).
    fn check(&self, what: &str, seed: u64) {
        eprintln!(
            "{what}: {} killed while running, {} after their first write",
            self.running, self.after_write
        );
        assert!(
            self.after_write * 4 >= self.running && self.after_write > 0,
            "seed {seed}: too few {what} killed after a write: {} of {}",
            self.after_write,
            self.running
        );
    }
}

/// Runs `args` and kills it with SIGKILL: half the time at a random moment
/// of a run of `typical` microseconds, half the time just after its first
/// change under `watched`; counts it in `kills`.
fn kill_at_random(
    h: &Home,
    args: &[&str],
    rng: &mut Rng,
    typical: u64,
    watched: &[&Path],
    kills: &mut Kills,
) {
    let before = listing(watched);
    let mut child = h.cmd(args).spawn().unwrap();
    if rng.below(2) == 0 {
        std::thread::sleep(Duration::from_micros(rng.below(typical + 1)));
    } else {
        while listing(watched) == before && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_micros(50));
        }
        std::thread::sleep(Duration::from_micros(rng.below(600)));
    }
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    if running {
        kills.running += 1;
        kills.after_write += usize::from(listing(watched) != before);
    }
}

#[test]
fn killed_forks_deletes_and_restores_leave_the_old_state_or_the_new() {
    let seed = seed();
    let mut rng = Rng(seed);
    eprintln!("seed {seed} (LOKI_CRASH_SEED replays it)");
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let projects = home.join(".claude/projects");
    let session = agents::big_claude_session(&projects, 4_000_000, 5, 1.79e9).unwrap();
    // A day old: not one the agent may be writing.
    std::fs::File::options()
        .append(true)
        .open(&session)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(86_400))
        .unwrap();
    let h = Home {
        data: tmp.path().join("data"),
        home,
        _tmp: tmp,
    };
    let id = session.file_stem().unwrap().to_string_lossy().into_owned();
    let original = std::fs::read(&session).unwrap();
    let (fork, delete, restore) = (
        ["trim", &id, "--keep-messages", "50"],
        ["delete", &id, "--yes"],
        ["restore", &id],
    );
    let typical = [
        typical_us(&h, &fork),
        typical_us(&h, &delete),
        typical_us(&h, &restore),
    ];
    for path in visible(&projects).into_keys().filter(|p| *p != session) {
        std::fs::remove_file(path).unwrap();
    }
    let (mut forks, mut deletes, mut restores) =
        (Kills::default(), Kills::default(), Kills::default());
    let rounds = kills() / 4 + 1;
    for round in 0..rounds {
        // A fork killed: the original as it was; a fork, if visible, whole.
        kill_at_random(&h, &fork, &mut rng, typical[0], &[&projects], &mut forks);
        for (path, bytes) in visible(&projects) {
            if path == session {
                assert_eq!(
                    bytes, original,
                    "round {round}, seed {seed}: the original changed"
                );
            } else {
                whole(&path, &bytes);
                std::fs::remove_file(&path).unwrap();
            }
        }
        // A delete killed, then a restore killed: after the next trash
        // command the session is where it was, whole, or in the trash.
        let moved: [&Path; 2] = [&projects, &h.data];
        kill_at_random(&h, &delete, &mut rng, typical[1], &moved, &mut deletes);
        let listed = h.cmd(&["trash"]).status().unwrap();
        let here = session.exists();
        let in_trash = listed.code() == Some(0);
        assert!(
            here != in_trash,
            "round {round}, seed {seed}: here {here}, in the trash {in_trash}"
        );
        // Deleted whole where the kill came first, so that a restore is
        // killed every round.
        if !in_trash {
            assert!(h.cmd(&delete).status().unwrap().success());
        }
        kill_at_random(&h, &restore, &mut rng, typical[2], &moved, &mut restores);
        h.cmd(&["trash"]).status().unwrap();
        if !session.exists() {
            assert!(h.cmd(&restore).status().unwrap().success());
        }
        assert_eq!(
            std::fs::read(&session).unwrap(),
            original,
            "round {round}, seed {seed}: restored exactly"
        );
    }
    forks.check("forks", seed);
    deletes.check("deletes", seed);
    restores.check("restores", seed);
}

/// Every file of the agents' folders in the home `home` (which are hidden
/// folders, so `visible(home)` would see none of them).
fn agents_files(home: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    [".claude", ".codex", ".gemini"]
        .into_iter()
        .flat_map(|root| visible(&home.join(root)))
        .collect()
}

/// Every file of the agents' folders with its bytes and modification time.
fn with_times(home: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    agents_files(home)
        .into_iter()
        .map(|(path, bytes)| {
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            (path, (bytes, mtime))
        })
        .collect()
}

#[test]
fn a_killed_purge_of_another_agent_leaves_each_session_in_place_or_in_the_trash() {
    let seed = seed();
    let mut rng = Rng(seed);
    eprintln!("seed {seed} (LOKI_CRASH_SEED replays it)");
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let made = agents::generate(&home, &agents::AgentsSpec::fixtures(1.79e9)).unwrap();
    // A day old: not ones the agent may be writing.
    let day_before = SystemTime::now() - Duration::from_secs(86_400);
    for path in agents_files(&home).keys() {
        std::fs::File::options()
            .append(true)
            .open(path)
            .unwrap()
            .set_modified(day_before)
            .unwrap();
    }
    let h = Home {
        data: tmp.path().join("data"),
        home,
        _tmp: tmp,
    };
    let before = with_times(&h.home);
    assert!(before.len() > 20, "the fixtures are there");
    let trashed = |h: &Home| -> Vec<String> {
        let out = h
            .cmd(&["trash", "--json"])
            .stdout(Stdio::piped())
            .output()
            .unwrap();
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        list.as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect()
    };
    let purge = [
        "purge",
        "--agent",
        "claude",
        "--keep",
        "0",
        "--max-age",
        "0d",
        "--yes",
    ];
    let typical = typical_us(&h, &purge);
    for id in &trashed(&h) {
        assert!(h.cmd(&["restore", id]).status().unwrap().success());
    }
    assert_eq!(
        with_times(&h.home),
        before,
        "restored after the run measured"
    );
    let (claude, data) = (h.home.join(".claude"), h.data.clone());
    let mut purges = Kills::default();
    let mut moved = Vec::new();
    for round in 0..kills() / 4 + 1 {
        kill_at_random(
            &h,
            &purge,
            &mut rng,
            typical,
            &[&claude, &data],
            &mut purges,
        );
        // The next trash command finishes what the kill left half-moved:
        // then each session is where it was, whole, or in the trash, once.
        let in_trash = trashed(&h);
        let mut unique = in_trash.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), in_trash.len(), "round {round}, seed {seed}");
        let now = agents_files(&h.home);
        for id in &made.claude {
            let here = now
                .keys()
                .any(|p| p.file_stem().is_some_and(|s| s.to_string_lossy() == *id));
            assert!(
                here != in_trash.contains(id),
                "round {round}, seed {seed}: {id} here {here}, in the trash {}",
                in_trash.contains(id)
            );
        }
        for (path, bytes) in &now {
            if path.extension().is_some_and(|e| e == "jsonl") {
                assert_eq!(
                    Some(bytes),
                    before.get(path).map(|b| &b.0),
                    "{}",
                    path.display()
                );
            }
        }
        moved.push(in_trash.len());
        for id in &in_trash {
            assert!(h.cmd(&["restore", id]).status().unwrap().success());
        }
        assert_eq!(
            with_times(&h.home),
            before,
            "round {round}, seed {seed}: every byte and time back"
        );
    }
    eprintln!("sessions in the trash after each kill: {moved:?}");
    purges.check("purges", seed);
    assert!(moved.iter().any(|n| *n > 0), "no kill left a session moved");
}
