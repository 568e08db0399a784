//! The search index is a cache: a hostile or inconsistent one changes how
//! an answer is found, never what it is, and never makes us write outside
//! it, wait forever or read without bound. Every search here is compared,
//! hit for hit (session, context, message, role), with the direct scan of
//! the files (`--no-index`).

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// A hit as the comparisons see it: session, context, message, role.
pub type Tuple = (String, String, String, String);

/// Every hit of a `search --json` run.
pub fn tuples(out: &Output) -> BTreeSet<Tuple> {
    let hits: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let text = |h: &Value, k: &str| h[k].as_str().unwrap_or_default().to_string();
    hits.iter()
        .map(|h| {
            let parts = ["session_id", "context_id", "message_id", "role"].map(|k| text(h, k));
            let [s, c, m, r] = parts;
            (s, c, m, r)
        })
        .collect()
}

/// A store of three sessions whose active contexts hold `word` in some
/// messages, and its cache folder (`<root>.cache`, as `run` sets it).
pub struct Planted {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub ids: Vec<String>,
}

impl Planted {
    pub fn new() -> Planted {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("store");
        let ids: Vec<String> = (0..3)
            .map(|i| new_session(&root, &format!("planted session {i}")))
            .collect();
        let planted = Planted { tmp, root, ids };
        for (i, id) in planted.ids.iter().enumerate() {
            let messages: Vec<(&str, String)> = (0..10)
                .map(|m| {
                    let role = if m % 2 == 0 { "user" } else { "assistant" };
                    let text = if (m + i) % 3 == 0 {
                        format!("message {m} holds the zebrafoil word")
                    } else {
                        format!("message {m} holds nothing of interest")
                    };
                    (role, text)
                })
                .collect();
            planted.write(id, &messages);
        }
        planted
    }

    /// The active context file of session `id`.
    pub fn context(&self, id: &str) -> PathBuf {
        let memory = sessions(&self.root).join(id).join("memory");
        let session: Value =
            serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
        let ctx = session["active_context_id"].as_str().unwrap();
        memory.join(format!("{ctx}.json"))
    }

    /// Writes `messages` (role, text) as the active context of `id`.
    pub fn write(&self, id: &str, messages: &[(&str, String)]) {
        let path = self.context(id);
        let ctx_id = path.file_stem().unwrap().to_string_lossy().into_owned();
        let list: Vec<Value> = messages
            .iter()
            .enumerate()
            .map(|(i, (role, text))| {
                json!({"role": role, "id": format!("{id}-m{i}"), "_type": "Message",
                       "content": [{"type": "text", "text": text}], "_sequence_number": 3 + i})
            })
            .collect();
        let n = list.len();
        let ctx = json!({"messages": list, "id": ctx_id, "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", n]],
            "message_sequence": n, "_mutation_counter": 3 + n, "children": []});
        std::fs::write(&path, serde_json::to_vec_pretty(&ctx).unwrap()).unwrap();
    }

    pub fn cache(&self) -> PathBuf {
        self.root.with_extension("cache")
    }

    /// The one index slot of the cache.
    pub fn slot(&self) -> PathBuf {
        let slots = slots(&self.cache());
        assert_eq!(slots.len(), 1, "one slot: {slots:?}");
        slots[0].clone()
    }

    /// The hits of `query` from the files, the reference.
    pub fn reference(&self, query: &str) -> BTreeSet<Tuple> {
        let out = run_bounded(&self.root, &["search", query, "--json", "--no-index"]);
        tuples(&out)
    }

    /// A search through the index: its hits and its notes, which must be
    /// the reference's hits.
    pub fn agrees(&self, query: &str) -> String {
        let out = run_bounded(&self.root, &["search", query, "--json", "--limit", "1000"]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "search {query:?}: {stderr}"
        );
        assert_eq!(
            tuples(&out),
            self.reference(query),
            "search {query:?}: {stderr}"
        );
        stderr
    }
}

