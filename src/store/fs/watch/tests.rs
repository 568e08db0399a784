use super::*;
use folders::Pace;
use std::sync::mpsc::Receiver;

fn start(roots: Vec<WatchRoot>, options: WatchOptions) -> (FolderWatch, Receiver<FolderEvent>) {
    let (tx, rx) = mpsc::channel();
    let watch = watch(roots, options, Box::new(move |e| tx.send(e).is_ok()));
    (watch, rx)
}

/// Events until `want` holds for the paths seen, or `limit` passes.
fn seen_until(
    rx: &Receiver<FolderEvent>,
    limit: Duration,
    want: impl Fn(&HashSet<PathBuf>) -> bool,
) -> (HashSet<PathBuf>, Vec<WatchMode>) {
    let end = Instant::now() + limit;
    let mut seen = HashSet::new();
    let mut modes = Vec::new();
    while !want(&seen) {
        let Ok(event) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) else {
            break;
        };
        match event {
            FolderEvent::Changed(paths) => seen.extend(paths),
            FolderEvent::Mode(m) => modes.push(m),
            FolderEvent::Lost | FolderEvent::RootGone(_) | FolderEvent::RootBack(_) => {}
        }
    }
    (seen, modes)
}

fn first_mode(rx: &Receiver<FolderEvent>) -> WatchMode {
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(FolderEvent::Mode(m)) => m,
        other => panic!("expected the mode first, got {other:?}"),
    }
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for s in ["a", "b", "c"] {
        std::fs::create_dir_all(dir.path().join(s).join("memory")).unwrap();
        std::fs::write(dir.path().join(s).join("memory/x.json"), "{}").unwrap();
    }
    dir
}

fn root(dir: &Path, depth: usize) -> Vec<WatchRoot> {
    vec![WatchRoot::new(dir.to_path_buf(), depth)]
}

use std::path::Path;

#[test]
fn a_write_in_a_watched_folder_is_reported() {
    let dir = tree();
    let (_w, rx) = start(root(dir.path(), 2), WatchOptions::default());
    assert_eq!(first_mode(&rx), WatchMode::Notify { watches: 7 });
    let file = dir.path().join("b/memory/x.json");
    std::fs::write(&file, "{\"n\": 1}").unwrap();
    let (seen, _) = seen_until(&rx, Duration::from_secs(5), |s| s.contains(&file));
    assert!(seen.contains(&file), "{seen:?}");
}

