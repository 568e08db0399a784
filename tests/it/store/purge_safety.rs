//! Purge safety, one test per rule: never follow symlinks, only direct
//! children of the user's own session folder, never across filesystems,
//! spare the live / active / locked / unreadable ones, and re-check every
//! entry when applying (skip and report what changed since the preview).

use crate::common::mounts::UnmountAllUnder;
use crate::common::*;
use loki_sessions::store::{Decision, KeepReason, PurgePolicy, Store, StoreError, tree_facts};
use std::fs::File;
use std::path::{Path, PathBuf};

const ALL: PurgePolicy = PurgePolicy {
    keep: 0,
    max_age_days: 0.0,
};

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        + 10.0
}

fn store(root: &Path) -> Store {
    sandbox::store(Store::loki(root, "tester").unwrap())
}

#[test]
fn links_inside_a_session_are_removed_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let id = new_session(&root, "has a link");
    let outside = tmp.path().join("precious");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("data.txt"), "keep me").unwrap();
    std::os::unix::fs::symlink(&outside, sessions(&root).join(&id).join("workspace/link")).unwrap();
    let removed = store(&root).purge(0, 0.0, &[], now()).unwrap();
    assert_eq!(removed, vec![id.clone()]);
    assert_eq!(
        std::fs::read_to_string(outside.join("data.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn a_session_folder_entry_that_is_a_link_is_never_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let real = new_session(&root, "real one");
    let outside = tmp.path().join("elsewhere");
    std::fs::create_dir_all(outside.join("memory")).unwrap();
    std::fs::write(outside.join("meta.json"), r#"{"last_used_at": 1.0}"#).unwrap();
    std::os::unix::fs::symlink(&outside, sessions(&root).join("linked")).unwrap();
    let removed = store(&root).purge(0, 0.0, &[], now()).unwrap();
    assert_eq!(
        removed,
        vec![real],
        "the purge ran and removed the real one"
    );
    assert!(
        std::fs::symlink_metadata(sessions(&root).join("linked")).is_ok(),
        "the link itself stays"
    );
    assert!(
        outside.join("meta.json").exists(),
        "its target is untouched"
    );
}

#[test]
fn only_direct_children_of_the_users_own_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let mine = new_session(&root, "mine");
    let other = sandbox::store(Store::loki(&root, "someone-else").unwrap());
    let theirs = other.start("theirs", None, now()).unwrap().record.id;
    let plan = store(&root).purge_plan(ALL, &[], now()).unwrap();
    assert_eq!(
        plan.removals().count(),
        1,
        "another user's sessions are not in my plan"
    );
    // A plan whose entry points elsewhere (edited, or made for another folder) is refused.
    let mut forged = plan.clone();
    forged.entries[0].candidate.record.path = other.sessions_dir().join(&theirs);
    forged.entries[0].candidate.record.id = theirs.clone();
    let report = store(&root).apply_purge(&forged, &[], |_| {}).unwrap();
    assert!(report.removed.is_empty(), "{report:?}");
    assert!(other.sessions_dir().join(&theirs).exists());
    let report = store(&root).apply_purge(&plan, &[], |_| {}).unwrap();
    assert_eq!(report.removed, vec![mine]);
    assert!(other.sessions_dir().join(&theirs).exists());
}

/// The filesystem rule with a real mount: the walk notices it (and does not
/// count what lies on it), the plan spares the session, and a mount that
/// appears after the preview is caught when the plan is applied. Without
/// root the rule is covered only by the plan's unit test, where the flag is
/// set by hand; the summary then shows this check as ignored.
#[test]
#[ignore = "needs root to mount a tmpfs (.ci/run runs it)"]
fn never_crosses_into_another_filesystem() {
    let tmp = tempfile::tempdir().unwrap();
    let _unmount = UnmountAllUnder(tmp.path().to_path_buf());
    let root = tmp.path().join("store");
    let id = new_session(&root, "has a mount inside");
    let late = new_session(&root, "a mount appears after the preview");
    let on_own_fs = new_session(&root, "mounted over itself after the preview");
    let dir = sessions(&root).join(&id);
    let facts = tree_facts(&dir).unwrap();
    assert!(!facts.crosses_filesystems, "{facts:?}");

    let mount = mount_tmpfs_4m(&dir.join("workspace/mnt"));
    std::fs::write(mount.join("on-tmpfs.bin"), vec![1u8; 1 << 20]).unwrap();
    let facts = tree_facts(&dir).unwrap();
    assert!(facts.crosses_filesystems, "the walk sees the mount point");
    assert!(
        facts.bytes < 1 << 20,
        "nothing on the tmpfs is counted: {facts:?}"
    );

    let plan = store(&root).purge_plan(ALL, &[], now()).unwrap();
    let entry = plan.entry(&id).unwrap();
    assert!(
        matches!(entry.decision, Decision::Keep(_)),
        "{}",
        entry.decision
    );
    assert!(entry.decision.to_string().contains("filesystem"));
    assert!(matches!(
        plan.entry(&late).unwrap().decision,
        Decision::Remove(_)
    ));
    assert!(matches!(
        plan.entry(&on_own_fs).unwrap().decision,
        Decision::Remove(_)
    ));

    // After the preview: a mount inside one session, one over another.
    let late_mount = mount_tmpfs_4m(&sessions(&root).join(&late).join("workspace/mnt"));
    std::fs::write(late_mount.join("data"), "other filesystem").unwrap();
    mount_tmpfs_4m(&sessions(&root).join(&on_own_fs));
    let report = store(&root).apply_purge(&plan, &[], |_| {}).unwrap();
    assert!(
        report.removed.is_empty() && report.failed.is_empty(),
        "{report:?}"
    );
    let why = |id: &str| {
        let found = report.skipped.iter().find(|(s, _)| s == id);
        found.map_or_else(
            || panic!("{id} not skipped: {report:?}"),
            |(_, w)| w.clone(),
        )
    };
    assert!(why(&late).contains("a mount point lies inside"));
    assert!(why(&on_own_fs).contains("another filesystem"));
    assert!(late_mount.join("data").exists() && mount.join("on-tmpfs.bin").exists());
    assert!(dir.join("meta.json").exists() && sessions(&root).join(&late).exists());
}

#[test]
fn the_live_active_locked_and_unreadable_are_spared() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let live = new_session(&root, "live");
    let active = new_session(&root, "active");
    let locked = new_session(&root, "locked");
    let broken = new_session(&root, "broken meta");
    let plain = new_session(&root, "plain");
    let folder = sessions(&root);
    let session_json = folder.join(&active).join("memory/session.json");
    let text = std::fs::read_to_string(&session_json)
        .unwrap()
        .replace("\"is_active\": false", "\"is_active\": true");
    std::fs::write(&session_json, text).unwrap();
    std::fs::write(folder.join(&broken).join("meta.json"), "{").unwrap();
    let holder = File::open(folder.join(&locked)).unwrap();
    holder.lock().unwrap();
    let removed = store(&root)
        .purge(0, 0.0, std::slice::from_ref(&live), now())
        .unwrap();
    assert_eq!(removed, vec![plain]);
    for id in [&live, &active, &locked, &broken] {
        assert!(folder.join(id).exists(), "{id} spared");
    }
    let plan = store(&root)
        .purge_plan(ALL, std::slice::from_ref(&live), now())
        .unwrap();
    let reason = |id: &str| plan.entry(id).unwrap().decision.to_string();
    assert!(reason(&live).starts_with("live"));
    assert!(reason(&active).starts_with("active"));
    assert!(reason(&locked).starts_with("locked"));
    assert!(reason(&broken).starts_with("unreadable"));
    drop(holder);
}

#[test]
fn apply_rechecks_each_entry_and_reports_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let touched = new_session(&root, "touched after the preview");
    let became_active = new_session(&root, "marked active after the preview");
    let became_locked = new_session(&root, "locked after the preview");
    let gone = new_session(&root, "removed by someone else");
    let unchanged = new_session(&root, "unchanged");
    let plan = store(&root).purge_plan(ALL, &[], now()).unwrap();
    assert_eq!(plan.removals().count(), 5);

    std::thread::sleep(std::time::Duration::from_millis(20));
    ok(&root, &["resume", &touched]);
    let session_json = sessions(&root)
        .join(&became_active)
        .join("memory/session.json");
    let text = std::fs::read_to_string(&session_json)
        .unwrap()
        .replace("\"is_active\": false", "\"is_active\": true");
    std::fs::write(&session_json, text).unwrap();
    let holder = File::open(sessions(&root).join(&became_locked)).unwrap();
    holder.lock().unwrap();
    std::fs::remove_dir_all(sessions(&root).join(&gone)).unwrap();

    let mut progress = Vec::new();
    let report = store(&root)
        .apply_purge(&plan, &[], |p| progress.push(p.done))
        .unwrap();
    assert_eq!(report.removed, vec![unchanged.clone()]);
    assert_eq!(progress, vec![1, 2, 3, 4, 5], "progress for every entry");
    let skipped: std::collections::HashMap<_, _> = report.skipped.iter().cloned().collect();
    assert!(
        skipped[&touched].contains("changed since the preview"),
        "{skipped:?}"
    );
    assert!(
        skipped[&became_active].contains("changed since the preview")
            || skipped[&became_active].contains("active")
    );
    assert!(skipped[&became_locked].contains("locked"));
    assert!(skipped[&gone].contains("already gone"));
    for id in [&touched, &became_active, &became_locked] {
        assert!(sessions(&root).join(id).exists());
    }
    drop(holder);
}

