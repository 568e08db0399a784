//! A folder of bare peteos sessions used in place: list, search, show, trim,
//! purge preview and import, through the CLI and the TUI, writing nothing
//! except what a trim (or an applied purge) must write.

use crate::common::peteos::*;
use crate::common::*;
use crossterm::event::{KeyCode, KeyModifiers};
use loki_sessions::store::{Store, StoreKind};
use loki_sessions::tui::headless::Headless;
use loki_sessions::tui::model::Screen;
use serde_json::Value;
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Sets the modification time of every file of a session directory.
fn set_file_times(session: &Path, seconds: f64) {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(seconds);
    for file in std::fs::read_dir(session).unwrap() {
        let file = std::fs::File::options()
            .write(true)
            .open(file.unwrap().path())
            .unwrap();
        file.set_modified(time).unwrap();
    }
}

/// Midnight UTC of the `YYYYMMDD-` prefix of a uuid, in seconds.
fn claimed_day(uuid: &str) -> f64 {
    let (y, m, d) = (&uuid[..4], &uuid[4..6], &uuid[6..8]);
    assert_eq!(&uuid[8..9], "-", "{uuid} has a date prefix");
    let midnight = humantime::parse_rfc3339(&format!("{y}-{m}-{d}T00:00:00Z")).unwrap();
    midnight
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

#[test]
fn list_show_and_purge_preview_in_place_write_nothing() {
    let (_tmp, dir) = copy_folder();
    let cases = expected()["cases"].as_array().unwrap().clone();
    // Creation comes from the uuid's date; a file time counts only when it
    // lies on that day. Files of the first session carry a time on its
    // day, the others one years away from it (a copy made on that very day
    // could not tell the two rules apart).
    const FAR: f64 = 1_600_000_000.0; // 2020-09-13
    let first = cases[0]["session_uuid"].as_str().unwrap();
    let on_the_day = claimed_day(first) + 3_600.5;
    for case in &cases {
        let uuid = case["session_uuid"].as_str().unwrap();
        set_file_times(
            &dir.join(uuid),
            if uuid == first { on_the_day } else { FAR },
        );
    }
    let before = snapshot(&dir);
    let list = peteos_json(&dir, &["list", "--json", "--tokens"]);
    assert_eq!(list.as_array().unwrap().len(), cases.len());
    for case in &cases {
        let uuid = case["session_uuid"].as_str().unwrap();
        let item = list
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["id"] == uuid)
            .expect("listed by uuid");
        assert!(item["error"].is_null());
        assert_eq!(
            item["messages"].as_u64().unwrap() as usize,
            case["message_ids"].as_array().unwrap().len()
        );
        assert_eq!(item["tokens"], case["total_tokens_cl100k"], "{uuid}");
        assert!(!item["name"].as_str().unwrap().is_empty());
        let (created, used) = (
            item["created_at"].as_f64().unwrap(),
            item["last_used_at"].as_f64().unwrap(),
        );
        if uuid == first {
            assert_eq!(
                created, on_the_day,
                "{uuid}: the file time on the claimed day"
            );
            assert_eq!(used, on_the_day, "{uuid}: last use is the newest file");
        } else {
            assert_eq!(created, claimed_day(uuid), "{uuid}: the uuid's day");
            assert_eq!(used, FAR, "{uuid}: last use is the newest file");
        }
        let shown = peteos_json(&dir, &["show", &uuid[..13], "--json"]);
        let ids: Vec<&Value> = shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["id"])
            .collect();
        assert_eq!(
            ids,
            case["message_ids"]
                .as_array()
                .unwrap()
                .iter()
                .collect::<Vec<_>>()
        );
    }
    // The name comes from the first user message, as name_from_prompt makes it.
    let chat = &cases[0];
    let shown = peteos_json(
        &dir,
        &["show", chat["session_uuid"].as_str().unwrap(), "--json"],
    );
    let first_user = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    let slug = loki_sessions::store::name_from_prompt(first_user["text"].as_str().unwrap());
    assert_eq!(shown["session"]["name"], slug.as_str());
    let plan = peteos_json(
        &dir,
        &[
            "purge",
            "--dry-run",
            "--json",
            "--keep",
            "2",
            "--max-age",
            "100000d",
        ],
    );
    assert_eq!(plan["remove"].as_array().unwrap().len(), cases.len() - 2);
    assert_eq!(
        snapshot(&dir),
        before,
        "reading a peteos folder writes nothing"
    );
    // --peteos wins over LOKI_HOME (set by many users' shells).
    let out = command()
        .env("LOKI_HOME", dir.parent().unwrap())
        .args(["--peteos", dir.to_str().unwrap(), "list", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --root pointing at such a folder is detected.
    let out = command()
        .args(["--root", dir.to_str().unwrap(), "list", "--json"])
        .output()
        .unwrap();
    let via_root: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(via_root.as_array().unwrap().len(), cases.len());
}

#[test]
fn purge_in_place_spares_is_active_and_writes_like_peteos() {
    let (_tmp, dir) = copy_folder();
    let cases = expected()["cases"].as_array().unwrap().clone();
    let active = cases[1]["session_uuid"].as_str().unwrap();
    let path = dir.join(active).join("session.json");
    let mut session: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    session["is_active"] = Value::Bool(true);
    std::fs::write(&path, serde_json::to_vec_pretty(&session).unwrap()).unwrap();
    let done = peteos_json(
        &dir,
        &["purge", "--yes", "--json", "--keep", "0", "--max-age", "0"],
    );
    assert_eq!(done["removed"].as_array().unwrap().len(), cases.len() - 1);
    assert!(
        dir.join(active).join("session.json").exists(),
        "is_active is never deleted"
    );
    let kept = &done["keep"][0];
    assert_eq!(kept["id"], active);
    assert!(kept["reason"].as_str().unwrap().starts_with("active"));
}

/// A fork one of our trims wrote, and what peteos must see in it.
struct Forked {
    uuid: String,
    /// The message ids the fork holds, in order.
    want: Value,
    child: String,
    tokens_after: u64,
    /// `cleared_from` of each cleared copy: new id -> the original's id.
    cleared_from: serde_json::Map<String, Value>,
}

/// Checks what a trim of session `uuid` wrote (its JSON answer `done`):
/// the fork in peteos's layout, session.json pointing at it.
fn check_written(dir: &Path, uuid: &str, done: &Value) -> Forked {
    let child = done["new_context_id"].as_str().unwrap().to_string();
    let text = std::fs::read_to_string(dir.join(uuid).join(format!("{child}.json"))).unwrap();
    assert!(
        text.starts_with("{\n  \"messages\": [\n    {"),
        "json.dump(indent=2) layout"
    );
    assert!(text.is_ascii(), "ensure_ascii escapes, as peteos writes");
    let session: Value =
        serde_json::from_slice(&std::fs::read(dir.join(uuid).join("session.json")).unwrap())
            .unwrap();
    assert_eq!(session["active_context_id"], child.as_str());
    let keys: Vec<&String> = session.as_object().unwrap().keys().collect();
    let want_keys = [
        "uuid",
        "active_context_id",
        "auto_approve_tools",
        "state_data",
        "is_active",
    ];
    assert_eq!(keys, want_keys);
    let mut cleared_from = serde_json::Map::new();
    let mut want: Vec<Value> = done["kept_message_ids"].as_array().unwrap().clone();
    for c in done["cleared"].as_array().unwrap() {
        let new_id = c["new_id"].as_str().unwrap();
        cleared_from.insert(new_id.into(), c["id"].clone());
        let at = want.iter().position(|id| *id == c["id"]).unwrap();
        want[at] = Value::from(new_id);
    }
    Forked {
        uuid: uuid.to_string(),
        want: Value::Array(want),
        child,
        tokens_after: done["tokens_after"].as_u64().unwrap(),
        cleared_from,
    }
}

/// Trims every fixture session whose token window keeps more than two
/// messages, checking each against peteos's answer and layout.
fn trim_every_case(dir: &Path) -> Vec<Forked> {
    let mut trimmed = Vec::new();
    for case in expected()["cases"].as_array().unwrap() {
        let uuid = case["session_uuid"].as_str().unwrap();
        let Some((budget, want)) = case["rolling_token_window"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, v)| v.as_array().is_some_and(|a| a.len() > 2))
            .map(|(k, v)| (k.clone(), v.clone()))
        else {
            continue;
        };
        let done = peteos_json(dir, &["trim", uuid, "--max-tokens", &budget, "--json"]);
        assert_eq!(done["kept_message_ids"], want);
        assert_eq!(
            done["cleared_message_ids"],
            serde_json::json!([]),
            "one shape"
        );
        trimmed.push(check_written(dir, uuid, &done));
    }
    assert!(trimmed.len() > 5);
    trimmed
}

