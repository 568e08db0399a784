//! A real terminal: the binary runs inside tmux on a temporary store; the
//! test types keys, reads the screen, and checks the disk and the output.
//! CI installs tmux (.ci/run); set LOKI_SKIP_TMUX=1 to skip where it is absent.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
    session: String,
}

impl Tmux {
    fn start(command: &str) -> Option<Tmux> {
        if std::env::var_os("LOKI_SKIP_TMUX").is_some() {
            return None;
        }
        let found = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            found,
            "tmux is needed for this test (apt-get install tmux), or set LOKI_SKIP_TMUX=1"
        );
        let socket = format!("loki-test-{}-{}", std::process::id(), rand_suffix());
        let tmux = Tmux {
            socket,
            session: "ui".into(),
        };
        let status = tmux
            .cmd(&[
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "ui",
                "-x",
                "100",
                "-y",
                "30",
                command,
            ])
            .status()
            .unwrap();
        assert!(status.success());
        Some(tmux)
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]).args(args);
        c
    }

    fn keys(&self, keys: &[&str]) {
        for key in keys {
            let status = self
                .cmd(&["send-keys", "-t", &self.session, key])
                .status()
                .unwrap();
            assert!(status.success());
            // Separate keys so Esc is not read as Alt with the next one.
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    fn text(&self, text: &str) {
        let status = self
            .cmd(&["send-keys", "-t", &self.session, "-l", text])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Whether the program in the pane asked for the mouse.
    fn mouse_captured(&self) -> bool {
        let out = self
            .cmd(&[
                "display-message",
                "-p",
                "-t",
                &self.session,
                "#{mouse_any_flag}",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    fn screen(&self) -> String {
        let out = self
            .cmd(&["capture-pane", "-t", &self.session, "-p"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen contains `needle`, or fails showing the screen.
    fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "never saw {needle:?}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64
}

fn wait_for_file(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(100));
    std::fs::read_to_string(path).unwrap()
}

/// The shell command that runs the UI with stdout and the exit code captured.
fn ui_command(root: &Path, out: &Path, code: &Path) -> String {
    format!(
        "XDG_CONFIG_HOME={NO_CONFIG_HOME} {} --root {} --user tester > {} ; echo $? > {} ; sleep 60",
        bin().display(),
        root.display(),
        out.display(),
        code.display()
    )
}

fn active_context(session_dir: &Path) -> (String, serde_json::Value) {
    let memory = session_dir.join("memory");
    let session: serde_json::Value =
        serde_json::from_slice(&std::fs::read(memory.join("session.json")).unwrap()).unwrap();
    let id = session["active_context_id"].as_str().unwrap().to_string();
    let ctx =
        serde_json::from_slice(&std::fs::read(memory.join(format!("{id}.json"))).unwrap()).unwrap();
    (id, ctx)
}

#[test]
fn search_open_trim_purge_preview_and_resume_in_a_real_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "60",
            "--messages",
            "14",
            "--big-context",
            "200",
        ],
    );
    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let Some(ui) = Tmux::start(&ui_command(&root, &out, &code)) else {
        return;
    };
    ui.wait_for("60 sessions");

    // Typing filters the list at once.
    ui.text("login");
    let screen = ui.wait_for(" of 60");
    assert!(
        screen.contains("fix-the-login-bug"),
        "filtered list:\n{screen}"
    );
    let names: Vec<String> = json(&root, &["list", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["name"].as_str().unwrap().contains("login"))
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!names.is_empty());

    // Open the best match and trim it to the last 4 messages.
    ui.keys(&["Tab"]);
    ui.wait_for("Messages");
    let header = ui.screen();
    let session_id = names
        .iter()
        .find(|id| {
            let (ctx_id, _) = active_context(&sessions(&root).join(id));
            header.contains(&ctx_id[..20])
        })
        .expect("the viewer shows the active context of a login session")
        .clone();
    let dir = sessions(&root).join(&session_id);
    let (before_id, before) = active_context(&dir);

    // m gives the mouse to the terminal (to select text) and takes it back.
    assert!(ui.mouse_captured(), "the UI starts with the mouse");
    ui.keys(&["m"]);
    ui.wait_for("mouse off");
    assert!(!ui.mouse_captured(), "the terminal has the mouse");
    ui.keys(&["m"]);
    ui.wait_for("mouse on");
    assert!(ui.mouse_captured());
    ui.keys(&["t"]);
    ui.wait_for("Trim:");
    ui.text("4");
    ui.wait_for("keep the last 4 messages");
    ui.keys(&["Enter"]);
    ui.wait_for("trimmed: new active context");
    let (after_id, after) = active_context(&dir);
    assert_ne!(after_id, before_id);
    assert_eq!(
        after["messages"].as_array().unwrap().len(),
        2 + 4,
        "system prompt, tools and 4"
    );
    assert_eq!(after["origin_context_id"], before_id.as_str());
    let parent: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("memory").join(format!("{before_id}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(parent["children"], serde_json::json!([after_id]));
    assert_eq!(
        parent["messages"], before["messages"],
        "the parent keeps every message (undo)"
    );

    // The purge preview shows its plan; leaving it deletes nothing.
    ui.keys(&["Escape"]);
    ui.wait_for("Sessions");
    ui.keys(&["C-g"]);
    let screen = ui.wait_for("to delete");
    assert!(screen.contains("Purge preview"), "{screen}");
    ui.keys(&["Escape"]);
    ui.wait_for("Sessions");
    assert_eq!(
        json(&root, &["list", "--json"]).as_array().unwrap().len(),
        60
    );

    // Enter resumes the selected session: its workspace on stdout, exit 0.
    ui.keys(&["Enter"]);
    let exit = wait_for_file(&code);
    assert_eq!(exit.trim(), "0");
    let printed = std::fs::read_to_string(&out).unwrap();
    let workspace = PathBuf::from(printed.trim());
    assert!(
        workspace.ends_with("workspace") && workspace.starts_with(sessions(&root)),
        "{printed:?}"
    );
    assert_eq!(
        printed.lines().count(),
        1,
        "the UI itself never writes to stdout"
    );
}

#[test]
fn cancel_exits_130_and_prints_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    ok(
        &root,
        &[
            "demo",
            "--sessions",
            "5",
            "--messages",
            "4",
            "--big-context",
            "0",
        ],
    );
    let out = tmp.path().join("out");
    let code = tmp.path().join("code");
    let Some(ui) = Tmux::start(&ui_command(&root, &out, &code)) else {
        return;
    };
    ui.wait_for("5 sessions");
    ui.text("zz");
    ui.wait_for("0 of 5");
    ui.keys(&["Escape"]);
    ui.wait_for("5 sessions");
    ui.keys(&["Escape"]);
    assert_eq!(wait_for_file(&code).trim(), "130");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "");
}
