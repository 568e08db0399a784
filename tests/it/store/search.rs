//! Search: the index and the direct scan of the files (`--no-index`) find
//! the same messages (session, context, message and role alike), for
//! strings planted in every kind of part and script, and still after
//! appends, trims, deletions and purges; a damaged, foreign, old or busy
//! index, or two processes writing it at once, changes how an answer is
//! found, never what it is; a session search cannot read is named.
//! (tests/search_reference.rs checks both against an independent reference.)

mod cases;
mod fixture;
use crate::common::*;
use fixture::*;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::process::{Command, Stdio};

#[test]
fn index_and_files_find_the_same_messages_in_every_part_and_script() {
    let f = Fixture::new();
    let id = planted(&f);
    for (query, count) in [
        ("zebrafoil", 1),
        ("quasarwidget", 1),
        ("nebulakey", 1),
        ("\"token expired\"", 1),
        ("überprüfung", 1),
        ("東京", 1),
        ("オフィス", 1),
        ("🚀", 1),
        ("quokka_login.py", 1),
        ("login.py quokka", 1),
        ("marmaladepath", 1),
        ("role:tool expired", 1),
        ("role:user expired", 0),
        ("zebrafoil quasarwidget", 0),
    ] {
        let hits = f.same_both_ways(query);
        assert_eq!(hits.len(), count, "{query:?}: {hits:?}");
        assert!(hits.iter().all(|(s, ..)| *s == id), "{query:?}");
    }
    // Common words across the demo sessions agree too.
    for query in [
        "login",
        "the build",
        "\"connection refused\"",
        "role:assistant test",
    ] {
        let hits = f.same_both_ways(query);
        assert!(!hits.is_empty(), "{query:?} finds something in the demo");
    }
}

#[test]
fn updates_are_incremental_and_follow_appends_trims_deletes_and_purges() {
    let f = Fixture::new();
    let id = planted(&f);
    let built: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(built["status"]["sessions"], 41);
    // Nothing changed: nothing is read again.
    let again: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(again["update"]["read"], 0);
    // An append (the agent writes the context in place) is found at once.
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    write_context(
        &memory.join(format!("{ctx_id}.json")),
        &ctx_id,
        &[
            ("user", json!("first zebrafoil")),
            ("assistant", json!("then a newword appears")),
        ],
    );
    assert_eq!(f.same_both_ways("newword").len(), 1);
    let after: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(
        after["update"]["read"], 0,
        "the search already read it again"
    );
    // A trim forks: the message is in both contexts, and found once.
    f.ok(&["trim", &id, "--keep-messages", "1"]);
    let hits = f.same_both_ways("zebrafoil");
    assert_eq!(
        hits.len(),
        1,
        "a message shared by a fork and its parent is one hit"
    );
    // A deleted session leaves the index.
    f.ok(&["delete", &id, "--yes"]);
    assert!(f.same_both_ways("newword").is_empty());
    // A purge too.
    f.ok(&["purge", "--keep", "5", "--max-age", "365d", "--yes"]);
    // "the" is in every demo session: the hits come from the 5 kept ones, all of them.
    let hits = f.same_both_ways("the");
    let left: BTreeSet<String> = hits.into_iter().map(|(s, ..)| s).collect();
    let listed: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    let kept: BTreeSet<String> = listed
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kept.len(), 5);
    assert_eq!(left, kept, "hits in the 5 kept sessions, and only there");
    let status: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(status["status"]["sessions"], 5);
}

