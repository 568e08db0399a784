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

#[test]
fn host_all_shows_each_hosts_sessions_as_they_come_and_enter_resumes_there_in_a_real_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let (here, homes) = (tmp.path().join("here"), tmp.path().join("homes"));
    let now = loki_sessions::store::now_seconds();
    agents::generate(&here, &AgentsSpec::fixtures(now)).unwrap();
    let other = homes.join("other");
    agents::generate(&other, &AgentsSpec::fixtures(now)).unwrap();
    // The session to resume: the other machine's newest Claude Code one.
    let listed = command()
        .at_home(&other)
        .args(["--agent", "claude", "list", "--json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = rows[0]["id"].as_str().unwrap().to_string();
    let config = tmp.path().join("config.toml");
    let host = |name: &str| {
        format!(
            "[hosts.{name}]\nssh = \"{name}\"\ncommand = \"{}\"\n",
            bin().display()
        )
    };
    std::fs::write(
        &config,
        format!("host_timeout = \"8s\"\n{}{}", host("other"), host("hang")),
    )
    .unwrap();
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_ssh.sh");
    let code = tmp.path().join("code");
    let ui = Tmux::start(&format!(
        "{} XDG_CACHE_HOME={} LOKI_SESSIONS_SSH={} FAKE_SSH_HOMES={} {} --config {} --host all ; echo $? > {} ; sleep 60",
        sandbox::shell_env_at(&here),
        tmp.path().join("cache").display(),
        fake.display(),
        homes.display(),
        bin().display(),
        config.display(),
        code.display(),
    ));
    ui.wait_for("Other machines");
    // The other machine's rows, while the hanging one is still asked.
    let screen = ui.wait_for("other: 18 sessions");
    assert!(screen.contains("hang: asking…"), "{screen}");
    assert!(screen.contains("HOST"), "{screen}");
    let screen = ui.wait_for("hang: did not answer within 8 s (left out)");
    assert!(screen.contains("18 sessions"), "{screen}");
    // Typed and pasted words narrow the rows; the paste's newline is text.
    ui.text(&id[..8]);
    ui.paste(" other\n");
    let screen = ui.wait_for("1 of 18 sessions");
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
    // The fixtures' folders are not on this machine: the host's resume
    // says so and how to resume by hand, and its exit code is ours.
    assert!(screen.contains(&format!("--resume={id}")), "{screen}");
    assert_eq!(
        std::fs::read_to_string(&code).unwrap().trim(),
        "2",
        "{screen}"
    );
}