#[test]
fn polling_asked_for_polls_and_says_so() {
    let dir = tree();
    let options = WatchOptions {
        polling: true,
        poll_interval: Duration::from_millis(20),
        cold_interval: Duration::from_millis(100),
        ..WatchOptions::default()
    };
    let (_w, rx) = start(root(dir.path(), 2), options);
    match first_mode(&rx) {
        WatchMode::Polling { polled: 7, why } => assert!(why.contains("poll"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A file replaced (as an atomic write does) and a new session folder.
    let file = dir.path().join("c/memory/x.json");
    std::fs::write(dir.path().join("c/memory/.tmp"), "{\"n\": 2}").unwrap();
    std::fs::rename(dir.path().join("c/memory/.tmp"), &file).unwrap();
    let (seen, _) = seen_until(&rx, Duration::from_secs(5), |s| s.contains(&file));
    assert!(seen.contains(&file), "{seen:?}");
    std::fs::create_dir_all(dir.path().join("d/memory")).unwrap();
    let new = dir.path().join("d/memory/y.json");
    std::fs::write(&new, "{}").unwrap();
    let (seen, _) = seen_until(&rx, Duration::from_secs(5), |s| s.contains(&new));
    assert!(seen.contains(&new), "{seen:?}");
    // A session folder that goes: the root, which holds only folders, is
    // read again because its own stamp moved.
    std::fs::remove_dir_all(dir.path().join("d")).unwrap();
    let gone = dir.path().join("d");
    let (seen, _) = seen_until(&rx, Duration::from_secs(5), |s| s.contains(&gone));
    assert!(seen.contains(&gone), "{seen:?}");
}

#[test]
fn past_the_watch_budget_the_rest_is_polled_and_a_change_there_is_found() {
    let dir = tree();
    let options = WatchOptions {
        max_watches: 2,
        poll_interval: Duration::from_millis(20),
        cold_interval: Duration::from_millis(100),
        ..WatchOptions::default()
    };
    let (_w, rx) = start(root(dir.path(), 2), options);
    match first_mode(&rx) {
        WatchMode::Mixed {
            watches: 2,
            polled: 5,
            why,
        } => assert!(why.contains("watch_limit"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A polled folder's first look only learns its files: a write before
    // it is what the folder holds, not a change. So each file is written
    // again (a byte longer each time) until the poll reports it.
    for s in ["a", "b", "c"] {
        let file = dir.path().join(s).join("memory/x.json");
        let mut found = false;
        for n in 1..=25 {
            std::fs::write(&file, format!("{{\"changed\": \"{}\"}}", "x".repeat(n))).unwrap();
            let (seen, _) =
                seen_until(&rx, Duration::from_millis(200), |seen| seen.contains(&file));
            if seen.contains(&file) {
                found = true;
                break;
            }
        }
        assert!(found, "{s}: the change was never reported");
    }
}

#[test]
fn a_new_folder_is_watched_with_what_was_written_before_its_watch() {
    let dir = tree();
    let (_w, rx) = start(root(dir.path(), 2), WatchOptions::default());
    first_mode(&rx);
    std::fs::create_dir_all(dir.path().join("new/memory")).unwrap();
    let early = dir.path().join("new/memory/early.json");
    std::fs::write(&early, "{}").unwrap();
    let (seen, _) = seen_until(&rx, Duration::from_secs(5), |s| s.contains(&early));
    assert!(seen.contains(&early), "{seen:?}");
    // And a later write there comes by notification.
    std::thread::sleep(Duration::from_millis(100));
    let late = dir.path().join("new/memory/late.json");
    std::fs::write(&late, "{}").unwrap();
    let (seen, _) = seen_until(&rx, Duration::from_secs(5), |s| s.contains(&late));
    assert!(seen.contains(&late), "{seen:?}");
}

#[test]
fn a_burst_comes_in_few_batches_each_path_once() {
    let dir = tree();
    let (_w, rx) = start(root(dir.path(), 2), WatchOptions::default());
    first_mode(&rx);
    let file = dir.path().join("a/memory/x.json");
    for n in 0..2000 {
        std::fs::write(&file, format!("{{\"n\": {n}}}")).unwrap();
    }
    let mut batches = 0;
    let end = Instant::now() + Duration::from_millis(500);
    while let Ok(event) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
        if let FolderEvent::Changed(paths) = event {
            batches += 1;
            let unique: HashSet<&PathBuf> = paths.iter().collect();
            assert_eq!(unique.len(), paths.len(), "a path twice in one batch");
        }
    }
    assert!(
        (1..200).contains(&batches),
        "{batches} batches for 2,000 writes"
    );
}

#[test]
fn reading_the_files_is_not_a_change() {
    let dir = tree();
    let (_w, rx) = start(root(dir.path(), 2), WatchOptions::default());
    first_mode(&rx);
    for _ in 0..20 {
        let _ = std::fs::read(dir.path().join("a/memory/x.json")).unwrap();
    }
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "a read was reported"
    );
}

#[test]
fn an_append_in_a_folder_polled_among_the_cold_ones_is_reported() {
    // More session folders than are polled file by file at every poll.
    let dir = tempfile::tempdir().unwrap();
    let count = HOT_POLLED + 72;
    for n in 0..count {
        let memory = dir.path().join(format!("s{n:04}")).join("memory");
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(memory.join("c.jsonl"), "{}\n").unwrap();
    }
    let options = WatchOptions {
        polling: true,
        poll_interval: Duration::from_millis(20),
        cold_interval: Duration::from_millis(400),
        ..WatchOptions::default()
    };
    let (_w, rx) = start(root(dir.path(), 2), options);
    first_mode(&rx);
    // Appended in place: the folder's own stamp does not move.
    let file = dir.path().join("s0000/memory/c.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"n\": 1}\n").unwrap();
    drop(f);
    let (seen, _) = seen_until(&rx, Duration::from_secs(10), |s| s.contains(&file));
    assert!(seen.contains(&file), "the append was never seen: {seen:?}");
}

/// Sets the modification time of `path` (a file or a folder).
fn age(path: &Path, seconds_ago: u64) {
    let when = std::time::SystemTime::UNIX_EPOCH
        + Duration::from_secs_f64(crate::store::clock::now_seconds())
        - Duration::from_secs(seconds_ago);
    std::fs::File::open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
}

#[test]
fn a_folder_unchanged_for_a_day_is_polled_at_the_quiet_pace_then_closely_once_it_changes() {
    let dir = tree();
    // a: unchanged for two days; b: changed an hour ago; c: just now.
    for (s, ago) in [("a", 2 * 86_400), ("b", 3_600)] {
        age(&dir.path().join(s).join("memory/x.json"), ago);
        age(&dir.path().join(s).join("memory"), ago);
        age(&dir.path().join(s), ago);
    }
    let mut folders = folders::Folders::discover(&root(dir.path(), 2));
    let pace = Pace {
        hot: HOT_POLLED,
        hot_for: 600.0,
        cold_share: 1.0,
        quiet_interval: 300.0,
    };
    let t0 = crate::store::clock::now_seconds();
    // The first poll learns every folder's files.
    folders.poll(t0, pace);
    for s in ["a", "b", "c"] {
        append(&dir.path().join(s).join("memory/x.json"), "\n");
    }
    let file = |s: &str| dir.path().join(s).join("memory/x.json");
    // A cold round later: the recent ones are seen, the quiet one waits.
    let seen = folders.poll(t0 + 1.0, pace).changed;
    assert!(
        seen.contains(&file("b")) && seen.contains(&file("c")),
        "{seen:?}"
    );
    assert!(!seen.contains(&file("a")), "{seen:?}");
    // Its turn comes within the quiet interval.
    let seen = folders.poll(t0 + 301.0, pace).changed;
    assert!(seen.contains(&file("a")), "{seen:?}");
    // Changed now, it is hot: looked at by every poll, even one whose cold
    // round passes no folder.
    append(&file("a"), "\n");
    let no_cold = Pace {
        cold_share: 0.0,
        ..pace
    };
    let seen = folders.poll(t0 + 302.0, no_cold).changed;
    assert!(seen.contains(&file("a")), "{seen:?}");
}