/// The fixture sessions holding tool results, with their active context's
/// messages: (uuid, messages).
fn agent_cases() -> Vec<(String, Vec<Value>)> {
    expected()["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|case| {
            let uuid = case["session_uuid"].as_str().unwrap().to_string();
            let file = fixture_sessions().join(&uuid).join(format!(
                "{}.json",
                case["active_context_id"].as_str().unwrap()
            ));
            let ctx: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
            let messages = ctx["messages"].as_array().unwrap().clone();
            let has_result = messages
                .iter()
                .any(|m| tool_parts(m, "tool_result").next().is_some());
            has_result.then_some((uuid, messages))
        })
        .collect()
}

/// The call ids of the parts of `kind` in message `m`.
fn tool_parts<'a>(m: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |p| p["type"] == kind)
        .map(|p| &p["call_id"])
}

/// Drops the first tool result of every agent session: refused alone
/// (naming its call), then dropped with its call (--with-pairs).
fn drop_a_result_in_every_case(dir: &Path) -> Vec<Forked> {
    let mut dropped = Vec::new();
    for (uuid, messages) in agent_cases() {
        let result = messages
            .iter()
            .find(|m| tool_parts(m, "tool_result").next().is_some())
            .unwrap();
        let call_id = tool_parts(result, "tool_result").next().unwrap();
        let call = messages
            .iter()
            .find(|m| tool_parts(m, "tool_use").any(|k| k == call_id))
            .unwrap();
        let (result_id, call_id) = (result["id"].as_str().unwrap(), call["id"].as_str().unwrap());
        let alone = peteos(dir, &["trim", &uuid, "--drop", result_id, "--json"]);
        assert_eq!(alone.status.code(), Some(2), "a split pair is refused");
        let why = String::from_utf8_lossy(&alone.stderr);
        assert!(
            why.contains(call_id) && why.contains("--with-pairs"),
            "{why}"
        );
        let done = peteos_json(
            dir,
            &["trim", &uuid, "--drop", result_id, "--with-pairs", "--json"],
        );
        let gone = done["dropped_message_ids"].as_array().unwrap();
        assert!(gone.contains(&Value::from(result_id)) && gone.contains(&Value::from(call_id)));
        dropped.push(check_written(dir, &uuid, &done));
    }
    assert!(dropped.len() >= 3);
    dropped
}