/// The index slots under `cache`.
pub fn slots(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache.join("loki-sessions"))
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// The folder and the files of the index are the user's alone.
#[test]
fn the_index_is_private() {
    let p = Planted::new();
    p.agrees("zebrafoil");
    let slot = p.slot();
    assert_eq!(mode(&p.cache().join("loki-sessions")), 0o700);
    assert_eq!(mode(&slot), 0o700);
    let files: Vec<PathBuf> = std::fs::read_dir(&slot)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(files.len() > 3, "{files:?}");
    for file in files {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

/// A link (or a file) where the slot or the folder of slots should be is
/// replaced by a fresh folder, and nothing is written where it pointed.
#[test]
fn a_linked_index_folder_is_replaced_never_followed() {
    let p = Planted::new();
    let want = p.reference("zebrafoil");
    assert_eq!(want.len(), 10, "{want:?}");
    p.agrees("zebrafoil");
    let slot = p.slot();
    let outside = p.tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "must survive").unwrap();
    let before = snapshot(&outside);
    let folder = p.cache().join("loki-sessions");
    let replacements: [(&Path, bool); 3] = [(&slot, true), (&folder, true), (&slot, false)];
    for (path, link) in replacements {
        std::fs::remove_dir_all(path).unwrap();
        if link {
            std::os::unix::fs::symlink(&outside, path).unwrap();
        } else {
            std::fs::write(path, b"not a folder").unwrap();
        }
        let noted = p.agrees("zebrafoil");
        let what = if link {
            "symbolic link"
        } else {
            "not a folder"
        };
        assert!(noted.contains(what), "{}: {noted}", path.display());
        assert_eq!(
            snapshot(&outside),
            before,
            "nothing written through the link"
        );
        let meta = std::fs::symlink_metadata(path).unwrap();
        assert!(meta.is_dir() && mode(path) == 0o700, "{}", path.display());
        assert_eq!(p.slot(), slot, "the same slot, made afresh");
    }
}

/// What the slot may not hold: special files (which would block or never
/// end) and files bigger than an index file ever is, found where tantivy's
/// `meta.json` or the manifest should be. Each is a note, then the same
/// answer, quickly and in little memory.
#[test]
fn special_and_huge_index_files_are_replaced_quickly() {
    let cases: &[(&str, &str)] = &[
        ("meta.json", "fifo"),
        ("sessions.postcard", "fifo"),
        ("meta.json", "/dev/zero"),
        ("sessions.postcard", "/dev/urandom"),
        ("meta.json", "device"),
        ("meta.json", "sparse"),
        ("sessions.postcard", "sparse"),
    ];
    for &(file, kind) in cases {
        if kind == "device" && !super::special::can_make_devices() {
            assert!(!in_ci(), "CI runs as root, so it makes device nodes");
            continue;
        }
        let p = Planted::new();
        p.agrees("zebrafoil");
        let path = p.slot().join(file);
        std::fs::remove_file(&path).unwrap();
        match kind {
            "fifo" => super::special::make(&p.slot(), super::special::Special::Fifo(file)),
            "device" => {
                super::special::make(&p.slot(), super::special::Special::Device(file, 1, 5));
            }
            "sparse" => {
                let f = std::fs::File::create(&path).unwrap();
                f.set_len(1 << 30).unwrap();
            }
            target => std::os::unix::fs::symlink(target, &path).unwrap(),
        }
        for args in [
            vec!["search", "zebrafoil", "--json", "--limit", "1000"],
            vec!["index", "--json"],
        ] {
            let mut command = command();
            command
                .env("XDG_CACHE_HOME", p.cache())
                .arg("--root")
                .arg(&p.root)
                .args(["--user", "tester"])
                .args(&args);
            let what = format!("{file} as {kind}: {args:?}");
            let (out, peak) = run_with_deadline(command, Duration::from_secs(30), &what);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{what}: {stderr}");
            assert!(
                peak.kib < 300 << 10,
                "{what}: {peak}; stdout: {}; stderr: {stderr}",
                String::from_utf8_lossy(&out.stdout)
            );
            if args[0] == "search" {
                assert_eq!(tuples(&out), p.reference("zebrafoil"), "{what}");
                assert!(stderr.contains("replaced"), "{what}: {stderr}");
            }
        }
        p.agrees("zebrafoil");
    }
}

/// tantivy's `meta.json` deleted, or put back from an older copy: the
/// manifest no longer describes the index, which is rebuilt; never an
/// empty or an old answer.
#[test]
fn an_index_that_does_not_match_its_manifest_is_rebuilt() {
    let p = Planted::new();
    p.agrees("zebrafoil");
    let meta = p.slot().join("meta.json");
    std::fs::remove_file(&meta).unwrap();
    let noted = p.agrees("zebrafoil");
    assert!(noted.contains("does not match"), "{noted}");
    let status: Value = serde_json::from_str(&ok(&p.root, &["index", "--json"])).unwrap();
    assert_eq!(status["status"]["messages"], 30, "{status}");
    p.agrees("zebrafoil");
    // An older meta.json put back: the index goes back to a commit the
    // manifest (saved after a later one) does not describe.
    let old = std::fs::read(&meta).unwrap();
    p.write(&p.ids[0], &[("user", "a new quasarwidget".to_string())]);
    p.agrees("quasarwidget");
    std::fs::write(&meta, &old).unwrap();
    for query in ["quasarwidget", "zebrafoil"] {
        p.agrees(query);
    }
    // The manifest deleted, the index kept.
    std::fs::remove_file(p.slot().join("sessions.postcard")).unwrap();
    p.agrees("zebrafoil");
}

/// An edit that keeps the size and puts the modification time back (with
/// its nanoseconds) is still seen: the change time moved.
#[test]
fn a_same_size_edit_with_its_time_put_back_is_seen() {
    let p = Planted::new();
    p.agrees("zebrafoil");
    let path = p.context(&p.ids[1]);
    let times = std::fs::metadata(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("zebrafoil", "quokkabar");
    assert_eq!(edited.len(), text.len());
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&path, edited).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(times.modified().unwrap()).unwrap();
    drop(file);
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (times.len(), times.modified().unwrap())
    );
    assert_eq!(p.reference("quokkabar").len(), 3);
    p.agrees("quokkabar");
    p.agrees("zebrafoil");
}

