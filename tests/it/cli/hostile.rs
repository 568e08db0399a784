//! Hostile and broken input: every case of tests/hostile/cases (plus a 100 MB
//! message made here) is put in a store beside a healthy session, then
//! listed, shown, trimmed, resumed and purged. For each: no panic, the exit
//! code documented in tests/hostile/README.md, errors naming the broken file
//! by its full path, no file modified by a command that refused (meta.json
//! included), a resume changing nothing but `last_used_at`, nothing spared by
//! the purge modified, nothing outside the store touched, and the healthy
//! session unaffected. The UI resumes exactly what the CLI resumes.

use crate::common::*;
mod crafted;
mod full_disk;
mod index;
mod paths;
mod special;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::{Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use loki_sessions::tui::model::Exit;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// One case: what `list` reports, the file at fault, and the exit codes of
/// show / trim / resume.
struct Case {
    name: &'static str,
    /// Substring of the error `list --json` reports (None: readable).
    list_error: Option<&'static str>,
    /// The broken file, relative to the session directory ("" for the
    /// directory itself): every error about the case names its full path.
    broken: Option<&'static str>,
    show: i32,
    trim: i32,
    resume: i32,
    /// Whether `purge --keep 0 --max-age 0` removes it.
    purged: bool,
}

const fn case(
    name: &'static str,
    list_error: Option<&'static str>,
    broken: Option<&'static str>,
    [show, trim, resume]: [i32; 3],
    purged: bool,
) -> Case {
    Case {
        name,
        list_error,
        broken,
        show,
        trim,
        resume,
        purged,
    }
}

const CTX: Option<&str> = Some("memory/ctx.json");
const META: Option<&str> = Some("meta.json");
const SESSION: Option<&str> = Some("memory/session.json");
const DIR: Option<&str> = Some("");

#[rustfmt::skip]
const CASES: &[Case] = &[
    case("context-anchor-negative", None, CTX, [0, 2, 0], true),
    case("context-anchors-short", None, CTX, [0, 2, 0], true),
    case("context-bom", None, None, [0, 0, 0], true),
    case("context-deep-nesting", Some("recursion limit exceeded"), CTX, [2, 2, 2], false),
    case("context-duplicate-messages-key", None, None, [0, 1, 0], true),
    case("context-huge-integers", None, None, [0, 0, 0], true),
    case("context-invalid-utf8", Some("not UTF-8"), CTX, [2, 2, 2], false),
    case("context-message-a-number", Some("message #1 is a number"), CTX, [2, 2, 2], false),
    case("context-messages-an-object", Some("\"messages\" is an object"), CTX, [2, 2, 2], false),
    case("context-nan", Some("expected value"), CTX, [2, 2, 2], false),
    case("context-no-sequence-numbers", None, CTX, [0, 2, 0], true),
    case("context-special-token-text", None, None, [0, 1, 0], true),
    case("context-string-content", None, None, [0, 0, 0], true),
    case("context-truncated", Some("EOF while parsing"), CTX, [2, 2, 2], false),
    case("context-unknown-part-and-message-types", None, None, [0, 0, 0], true),
    case("id-leading-dash", Some("starts with '-'"), DIR, [0, 2, 2], false),
    case("id-unicode", None, None, [0, 0, 0], true),
    case("id-with-shell-syntax", None, None, [0, 0, 0], true),
    case("meta-bom", None, None, [0, 0, 0], true),
    case("meta-deep-nesting", Some("recursion limit exceeded"), META, [0, 2, 2], false),
    case("meta-duplicate-keys", None, None, [0, 0, 0], true),
    case("meta-empty", Some("the file is empty"), META, [0, 2, 2], false),
    case("meta-huge-number", Some("out of range"), META, [0, 2, 2], false),
    case("meta-invalid-utf8", Some("not UTF-8"), META, [0, 2, 2], false),
    case("meta-is-a-directory", Some("Is a directory"), META, [0, 2, 2], false),
    case("meta-last-used-a-string", Some("\"last_used_at\" is a string"), META, [0, 2, 2], false),
    case("meta-last-used-missing", Some("\"last_used_at\" is missing"), META, [0, 2, 2], false),
    case("meta-last-used-null", Some("\"last_used_at\" is null"), META, [0, 2, 2], false),
    case("meta-missing", Some("No such file"), META, [0, 2, 2], false),
    case("meta-name-a-number", Some("\"name\" is a number"), META, [0, 2, 2], false),
    case("meta-nan", Some("expected value"), META, [0, 2, 2], false),
    case("meta-not-an-object", Some("expected a JSON object"), META, [0, 2, 2], false),
    case("meta-symlink", Some("symbolic link"), META, [0, 2, 2], false),
    case("meta-truncated", Some("EOF while parsing"), META, [0, 2, 2], false),
    case("meta-whitespace", Some("the file is empty"), META, [0, 2, 2], false),
    case("session-dir-symlink", Some("symbolic link; not followed"), DIR, [2, 2, 2], false),
    case("session-json-active-id-a-number", Some("is a number, not a string"), SESSION, [2, 2, 2], false),
    case("session-json-active-id-traversal", Some("bad context id"), SESSION, [2, 2, 2], false),
    case("session-json-is-active-truthy-string", None, None, [0, 0, 0], false),
    case("session-json-missing-context", Some("gone.json"), Some("memory/gone.json"), [1, 2, 2], false),
    case("session-json-missing", Some("session.json"), SESSION, [1, 2, 2], false),
    case("session-json-truncated", Some("EOF while parsing"), SESSION, [2, 2, 2], false),
    case("stray-file", Some("not a session directory"), DIR, [2, 2, 2], false),
];

/// Every command of this test runs with a deadline: a hang fails the test
/// instead of stalling it (shadows `common::run`).
fn run(root: &Path, args: &[&str]) -> Output {
    run_bounded(root, args)
}

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
    (tmp, root, healthy, case_id(name))
}