#[test]
fn a_session_renamed_since_it_was_indexed_is_shown_by_its_new_name() {
    // A search looks at meta.json only for the sessions its answer shows
    // (the rest of the store is checked on its conversations alone).
    let f = Fixture::new();
    let id = planted(&f);
    f.ok(&["index"]);
    let meta_path = sessions(&f.root).join(&id).join("meta.json");
    let mut meta: Value = serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
    meta["name"] = json!("renamed-by-hand");
    meta["last_used_at"] = json!(meta["last_used_at"].as_f64().unwrap() + 60.0);
    std::fs::write(&meta_path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
    let names = |extra: &[&str]| -> BTreeSet<String> {
        let args: Vec<&str> = [&["search", "zebrafoil", "--json"][..], extra].concat();
        let hits: Vec<Value> = serde_json::from_str(&f.ok(&args)).unwrap();
        hits.iter()
            .map(|h| h["session_name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&[]), BTreeSet::from(["renamed-by-hand".to_string()]));
    assert_eq!(names(&["--no-index"]), names(&[]));
    // The search brought the index up to date for it: nothing is left to read.
    let after: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert_eq!(after["update"]["read"], 0, "{after}");
}

#[test]
fn a_damaged_or_unwritable_index_changes_how_not_what() {
    let f = Fixture::new();
    planted(&f);
    let want = f.same_both_ways("zebrafoil");
    assert_eq!(want.len(), 1);
    let dir = f.index_dir();
    // A manifest of garbage: rebuilt, same answer, a note.
    let manifest = dir.join("sessions.postcard");
    std::fs::write(&manifest, b"\xff\xfe not a manifest").unwrap();
    let (hits, err) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(err.contains("damaged") || err.contains("rebuilt"), "{err}");
    let status: Value = serde_json::from_str(&f.ok(&["index", "--json"])).unwrap();
    assert!(
        status["status"]["built_at"].as_f64().unwrap_or(0.0) > 0.0,
        "a search that rebuilt the index says when: {status}"
    );
    // tantivy's own files damaged: rebuilt, same answer.
    std::fs::write(dir.join("meta.json"), b"{ truncated").unwrap();
    let (hits, err) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(err.contains("rebuilt"), "{err}");
    // A cache that cannot hold a folder (a file where it should be): the
    // files are searched directly, and the note says why.
    std::fs::remove_dir_all(&f.cache).unwrap();
    std::fs::write(&f.cache, b"not a folder").unwrap();
    let (hits, err) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(err.contains("searched directly"), "{err}");
    // A missing cache folder is made.
    std::fs::remove_file(&f.cache).unwrap();
    let (hits, _) = f.hits("zebrafoil", &[]);
    assert_eq!(hits, want);
    assert!(f.cache.join("loki-sessions").is_dir());
}

#[test]
fn while_another_process_writes_the_index_changed_sessions_are_read_directly() {
    let f = Fixture::new();
    let id = planted(&f);
    f.ok(&["index"]);
    let lock = f.index_dir().join(".tantivy-writer.lock");
    // Another writer holds tantivy's lock (as a running UI would).
    let mut holder = Command::new("python3")
        .arg("-c")
        .arg(
            "import fcntl, sys, time\n\
             f = open(sys.argv[1], 'a')\n\
             fcntl.flock(f, fcntl.LOCK_EX)\n\
             print('locked', flush=True)\n\
             time.sleep(30)",
        )
        .arg(&lock)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "locked");
    let memory = sessions(&f.root).join(&id).join("memory");
    let session: Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let ctx_id = session["active_context_id"].as_str().unwrap().to_string();
    write_context(
        &memory.join(format!("{ctx_id}.json")),
        &ctx_id,
        &[("user", json!("a lockedword"))],
    );
    let (hits, err) = f.hits("lockedword", &[]);
    assert_eq!(hits.len(), 1, "found in the files: {err}");
    assert!(err.contains("another process"), "{err}");
    // Every answer is the files' answer: the changed session's from its
    // files, the others' from the index as it is.
    for query in ["lockedword", "zebrafoil", "login", "\"connection refused\""] {
        let (indexed, err) = f.hits(query, &[]);
        let (direct, _) = f.hits(query, &["--no-index"]);
        assert_eq!(indexed, direct, "{query:?}: {err}");
    }
    let (old, _) = f.hits("zebrafoil", &[]);
    assert!(
        old.is_empty(),
        "the changed session's old words are gone: {old:?}"
    );
    let _ = holder.kill();
    let _ = holder.wait();
}

#[test]
fn bad_queries_and_no_hits_have_their_exit_codes() {
    let f = Fixture::new();
    for bad in ["\"unclosed", "role:robot word", "   ", "role:user"] {
        assert_eq!(f.run(&["search", bad]).status.code(), Some(2), "{bad:?}");
    }
    assert_eq!(f.run(&["search", "zzqqxxyy"]).status.code(), Some(1));
    assert_eq!(f.run(&["search", "login"]).status.code(), Some(0));
}

#[test]
fn list_takes_tokens_from_the_index_and_sorts() {
    let f = Fixture::new();
    let before: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    assert!(
        before.iter().all(|i| i.get("tokens").is_none()),
        "no index yet"
    );
    f.ok(&["index"]);
    let listed: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    assert!(
        listed.iter().all(|i| i["tokens"].as_u64().is_some()),
        "every session"
    );
    let counted: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json", "--tokens"])).unwrap();
    let tokens = |items: &[Value]| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = items
            .iter()
            .map(|i| {
                (
                    i["id"].as_str().unwrap().to_string(),
                    i["tokens"].as_u64().unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        tokens(&listed),
        tokens(&counted),
        "the index counts what --tokens counts"
    );
    // A session changed since it was indexed has no token count from it.
    let id = planted(&f);
    let listed: Vec<Value> = serde_json::from_str(&f.ok(&["list", "--json"])).unwrap();
    let planted_row = listed.iter().find(|i| i["id"] == id.as_str()).unwrap();
    assert!(planted_row.get("tokens").is_none(), "{planted_row}");
    for (key, field) in [
        ("size", "bytes"),
        ("messages", "messages"),
        ("tokens", "tokens"),
    ] {
        let sorted: Vec<Value> =
            serde_json::from_str(&f.ok(&["list", "--json", "--sort", key])).unwrap();
        let values: Vec<u64> = sorted
            .iter()
            .map(|i| i[field].as_u64().unwrap_or(0))
            .collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "{key}: {values:?}");
    }
    let by_name: Vec<Value> =
        serde_json::from_str(&f.ok(&["list", "--json", "--sort", "name"])).unwrap();
    let names: Vec<String> = by_name
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_lowercase())
        .collect();
    assert!(names.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(f.run(&["list", "--sort", "colour"]).status.code(), Some(2));
}