/// One slot per folder, however `--root` is typed; two folders typed
/// alike from different places are two slots, and switching between them
/// reads nothing again.
#[test]
fn the_slot_is_the_folder_not_how_it_was_typed() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let index = |cwd: &Path, root: &str| -> Value {
        let mut command = command();
        command
            .current_dir(cwd)
            .env("XDG_CACHE_HOME", &cache)
            .args(["--root", root, "--user", "tester", "index", "--json"]);
        let (out, _) = run_with_deadline(command, DEADLINE, root);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        std::fs::create_dir(dir).unwrap();
        new_session(&dir.join("s1"), "a session to index");
    }
    let absolute = a.join("s1");
    let first = index(tmp.path(), absolute.to_str().unwrap());
    assert_eq!(first["update"]["read"], 1);
    for typed in ["s1", "./s1/", "../a/s1"] {
        let again = index(&a, typed);
        assert_eq!(again["update"]["read"], 0, "{typed}: {again}");
    }
    assert_eq!(slots(&cache).len(), 1, "{:?}", slots(&cache));
    // `s1` from b is another folder: its own slot.
    assert_eq!(index(&b, "s1")["update"]["read"], 1);
    assert_eq!(slots(&cache).len(), 2);
    for _ in 0..2 {
        assert_eq!(index(&a, "s1")["update"]["read"], 0);
        assert_eq!(index(&b, "s1")["update"]["read"], 0);
    }
}
