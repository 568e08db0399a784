//! The rooms of docs/ARCHITECTURE.md, checked on the source: a change that
//! lets one room reach into another fails here, with the file and line.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            for entry in fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Lines of `path` (outside its `#[cfg(test)]` tail) that contain any of `needles`.
fn offending_lines(path: &Path, needles: &[&str]) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .enumerate()
        .filter(|(_, line)| needles.iter().any(|n| line.contains(n)))
        .map(|(i, line)| format!("{}:{}: {}", path.display(), i + 1, line.trim()))
        .collect()
}

#[test]
fn the_ui_and_the_cli_use_only_the_stores_door() {
    // The store's layers are its own business: callers import what its root
    // re-exports (the `Store` door and the types it hands out).
    let inner = [
        "store::format::",
        "store::fs::",
        "store::ops::",
        "store::sources::",
        "store::parallel",
        "store::error",
    ];
    let mut bad = Vec::new();
    for dir in ["src/tui", "src/cli"] {
        for path in sources(dir) {
            bad.extend(offending_lines(&path, &inner));
        }
    }
    for file in ["src/tui.rs", "src/cli.rs", "src/main.rs"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        bad.extend(offending_lines(&path, &inner));
    }
    assert!(
        bad.is_empty(),
        "reaching past the store's door:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_screen_update_uses_another_screen() {
    // Only the router (src/tui/update.rs) moves between screens; a screen's
    // module changes its own state and returns a Step.
    let screens = ["list", "purge", "viewer", "dialogs"];
    let mut bad = Vec::new();
    for path in sources("src/tui/update") {
        if path.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        let needles: Vec<String> = screens
            .iter()
            .flat_map(|s| [format!("update::{s}"), format!("super::{s}")])
            .collect();
        let needles: Vec<&str> = needles.iter().map(String::as_str).collect();
        bad.extend(offending_lines(&path, &needles));
    }
    assert!(
        bad.is_empty(),
        "a screen reaching into another:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_store_never_reaches_up() {
    // The store is a library: it knows nothing of the UI, the CLI or the demo.
    let mut bad = Vec::new();
    for path in sources("src/store") {
        bad.extend(offending_lines(
            &path,
            &["crate::tui", "crate::cli", "crate::demo", "crate::config"],
        ));
    }
    assert!(
        bad.is_empty(),
        "the store depends on a caller:\n{}",
        bad.join("\n")
    );
}

/// The store's layers, each using only the ones before it.
const LAYERS: [&str; 5] = ["fs", "format", "sources", "ops", "index"];

#[test]
fn the_stores_layers_use_only_the_layers_below_them() {
    // fs < format < sources < ops < index: each may use what comes before
    // it in this list, never what comes after.
    let mut bad = Vec::new();
    for (at, layer) in LAYERS.iter().enumerate() {
        let above: Vec<String> = LAYERS[at + 1..]
            .iter()
            .map(|l| format!("crate::store::{l}"))
            .collect();
        let above: Vec<&str> = above.iter().map(String::as_str).collect();
        let mut files = sources(&format!("src/store/{layer}"));
        files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("src/store/{layer}.rs")));
        for path in files {
            bad.extend(offending_lines(&path, &above));
        }
    }
    assert!(
        bad.is_empty(),
        "a layer of the store reaching up:\n{}",
        bad.join("\n")
    );
}

#[test]
fn only_the_clock_reads_the_time() {
    // store/clock.rs reads the wall clock; everything else is given `now`
    // (seconds since the epoch), so tests and the UI's ticks decide what
    // "now" is. Timers for how long something took (Instant) are not the time.
    let clock = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/clock.rs");
    let mut bad = Vec::new();
    for path in sources("src") {
        if path != clock {
            bad.extend(offending_lines(
                &path,
                &["SystemTime::now", "UNIX_EPOCH.elapsed"],
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "reading the time outside store/clock.rs:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_stores_doc_names_its_layers() {
    // src/store.rs opens with the list of the store's layers: it must name
    // the same layers, in the same order, as the check above keeps.
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store.rs")).unwrap();
    let named: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .filter_map(|l| l.strip_prefix("//! - ")?.split(':').next())
        .map(|name| {
            name.trim_matches(|c| c == '`' || c == '[' || c == ']')
                .to_string()
        })
        .collect();
    assert_eq!(
        named, LAYERS,
        "src/store.rs's doc lists these layers; the store has {LAYERS:?}"
    );
    let count = ["One", "Two", "Three", "Four", "Five", "Six", "Seven"][LAYERS.len() - 1];
    assert!(
        text.contains(&format!("{count} layers")),
        "src/store.rs should say \"{count} layers\""
    );
}
