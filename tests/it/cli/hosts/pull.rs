//! `pull SESSION --host NAME`: another machine's Claude Code or Codex
//! session copied here, where the agent looks for it, its folder moved to
//! where the project is here; never over a session that is here, never
//! from a pack that names a file outside the session.

use super::{Machines, answering, stderr};
use crate::common::{Sandboxed, command};
use serde_json::Value;
use std::path::Path;

/// The id and folder of the first `agent` session `list --json` gives at
/// `home`, and its file.
fn first_of(home: &Path, agent: &str) -> (String, String, String) {
    let rows = listed(home, agent);
    let row = rows
        .iter()
        .find(|r| r["error"].is_null() && r["cwd"].is_string())
        .unwrap();
    (
        row["id"].as_str().unwrap().into(),
        row["cwd"].as_str().unwrap().into(),
        row["path"].as_str().unwrap().into(),
    )
}

/// The rows `list --json` gives of `agent`'s sessions at `home`.
fn listed(home: &Path, agent: &str) -> Vec<Value> {
    let out = command()
        .at_home(home)
        .args(["--agent", agent, "list", "--json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every `cwd` of a Claude Code file's lines.
fn folders(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .filter_map(|v| v["cwd"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_claude_code_session_comes_here_with_its_folder_moved_and_never_over_one() {
    let m = Machines::new("");
    let other = m.homes.join("other");
    let (id, from, there) = first_of(&other, "claude");
    let source = std::fs::read(&there).unwrap();
    let to = m.here.join("work").join("api");
    std::fs::create_dir_all(&to).unwrap();
    // Its folder is not on this machine: said, nothing written.
    let out = m.run(&["--host", "other", "pull", &id]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--to DIR"), "{}", stderr(&out));
    // A dry run says where it would go and writes nothing.
    let to_arg = to.to_str().unwrap();
    let out = m.run(&[
        "--host",
        "other",
        "pull",
        &id,
        "--to",
        to_arg,
        "--dry-run",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let here = Path::new(plan["to_file"].as_str().unwrap()).to_path_buf();
    assert!(
        here.starts_with(m.here.join(".claude/projects")),
        "{here:?}"
    );
    assert!(!here.exists(), "a dry run writes nothing");
    assert!(plan["lines_changed"].as_u64().unwrap() > 0);
    let out = m.run(&["--host", "other", "pull", &id[..8], "--to", to_arg]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("loki-sessions resume {id}")));
    // Every line's folder is the project's here, every other byte kept.
    let pulled = std::fs::read(&here).unwrap();
    assert!(
        folders(&pulled).iter().all(|f| f.starts_with(to_arg)),
        "{:?}",
        folders(&pulled)
    );
    assert_eq!(folders(&pulled).len(), folders(&source).len());
    let undo = String::from_utf8_lossy(&pulled).replace(
        &serde_json::to_string(to_arg).unwrap()[1..to_arg.len() + 1],
        &from,
    );
    assert_eq!(undo.as_bytes(), &source[..], "only the folder changed");
    // It is this machine's session now, resumed in its folder here.
    let out = m.run(&["--print", "command", "resume", &id]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("cd {to_arg}")));
    // Pulled again: refused, the one here untouched.
    let out = m.run(&["--host", "other", "pull", &id, "--to", to_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("on this machine already"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&here).unwrap(), pulled);
    // The source there is as it was.
    assert_eq!(std::fs::read(&there).unwrap(), source);
}

#[test]
fn a_codex_rollout_comes_to_the_same_day_folder_and_gemini_is_refused() {
    let m = Machines::new("");
    let other = m.homes.join("other");
    let (id, _, there) = first_of(&other, "codex");
    let to = m.here.join("svc");
    std::fs::create_dir_all(&to).unwrap();
    let out = m.run(&[
        "--host",
        "other",
        "pull",
        &id,
        "--to",
        to.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rel = Path::new(&there)
        .strip_prefix(other.join(".codex"))
        .unwrap();
    assert_eq!(
        Path::new(plan["to_file"].as_str().unwrap()),
        m.here.join(".codex").join(rel)
    );
    let rows = listed(&m.here, "codex");
    let row = rows.iter().find(|r| r["id"] == id.as_str()).unwrap();
    assert_eq!(row["cwd"].as_str(), to.to_str());
    let (gemini, _, _) = first_of(&other, "gemini");
    let out = m.run(&[
        "--host",
        "other",
        "pull",
        &gemini,
        "--to",
        to.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Claude Code and Codex"),
        "{}",
        stderr(&out)
    );
    let out = m.run(&["pull", &id]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--host NAME"), "{}", stderr(&out));
}

#[test]
fn a_pack_naming_a_file_outside_the_session_is_refused_and_nothing_is_written() {
    let version = format!("loki-sessions {}", env!("CARGO_PKG_VERSION"));
    let probe = Machines::new("");
    let id = "0a8f5c1e-1111-4222-8333-944445555666";
    let header = |path: &str| {
        format!(
            r#"{{"loki_sessions_pack":1,"agent":"claude","id":"{id}","cwd":"/tmp","files":[{{"path":"{id}.jsonl","bytes":0}},{{"path":"{path}","bytes":3}}]}}"#
        ) + "\nabc"
    };
    let extra = [
        answering(
            &probe,
            "escape",
            &version,
            &header(&format!("{id}/../../../.bashrc")),
        ),
        answering(
            &probe,
            "hidden",
            &version,
            &header(&format!("{id}/.ssh/authorized_keys")),
        ),
        answering(
            &probe,
            "garbage",
            &version,
            "{\"loki_sessions_pack\":1,\"agent\":\"claude\"}\nxyz",
        ),
    ]
    .concat();
    probe.add_hosts(&extra);
    let m = probe;
    let before = crate::common::snapshot(&m.here);
    for host in ["escape", "hidden", "garbage"] {
        let out = m.run(&["--host", host, "pull", id, "--to", "/tmp"]);
        assert_eq!(out.status.code(), Some(2), "{host}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("host {host}: ")) && stderr(&out).contains("(refused)"),
            "{host}: {}",
            stderr(&out)
        );
    }
    assert_eq!(crate::common::snapshot(&m.here), before, "nothing written");
}
