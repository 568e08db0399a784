//! Hostile and broken input: every case of tests/hostile/cases (plus a 100 MB
//! message made here) is put in a store beside a healthy session, then
//! listed, shown, trimmed, resumed and purged. For each: no panic, the exit
//! code documented in tests/hostile/README.md, errors naming the file, no
//! file of a damaged session modified, nothing damaged deleted, nothing
//! outside the store touched, and the healthy session unaffected.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// One case: what `list` reports, and the exit codes of show / trim / resume.
struct Case {
    name: &'static str,
    /// Substring of the error `list --json` reports (None: readable).
    list_error: Option<&'static str>,
    show: i32,
    trim: i32,
    resume: i32,
    /// Whether `purge --keep 0 --max-age 0` removes it.
    purged: bool,
}

const fn case(
    name: &'static str,
    list_error: Option<&'static str>,
    show: i32,
    trim: i32,
    resume: i32,
    purged: bool,
) -> Case {
    Case {
        name,
        list_error,
        show,
        trim,
        resume,
        purged,
    }
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    case("context-anchor-negative", None, 0, 2, 0, true),
    case("context-anchors-short", None, 0, 2, 0, true),
    case("context-bom", None, 0, 0, 0, true),
    case("context-deep-nesting", Some("recursion limit exceeded"), 2, 2, 0, false),
    case("context-duplicate-messages-key", None, 0, 1, 0, true),
    case("context-huge-integers", None, 0, 0, 0, true),
    case("context-invalid-utf8", Some("not UTF-8"), 2, 2, 0, false),
    case("context-message-a-number", Some("message #1 is a number"), 2, 2, 0, false),
    case("context-messages-an-object", Some("\"messages\" is an object"), 2, 2, 0, false),
    case("context-nan", Some("expected value"), 2, 2, 0, false),
    case("context-no-sequence-numbers", None, 0, 2, 0, true),
    case("context-special-token-text", None, 0, 1, 0, true),
    case("context-string-content", None, 0, 0, 0, true),
    case("context-truncated", Some("EOF while parsing"), 2, 2, 0, false),
    case("context-unknown-part-and-message-types", None, 0, 0, 0, true),
    case("id-leading-dash", None, 0, 0, 0, true),
    case("id-unicode", None, 0, 0, 0, true),
    case("id-with-shell-syntax", None, 0, 0, 0, true),
    case("meta-bom", None, 0, 0, 0, true),
    case("meta-deep-nesting", Some("recursion limit exceeded"), 0, 2, 2, false),
    case("meta-duplicate-keys", None, 0, 0, 0, true),
    case("meta-empty", Some("the file is empty"), 0, 2, 2, false),
    case("meta-huge-number", Some("out of range"), 0, 2, 2, false),
    case("meta-invalid-utf8", Some("not UTF-8"), 0, 2, 2, false),
    case("meta-is-a-directory", Some("Is a directory"), 0, 2, 2, false),
    case("meta-last-used-a-string", Some("\"last_used_at\" is a string"), 0, 2, 2, false),
    case("meta-last-used-missing", Some("\"last_used_at\" is missing"), 0, 2, 2, false),
    case("meta-last-used-null", Some("\"last_used_at\" is null"), 0, 2, 2, false),
    case("meta-missing", Some("No such file"), 0, 2, 2, false),
    case("meta-name-a-number", Some("\"name\" is a number"), 0, 2, 2, false),
    case("meta-nan", Some("expected value"), 0, 2, 2, false),
    case("meta-not-an-object", Some("expected a JSON object"), 0, 2, 2, false),
    case("meta-symlink", Some("symbolic link"), 0, 2, 2, false),
    case("meta-truncated", Some("EOF while parsing"), 0, 2, 2, false),
    case("meta-whitespace", Some("the file is empty"), 0, 2, 2, false),
    case("session-dir-symlink", Some("symbolic link; not followed"), 2, 2, 2, false),
    case("session-json-active-id-a-number", Some("is a number, not a string"), 2, 2, 0, false),
    case("session-json-active-id-traversal", Some("bad context id"), 2, 2, 0, false),
    case("session-json-is-active-truthy-string", None, 0, 0, 0, false),
    case("session-json-missing-context", Some("gone.json"), 1, 1, 0, false),
    case("session-json-missing", Some("session.json"), 1, 1, 0, false),
    case("session-json-truncated", Some("EOF while parsing"), 2, 2, 0, false),
    case("stray-file", Some("not a session directory"), 2, 2, 2, false),
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/cases")
}