/// Clears every tool result of every agent session.
fn clear_every_case(dir: &Path) -> Vec<Forked> {
    let mut cleared = Vec::new();
    for (uuid, messages) in agent_cases() {
        let done = peteos_json(
            dir,
            &["trim", &uuid, "--clear-tool-results-over", "0", "--json"],
        );
        assert_eq!(
            done["kept_message_ids"].as_array().unwrap().len(),
            messages.len()
        );
        assert!(!done["cleared_message_ids"].as_array().unwrap().is_empty());
        cleared.push(check_written(dir, &uuid, &done));
    }
    cleared
}

/// Makes every fixture session holding media or tool results resumable:
/// images become a text naming them, every tool result is cleared.
fn resumable_every_case(dir: &Path) -> Vec<Forked> {
    let mut fixed = Vec::new();
    let mut media = 0;
    for case in expected()["cases"].as_array().unwrap() {
        let uuid = case["session_uuid"].as_str().unwrap();
        let out = peteos(
            dir,
            &["trim", uuid, "--resumable", "--results-over", "0", "--json"],
        );
        if out.status.code() == Some(1) {
            continue; // nothing to fix in this one
        }
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let done: Value = serde_json::from_slice(&out.stdout).unwrap();
        media += done["cleared"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["media"].as_u64().unwrap())
            .sum::<u64>();
        let forked = check_written(dir, uuid, &done);
        let child = dir.join(uuid).join(format!("{}.json", forked.child));
        let ctx: Value = serde_json::from_slice(&std::fs::read(child).unwrap()).unwrap();
        let parts = ctx["messages"].as_array().unwrap().iter().skip(1);
        let kinds: Vec<&Value> = parts
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .map(|p| &p["type"])
            .collect();
        assert!(
            !kinds
                .iter()
                .any(|k| ["image", "pdf", "audio", "video"].contains(&k.as_str().unwrap_or(""))),
            "{uuid}: no media is left but in the system prompt"
        );
        fixed.push(forked);
    }
    assert!(media >= 3, "the fixtures hold images: {media} replaced");
    fixed
}

