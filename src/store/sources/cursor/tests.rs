use super::*;
use crate::store::sources::agent_read::AgentRead;

const ID: &str = "3b1f0c2a-9d4e-4f51-8a77-0123456789ab";

/// A transcript under `home`'s project `project`, with a subagent.
fn transcript(home: &Path, project: &str) -> PathBuf {
    let dir = home
        .join("projects")
        .join(project)
        .join("agent-transcripts")
        .join(ID);
    std::fs::create_dir_all(dir.join("subagents")).unwrap();
    let lines = [
        r#"{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Sunday, Mar 1, 2026, 10:00 AM</timestamp>\n<user_query>\nlist the files here\n</user_query>"}]}}"#,
        r#"{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"Use the shell."},{"type":"text","text":"Let me look."}]}}"#,
        r#"{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Shell","input":{"command":"ls","working_directory":"/srv/demo"}}]}}"#,
        r#"{"role":"assistant","message":{"content":[{"type":"text","text":"A README and src."}]}}"#,
        r#"{"type":"turn_ended","status":"success"}"#,
        r#"{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nnow stop\n</user_query>"},{"type":"hologram"}]}}"#,
        r#"{"type":"turn_ended","status":"error","error":"User aborted request"}"#,
        r#"{"type":"brand_new"}"#,
    ];
    let path = dir.join(format!("{ID}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    std::fs::write(
        dir.join("subagents/7c2d0000-0000-4000-8000-000000000001.jsonl"),
        "{\"role\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"scan\"}]}}\n",
    )
    .unwrap();
    path
}

fn shown(read: &AgentRead) -> Vec<String> {
    read.main.context.messages().map(|m| m.one_line()).collect()
}

#[test]
fn a_transcript_lists_by_its_first_prompt_in_the_folder_its_shell_ran_in() {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), "srv-demo");
    assert_eq!(
        CursorHome::open(dir.path()).session_files(),
        vec![path.clone()]
    );
    let r = record_at(&path);
    assert_eq!(r.error, None);
    assert_eq!((r.agent, r.id.as_str()), (Agent::Cursor, ID));
    assert_eq!(r.title, "list the files here", "unwrapped");
    assert_eq!(r.cwd.as_deref(), Some("/srv/demo"));
}

#[test]
fn consecutive_answers_are_one_message_and_an_aborted_turn_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let read = CursorHome::read(&record_at(&transcript(dir.path(), "x"))).unwrap();
    let shown = shown(&read);
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert_eq!(shown[0], "list the files here");
    assert_eq!(read.main.lines[1].len(), 3, "three lines, one answer");
    assert!(shown[3].contains("User aborted request"), "{shown:?}");
    assert_eq!(read.others.len(), 1, "the subagent");
    assert!(read.usage.is_empty(), "Cursor records no tokens");
    assert_eq!(read.skipped.unknown_types, [("brand_new".to_string(), 1)]);
    assert_eq!(read.skipped.unknown_blocks, [("hologram".to_string(), 1)]);
}

#[test]
fn a_project_name_is_read_as_the_folders_that_exist() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap().trim_start_matches('/');
    std::fs::create_dir_all(dir.path().join("src/my-app")).unwrap();
    let name = format!("{}-src-my-app", root.replace('/', "-"));
    assert_eq!(
        folder_of_project(&name).as_deref(),
        Some(dir.path().join("src/my-app").to_str().unwrap())
    );
    assert_eq!(folder_of_project(&format!("{name}-gone")), None);
    assert_eq!(
        folder_of_project("1772359200000"),
        None,
        "an id, not a path"
    );
    assert_eq!(folder_of_project("..-..-tmp"), None, "never a way up");
}