/// The session id (directory name) of a case.
fn case_id(name: &str) -> String {
    std::fs::read_dir(corpus().join(name))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name()
        .into_string()
        .unwrap()
}

/// Every file of a session path, the entry itself included (so that a
/// stray file or a link counts as the case's files too).
type Files = BTreeMap<PathBuf, Vec<u8>>;
fn case_files(case_dir: &Path) -> Files {
    snapshot(case_dir.parent().unwrap())
        .into_iter()
        .filter(|(p, _)| p.starts_with(case_dir))
        .collect()
}

/// Asserts that nothing in `after` differs from `before`, naming what did.
fn assert_unchanged(after: &Files, before: &Files, what: impl std::fmt::Display) {
    let paths: std::collections::BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    let changed: Vec<&PathBuf> = paths
        .into_iter()
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    assert!(changed.is_empty(), "{what}: changed {changed:?}");
}

/// The hand edits (clear, drop) refuse a damaged session and, when they
/// need a fork, the anchors a window trim refuses, naming the file and
/// writing nothing; elsewhere they fork (0) or find nothing to do (1) and
/// write nothing. A dry run of each answers as the write does.
fn hand_edits_follow_the_window(c: &Case, root: &Path, case_dir: &Path, id: &str) {
    let shown = run(root, &["show", "--json", "--", id]);
    let newest = serde_json::from_slice::<serde_json::Value>(&shown.stdout)
        .ok()
        .and_then(|v| {
            v["messages"].as_array()?.last()?["id"]
                .as_str()
                .map(String::from)
        })
        .unwrap_or_else(|| "no-such-message".into());
    let edits = [
        (
            "clear",
            vec!["trim", "--clear-tool-results-over", "0", "--json", "--", id],
        ),
        (
            "drop",
            vec![
                "trim",
                "--drop",
                &newest,
                "--with-pairs",
                "--json",
                "--",
                id,
            ],
        ),
    ];
    for (what, args) in edits {
        let prior = case_files(case_dir);
        let dry_run: Vec<&str> = [&args[..1], &["--dry-run"], &args[1..]].concat();
        let dry = run(root, &dry_run);
        no_panic(what, &dry);
        assert_unchanged(
            &case_files(case_dir),
            &prior,
            format!("{} {what} --dry-run", c.name),
        );
        let out = run(root, &args);
        no_panic(what, &out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let after = case_files(case_dir);
        assert_eq!(
            dry.status.code(),
            code,
            "{} {what}: the dry run answers as the write: {}",
            c.name,
            String::from_utf8_lossy(&dry.stderr)
        );
        // A damaged session is refused. What a window refuses in a readable
        // one (bad anchors, no sequence numbers) a hand edit may not need:
        // a drop ignores sequence numbers, a clear with nothing to clear
        // forks nothing.
        let damaged = c.list_error.is_some();
        let allowed: &[i32] = match (damaged, c.trim) {
            (true, _) => &[2],
            (false, 2) => &[0, 1, 2],
            _ => &[0, 1],
        };
        assert!(
            code.is_some_and(|code| allowed.contains(&code)),
            "{} {what} ({code:?}, want one of {allowed:?}): {stderr}",
            c.name
        );
        if code == Some(2) {
            names_the_file(c, case_dir, what, &stderr);
        }
        if code != Some(0) {
            assert_unchanged(&after, &prior, format!("{} {what} (exit {code:?})", c.name));
        }
    }
}

/// A search (by the index, and by the files) finds the same messages,
/// and a session it cannot read is named in its notes, not silently left out.
fn search_reads_what_it_can(c: &Case, root: &Path, case_dir: &Path) {
    let hits = |extra: &[&str]| {
        let args: Vec<&str> = [&["search", "message", "--json"][..], extra].concat();
        let out = run(root, &args);
        no_panic("search", &out);
        let code = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            matches!(code, Some(0 | 1)),
            "{} search {extra:?}: {code:?} {stderr}",
            c.name
        );
        let found: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        let mut found: Vec<(String, String)> = found
            .iter()
            .map(|h| (h["session_id"].to_string(), h["message_id"].to_string()))
            .collect();
        found.sort();
        (found, stderr)
    };
    let (indexed, noted) = hits(&[]);
    let (direct, direct_noted) = hits(&["--no-index"]);
    assert_eq!(indexed, direct, "{}: the index and the files agree", c.name);
    let conversation_damaged = c.list_error.is_some() && c.show != 0;
    if conversation_damaged {
        for (what, text) in [("search", &noted), ("search --no-index", &direct_noted)] {
            names_the_file(c, case_dir, what, text);
        }
    }
}

