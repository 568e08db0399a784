//! Token counts kept between trims: a trim taking them answers as one that
//! counts afresh, after a message changed, and when the kept file was
//! damaged or removed.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The count files in the test's cache (`run` keeps it beside the root).
fn kept_for(root: &Path) -> Vec<PathBuf> {
    count_files(&root.with_extension("cache"))
}

/// `file` with its first kept count raised by `more` and sealed again.
fn plant(file: &Path, more: u64) {
    let held =
        crate::common::plant_counts(file, |i, count| if i == 0 { count + more } else { count });
    assert!(held >= 1, "a count is kept");
}

#[test]
fn a_trim_with_kept_counts_answers_as_a_fresh_count() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let demo = [
        "demo",
        "--sessions",
        "2",
        "--messages",
        "40",
        "--big-context",
        "0",
        "--plain",
    ];
    ok(&root, &demo);
    let id = json(&root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let trim = || {
        decided(&json(
            &root,
            &["trim", &id, "--max-tokens", "400", "--dry-run", "--json"],
        ))
    };
    let fresh = || {
        for file in kept_for(&root) {
            std::fs::remove_file(file).unwrap();
        }
        trim()
    };
    // Counts the messages carry (`token_count`) are taken as they are:
    // none here, so every count is made, and kept.
    let memory = sessions(&root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let context = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let mut ctx: Value = serde_json::from_slice(&std::fs::read(&context).unwrap()).unwrap();
    for m in ctx["messages"].as_array_mut().unwrap() {
        m.as_object_mut().unwrap().remove("token_count");
    }
    std::fs::write(&context, serde_json::to_vec_pretty(&ctx).unwrap()).unwrap();
    let first = trim();
    assert_eq!(kept_for(&root).len(), 1, "the counts were kept");
    assert_eq!(trim(), first, "kept counts answer as counted ones");
    // ...and are what is read: a count planted in the file (its SHA-256
    // made again) shows, so the checks around could fail.
    let [file] = kept_for(&root).try_into().unwrap();
    let kept = std::fs::read(&file).unwrap();
    plant(&file, 1000);
    assert_ne!(trim().0, first.0, "the kept counts are read");
    std::fs::write(&file, &kept).unwrap();
    assert_eq!(trim(), first);

    // A message changed: its text has another key, so it is counted again.
    let message = ctx["messages"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    message["content"] = Value::String(
        "a new text, much longer than the one it replaces, so that its count differs: \
         one two three four five six seven eight nine ten eleven twelve"
            .into(),
    );
    std::fs::write(&context, serde_json::to_vec_pretty(&ctx).unwrap()).unwrap();
    let after_change = trim();
    let expected = fresh();
    assert_eq!(after_change, expected, "a changed message is counted again");
    assert_ne!(after_change.0, first.0, "the change changed the count");

    // A damaged file (a byte of its counts flipped) is not used: one with
    // a planted count, so that using it would show.
    let [file] = kept_for(&root).try_into().unwrap();
    plant(&file, 1000);
    let mut bytes = std::fs::read(&file).unwrap();
    assert_ne!(trim(), expected, "the planted count is read");
    let at = bytes.len() - 36; // the low byte of the last count
    bytes[at] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(trim(), expected, "a damaged file is not used");

    // A missing one: counted, and kept again.
    std::fs::remove_file(&file).unwrap();
    assert_eq!(trim(), expected);
    assert_eq!(kept_for(&root).len(), 1);
}

/// Every slice `count_tokens_kept` hands over, with the counts in order.
fn counted_by_viewer(
    store: &loki_sessions::store::Store,
    target: &loki_sessions::store::Target,
    ctx: &loki_sessions::store::Context,
) -> (Vec<(usize, usize)>, Vec<u64>) {
    use loki_sessions::store::Encoding;
    let slices = std::sync::Mutex::new(Vec::new());
    let counts = std::sync::Mutex::new(vec![0; ctx.len()]);
    store
        .count_tokens_kept(target, ctx, Encoding::Cl100kBase, &|start, slice| {
            slices.lock().unwrap().push((start, slice.len()));
            counts.lock().unwrap()[start..start + slice.len()].copy_from_slice(&slice);
            true
        })
        .unwrap();
    let mut slices = slices.into_inner().unwrap();
    slices.sort();
    (slices, counts.into_inner().unwrap())
}

#[test]
fn what_the_viewer_counts_is_kept_and_a_changed_message_is_counted_again() {
    use loki_sessions::store::{Encoding, Store, message_counts};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "1",
            "--messages",
            "6",
            "--big-context",
            "300",
            "--plain",
        ],
    );
    let cache = dir.path().join("cache");
    let store = Store::loki(&root, "tester").unwrap().with_cache_dir(&cache);
    let (target, ctx) = store
        .list()
        .unwrap()
        .into_iter()
        .map(|r| {
            let target = store.target(&r);
            let ctx = store.load_conversation(&target).unwrap().context;
            (target, ctx)
        })
        .max_by_key(|(_, ctx)| ctx.len())
        .unwrap();
    assert!(ctx.len() > 200, "the big context");
    let fresh = message_counts(&ctx, Encoding::Cl100kBase).unwrap();
    // The first look counts, slice by slice, and keeps what it counted.
    let (slices, first) = counted_by_viewer(&store, &target, &ctx);
    assert_eq!(first, fresh);
    assert!(slices.len() > 1, "counted on the cores, slice by slice");
    // The second hands the kept counts over at once: one slice of all.
    let (slices, second) = counted_by_viewer(&store, &target, &ctx);
    assert_eq!(second, fresh);
    assert_eq!(slices, vec![(0, ctx.len())], "taken from the kept counts");
    // A message changed (a new text) is counted again, and only it.
    let mut raw = ctx.raw_dict().clone();
    let at = ctx.len() / 2;
    raw["messages"][at]["content"] =
        serde_json::json!([{"type": "text", "text": "a new text, never counted before"}]);
    raw["messages"][at]
        .as_object_mut()
        .unwrap()
        .remove("token_count");
    let changed = loki_sessions::store::Context::from_raw(raw, ctx.path()).unwrap();
    let (slices, counts) = counted_by_viewer(&store, &target, &changed);
    assert_eq!(
        counts,
        message_counts(&changed, Encoding::Cl100kBase).unwrap()
    );
    assert!(slices.contains(&(at, 1)), "{slices:?}");
}