#[test]
fn trim_in_place_writes_what_peteos_writes() {
    for kind in [
        trim_every_case,
        drop_a_result_in_every_case,
        clear_every_case,
        resumable_every_case,
    ] {
        let (_tmp, dir) = copy_folder();
        kind(&dir);
    }
}

/// The real peteos 0.6.13 loads what our trims wrote (window trims, drops
/// and clears). It needs a Python with peteos installed, named by
/// PETEOS_PYTHON; `cargo test` shows it as ignored, `cargo test --
/// --include-ignored` runs it and fails without one.
#[test]
#[ignore = "needs PETEOS_PYTHON, a Python with peteos 0.6.13 (.ci/run makes one)"]
fn trims_load_in_the_real_peteos() {
    let python = std::env::var_os("PETEOS_PYTHON").expect(
        "PETEOS_PYTHON must name a Python with peteos 0.6.13 installed (.ci/run makes one)",
    );
    for (what, kind) in [
        ("window trims", trim_every_case as fn(&Path) -> Vec<Forked>),
        ("drops", drop_a_result_in_every_case),
        ("clears", clear_every_case),
        ("fixes for resuming", resumable_every_case),
    ] {
        let (_tmp, dir) = copy_folder();
        let forked = kind(&dir);
        check_with_real_peteos(&python, &dir, what, &forked);
    }
}

/// CI has peteos and must run the check above; locally it shows as ignored.
#[test]
fn ci_runs_the_real_peteos_check() {
    assert_ci_runs_ignored_checks();
}

/// Loads the forked sessions with the real peteos run by `python`.
fn check_with_real_peteos(python: &OsStr, dir: &Path, what: &str, forked: &[Forked]) {
    let config = dir.parent().unwrap().join("peteos.json");
    std::fs::write(&config, "{}").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peteos_check.py");
    let before = snapshot(dir);
    let mut command = Command::new(python);
    command
        .arg(script)
        .args(forked.iter().map(|f| &f.uuid))
        .env("PETEOS_SESSIONS_DIR", dir)
        .env("PETEOS_CONFIG", &config);
    if let Some(cache) = tiktoken_cache(dir.parent().unwrap()) {
        command.env("TIKTOKEN_CACHE_DIR", cache);
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "peteos failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        seen.len(),
        forked.len(),
        "peteos answered for every session"
    );
    let (mut messages, mut cleared) = (0, 0);
    for (f, seen) in forked.iter().zip(&seen) {
        let uuid = &f.uuid;
        assert_eq!(seen["active_context_id"], f.child.as_str(), "{uuid}");
        assert_eq!(
            seen["message_ids"], f.want,
            "peteos reads the same messages in {uuid}"
        );
        assert_eq!(seen["origin_children"], serde_json::json!([f.child]));
        assert_eq!(
            seen["total_tokens"], f.tokens_after,
            "peteos counts what we planned in {uuid}"
        );
        // peteos keeps cleared_from as it loads, saves and forks a context.
        let cleared_from = Value::Object(f.cleared_from.clone());
        assert_eq!(seen["cleared_from"], cleared_from, "{uuid}");
        assert_eq!(seen["cleared_from_after_save"], cleared_from, "{uuid}");
        for (id, from) in seen["cleared_from_in_window"].as_object().unwrap() {
            assert_eq!(&f.cleared_from[id], from, "{uuid}");
        }
        for results in seen["cleared_results"].as_object().unwrap().values() {
            for content in results.as_array().unwrap() {
                assert!(
                    content
                        .as_str()
                        .unwrap()
                        .starts_with("[tool result cleared: ")
                );
            }
        }
        // peteos can trim our fork again (it raises on a broken anchor layout).
        let want = f.want.as_array().unwrap();
        match seen["window_2"].as_array() {
            Some(kept) => assert!(kept.iter().all(|id| want.contains(id))),
            None => assert!(want.len() <= 4, "no fork only when 2 or fewer remain"),
        }
        messages += want.len();
        cleared += f.cleared_from.len();
    }
    assert_eq!(snapshot(dir), before, "the check itself wrote nothing");
    eprintln!(
        "real-peteos check ran on {what}: {} sessions, {messages} messages match, {cleared} cleared copies keep cleared_from",
        forked.len()
    );
}