/// Asserts that `text` names the case's broken file by its full path.
fn names_the_file(c: &Case, case_dir: &Path, what: &str, text: &str) {
    let path = match c.broken {
        Some("") => case_dir.to_path_buf(),
        Some(rel) => case_dir.join(rel),
        None => panic!("{} {what}: an error, but no broken file: {text}", c.name),
    };
    let path = path.to_string_lossy();
    assert!(
        text.contains(&*path),
        "{} {what} names {path}: {text}",
        c.name
    );
}

/// A resume changes one thing: `last_used_at` in meta.json, made later.
fn only_last_use_changed(c: &Case, case_dir: &Path, prior: &Files, after: &Files) {
    let meta_path = case_dir.join("meta.json");
    let others = |files: &Files| {
        let mut files = files.clone();
        files.remove(&meta_path);
        files
    };
    let what = format!("{}: resume writes only meta.json", c.name);
    assert_unchanged(&others(after), &others(prior), what);
    let fields = |files: &Files| {
        let bytes = &files[&meta_path];
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        value.as_object().unwrap().clone()
    };
    let (mut was, mut now) = (fields(prior), fields(after));
    let (used_was, used_now) = (was.remove("last_used_at"), now.remove("last_used_at"));
    assert_eq!(now, was, "{}: resume changed only last_used_at", c.name);
    assert!(now.keys().eq(was.keys()), "{}: key order kept", c.name);
    let time = |v: Option<serde_json::Value>| v.and_then(|v| v.as_f64()).unwrap();
    assert!(
        time(used_now) > time(used_was),
        "{}: last_used_at moved on",
        c.name
    );
}

