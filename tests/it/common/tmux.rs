//! The binary in a real terminal: tmux runs it on a virtual screen, the
//! tests type keys and paste text into it and read the screen back.

use super::bin;
use super::sandbox;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of its own running one command.
pub struct Tmux {
    socket: String,
    session: String,
}

impl Tmux {
    /// Starts `command` on a 100x30 screen.
    pub fn start(command: &str) -> Tmux {
        let found = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            found,
            "tmux is needed for this test (apt-get install tmux); to leave it out: cargo test -- --skip real_terminal"
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
        tmux
    }

    /// A tmux command on this server.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket]).args(args);
        c
    }

    /// Presses keys (tmux names: Enter, Escape, C-g), one at a time.
    pub fn keys(&self, keys: &[&str]) {
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

    /// Types `text` as keys.
    pub fn text(&self, text: &str) {
        let status = self
            .cmd(&["send-keys", "-t", &self.session, "-l", text])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Whether the program in the pane asked for the mouse.
    pub fn mouse_captured(&self) -> bool {
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

    /// The screen as text.
    pub fn screen(&self) -> String {
        let out = self
            .cmd(&["capture-pane", "-t", &self.session, "-p"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen contains `needle`, or fails showing the screen.
    /// The screen returned is a settled one: a capture can land while the
    /// UI is halfway through painting a frame (the status line drawn, the
    /// rows not yet), so it is taken again until two in a row agree.
    pub fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + super::patience(Duration::from_secs(20));
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return self.settled(screen, needle);
            }
            assert!(
                Instant::now() < deadline,
                "{}",
                self.failure(&format!("never saw {needle:?}"), &screen)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until the list's first row (the line under its header, which
    /// starts with `AGENT`) starts with `row`; the header's last column
    /// may be the size or the cost, as the stats arrive.
    pub fn wait_for_first_row(&self, row: &str) -> String {
        let deadline = Instant::now() + super::patience(Duration::from_secs(20));
        loop {
            let screen = self.screen();
            let mut lines = screen.lines().skip_while(|l| !l.starts_with("AGENT "));
            // The row as named: a mark before the name (⚑, due to its
            // agent's own cleanup) is not part of it.
            if lines
                .nth(1)
                .is_some_and(|first| first.replacen("⚑ ", "", 1).starts_with(row))
            {
                return self.settled(screen, row);
            }
            assert!(
                Instant::now() < deadline,
                "{}",
                self.failure(&format!("never saw {row:?} first"), &screen)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits for `path` to appear and returns what it holds, or fails
    /// showing the screen.
    pub fn wait_for_file(&self, path: &Path) -> String {
        let deadline = Instant::now() + super::patience(Duration::from_secs(20));
        while !path.exists() {
            if Instant::now() >= deadline {
                let what = format!("{} never appeared", path.display());
                panic!("{}", self.failure(&what, &self.screen()));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(Duration::from_millis(100));
        std::fs::read_to_string(path).unwrap()
    }

    /// Why a wait failed: `what`, then the screen; a panic the pane's
    /// scrollback holds comes first (the UI restores the terminal before
    /// the message is printed, so the message is in the scrollback, and the
    /// screen may no longer show it).
    fn failure(&self, what: &str, screen: &str) -> String {
        let out = self
            .cmd(&["capture-pane", "-t", &self.session, "-p", "-S", "-"])
            .output()
            .unwrap();
        let scrollback = String::from_utf8_lossy(&out.stdout);
        let panic: Vec<&str> = scrollback
            .lines()
            .skip_while(|l| !l.contains("panicked"))
            .filter(|l| !l.trim().is_empty())
            .take(12)
            .collect();
        let message = format!("{what}; the screen:\n{screen}");
        if panic.is_empty() {
            message
        } else {
            format!("the UI panicked:\n{}\n\n{message}", panic.join("\n"))
        }
    }

    /// `screen` again until two captures 50 ms apart agree (at most a
    /// second), keeping the last that still shows `needle`.
    fn settled(&self, mut screen: String, needle: &str) -> String {
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(50));
            let again = self.screen();
            if again == screen || !again.contains(needle) {
                return screen;
            }
            screen = again;
        }
        screen
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

impl Tmux {
    /// Pastes `text` the way a terminal does when the application asked for
    /// bracketed paste: one block, never keys.
    pub fn paste(&self, text: &str) {
        let mut load = self
            .cmd(&["load-buffer", "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(load.stdin.as_mut().unwrap(), text.as_bytes()).unwrap();
        assert!(load.wait().unwrap().success());
        let status = self
            .cmd(&["paste-buffer", "-p", "-t", &self.session])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// The pid of the command tmux runs (the shell of the pane).
    pub fn pane_pid(&self) -> u32 {
        let out = self
            .cmd(&["display", "-p", "-t", &self.session, "#{pane_pid}"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }
}

/// The pid of the loki-sessions process running under `shell`.
pub fn ui_pid(shell: u32) -> u32 {
    let deadline = Instant::now() + super::patience(Duration::from_secs(10));
    loop {
        let out = Command::new("pgrep")
            .args(["-P", &shell.to_string(), "-x", "loki-sessions"])
            .output()
            .unwrap();
        if let Some(pid) = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "no loki-sessions under {shell}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Resident memory of process `pid` in bytes.
pub fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

/// The shell command that runs the UI in the sandbox on `root` (its search
/// index beside it) with stdout and the exit code captured, then `after`
/// (say, `stty -a > file`).
pub fn ui_command_then(root: &Path, out: &Path, code: &Path, after: &str) -> String {
    let cache = root.with_extension("cache");
    format!(
        "{} XDG_CACHE_HOME={} {} --root {} --user tester > {} ; echo $? > {} ; {after} sleep 60",
        sandbox::shell_env(),
        cache.display(),
        bin().display(),
        root.display(),
        out.display(),
        code.display()
    )
}

/// [`ui_command_then`] with nothing after.
pub fn ui_command(root: &Path, out: &Path, code: &Path) -> String {
    ui_command_then(root, out, code, "")
}