/// Copies a case (symlinks kept as links) into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn no_panic(what: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{what} panicked: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

/// A store holding the case and one healthy session; also a directory
/// outside the store that links in the corpus point at.
fn setup(name: &str) -> (tempfile::TempDir, PathBuf, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let healthy = new_session(&root, "healthy neighbour");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(outside.join("victim")).unwrap();
    std::fs::write(outside.join("victim/keep.txt"), "must survive").unwrap();
    std::fs::write(
        outside.join("secret.json"),
        r#"{"secret": "do not read", "last_used_at": 1.0}"#,
    )
    .unwrap();
    copy_tree(&corpus().join(name), &sessions(&root));
    let id = std::fs::read_dir(corpus().join(name))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name()
        .into_string()
        .unwrap();
    (tmp, root, healthy, id)
}

fn check_case(c: &Case) {
    let (tmp, root, healthy, id) = setup(c.name);
    let case_dir = sessions(&root).join(&id);
    let before = snapshot(&case_dir);
    let outside_before = snapshot(&tmp.path().join("outside"));

    let list = run(&root, &["list", "--json", "--tokens"]);
    no_panic("list", &list);
    assert_eq!(list.status.code(), Some(0), "{}: list", c.name);
    let items: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == id.as_str())
        .unwrap_or_else(|| panic!("{}: not listed", c.name));
    match c.list_error {
        None => assert!(item["error"].is_null(), "{}: {}", c.name, item["error"]),
        Some(text) => {
            let error = item["error"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: no error", c.name));
            assert!(error.contains(text), "{}: {error}", c.name);
            assert!(
                error.contains(&id) || error.contains("notes.txt"),
                "{}: names the file: {error}",
                c.name
            );
            assert!(
                !error.contains("do not read"),
                "{}: read through a link",
                c.name
            );
        }
    }
    let healthy_item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == healthy.as_str())
        .unwrap();
    assert!(
        healthy_item["error"].is_null(),
        "the rest of the store still works"
    );

    let codes = [
        ("show", c.show, vec!["show", "--json", "--", &id]),
        (
            "trim",
            c.trim,
            vec!["trim", "--keep-messages", "1", "--json", "--", &id],
        ),
        ("resume", c.resume, vec!["resume", "--", &id]),
    ];
    for (what, want, args) in codes {
        let out = run(&root, &args);
        no_panic(what, &out);
        assert_eq!(
            out.status.code(),
            Some(want),
            "{} {what}: {}",
            c.name,
            String::from_utf8_lossy(&out.stderr)
        );
        if want == 2 {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains(&id) || stderr.contains("notes.txt"),
                "{} {what} names the file: {stderr}",
                c.name
            );
        }
    }
    if c.list_error.is_some() {
        // Resuming a session whose meta.json is fine touches meta.json (its
        // broken conversation is left alone); nothing else may change.
        let touched_meta_only = |snap: std::collections::BTreeMap<PathBuf, Vec<u8>>| {
            snap.into_iter()
                .filter(|(p, _)| c.resume != 0 || !p.ends_with("meta.json"))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            touched_meta_only(snapshot(&case_dir)),
            touched_meta_only(before.clone()),
            "{}: a damaged session is never modified",
            c.name
        );
    }

    let purge = run(
        &root,
        &["purge", "--yes", "--json", "--keep", "0", "--max-age", "0"],
    );
    no_panic("purge", &purge);
    let gone = std::fs::symlink_metadata(&case_dir).is_err();
    assert_eq!(
        gone,
        c.purged,
        "{}: purged? {}",
        c.name,
        String::from_utf8_lossy(&purge.stdout)
    );
    assert!(
        !sessions(&root).join(&healthy).exists(),
        "the healthy, stale-by-policy neighbour was purged"
    );
    assert_eq!(
        snapshot(&tmp.path().join("outside")),
        outside_before,
        "{}: nothing outside the store touched",
        c.name
    );
    if !c.purged && c.list_error.is_some() && c.resume != 0 {
        assert_eq!(
            snapshot(&case_dir),
            before,
            "{}: still untouched after purge",
            c.name
        );
    }
}

