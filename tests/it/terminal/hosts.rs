//! The other machines' pane in a real terminal: `--host all` opens on it,
//! a host's rows show while another still hangs, typing and a paste
//! narrow them, and Enter ends the UI and runs the session's resume on its
//! host. The hosts are reached through `tests/fake_ssh.sh` (the real ssh
//! and sshd are checked in `cli::hosts::real_ssh`).

use crate::common::sandbox;
use crate::common::tmux::Tmux;
use crate::common::{Sandboxed, bin, command};
use loki_sessions::demo::agents::{self, AgentsSpec};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// This machine and "other" (a home of every agent's fixtures), a config
/// naming "other" and "hang" (a host that never answers), and the id of
/// the other machine's newest Claude Code session with its file.
struct Machines {
    tmp: tempfile::TempDir,
    here: std::path::PathBuf,
    homes: std::path::PathBuf,
    config: std::path::PathBuf,
    id: String,
    file: String,
}

/// What the hosts line says of the other machine once it answered.
fn other_sessions() -> String {
    format!("other: {} sessions", AgentsSpec::fixtures(0.0).sessions())
}

fn machines(host_timeout: &str) -> Machines {
    let tmp = tempfile::tempdir().unwrap();
    let (here, homes) = (tmp.path().join("here"), tmp.path().join("homes"));
    let now = loki_sessions::store::now_seconds();
    agents::generate(&here, &AgentsSpec::fixtures(now)).unwrap();
    let other = homes.join("other");
    // Other sessions than this machine's (another seed): none is here.
    let mut spec = AgentsSpec::fixtures(now);
    spec.seed ^= 0x5eed;
    agents::generate(&other, &spec).unwrap();
    let listed = command()
        .at_home(&other)
        .args(["--agent", "claude", "list", "--json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = rows[0]["id"].as_str().unwrap().to_string();
    let file = rows[0]["path"].as_str().unwrap().to_string();
    let config = tmp.path().join("config.toml");
    // The program there through a link of this test's own, so that what
    // runs for its hosts is told from another test's.
    let program = tmp.path().join("bin").join("loki-sessions");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(bin(), &program).unwrap();
    let host = |name: &str| {
        format!(
            "[hosts.{name}]\nssh = \"{name}\"\ncommand = \"{}\"\n",
            program.display()
        )
    };
    std::fs::write(
        &config,
        format!(
            "host_timeout = \"{host_timeout}\"\n{}{}",
            host("other"),
            host("hang")
        ),
    )
    .unwrap();
    Machines {
        tmp,
        here,
        homes,
        config,
        id,
        file,
    }
}

impl Machines {
    /// The UI here with `args`, the hosts reached through the stand-in;
    /// its exit code lands in `code`.
    fn ui(&self, args: &str, code: &Path) -> Tmux {
        let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_ssh.sh");
        Tmux::start(&format!(
            "{} XDG_CACHE_HOME={} LOKI_SESSIONS_SSH={} FAKE_SSH_HOMES={} {} --config {} {args} ; echo $? > {} ; sleep 60",
            sandbox::shell_env_at(&self.here),
            self.tmp.path().join("cache").display(),
            fake.display(),
            self.homes.display(),
            bin().display(),
            self.config.display(),
            code.display(),
        ))
    }
}

#[test]
fn host_all_shows_each_hosts_sessions_as_they_come_and_enter_resumes_there_in_a_real_terminal() {
    // A minute for the hanging host: Enter comes while it is still asked.
    let m = machines("60s");
    let id = m.id.clone();
    let code = m.tmp.path().join("code");
    let ui = m.ui("--host all", &code);
    ui.wait_for("Other machines");
    // The other machine's rows, while the hanging one is still asked.
    let screen = ui.wait_for(&other_sessions());
    assert!(screen.contains("hang: asking…"), "{screen}");
    assert!(screen.contains("HOST"), "{screen}");
    // Typed and pasted words narrow the rows; the paste's newline is text.
    ui.text(&id[..8]);
    ui.paste(" other\n");
    let screen = ui.wait_for(&format!(
        "1 of {} sessions",
        AgentsSpec::fixtures(0.0).sessions()
    ));
    assert!(
        screen.contains(&format!(
            "Enter runs loki-sessions --host other resume {id}"
        )),
        "{screen}"
    );
    assert!(!code.exists(), "a paste never presses Enter");
    ui.keys(&["Enter"]);
    // The UI ended and the host's own resume ran for that session there.
    let screen = ui.wait_for(&format!("resuming {id} on other"));
    assert!(!screen.contains("Other machines"), "{screen}");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !code.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let screen = ui.screen().replace('\n', "");
    // The host still asked when the UI ended is not left running.
    let marker = m.tmp.path().join("bin").display().to_string();
    let hanging = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .filter(|c| c.contains(&marker) && c.contains(" hang "))
            .collect::<Vec<_>>()
    };
    let gone = std::time::Instant::now() + Duration::from_secs(5);
    while !hanging().is_empty() && std::time::Instant::now() < gone {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(hanging(), Vec::<String>::new(), "left running");
    // The fixtures' folders are not on this machine: the host's resume
    // says so and how to resume by hand, and its exit code is ours.
    assert!(screen.contains(&format!("--resume={id}")), "{screen}");
    assert_eq!(
        std::fs::read_to_string(&code).unwrap().trim(),
        "2",
        "{screen}"
    );
}

#[test]
fn alt_p_pulls_a_session_here_after_showing_what_it_writes_in_a_real_terminal() {
    let m = machines("8s");
    let source = std::fs::read(&m.file).unwrap();
    let to = m.here.join("work").join("api");
    std::fs::create_dir_all(&to).unwrap();
    let before = crate::common::snapshot(&m.here);
    let code = m.tmp.path().join("code");
    let ui = m.ui("", &code);
    ui.wait_for(" sessions");
    ui.keys(&["M-h"]);
    ui.wait_for(&other_sessions());
    ui.text(&m.id[..8]);
    ui.wait_for(&format!(
        "1 of {} sessions",
        AgentsSpec::fixtures(0.0).sessions()
    ));
    ui.keys(&["M-p"]);
    ui.wait_for("Pull the session here");
    // The folder it was worked in there is offered; this one is typed over it.
    ui.keys(&["C-u"]);
    ui.paste(to.to_str().unwrap());
    ui.keys(&["Enter"]);
    let screen = ui.wait_for("Pull from other:");
    assert!(screen.contains("with the folder here"), "{screen}");
    assert_eq!(
        crate::common::snapshot(&m.here),
        before,
        "nothing written before yes"
    );
    ui.keys(&["y"]);
    ui.wait_for(&format!("pulled {} from other", m.id));
    let after = crate::common::snapshot(&m.here);
    let pulled: Vec<&std::path::PathBuf> = after
        .keys()
        .filter(|path| {
            !before.contains_key(*path) && path.extension().is_some_and(|e| e == "jsonl")
        })
        .collect();
    assert_eq!(pulled.len(), 1, "{pulled:?}");
    let path = pulled[0];
    assert!(path.ends_with(format!("{}.jsonl", m.id)), "{path:?}");
    let bytes = &after[path];
    let text = String::from_utf8_lossy(bytes);
    assert!(
        text.contains(&format!("\"cwd\":\"{}", to.display())),
        "moved"
    );
    assert_eq!(
        std::fs::read(&m.file).unwrap(),
        source,
        "the other machine's is untouched"
    );
    // The hanging host is said to be left out, the others shown all along.
    let screen = ui.wait_for("hang: did not answer within 8 s (left out)");
    assert!(screen.contains(&other_sessions()), "{screen}");
    // Back in the list, it is this machine's session now.
    ui.keys(&["Escape", "Escape"]);
    ui.text(&m.id[..8]);
    ui.wait_for("1 of ");
}
