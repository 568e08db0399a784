//! Comparing a context with its parent (`diff`) and exporting transcripts
//! (`export`) from the CLI: what each reports, and where an export may not
//! write.

use crate::common::*;
use serde_json::Value;
use std::path::Path;

/// A demo session trimmed twice: a clear of its big tool results, then a
/// drop of its last message. Returns (session, first fork, second fork,
/// the original context).
fn edited_session(root: &Path) -> (String, Value, Value, String) {
    ok(
        root,
        &[
            "demo",
            "--sessions",
            "2",
            "--messages",
            "50",
            "--big-context",
            "0",
            "--plain",
        ],
    );
    let id = json(root, &["list", "--json"])[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let original = json(root, &["show", &id, "--json"])["active_context_id"]
        .as_str()
        .unwrap()
        .to_string();
    let cleared = json(
        root,
        &["trim", &id, "--clear-tool-results-over", "100", "--json"],
    );
    let shown = json(root, &["show", &id, "--json"]);
    let last = shown["messages"].as_array().unwrap().last().unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let dropped = json(
        root,
        &["trim", &id, "--drop", &last, "--with-pairs", "--json"],
    );
    (id, cleared, dropped, original)
}

#[test]
fn diff_names_what_each_fork_dropped_cleared_and_added() {
    let tmp = tempfile::tempdir().unwrap();
    let (id, cleared, dropped, original) = edited_session(tmp.path());
    let first = cleared["new_context_id"].as_str().unwrap();
    // The active context (the drop) against its parent (the clear).
    let d = json(tmp.path(), &["diff", &id, "--json"]);
    assert_eq!(d["session"], id.as_str());
    assert_eq!(d["context"]["id"], dropped["new_context_id"]);
    assert_eq!(d["parent"]["id"], first);
    assert_eq!(d["context"]["tokens"], dropped["tokens_after"]);
    assert_eq!(d["parent"]["tokens"], dropped["tokens_before"]);
    let ids = |key: &str| -> Vec<Value> {
        d[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect()
    };
    assert_eq!(
        ids("dropped"),
        *dropped["dropped_message_ids"].as_array().unwrap()
    );
    assert!(ids("cleared").is_empty() && ids("added").is_empty());
    assert_eq!(
        d["kept"].as_u64().unwrap() as usize,
        dropped["kept_message_ids"].as_array().unwrap().len()
    );
    // The clear against the original: its copies, by cleared_from.
    let d = json(tmp.path(), &["diff", &id, &first[..20], "--json"]);
    assert_eq!(d["parent"]["id"], original.as_str());
    let froms: Vec<&Value> = d["cleared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["cleared_from"])
        .collect();
    assert_eq!(
        froms,
        cleared["cleared_message_ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
    for (c, planned) in d["cleared"]
        .as_array()
        .unwrap()
        .iter()
        .zip(cleared["cleared"].as_array().unwrap())
    {
        assert_eq!(c["id"], planned["new_id"]);
        assert_eq!(c["tokens_before"], planned["tokens_before"]);
        assert_eq!(c["tokens_after"], planned["tokens_after"]);
    }
    assert!(d["dropped"].as_array().unwrap().is_empty());
    // A message an agent appends to the fork shows as added.
    let memory = sessions(tmp.path()).join(&id).join("memory");
    let path = memory.join(format!(
        "{}.json",
        dropped["new_context_id"].as_str().unwrap()
    ));
    let mut ctx: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    ctx["messages"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(
        {"role": "user", "id": "appended-later", "content": [{"type": "text", "text": "more"}]}));
    std::fs::write(&path, serde_json::to_vec(&ctx).unwrap()).unwrap();
    let d = json(tmp.path(), &["diff", &id, "--json"]);
    assert_eq!(d["added"][0]["id"], "appended-later");
    assert_eq!(d["added"][0]["role"], "user");
    let text = ok(tmp.path(), &["diff", &id]);
    assert!(
        text.contains("1 added since the fork") && text.contains("+ #"),
        "{text}"
    );
    // The original is no fork: nothing to compare, exit 1.
    let none = run(tmp.path(), &["diff", &id, &original]);
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("not a fork"));
    assert_eq!(
        run(tmp.path(), &["diff", &id, "zzz"]).status.code(),
        Some(1)
    );
}

#[test]
fn export_prints_or_writes_a_transcript_of_any_context() {
    let tmp = tempfile::tempdir().unwrap();
    let (id, cleared, _, original) = edited_session(tmp.path());
    let md = ok(tmp.path(), &["export", &id, "--format", "md"]);
    assert!(md.starts_with("# "), "{}", &md[..100]);
    for want in [
        "## #1 system prompt",
        "## #2 tool definitions",
        "**Tool call** `",
        "**Tool result** (`",
        "[tool result cleared: ",
    ] {
        assert!(md.contains(want), "{want} in the Markdown");
    }
    let txt = ok(tmp.path(), &["export", &id, "--format", "txt"]);
    assert!(
        txt.contains("── #3 user  ") && txt.contains("[tool call "),
        "{txt}"
    );
    // JSON is the messages as stored; --context picks another context.
    let doc: Value = serde_json::from_str(&ok(
        tmp.path(),
        &["export", &id, "--context", &original, "--format", "json"],
    ))
    .unwrap();
    assert_eq!(doc["context_id"], original.as_str());
    let file = sessions(tmp.path())
        .join(&id)
        .join("memory")
        .join(format!("{original}.json"));
    let stored: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    assert_eq!(doc["messages"], stored["messages"]);
    assert!(
        !ok(
            tmp.path(),
            &["export", &id, "--context", &original, "--format", "md"]
        )
        .contains("[tool result cleared: "),
        "the original holds the results"
    );
    let first = cleared["new_context_id"].as_str().unwrap();
    assert_eq!(
        run(
            tmp.path(),
            &["export", &id, "--context", "nope", "--format", "md"]
        )
        .status
        .code(),
        Some(1)
    );

    // -o writes a new file, never over one unless --force.
    let out = tmp.path().join("out.md");
    let target = out.to_str().unwrap();
    let before_tree = snapshot(&sessions(tmp.path()));
    assert_eq!(
        ok(tmp.path(), &["export", &id, "--format", "md", "-o", target]).trim(),
        target
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), md);
    let again = run(
        tmp.path(),
        &[
            "export",
            &id,
            "--context",
            first,
            "--format",
            "txt",
            "-o",
            target,
        ],
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), md, "not replaced");
    ok(
        tmp.path(),
        &["export", &id, "--format", "txt", "-o", target, "--force"],
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), txt);
    // Never inside the session tree: not in memory/, not in the workspace.
    for inside in ["memory/t.md", "workspace/t.md"] {
        let path = sessions(tmp.path()).join(&id).join(inside);
        let refused = run(
            tmp.path(),
            &[
                "export",
                &id,
                "--format",
                "md",
                "-o",
                path.to_str().unwrap(),
            ],
        );
        assert_eq!(refused.status.code(), Some(2), "{inside}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("inside the session tree"));
    }
    assert_eq!(
        snapshot(&sessions(tmp.path())),
        before_tree,
        "exports wrote nothing in the tree"
    );
    assert_eq!(
        run(tmp.path(), &["export", &id, "--format", "md", "--force"])
            .status
            .code(),
        Some(2),
        "--force needs -o"
    );
}