#[test]
fn every_case_of_the_corpus_is_handled() {
    let on_disk: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        on_disk.len(),
        CASES.len(),
        "every case on disk has an expectation"
    );
    for c in CASES {
        check_case(c);
    }
    eprintln!(
        "{} hostile cases handled (+1 generated 100 MB message)",
        CASES.len()
    );
}

#[test]
fn shell_syntax_in_an_id_runs_nothing() {
    let (tmp, root, _, id) = setup("id-with-shell-syntax");
    let printed = ok(&root, &["resume", "--print", "id", "--", &id]);
    assert_eq!(printed.trim(), id);
    let pwned: Vec<_> = snapshot(tmp.path())
        .into_keys()
        .filter(|p| p.to_string_lossy().contains("PWNED"))
        .collect();
    assert!(
        pwned.iter().all(|p| p.starts_with(sessions(&root))),
        "{pwned:?}"
    );
}

#[test]
fn unknown_fields_and_huge_numbers_survive_a_trim() {
    let (_tmp, root, _, id) = setup("context-huge-integers");
    ok(&root, &["trim", "--keep-messages", "1", "--", &id]);
    let parent =
        std::fs::read_to_string(sessions(&root).join(&id).join("memory/ctx.json")).unwrap();
    assert!(
        parent.contains("123456789012345678901234567890"),
        "big integer kept exactly"
    );
    // serde_json writes the exponent sign; the value (and Python's reading of it) is the same.
    assert!(
        parent.contains("1e+400") || parent.contains("1e400"),
        "an out-of-range float is kept, not turned into null"
    );
    assert!(parent.contains("\"x_big\""));
}

#[test]
fn a_100_mb_message_is_read_and_counted_without_trouble() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    let id = new_session(&root, "a huge paste");
    let memory = sessions(&root).join(&id).join("memory");
    let session: serde_json::Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_path = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let words = [
        "lorem ",
        "ipsum ",
        "東京 ",
        "🚀 ",
        "fn main() { } ",
        "\"quoted\" ",
    ];
    let mut text = String::with_capacity(100 << 20);
    let mut i = 0;
    while text.len() < 100 << 20 {
        text.push_str(words[i % words.len()]);
        i += 1;
    }
    let ctx = serde_json::json!({"messages": [{"role": "user", "id": "huge", "_sequence_number": 3,
        "content": [{"type": "text", "text": text}]}], "id": "c",
        "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 1]], "_mutation_counter": 4});
    std::fs::write(&ctx_path, serde_json::to_vec(&ctx).unwrap()).unwrap();
    drop(text);
    let before = snapshot(&sessions(&root));
    let list = json(&root, &["list", "--json"]);
    assert_eq!(list[0]["messages"], 1);
    let shown = run(&root, &["show", &id, "--json"]);
    no_panic("show", &shown);
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert!(shown["total_tokens"].as_u64().unwrap() > 10_000_000);
    let plan = run(&root, &["purge", "--dry-run", "--json"]);
    no_panic("purge", &plan);
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert!(
        plan["keep"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["id"] == id.as_str())
    );
    assert_eq!(snapshot(&sessions(&root)), before, "reading wrote nothing");
}