#[test]
#[ignore = "needs root to give a tree to another uid (.ci/run runs it)"]
fn a_tree_of_another_uid_is_refused() {
    assert!(
        unsafe_is_root(),
        "giving a tree to another uid needs root; run this check as root, as CI does"
    );
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    new_session(&root, "someone's");
    let user_dir = root.join("users/tester");
    let status = std::process::Command::new("chown")
        .args(["-R", "12345:12345"])
        .arg(&user_dir)
        .status()
        .unwrap();
    assert!(status.success());
    let before = snapshot(&root);
    for args in [
        &["list"][..],
        &["purge", "--yes"],
        &["new", "x", "--no-purge"],
    ] {
        let out = run(&root, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("belongs to uid 12345"), "{stderr}");
    }
    assert_eq!(snapshot(&root), before);
    let err = store(&root).list().unwrap_err();
    assert!(matches!(err, StoreError::Unsafe { .. }));
}

/// CI has root and must run the two checks above; locally they show as ignored.
#[test]
fn ci_runs_the_checks_that_need_root() {
    assert_ci_runs_ignored_checks();
}

fn mount_tmpfs_4m(at: &Path) -> PathBuf {
    crate::common::mounts::mount_tmpfs(at, "4m")
}

fn unsafe_is_root() -> bool {
    loki_sessions::store::current_uid() == 0
}

