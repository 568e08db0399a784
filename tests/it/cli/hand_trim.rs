//! Trimming by hand from the CLI: where the tokens go (`show`), drops with
//! the tool-pair rules and their refusals, clears, one JSON shape for every
//! trim, and `activate` undoing each; `diff` and `export` in
//! tests/it/cli/diff_export.rs.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A demo store of three plain sessions; returns the first one's id.
fn store(root: &Path) -> String {
    ok(
        root,
        &[
            "demo",
            "--sessions",
            "3",
            "--messages",
            "60",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    json(root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The active context file of session `id`, parsed.
fn active_context(root: &Path, id: &str) -> (PathBuf, Value) {
    let memory = sessions(root).join(id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let path = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let ctx = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    (path, ctx)
}

/// The call ids of the parts of type `kind` in message `m`.
fn calls<'a>(m: &'a Value, kind: &'a str) -> Vec<&'a str> {
    m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["type"] == kind)
        .filter_map(|p| p["call_id"].as_str())
        .collect()
}

/// (result message id, its call's message id) of the first tool pair.
fn first_pair(ctx: &Value) -> (String, String) {
    let messages = ctx["messages"].as_array().unwrap();
    let result = messages
        .iter()
        .find(|m| !calls(m, "tool_result").is_empty())
        .expect("the demo conversation has tool results");
    let key = calls(result, "tool_result")[0];
    let call = messages
        .iter()
        .find(|m| calls(m, "tool_use").contains(&key))
        .unwrap();
    let id = |m: &Value| m["id"].as_str().unwrap().to_string();
    (id(result), id(call))
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

#[test]
fn show_tells_where_the_tokens_go_and_the_kinds_add_up() {
    let tmp = tempfile::tempdir().unwrap();
    let id = store(tmp.path());
    let shown = json(tmp.path(), &["show", &id, "--json"]);
    let breakdown = shown["breakdown"].as_object().unwrap();
    let kinds: Vec<&str> = breakdown.keys().map(String::as_str).collect();
    assert_eq!(
        kinds,
        [
            "system_prompt",
            "tool_definitions",
            "user_text",
            "assistant_text",
            "thinking",
            "tool_calls",
            "tool_results",
            "media",
            "other"
        ]
    );
    let sum: u64 = breakdown.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(
        sum,
        shown["total_tokens"].as_u64().unwrap(),
        "exactly the total"
    );
    let messages = shown["messages"].as_array().unwrap();
    assert_eq!(breakdown["system_prompt"], messages[0]["tokens"]);
    assert_eq!(breakdown["tool_definitions"], messages[1]["tokens"]);
    for kind in ["user_text", "assistant_text", "tool_calls", "tool_results"] {
        assert!(breakdown[kind].as_u64().unwrap() > 0, "{kind}");
    }
    // Tool results are whole messages of their own in peteos: their kind
    // holds exactly those messages' tokens.
    let results: u64 = messages
        .iter()
        .filter(|m| m["role"] == "tool" && m["special"].is_null())
        .map(|m| m["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(breakdown["tool_results"].as_u64().unwrap(), results);
    let text = ok(tmp.path(), &["show", &id]);
    assert!(
        text.lines().nth(2).unwrap().starts_with("tokens by kind: "),
        "{text}"
    );
    assert!(text.contains("tool results"), "{text}");
}

#[test]
fn a_drop_that_splits_a_pair_or_takes_a_special_is_refused_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let id = store(tmp.path());
    let (_, ctx) = active_context(tmp.path(), &id);
    let (result, call) = first_pair(&ctx);
    let before = snapshot(tmp.path());
    for (drop, names) in [(&result, &call), (&call, &result)] {
        let out = run(tmp.path(), &["trim", &id, "--drop", drop, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{drop}");
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(
            why.contains(names.as_str()) && why.contains("--with-pairs"),
            "names the partner {names}: {why}"
        );
    }
    let specials = ctx["messages"].as_array().unwrap();
    for (special, what) in [(0, "the system prompt"), (1, "the tool definitions")] {
        let sid = specials[special]["id"].as_str().unwrap();
        let out = run(tmp.path(), &["trim", &id, "--drop", sid, "--with-pairs"]);
        assert_eq!(out.status.code(), Some(2));
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(
            why.contains(what) && why.contains("cannot be dropped"),
            "{why}"
        );
    }
    let unknown = run(tmp.path(), &["trim", &id, "--drop", "no-such-message"]);
    assert_eq!(unknown.status.code(), Some(1), "not found");
    for usage in [
        vec!["trim", &id, "--with-pairs"],
        vec!["trim", &id, "--drop", &result, "--max-tokens", "10"],
        vec![
            "trim",
            &id,
            "--clear",
            &result,
            "--clear-tool-results-over",
            "10",
        ],
        vec!["trim", &id, "--drop"],
    ] {
        assert_eq!(run(tmp.path(), &usage).status.code(), Some(2), "{usage:?}");
    }
    assert_eq!(snapshot(tmp.path()), before, "a refusal writes nothing");
}

#[test]
fn a_drop_with_pairs_forks_without_both_halves_and_activate_undoes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let id = store(tmp.path());
    let (parent_path, ctx) = active_context(tmp.path(), &id);
    let parent_id = ctx["id"].as_str().unwrap().to_string();
    let (result, call) = first_pair(&ctx);
    let before = snapshot(tmp.path());
    let args = ["trim", &id, "--drop", &result, "--with-pairs", "--json"];
    let preview = json(tmp.path(), &[&args[..], &["--dry-run"]].concat());
    assert_eq!(snapshot(tmp.path()), before, "a dry run changes nothing");
    let dropped = strs(&preview["dropped_message_ids"]);
    assert!(dropped.contains(&result.as_str()) && dropped.contains(&call.as_str()));
    // Nothing beyond what was asked and the partners it names.
    let partners: Vec<&str> = preview["also_dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert!(partners.contains(&call.as_str()));
    assert_eq!(dropped.len(), 1 + partners.len());
    assert!(
        preview["also_dropped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("whose")
    );
    let shown = json(tmp.path(), &["show", &id, "--json"]);
    let tokens_of = |mid: &str| {
        shown["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == mid)
            .unwrap()["tokens"]
            .as_u64()
            .unwrap()
    };
    let gone: u64 = dropped.iter().map(|d| tokens_of(d)).sum();
    assert_eq!(
        preview["tokens_after"].as_u64().unwrap(),
        preview["tokens_before"].as_u64().unwrap() - gone
    );
    assert_eq!(preview["cleared_message_ids"], serde_json::json!([]));

    let done = json(tmp.path(), &args);
    assert_eq!(done["dropped_message_ids"], preview["dropped_message_ids"]);
    let child = done["new_context_id"].as_str().unwrap();
    let now = json(tmp.path(), &["show", &id, "--json"]);
    assert_eq!(now["active_context_id"], child);
    let ids: Vec<&Value> = now["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(
        ids,
        done["kept_message_ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
    assert_eq!(now["total_tokens"], done["tokens_after"]);
    // The parent changed only by gaining its child.
    let parent: Value = serde_json::from_slice(&std::fs::read(&parent_path).unwrap()).unwrap();
    let mut expected = ctx.clone();
    expected["children"] = serde_json::json!([child]);
    assert_eq!(parent, expected);
    ok(tmp.path(), &["activate", &id, &parent_id]);
    assert_eq!(
        json(tmp.path(), &["show", &id, "--json"])["active_context_id"],
        parent_id.as_str()
    );
}

#[test]
fn clears_by_size_by_id_and_by_turns_keep_the_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let id = store(tmp.path());
    let (parent_path, ctx) = active_context(tmp.path(), &id);
    let parent_bytes = std::fs::read(&parent_path).unwrap();
    let shown = json(tmp.path(), &["show", &id, "--json"]);
    let messages = shown["messages"].as_array().unwrap();
    // Tool results are single-part messages here, so "over N" is their count.
    let limit = 150;
    let big: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool" && m["special"].is_null())
        .filter(|m| m["tokens"].as_u64().unwrap() > limit)
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(!big.is_empty());
    let over = ["trim", &id, "--clear-tool-results-over", "150", "--json"];
    let preview = json(tmp.path(), &[&over[..], &["--dry-run"]].concat());
    assert_eq!(strs(&preview["cleared_message_ids"]), big);
    assert_eq!(preview["dropped_message_ids"], serde_json::json!([]));
    assert_eq!(
        preview["kept_message_ids"].as_array().unwrap().len(),
        messages.len()
    );

    let done = json(tmp.path(), &over);
    assert_eq!(done["tokens_after"], preview["tokens_after"]);
    let child = done["new_context_id"].as_str().unwrap();
    let now = json(tmp.path(), &["show", &id, "--json"]);
    assert_eq!(now["active_context_id"], child);
    assert_eq!(now["messages"].as_array().unwrap().len(), messages.len());
    assert_eq!(
        now["total_tokens"], done["tokens_after"],
        "counted with the real counter"
    );
    for c in done["cleared"].as_array().unwrap() {
        let (old, new) = (c["id"].as_str().unwrap(), c["new_id"].as_str().unwrap());
        assert_ne!(old, new);
        let shown = json(tmp.path(), &["show", &id, "--message", new, "--json"]);
        let before = messages.iter().find(|m| m["id"] == old).unwrap()["tokens"]
            .as_u64()
            .unwrap();
        let text = shown["full_text"].as_str().unwrap();
        let stated = format!("[tool result cleared: {} tokens]", thousands(before));
        assert!(text.contains(&stated), "{text} states {stated}");
        assert_eq!(shown["tokens"], c["tokens_after"]);
    }
    let (_, fork) = active_context(tmp.path(), &id);
    let copies: Vec<&Value> = fork["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.get("cleared_from").is_some())
        .collect();
    assert_eq!(copies.len(), big.len());
    for copy in &copies {
        let original = ctx["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == copy["cleared_from"])
            .unwrap();
        assert_eq!(
            calls(copy, "tool_result"),
            calls(original, "tool_result"),
            "call ids kept"
        );
    }
    let mut parent: Value = serde_json::from_slice(&std::fs::read(&parent_path).unwrap()).unwrap();
    parent["children"] = serde_json::json!([]);
    let mut before: Value = serde_json::from_slice(&parent_bytes).unwrap();
    before["children"] = serde_json::json!([]);
    assert_eq!(parent, before, "the parent is untouched");

    // A placeholder is not cleared again; a message without results cannot be.
    let again = run(
        tmp.path(),
        &["trim", &id, "--clear", copies[0]["id"].as_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("cleared already"));
    let user = fork["messages"][2]["id"].as_str().unwrap();
    let none = run(tmp.path(), &["trim", &id, "--clear", user]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("holds no tool result"));
    let nothing = run(
        tmp.path(),
        &["trim", &id, "--clear-tool-results-over", "150", "--json"],
    );
    assert_eq!(nothing.status.code(), Some(1), "nothing left over 150");
    let nothing: Value = serde_json::from_slice(&nothing.stdout).unwrap();
    assert_eq!(nothing["changed"], false);

    // By id, and by turns: only results before the last K user prompts.
    let small = messages
        .iter()
        .filter(|m| m["role"] == "tool" && m["special"].is_null())
        .find(|m| !big.contains(&m["id"].as_str().unwrap()))
        .map(|m| m["id"].as_str().unwrap())
        .expect("a result of at most 150 tokens");
    let by_id = run(
        tmp.path(),
        &["trim", &id, "--clear", small, "--dry-run", "--json"],
    );
    let by_id_json: Value = serde_json::from_slice(&by_id.stdout).unwrap();
    if by_id_json["changed"] == true {
        assert_eq!(strs(&by_id_json["cleared_message_ids"]), [small]);
        assert!(by_id_json["tokens_after"].as_u64() < by_id_json["tokens_before"].as_u64());
    } else {
        // Its placeholder would take as many tokens: left as it is, and said.
        assert_eq!(by_id.status.code(), Some(1));
        assert!(
            by_id_json["warnings"][0]
                .as_str()
                .unwrap()
                .contains("left as it is")
        );
    }
    let turns = json(
        tmp.path(),
        &[
            "trim",
            &id,
            "--clear-older-than-turns",
            "2",
            "--dry-run",
            "--json",
        ],
    );
    let fork_messages = fork["messages"].as_array().unwrap();
    let starts: Vec<usize> = (0..fork_messages.len())
        .filter(|&i| i > 1 && fork_messages[i]["role"] == "user")
        .collect();
    let cut = starts[starts.len() - 2];
    for cleared in strs(&turns["cleared_message_ids"]) {
        let at = fork_messages
            .iter()
            .position(|m| m["id"] == cleared)
            .unwrap();
        assert!(
            at < cut,
            "{cleared} at #{at} is older than the last 2 turns (#{cut} on)"
        );
    }
}

#[test]
fn window_trims_answer_in_the_same_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let id = store(tmp.path());
    let window = json(
        tmp.path(),
        &["trim", &id, "--keep-messages", "4", "--dry-run", "--json"],
    );
    let (result, _) = first_pair(&active_context(tmp.path(), &id).1);
    let drop = json(
        tmp.path(),
        &[
            "trim",
            &id,
            "--drop",
            &result,
            "--with-pairs",
            "--dry-run",
            "--json",
        ],
    );
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&window), keys(&drop));
    for key in ["cleared_message_ids", "also_dropped", "cleared"] {
        assert_eq!(window[key], serde_json::json!([]), "{key}");
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_loki_context_made_resumable_names_its_images_and_the_preview_is_the_write() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = ["demo", "--sessions", "20", "--messages", "60"];
    ok(
        tmp.path(),
        &[&demo[..], &["--big-context", "0", "--plain"]].concat(),
    );
    let images_of = |ctx: &Value| {
        ctx["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .filter(|p| p["type"] == "image")
            .count()
    };
    let list = json(tmp.path(), &["list", "--json"]);
    let id = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .find(|id| images_of(&active_context(tmp.path(), id).1) > 0)
        .expect("a demo conversation holds images");
    let (parent_path, ctx) = active_context(tmp.path(), &id);
    let images = images_of(&ctx);
    let fix = [
        "trim",
        &id,
        "--resumable",
        "--results-over",
        "300",
        "--json",
    ];
    let preview = json(tmp.path(), &[&fix[..], &["--dry-run"]].concat());
    let done = json(tmp.path(), &fix);
    for key in [
        "kept_message_ids",
        "dropped_message_ids",
        "cleared_message_ids",
        "tokens_before",
        "tokens_after",
        "bytes_before",
        "bytes_after",
    ] {
        assert_eq!(preview[key], done[key], "{key}: the preview is the write");
    }
    let replaced: u64 = done["cleared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["media"].as_u64().unwrap())
        .sum();
    assert_eq!(replaced, images as u64, "every image is replaced");
    let (child_path, child) = active_context(tmp.path(), &id);
    assert_ne!(child_path, parent_path);
    assert_eq!(
        done["bytes_after"],
        std::fs::metadata(&child_path).unwrap().len()
    );
    assert!(done["bytes_after"].as_u64() < done["bytes_before"].as_u64());
    let text = serde_json::to_string(&child).unwrap();
    assert!(!text.contains("\"type\":\"image\""), "no image is left");
    assert!(text.contains("[image removed: image/png, "));
    let now = json(tmp.path(), &["show", &id, "--json"]);
    assert_eq!(now["total_tokens"], done["tokens_after"]);
    assert_eq!(now["active_context_id"], done["new_context_id"]);
    // The old context stays: activate undoes the fix.
    let parent_id = ctx["id"].as_str().map_or_else(
        || {
            parent_path
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        },
        str::to_string,
    );
    ok(tmp.path(), &["activate", &id, &parent_id]);
    assert_eq!(active_context(tmp.path(), &id).0, parent_path);
}
