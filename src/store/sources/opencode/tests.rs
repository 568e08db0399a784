use super::*;
use rusqlite::params;

/// The tables as OpenCode's first SQLite migration made them, and a
/// session with a subagent, a failed call and an unknown part.
fn database(dir: &Path) -> PathBuf {
    let path = dir.join(DATABASE);
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
           slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
           time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_archived INTEGER);
         CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
           time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
         CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
           time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
         INSERT INTO session VALUES ('ses_main1', 'p', NULL, 'brave-otter', '/srv/demo',
           'New session - 2026-03-01T10:00:00.000Z', '1.2.10', 1772359200000, 1772359260000, NULL);
         INSERT INTO session VALUES ('ses_sub01', 'p', 'ses_main1', 'calm-fox', '/srv/demo',
           'Scan (@explore subagent)', '1.2.10', 1772359230000, 1772359240000, NULL);",
    )
    .unwrap();
    let rows: [(&str, &str, i64, &str); 4] = [
        (
            "msg_001",
            "ses_main1",
            1772359201000,
            r#"{"role":"user","time":{"created":1772359201000}}"#,
        ),
        (
            "msg_002",
            "ses_main1",
            1772359202000,
            r#"{"role":"assistant","time":{"created":1772359202000},"modelID":"claude-sonnet-4-5","tokens":{"input":1200,"output":85,"reasoning":10,"cache":{"read":9000,"write":300}}}"#,
        ),
        (
            "msg_003",
            "ses_sub01",
            1772359231000,
            r#"{"role":"user","time":{"created":1772359231000}}"#,
        ),
        (
            "msg_004",
            "ses_sub01",
            1772359232000,
            r#"{"role":"assistant","time":{"created":1772359232000},"modelID":"claude-haiku-4-5","tokens":{"input":50,"output":5,"cache":{"read":0,"write":0}},"error":{"name":"MessageAbortedError","data":{"message":"aborted"}}}"#,
        ),
    ];
    for (id, session, at, data) in rows {
        conn.execute(
            "INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)",
            params![id, session, at, data],
        )
        .unwrap();
    }
    let parts = [
        (
            "prt_001",
            "msg_001",
            "ses_main1",
            r#"{"type":"text","text":"The file was attached.","synthetic":true}"#,
        ),
        (
            "prt_002",
            "msg_001",
            "ses_main1",
            r#"{"type":"text","text":"list the files"}"#,
        ),
        (
            "prt_003",
            "msg_002",
            "ses_main1",
            r#"{"type":"step-start"}"#,
        ),
        (
            "prt_004",
            "msg_002",
            "ses_main1",
            r#"{"type":"reasoning","text":"Use ls."}"#,
        ),
        (
            "prt_005",
            "msg_002",
            "ses_main1",
            r#"{"type":"tool","callID":"c1","tool":"bash","state":{"status":"completed","input":{"command":"ls"},"output":"README.md\nsrc\n"}}"#,
        ),
        (
            "prt_006",
            "msg_002",
            "ses_main1",
            r#"{"type":"tool","callID":"c2","tool":"bash","state":{"status":"error","input":{"command":"make"},"error":"no rule"}}"#,
        ),
        (
            "prt_007",
            "msg_002",
            "ses_main1",
            r#"{"type":"text","text":"A README and src."}"#,
        ),
        ("prt_008", "msg_002", "ses_main1", r#"{"type":"hologram"}"#),
        (
            "prt_009",
            "msg_003",
            "ses_sub01",
            r#"{"type":"text","text":"scan it"}"#,
        ),
    ];
    for (id, message, session, data) in parts {
        conn.execute(
            "INSERT INTO part VALUES (?1, ?2, ?3, 0, 0, ?4)",
            params![id, message, session, data],
        )
        .unwrap();
    }
    drop(conn);
    path
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn listed(dir: &Path) -> Vec<SessionRecord> {
    let mut out = Vec::new();
    OpencodeData::open(dir)
        .scan(&mut |batch| {
            out.extend(batch);
            true
        })
        .unwrap();
    out
}

#[test]
fn a_session_lists_by_its_first_prompt_and_its_subagent_does_not() {
    let dir = tempfile::tempdir().unwrap();
    database(dir.path());
    let records = listed(dir.path());
    assert_eq!(records.len(), 1, "the subagent's session is its parent's");
    let r = &records[0];
    assert_eq!((r.agent, r.id.as_str()), (Agent::Opencode, "ses_main1"));
    assert_eq!(r.error, None);
    assert_eq!(r.title, "list the files", "the placeholder title gives way");
    assert_eq!(r.cwd.as_deref(), Some("/srv/demo"));
    assert_eq!(r.last_used_at, 1772359260.0);
    assert_eq!(
        OpencodeData::open(dir.path()).ids(),
        vec![(
            SessionId::check("ses_main1").unwrap(),
            dir.path().join(DATABASE)
        )]
    );
}

#[test]
fn a_session_reads_with_its_calls_results_and_subagent_and_its_usage() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let read = OpencodeData::read(&OpencodeData::record_of("ses_main1", &db)).unwrap();
    let shown: Vec<String> = read.main.context.messages().map(|m| m.one_line()).collect();
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert_eq!(
        shown[0], "list the files",
        "OpenCode's own text is not shown"
    );
    assert!(shown[1].contains("Use ls."), "{shown:?}");
    let results = read.main.context.message(2).unwrap();
    assert_eq!(results.parts().len(), 2, "both calls' results");
    let raw = serde_json::Value::Object(results.raw().clone()).to_string();
    assert_eq!(
        raw.matches("\"execution_status\":\"error\"").count(),
        1,
        "{raw}"
    );
    assert_eq!(read.others.len(), 1, "the subagent");
    let sub: Vec<String> = read.others[0]
        .context
        .messages()
        .map(|m| m.one_line())
        .collect();
    assert!(sub[1].contains("MessageAbortedError: aborted"), "{sub:?}");
    let total = read.usage.total();
    assert_eq!(
        (
            total.input,
            total.output,
            total.cache_read,
            total.cache_write,
            total.thoughts
        ),
        (1250, 90, 9000, 300, 10),
        "the subagent's tokens count with its parent's"
    );
    let context = read.context.unwrap();
    assert_eq!(
        (context.tokens, context.model.as_str()),
        (10_500, "claude-sonnet-4-5")
    );
    assert_eq!(read.skipped.unknown_blocks, [("hologram".to_string(), 1)]);
}