/// The path of `id`'s active context.
fn active_context(root: &Path, id: &str) -> PathBuf {
    let memory = sessions(root).join(id).join("memory");
    let session: serde_json::Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ))
}

/// Rewrites `path` in place with `bytes` (the same length), its modification
/// time set back: only its change time says it was written.
fn rewrite_in_place_keeping_mtime(path: &Path, bytes: &[u8]) {
    use std::io::{Seek, Write};
    let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().len(), bytes.len() as u64);
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.seek(std::io::SeekFrom::Start(0)).unwrap();
    file.write_all(bytes).unwrap();
    file.set_modified(mtime).unwrap();
}

#[test]
fn a_preview_reads_again_what_changed_since_the_last_one() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let cache = tmp.path().join("cache");
    let damaged = new_session(&root, "to be damaged");
    let activated = new_session(&root, "to be made active");
    let untouched = new_session(&root, "left alone");
    let store = store(&root).with_cache_dir(&cache);
    let at = now();
    let decide = |store: &Store| -> Vec<(String, Decision)> {
        let mut plan: Vec<(String, Decision)> = store
            .purge_plan(ALL, &[], at)
            .unwrap()
            .entries
            .into_iter()
            .map(|e| (e.candidate.record.id.into(), e.decision))
            .collect();
        plan.sort_by(|a, b| a.0.cmp(&b.0));
        plan
    };
    let removed = |plan: &[(String, Decision)], id: &str| {
        plan.iter()
            .any(|(i, d)| i == id && matches!(d, Decision::Remove(_)))
    };
    let first = decide(&store);
    assert!(
        [&damaged, &activated, &untouched]
            .iter()
            .all(|id| removed(&first, id))
    );
    // What the preview read was kept, beside the search index.
    let kept: Vec<PathBuf> = walk_files(&cache)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "purge-checks"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    // One context broken in place (same size, same modification time), one
    // session.json made active in place: both are read again.
    let context = active_context(&root, &damaged);
    let good = std::fs::read(&context).unwrap();
    let mut bad = good.clone();
    bad[0] = b'[';
    rewrite_in_place_keeping_mtime(&context, &bad);
    let session_file = sessions(&root).join(&activated).join("memory/session.json");
    let text = std::fs::read_to_string(&session_file).unwrap();
    let active = text.replacen("\"is_active\": false", "\"is_active\": true ", 1);
    assert_ne!(active, text, "session.json says is_active: false: {text}");
    rewrite_in_place_keeping_mtime(&session_file, active.as_bytes());
    let second = decide(&store);
    let decision = |plan: &[(String, Decision)], id: &str| {
        plan.iter().find(|(i, _)| i == id).unwrap().1.clone()
    };
    assert!(
        matches!(
            decision(&second, &damaged),
            Decision::Keep(KeepReason::UnreadableConversation { .. })
        ),
        "{:?}",
        decision(&second, &damaged)
    );
    assert_eq!(
        decision(&second, &activated),
        Decision::Keep(KeepReason::Active)
    );
    assert!(removed(&second, &untouched));
    // A damaged file of kept answers is not used: the same decisions.
    let mut garbage = std::fs::read(&kept[0]).unwrap();
    let middle = garbage.len() / 2;
    garbage[middle] ^= 0xff;
    std::fs::write(&kept[0], &garbage).unwrap();
    assert_eq!(decide(&store), second);
    // Mended, the context is removable again; applying the purge removes
    // what the preview said and spares the active one.
    rewrite_in_place_keeping_mtime(&context, &good);
    let third = decide(&store);
    assert!(removed(&third, &damaged));
    let mut gone = store.purge(0, 0.0, &[], now()).unwrap();
    gone.sort();
    let mut expected = vec![damaged, untouched];
    expected.sort();
    assert_eq!(gone, expected);
}

/// Every file under `dir`.
fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}
