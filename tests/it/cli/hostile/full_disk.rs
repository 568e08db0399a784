//! A full disk: a write that fails leaves the folder as it was (no orphan
//! fork, no temp file, the parent byte for byte), and its error names the
//! file it was writing, not a temp file. The store lives on a small tmpfs
//! filled to leave a chosen number of free pages, from none to more than a
//! trim needs, so every step of a trim fails in turn. Mounting needs root:
//! CI runs these, a local run lists them as ignored.

use super::{copy_tree, run};
use crate::common::mounts::{UnmountAllUnder, mount_tmpfs};
use crate::common::*;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

const PAGE: u64 = 4096;

/// Free bytes on the filesystem of `path`.
fn free_bytes(path: &Path) -> u64 {
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: statvfs is plain data, filled by the call for a valid path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a valid pointer.
    assert_eq!(unsafe { libc::statvfs(c_path.as_ptr(), &mut st) }, 0);
    st.f_bavail as u64 * st.f_frsize as u64
}

/// Fills the disk of `dir` (with `dir/filler`) so that `pages` pages stay free.
/// A file deleted just before may free its pages a moment late: a child
/// another test forks holds the test process's open files until it runs
/// its program. So the disk is topped up until the free space stays put.
fn leave_free(dir: &Path, pages: u64) {
    let filler = dir.join("filler");
    // Truncated, not removed: its pages are free at once, whoever holds it.
    let mut file = std::fs::File::create(&filler).unwrap();
    let chunk = vec![0u8; 64 << 10];
    for _ in 0..100 {
        let mut left = free_bytes(dir).saturating_sub(pages * PAGE);
        if left == 0 {
            break;
        }
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            file.write_all(&chunk[..n]).unwrap();
            left -= n as u64;
        }
        file.sync_all().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(free_bytes(dir) <= pages * PAGE, "the disk is filled");
}

/// A session with a context of about 40 KB (100 messages), on `root`.
fn long_session(root: &Path) -> String {
    let id = new_session(root, "a long conversation");
    let memory = sessions(root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    let messages: Vec<Value> = (0..100)
        .map(|i| {
            json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "id": format!("m{i}"),
                "_type": "Message", "content": [{"type": "text", "text": format!("{i} {}", "words ".repeat(60))}],
                "_sequence_number": 3 + i})
        })
        .collect();
    let ctx = json!({"messages": messages, "id": ctx_id, "content_map": {},
        "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 100]],
        "message_sequence": 100, "_mutation_counter": 103, "children": []});
    std::fs::write(
        memory.join(format!("{ctx_id}.json")),
        serde_json::to_vec(&ctx).unwrap(),
    )
    .unwrap();
    id
}

/// Errors name the file being written, never a temp file.
fn names_no_temp_file(stderr: &str) {
    assert!(
        !stderr.contains(".loki-sessions-tmp-"),
        "the error names a temp file: {stderr}"
    );
}

#[test]
#[ignore = "needs root to mount a tmpfs (.ci/run runs it)"]
fn a_trim_that_fails_on_a_full_disk_leaves_the_folder_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let _unmount = UnmountAllUnder(tmp.path().to_path_buf());
    let pristine = tmp.path().join("pristine");
    let id = long_session(&pristine);
    let disk = mount_tmpfs(&tmp.path().join("disk"), "2m");
    let root = disk.join("store");
    let (mut failed, mut done) = (0, 0);
    for pages in 0..=24 {
        // Emptied, not removed (see `leave_free`).
        let _ = std::fs::File::create(disk.join("filler"));
        let _ = std::fs::remove_dir_all(&root);
        copy_tree(&pristine, &root);
        leave_free(&disk, pages);
        let session = sessions(&root).join(&id);
        let before = snapshot(&session);
        let out = run(&root, &["trim", &id, "--keep-messages", "1", "--json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {
                done += 1;
                let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
                let child = answer["new_context_id"].as_str().unwrap();
                let memory = session.join("memory");
                let head: Value =
                    serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap())
                        .unwrap();
                assert_eq!(head["active_context_id"], child, "{pages} pages free");
                let hidden: Vec<_> = snapshot(&session)
                    .into_keys()
                    .filter(|p| p.to_string_lossy().contains(".loki-sessions-tmp-"))
                    .collect();
                assert!(hidden.is_empty(), "{pages} pages free: left {hidden:?}");
            }
            Some(2) => {
                failed += 1;
                assert!(
                    stderr.contains("No space left"),
                    "{pages} pages free: {stderr}"
                );
                names_no_temp_file(&stderr);
                let after = snapshot(&session);
                let changed: Vec<_> = after
                    .iter()
                    .filter(|(p, b)| before.get(*p) != Some(b))
                    .map(|(p, _)| p)
                    .chain(before.keys().filter(|p| !after.contains_key(*p)))
                    .collect();
                assert!(
                    changed.is_empty(),
                    "{pages} pages free: the failed trim changed {changed:?}: {stderr}"
                );
            }
            other => panic!("{pages} pages free: {other:?} {stderr}"),
        }
    }
    eprintln!(
        "a trim with 0 to 24 pages free: {failed} failed, leaving the folder as it was; {done} done"
    );
    assert!(
        failed > 3 && done > 3,
        "every step failed in turn: {failed} failed, {done} done"
    );
}

#[test]
#[ignore = "needs root to mount a tmpfs (.ci/run runs it)"]
fn an_export_that_fails_on_a_full_disk_names_its_file_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let _unmount = UnmountAllUnder(tmp.path().to_path_buf());
    let root = tmp.path().join("store");
    let id = long_session(&root);
    let disk = mount_tmpfs(&tmp.path().join("disk"), "1m");
    leave_free(&disk, 1);
    let before = snapshot(&disk);
    let target = disk.join("out.md");
    for extra in [&[][..], &["--force"][..]] {
        let mut args = vec![
            "export",
            &id,
            "--format",
            "md",
            "-o",
            target.to_str().unwrap(),
        ];
        args.extend(extra);
        let out = run(&root, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(
            stderr.contains(target.to_str().unwrap()),
            "{extra:?}: {stderr}"
        );
        names_no_temp_file(&stderr);
        assert_eq!(
            snapshot(&disk).len(),
            before.len(),
            "{extra:?}: nothing left behind"
        );
    }
}

/// CI has root and must run the checks above; locally they show as ignored.
#[test]
fn ci_runs_the_full_disk_checks() {
    assert_ci_runs_ignored_checks();
}