/// [`setup`] for a generated case: its healthy base with the special file.
fn setup_generated(g: &special::Generated) -> (tempfile::TempDir, PathBuf, String, String) {
    let (tmp, root, healthy, id) = setup(g.base);
    special::make(&sessions(&root).join(&id), g.special);
    (tmp, root, healthy, id)
}

fn check_case(c: &Case) {
    check_case_in(c, setup(c.name));
}

fn check_case_in(
    c: &Case,
    (tmp, root, healthy, name): (tempfile::TempDir, PathBuf, String, String),
) {
    let case_dir = sessions(&root).join(&name);
    let before = case_files(&case_dir);
    assert!(!before.is_empty(), "{}: copied", c.name);
    let outside_before = snapshot(&tmp.path().join("outside"));

    let list = run(&root, &["list", "--json", "--tokens"]);
    no_panic("list", &list);
    assert_eq!(list.status.code(), Some(0), "{}: list", c.name);
    let items: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["path"] == case_dir.to_str().unwrap())
        .unwrap_or_else(|| panic!("{}: not listed", c.name));
    // The id it is listed by: its folder's name, or a stand-in when that
    // name is refused as an id (`-rf`).
    let id = item["id"].as_str().unwrap().to_string();
    match c.list_error {
        None => assert!(item["error"].is_null(), "{}: {}", c.name, item["error"]),
        Some(text) => {
            let error = item["error"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: no error", c.name));
            assert!(error.contains(text), "{}: {error}", c.name);
            names_the_file(c, &case_dir, "list", error);
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
    assert_eq!(
        case_files(&case_dir),
        before,
        "{}: list wrote nothing",
        c.name
    );
    search_reads_what_it_can(c, &root, &case_dir);
    assert_eq!(
        case_files(&case_dir),
        before,
        "{}: search wrote nothing",
        c.name
    );

    let codes = [
        ("show", c.show, vec!["show", "--json", "--", &id]),
        (
            "trim --dry-run",
            c.trim,
            vec![
                "trim",
                "--dry-run",
                "--keep-messages",
                "1",
                "--json",
                "--",
                &id,
            ],
        ),
        (
            "trim",
            c.trim,
            vec!["trim", "--keep-messages", "1", "--json", "--", &id],
        ),
        ("resume", c.resume, vec!["resume", "--", &id]),
    ];
    for (what, want, args) in codes {
        let prior = case_files(&case_dir);
        let out = run(&root, &args);
        no_panic(what, &out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(want), "{} {what}: {stderr}", c.name);
        // Exit 1 without a broken file is a trim with nothing to drop.
        if want == 2 || (want == 1 && c.broken.is_some()) {
            names_the_file(c, &case_dir, what, &stderr);
        }
        let after = case_files(&case_dir);
        match (what, want) {
            ("trim", 0) => {} // the fork it wrote; later steps compare against it
            ("resume", 0) => only_last_use_changed(c, &case_dir, &prior, &after),
            _ => assert_unchanged(&after, &prior, format!("{} {what} (exit {want})", c.name)),
        }
    }
    hand_edits_follow_the_window(c, &root, &case_dir, &id);
    if c.resume != 0 {
        let what = format!("{}: a damaged session is never modified", c.name);
        assert_unchanged(&case_files(&case_dir), &before, what);
    }

    let before_purge = case_files(&case_dir);
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
    if !c.purged {
        let what = format!("{}: spared by the purge and untouched", c.name);
        assert_unchanged(&case_files(&case_dir), &before_purge, what);
    }
}

/// One test per case of the corpus, checked through the CLI (`cli`) and
/// through the UI (`ui`): the cases run in parallel, and a failure names
/// its case in the test's name.
macro_rules! corpus_cases {
    ($($test:ident: $name:literal),* $(,)?) => {
        mod cases {
            $(
                mod $test {
                    #[test]
                    fn cli() {
                        super::super::check_case(super::super::case_named($name));
                    }

                    #[test]
                    fn ui() {
                        let c = super::super::case_named($name);
                        super::super::check_ui(c, super::super::setup(c.name));
                    }
                }
            )*

            /// The cases with tests of their own.
            pub const TESTED: &[&str] = &[$($name),*];
        }
    };
}

corpus_cases! {
    context_anchor_negative: "context-anchor-negative",
    context_anchors_short: "context-anchors-short",
    context_bom: "context-bom",
    context_deep_nesting: "context-deep-nesting",
    context_duplicate_messages_key: "context-duplicate-messages-key",
    context_huge_integers: "context-huge-integers",
    context_invalid_utf8: "context-invalid-utf8",
    context_message_a_number: "context-message-a-number",
    context_messages_an_object: "context-messages-an-object",
    context_nan: "context-nan",
    context_no_sequence_numbers: "context-no-sequence-numbers",
    context_special_token_text: "context-special-token-text",
    context_string_content: "context-string-content",
    context_truncated: "context-truncated",
    context_unknown_part_and_message_types: "context-unknown-part-and-message-types",
    id_leading_dash: "id-leading-dash",
    id_unicode: "id-unicode",
    id_with_shell_syntax: "id-with-shell-syntax",
    meta_bom: "meta-bom",
    meta_deep_nesting: "meta-deep-nesting",
    meta_duplicate_keys: "meta-duplicate-keys",
    meta_empty: "meta-empty",
    meta_huge_number: "meta-huge-number",
    meta_invalid_utf8: "meta-invalid-utf8",
    meta_is_a_directory: "meta-is-a-directory",
    meta_last_used_a_string: "meta-last-used-a-string",
    meta_last_used_missing: "meta-last-used-missing",
    meta_last_used_null: "meta-last-used-null",
    meta_missing: "meta-missing",
    meta_name_a_number: "meta-name-a-number",
    meta_nan: "meta-nan",
    meta_not_an_object: "meta-not-an-object",
    meta_symlink: "meta-symlink",
    meta_truncated: "meta-truncated",
    meta_whitespace: "meta-whitespace",
    session_dir_symlink: "session-dir-symlink",
    session_json_active_id_a_number: "session-json-active-id-a-number",
    session_json_active_id_traversal: "session-json-active-id-traversal",
    session_json_is_active_truthy_string: "session-json-is-active-truthy-string",
    session_json_missing_context: "session-json-missing-context",
    session_json_missing: "session-json-missing",
    session_json_truncated: "session-json-truncated",
    stray_file: "stray-file",
}

/// The case of the corpus named `name`.
fn case_named(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{name}: no expectation in CASES"))
}

#[test]
fn every_case_on_disk_has_an_expectation_and_tests_of_its_own() {
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut expected: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    expected.sort_unstable();
    let mut tested = cases::TESTED.to_vec();
    tested.sort_unstable();
    assert_eq!(on_disk, expected, "every case on disk has an expectation");
    assert_eq!(expected, tested, "every case has its tests");
}

/// The generated special files a person's run can make (FIFOs), one test
/// each, through the CLI and the UI.
macro_rules! special_cases {
    ($($test:ident: $name:literal),* $(,)?) => {
        mod special_cases {
            $(
                mod $test {
                    #[test]
                    fn cli() {
                        let g = super::super::generated_named($name);
                        super::super::check_case_in(&g.case, super::super::setup_generated(g));
                    }

                    #[test]
                    fn ui() {
                        let g = super::super::generated_named($name);
                        super::super::check_ui(&g.case, super::super::setup_generated(g));
                    }
                }
            )*
        }
    };
}

special_cases! {
    meta_fifo: "meta-fifo",
    session_json_fifo: "session-json-fifo",
    context_fifo: "context-fifo",
    fork_context_fifo: "fork-context-fifo",
}

/// The generated case named `name`.
fn generated_named(name: &str) -> &'static special::Generated {
    special::GENERATED
        .iter()
        .find(|g| g.case.name == name)
        .unwrap_or_else(|| panic!("{name}: not a generated case"))
}

/// Device nodes as session files: only root may make them, so this one
/// test, through the CLI and the UI, is ignored in a person's run and run
/// by CI (`--include-ignored`, as root).
#[test]
#[ignore = "needs root to make device nodes; .ci/run runs it"]
fn device_nodes_as_session_files() {
    assert!(
        special::can_make_devices(),
        "device nodes need root (CI runs as root)"
    );
    let devices: Vec<&special::Generated> = special::GENERATED
        .iter()
        .filter(|g| matches!(g.special, special::Special::Device(..)))
        .collect();
    assert!(!devices.is_empty());
    for g in devices {
        check_case_in(&g.case, setup_generated(g));
        check_ui(&g.case, setup_generated(g));
    }
}

#[test]
fn every_generated_case_has_its_test() {
    let fifos: Vec<&str> = special::GENERATED
        .iter()
        .filter(|g| matches!(g.special, special::Special::Fifo(_)))
        .map(|g| g.case.name)
        .collect();
    assert_eq!(
        fifos,
        [
            "meta-fifo",
            "session-json-fifo",
            "context-fifo",
            "fork-context-fifo"
        ],
        "each FIFO case has its tests in special_cases!"
    );
}

/// The UI's Enter goes through the same store predicate as the CLI's
/// `resume`: it resumes exactly the cases the CLI resumes, and for the
/// others shows an error naming the broken file and writes nothing. The
/// UI runs in this process: a hang would stall the test, so it runs on a
/// thread with a deadline.
fn check_ui(c: &'static Case, prepared: (tempfile::TempDir, PathBuf, String, String)) {
    let settings = ui_settings(StoreKind::Loki);
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        ui_resumes_as_the_cli(c, prepared, settings);
        let _ = done.send(());
    });
    match finished.recv_timeout(DEADLINE) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{}: the UI hung", c.name),
        Err(_) => panic!("{}: the UI check failed (see above)", c.name),
    }
}

