//! The index cases that change how an answer is found, never what it is:
//! another store's index copied into the slot, a manifest of another
//! format, a tantivy schema not ours, two `loki-sessions` processes
//! writing the index at once; and a session search cannot read, named in
//! the answer and left out of its coverage.

use super::fixture::*;
use crate::common::*;
use serde_json::Value;
use std::process::Stdio;

/// Copies every file of the slot `from` into the slot `to`, emptied first.
fn replace_slot(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(to).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn a_foreign_an_old_or_another_schemas_index_is_rebuilt() {
    let f = Fixture::new();
    planted(&f);
    let other = Fixture::new();
    other.ok(&["index"]);
    let queries = ["zebrafoil", "login", "\"connection refused\""];
    let want: Vec<_> = queries.iter().map(|q| f.same_both_ways(q)).collect();
    assert_eq!(want[0].len(), 1);
    let agree = |what: &str, note: &str| {
        let (hits, err) = f.hits(queries[0], &[]);
        assert_eq!(hits, want[0], "{what}: {err}");
        assert!(
            err.contains(note) && err.contains("rebuilt"),
            "{what}: {err}"
        );
        for (query, want) in queries.iter().zip(&want) {
            assert_eq!(&f.hits(query, &[]).0, want, "{what}: {query:?}");
        }
    };
    // Another store's slot copied in: its manifest names another folder.
    replace_slot(&other.index_dir(), &f.index_dir());
    agree("a foreign index", "another folder");
    // A manifest of an older format (postcard's first byte is the format).
    let manifest = f.index_dir().join("sessions.postcard");
    let mut bytes = std::fs::read(&manifest).unwrap();
    assert_eq!(bytes[0], 4, "the manifest's format");
    bytes[0] = 1;
    std::fs::write(&manifest, &bytes).unwrap();
    agree("a manifest of format 1", "format 1");
    // A tantivy index of another schema (a field renamed).
    let meta = f.index_dir().join("meta.json");
    let mut index: Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    let fields = index["schema"].as_array_mut().unwrap();
    let text = fields.iter_mut().find(|f| f["name"] == "text").unwrap();
    text["name"] = "body".into();
    std::fs::write(&meta, serde_json::to_vec(&index).unwrap()).unwrap();
    agree("another schema", "could not be used");
}

#[test]
fn two_processes_writing_the_index_at_once_agree_with_the_files() {
    let f = Fixture::new();
    planted(&f);
    let queries = ["login", "zebrafoil", "role:tool expired"];
    let want: Vec<_> = queries
        .iter()
        .map(|q| f.hits(q, &["--no-index"]).0)
        .collect();
    let mut busy = 0;
    for round in 0..6 {
        let spawn = |args: &[&str]| {
            command()
                .arg("--root")
                .arg(&f.root)
                .args(["--user", "tester"])
                .args(args)
                .env("XDG_CACHE_HOME", &f.cache)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let writers: Vec<_> = [
            vec!["index", "--rebuild", "--json"],
            vec!["index", "--rebuild", "--json"],
            vec!["index", "--json"],
        ]
        .iter()
        .map(|a| spawn(a))
        .collect();
        let searches: Vec<_> = queries
            .iter()
            .map(|q| spawn(&["search", q, "--json", "--limit", "100000"]))
            .collect();
        for writer in writers {
            let out = writer.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "round {round}: index: {stderr}");
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            busy += usize::from(report["update"]["busy"] == true);
        }
        for (i, search) in searches.into_iter().enumerate() {
            let out = search.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "round {round}: {stderr}");
            let hits: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
            let got: std::collections::BTreeSet<Tuple> = hits
                .iter()
                .map(|h| {
                    let t = |k: &str| h[k].as_str().unwrap().to_string();
                    (t("session_id"), t("context_id"), t("message_id"), t("role"))
                })
                .collect();
            assert_eq!(got, want[i], "round {round}: {:?}: {stderr}", queries[i]);
        }
    }
    assert!(busy > 0, "the writers met: one found the other writing");
    let status: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(status["status"]["sessions"], 41, "{status}");
    for (query, want) in queries.iter().zip(&want) {
        assert_eq!(&f.hits(query, &[]).0, want, "after the race: {query:?}");
    }
}

#[test]
fn a_session_search_cannot_read_is_named_and_not_counted() {
    let f = Fixture::new();
    let id = planted(&f);
    f.ok(&["index"]);
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let context = memory.join(format!(
        "{}.json",
        session["active_context_id"].as_str().unwrap()
    ));
    let bytes = std::fs::read(&context).unwrap();
    std::fs::write(&context, &bytes[..bytes.len() / 2]).unwrap();
    for extra in [&[][..], &["--no-index"][..]] {
        let (hits, err) = f.hits("login", extra);
        assert!(!hits.is_empty(), "{extra:?}");
        assert!(
            err.contains(&format!("session {id} could not be read"))
                && err.contains(context.to_str().unwrap()),
            "{extra:?}: {err}"
        );
        assert!(
            err.contains("searched 40 of 41 sessions"),
            "{extra:?}: {err}"
        );
    }
    let (indexed, _) = f.hits("login", &[]);
    assert_eq!(indexed, f.hits("login", &["--no-index"]).0);
}