#[test]
fn import_copies_into_a_new_loki_session_and_leaves_the_source() {
    let (tmp, dir) = copy_folder();
    let case = &expected()["cases"][0];
    let uuid = case["session_uuid"].as_str().unwrap();
    let source = dir.join(uuid);
    let before = snapshot(&source);
    let root = tmp.path().join("loki");
    let imported: Value =
        serde_json::from_str(&ok(&root, &["import", source.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(
        imported["id"], uuid,
        "the uuid becomes the id when it is free"
    );
    assert_eq!(snapshot(&source), before, "the source is only read");
    let shown = json(&root, &["show", uuid, "--json"]);
    let ids: Vec<&Value> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(
        ids,
        case["message_ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
    let meta: Value = serde_json::from_slice(
        &std::fs::read(sessions(&root).join(uuid).join("meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["id"], uuid);
    assert!(!meta["first_prompt"].as_str().unwrap().is_empty());
    // A second import is refused, naming the copy; --again makes one with a new id.
    let twice = run(&root, &["import", source.to_str().unwrap()]);
    assert_eq!(twice.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&twice.stderr).contains(uuid));
    let again: Value = serde_json::from_str(&ok(
        &root,
        &["import", source.to_str().unwrap(), "--again", "--json"],
    ))
    .unwrap();
    assert_ne!(again["id"], uuid);
    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("session.json"), b"{not json").unwrap();
    assert_eq!(
        run(&root, &["import", broken.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        json(&root, &["list", "--json"]).as_array().unwrap().len(),
        2
    );
}

#[test]
fn the_ui_works_on_a_peteos_folder() {
    let (_tmp, dir) = copy_folder();
    let before = snapshot(&dir);
    let settings = ui_settings(StoreKind::PeteosFolder);
    let cache = tempfile::tempdir().unwrap();
    let source = Store::peteos_folder(&dir).with_cache_dir(cache.path());
    let mut ui = Headless::open(source, settings, 100, 30, 1.8e9, || 1.8e9);
    let count = expected()["cases"].as_array().unwrap().len();
    assert!(
        ui.screen().contains(&format!("{count} sessions")),
        "{}",
        ui.screen()
    );
    ui.type_text("look");
    assert!(ui.screen().contains("look-at-this"), "{}", ui.screen());
    ui.press(KeyCode::Tab, KeyModifiers::NONE);
    assert!(matches!(ui.model.screen, Screen::Viewer(_)));
    assert!(ui.screen().contains("Messages"));
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    ui.press(KeyCode::Char('g'), KeyModifiers::CONTROL);
    assert!(ui.screen().contains("Purge preview"), "{}", ui.screen());
    ui.press(KeyCode::Esc, KeyModifiers::NONE);
    ui.press(KeyCode::F(7), KeyModifiers::NONE);
    assert!(ui.screen().contains("need a Loki tree"), "{}", ui.screen());
    assert_eq!(snapshot(&dir), before, "browsing wrote nothing");
}