fn ui_resumes_as_the_cli(
    c: &Case,
    (_tmp, root, _, id): (tempfile::TempDir, PathBuf, String, String),
    settings: loki_sessions::tui::model::Settings,
) {
    {
        let case_dir = sessions(&root).join(&id);
        let before = case_files(&case_dir);
        let cache = tempfile::tempdir().unwrap();
        let source = Store::loki(&root, "tester")
            .unwrap()
            .with_cache_dir(cache.path());
        let mut ui = Headless::open(source, settings.clone(), 100, 30, 1.8e9, || 1.8e9);
        let at = ui
            .model
            .list
            .visible
            .iter()
            .position(|&row| ui.model.list.rows[row].record.path == case_dir)
            .unwrap_or_else(|| panic!("{}: listed in the UI", c.name));
        let id = ui.model.list.rows[ui.model.list.visible[at]]
            .record
            .id
            .to_string();
        for _ in 0..at {
            ui.press(KeyCode::Down, KeyModifiers::NONE);
        }
        assert_eq!(ui.model.list.selected_row().unwrap().record.id, id);
        if c.resume != 0 {
            // Rename is refused too: at once when the row is marked damaged,
            // by the store when only the conversation is broken.
            ui.press(KeyCode::F(2), KeyModifiers::NONE);
            if ui.model.app.overlay.is_some() {
                ui.type_text("renamed");
                ui.press(KeyCode::Enter, KeyModifiers::NONE);
            }
            refused(c, &case_dir, &ui, "UI rename");
            assert_unchanged(
                &case_files(&case_dir),
                &before,
                format!("{}: UI rename", c.name),
            );
        }
        ui.press(KeyCode::Enter, KeyModifiers::NONE);
        let resumed = matches!(&ui.model.exit, Some(Exit::Resume(r)) if r.id == id);
        assert_eq!(resumed, c.resume == 0, "{}: {}", c.name, ui.screen());
        if !resumed {
            refused(c, &case_dir, &ui, "UI resume");
            assert_unchanged(&case_files(&case_dir), &before, format!("{}: UI", c.name));
        }
    }
}

/// Asserts the UI shows an error saying the session is damaged, naming the file.
fn refused(c: &Case, case_dir: &Path, ui: &Headless, what: &str) {
    let status = ui.model.app.status.clone().expect("an error is shown");
    assert!(
        status.is_error && status.text.contains("damaged"),
        "{} {what}: {status:?}",
        c.name
    );
    names_the_file(c, case_dir, what, &status.text);
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
