//! One sandbox for what the tests start: a temporary folder of this test
//! process with a home, every XDG folder, and Claude Code's and Codex's
//! folders in it. Every run of the binary (and every program that runs it:
//! a terminal driver, a tmux pane) gets it, and every store opened in the
//! process keeps its cache and trash in it, so that whatever environment
//! `cargo test` starts in, no test reads or writes the person's own
//! config, cache, trash or agents' sessions. A test that sets a variable
//! of its own after it wins.

use loki_sessions::store::Store;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

static SANDBOX: OnceLock<tempfile::TempDir> = OnceLock::new();

/// The sandbox's folder: made at first use, removed when the process
/// exits (a static is never dropped, so the removal is registered with
/// `atexit`).
pub fn dir() -> &'static Path {
    SANDBOX
        .get_or_init(|| {
            let dir = tempfile::Builder::new()
                .prefix("loki-sessions-tests-")
                .tempdir()
                .expect("a temporary folder for the tests' sandbox");
            std::fs::create_dir(dir.path().join("home")).unwrap();
            // SAFETY: registers a function that takes and returns nothing.
            unsafe { libc::atexit(remove_sandbox) };
            dir
        })
        .path()
}

extern "C" fn remove_sandbox() {
    if let Some(dir) = SANDBOX.get() {
        let _ = std::fs::remove_dir_all(dir.path());
    }
}

/// An environment: variables set, then variables removed.
struct Vars {
    set: Vec<(&'static str, PathBuf)>,
    removed: &'static [&'static str],
}

/// `home` as a person's home: HOME, and every XDG folder where a machine
/// with no XDG variable has it; the archiving of what is due off.
fn home_vars(home: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("HOME", home.to_path_buf()),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_STATE_HOME", home.join(".local/state")),
        ("XDG_RUNTIME_DIR", home.join(".run")),
        // Archiving what is due depends on the day the tests run (the
        // fixtures' dates are fixed): off, but where a test turns it on.
        ("LOKI_SESSIONS_ARCHIVE_DUE", PathBuf::from("off")),
    ]
}

/// The sandbox's own environment: its empty home, and Claude Code's and
/// Codex's, Copilot CLI's and Qwen Code's folders (named outright, so that
/// a person's CLAUDE_CONFIG_DIR, CODEX_HOME, COPILOT_HOME or QWEN_HOME is
/// never seen) in it too; no LOKI_HOME.
fn sandbox_vars() -> Vars {
    let mut set = home_vars(&dir().join("home"));
    set.push(("CLAUDE_CONFIG_DIR", dir().join("claude")));
    set.push(("CODEX_HOME", dir().join("codex")));
    set.push(("COPILOT_HOME", dir().join("copilot")));
    set.push(("QWEN_HOME", dir().join("qwen")));
    Vars {
        set,
        removed: &["LOKI_HOME"],
    }
}

/// A test's own home `home`: as on a machine whose person it is, the
/// agents' folders found from it (no CLAUDE_CONFIG_DIR, CODEX_HOME,
/// COPILOT_HOME or QWEN_HOME).
fn own_home_vars(home: &Path) -> Vars {
    Vars {
        set: home_vars(home),
        removed: &[
            "LOKI_HOME",
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "COPILOT_HOME",
            "QWEN_HOME",
        ],
    }
}

impl Vars {
    fn apply<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command.envs(self.set.iter().map(|(k, v)| (k, v)));
        for var in self.removed {
            command.env_remove(var);
        }
        command
    }

    /// The same as the start of a shell command line: `env -u VAR
    /// NAME='value' … ` (a `NAME=value` after it still wins).
    fn shell(&self) -> String {
        let mut line = String::from("env");
        for var in self.removed {
            line.push_str(&format!(" -u {var}"));
        }
        for (name, value) in &self.set {
            line.push_str(&format!(" {name}={}", quoted(value)));
        }
        line
    }
}

/// `path` in single quotes for a shell.
pub fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// Where a command runs: in the sandbox, or in a home of the test's own.
pub trait Sandboxed {
    /// The sandbox's environment (see the module's doc).
    fn in_sandbox(&mut self) -> &mut Self;
    /// A home of the test's own, `home`, in place of the sandbox's: every
    /// XDG folder in it, and the agents' folders found from it as on a
    /// person's machine.
    fn at_home(&mut self, home: &Path) -> &mut Self;
}

impl Sandboxed for Command {
    fn in_sandbox(&mut self) -> &mut Self {
        sandbox_vars().apply(self)
    }

    fn at_home(&mut self, home: &Path) -> &mut Self {
        own_home_vars(home).apply(self)
    }
}

/// The start of a shell command line running in the sandbox (tmux panes).
pub fn shell_env() -> String {
    sandbox_vars().shell()
}

/// The start of a shell command line running at the home `home`.
pub fn shell_env_at(home: &Path) -> String {
    own_home_vars(home).shell()
}

/// `store` keeping its search index, its kept counts and its trash (of
/// other agents' sessions) in the sandbox, never in the person's cache or
/// trash: for a store a test opens in its own process, which sees the
/// person's environment.
pub fn store(store: Store) -> Store {
    store
        .with_cache_dir(&dir().join("cache"))
        .with_trash_dir(&dir().join("trash"))
}

/// Moves the OpenCode database the fixtures made in `home`
/// (`.local/share/opencode`) to `data/opencode`: where OpenCode keeps it
/// when `XDG_DATA_HOME` is `data`, as the tests that keep the data folder
/// (our trash) beside the home set it.
pub fn opencode_into(home: &Path, data: &Path) {
    let made = home.join(".local/share/opencode");
    if made.exists() {
        std::fs::create_dir_all(data).unwrap();
        std::fs::rename(&made, data.join("opencode")).unwrap();
    }
}