#[test]
fn reading_writes_nothing_beside_the_database_whether_opencode_has_it_open_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let before = names_in(dir.path());
    assert_eq!(before, [DATABASE], "closed, as OpenCode leaves it");
    let modified = std::fs::metadata(&db).unwrap().modified().unwrap();
    let record = OpencodeData::record_of("ses_main1", &db);
    OpencodeData::read(&record).unwrap();
    listed(dir.path());
    assert_eq!(names_in(dir.path()), before);
    assert_eq!(
        std::fs::metadata(&db).unwrap().modified().unwrap(),
        modified
    );
    // OpenCode running: its writer holds the -wal and -shm; a session it
    // commits is seen, and nothing more is made.
    let writer = Connection::open(&db).unwrap();
    writer
        .execute(
            "INSERT INTO session VALUES ('ses_new01', 'p', NULL, 's', '/srv/new', 'Fresh', '1.2.10', 1772359300000, 1772359300000, NULL)",
            [],
        )
        .unwrap();
    let open = names_in(dir.path());
    assert_eq!(open.len(), 3, "{open:?}");
    assert_eq!(listed(dir.path()).len(), 2);
    assert_eq!(names_in(dir.path()), open);
    drop(writer);
    assert_eq!(
        names_in(dir.path()),
        before,
        "OpenCode's close removes them"
    );
}

#[test]
fn a_link_a_fifo_or_a_file_that_is_not_a_database_is_a_damaged_record_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let real = database(elsewhere.path());
    std::os::unix::fs::symlink(&real, dir.path().join(DATABASE)).unwrap();
    assert!(listed(dir.path()).is_empty(), "a link is no database here");
    std::fs::remove_file(dir.path().join(DATABASE)).unwrap();
    std::fs::write(dir.path().join(DATABASE), "not a database").unwrap();
    let records = listed(dir.path());
    assert_eq!(records.len(), 1);
    let error = records[0].error.clone().unwrap();
    assert!(error.contains(DATABASE), "{error}");
    let missing = OpencodeData::record_of("ses_gone", &real);
    assert!(missing.error.unwrap().contains("no session ses_gone"));
    // A FIFO in its place is refused without opening it (which would block).
    std::fs::remove_file(dir.path().join(DATABASE)).unwrap();
    let fifo = dir.path().join(DATABASE);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        assert!(listed(dir.path()).is_empty());
        let error = OpencodeData::read(&SessionRecord {
            path: fifo,
            ..missing_record()
        })
        .unwrap_err()
        .to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }
}

fn missing_record() -> SessionRecord {
    SessionRecord {
        agent: Agent::Opencode,
        id: SessionId::check("ses_main1").unwrap(),
        ..SessionRecord::default()
    }
}
