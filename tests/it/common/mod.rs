//! Helpers shared by the integration tests: running the binary on a temp
//! store and snapshotting a tree to prove nothing changed.

pub mod mounts;
pub mod patience;
pub mod sandbox;
pub mod tmux;

pub use patience::patience;
pub use sandbox::Sandboxed;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub mod peteos;

/// The built binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_loki-sessions"))
}

/// The binary in the sandbox (`sandbox`): reading no config file, no
/// `LOKI_HOME`, and no other agent's sessions but those a test lays out
/// (`.at_home(home)`), never writing to the person's cache or trash.
pub fn command() -> Command {
    ci_guard();
    let mut command = Command::new(bin());
    command.in_sandbox();
    command
}

/// Runs the binary with `--root root --user tester` and `args`, no stdin;
/// its search index lives beside the store (`<root>.cache`), never in the
/// user's cache.
pub fn run(root: &Path, args: &[&str]) -> Output {
    command()
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .arg("--root")
        .arg(root)
        .args(["--user", "tester"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run loki-sessions")
}

/// How long a command of the tests may take before it counts as hung: in
/// CPU seconds of its own (a busy machine slows it, but does not make it
/// use more), or this many times over in wall time, scaled to the load
/// ([`patience`]: one that waits on something, not working, is hung too).
pub const DEADLINE: Duration = Duration::from_secs(60);
/// Wall time past [`DEADLINE`] (scaled) before a command counts as hung.
const WALL_TIMES: u32 = 5;

/// [`run`], killed and reported as a hang if it outlives [`DEADLINE`].
pub fn run_bounded(root: &Path, args: &[&str]) -> Output {
    let mut command = command();
    command
        .env("XDG_CACHE_HOME", root.with_extension("cache"))
        .arg("--root")
        .arg(root)
        .args(["--user", "tester"])
        .args(args);
    let (out, _) = run_with_deadline(command, DEADLINE, &format!("{args:?}"));
    out
}

/// Runs `command` (no stdin), killing it and failing the test if it is
/// still running after `deadline`; returns its output and its peak
/// resident memory: the highest `VmHWM` of its own image, read every few
/// milliseconds (`wait4`'s figure would count this test process too,
/// whose memory a spawned child starts from).
pub fn run_with_deadline(mut command: Command, deadline: Duration, what: &str) -> (Output, Peak) {
    use std::io::Read;
    let program = std::fs::canonicalize(command.get_program()).ok();
    // Reaped by waitpid below.
    #[allow(clippy::zombie_processes)]
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run loki-sessions");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as libc::pid_t;
    let started = Instant::now();
    let mut status = 0;
    let mut hung = false;
    let mut peak = Peak::default();
    loop {
        peak.sample(pid, program.as_deref());
        // SAFETY: pid is our own child, not reaped yet; the pointer is valid.
        let done = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if done == pid {
            break;
        }
        assert!(
            done == 0,
            "waitpid failed: {}",
            std::io::Error::last_os_error()
        );
        let working = patience::cpu_seconds(pid as u32);
        if !hung
            && (working > deadline.as_secs_f64()
                || started.elapsed() > patience(deadline) * WALL_TIMES)
        {
            hung = true;
            // SAFETY: signalling our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(
        !hung,
        "{what} hung: past {deadline:?} of CPU, or {:?} in all (killed); stderr: {}",
        patience(deadline) * WALL_TIMES,
        String::from_utf8_lossy(&stderr)
    );
    let status = std::os::unix::process::ExitStatusExt::from_raw(status);
    (
        Output {
            status,
            stdout,
            stderr,
        },
        peak,
    )
}

/// The peak resident memory of a child, and what it was made of when
/// its resident memory was highest (so that a failed check says whether
/// the child's own heap, files it mapped, or shared memory grew).
#[derive(Clone, Debug, Default)]
pub struct Peak {
    /// The highest `VmHWM` seen, in KiB.
    pub kib: u64,
    /// `/proc/<pid>/status`'s memory lines at the highest `VmRSS` seen.
    detail: String,
    rss_kib: u64,
}

impl Peak {
    /// Reads `/proc/<pid>/status` once. A reading is taken only while
    /// the process runs `program` (when known): a process not yet or no
    /// longer the program started is not the program's memory.
    fn sample(&mut self, pid: libc::pid_t, program: Option<&Path>) {
        // The image is asked first: once it is the program, what is read
        // next is the program's (an exec is never undone).
        let running = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        if program.is_some_and(|p| running.as_deref() != Some(p)) {
            return;
        }
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let kib = |field: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        self.kib = self.kib.max(kib("VmHWM:"));
        let rss = kib("VmRSS:");
        if rss > self.rss_kib {
            self.rss_kib = rss;
            self.detail = ["VmRSS:", "RssAnon:", "RssFile:", "RssShmem:", "Threads:"]
                .iter()
                .map(|f| format!("{f} {}", kib(f)))
                .collect::<Vec<_>>()
                .join(", ");
        }
    }
}

impl std::fmt::Display for Peak {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} MB at the most ({})", self.kib >> 10, self.detail)
    }
}

/// A temporary folder whose `store/` is a demo store of `sessions`
/// sessions of `messages` messages each and no big context; `more` are
/// further `demo` options.
pub fn demo_store(sessions: usize, messages: usize, more: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("store");
    std::fs::create_dir(&root).unwrap();
    let (sessions, messages) = (sessions.to_string(), messages.to_string());
    let mut args = vec!["demo", "--sessions", &sessions, "--messages", &messages];
    args.extend(["--big-context", "0"]);
    args.extend(more);
    ok(&root, &args);
    (tmp, root)
}

/// Stdout of a run that must succeed.
pub fn ok(root: &Path, args: &[&str]) -> String {
    let out = run(root, args);
    assert!(
        out.status.success(),
        "{args:?} failed with {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Parsed JSON stdout of a successful run.
pub fn json(root: &Path, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(root, args)).expect("JSON output")
}

/// The session folder of the test user.
pub fn sessions(root: &Path) -> PathBuf {
    root.join("users/tester/session")
}

/// Every file under `dir` with its bytes (symlinks as their target text).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(path, target.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                out.insert(path.clone(), b"<dir>".to_vec());
                stack.push(path);
            } else if !meta.is_file() {
                // A FIFO or a device: reading it would block or never end.
                let kind = format!("<special {:o}>", meta.permissions().mode() >> 12);
                out.insert(path, kind.into_bytes());
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Seconds since the epoch.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Sets `last_used_at` of session `id` to `days` days ago by editing meta.json.
pub fn age_session(root: &Path, id: &str, days: f64) {
    let path = sessions(root).join(id).join("meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    meta["last_used_at"] = serde_json::json!(now() - days * 86_400.0);
    std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
}

/// Creates a session with `prompt` and returns its id.
pub fn new_session(root: &Path, prompt: &str) -> String {
    ok(root, &["new", prompt, "--no-purge"]).trim().to_string()
}

/// True under CI (`CI` set, and not "", "0" or "false"): there a check that
/// cannot run must fail, never skip, and no variable may redirect one.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// The size of a long loop: `full` under CI or with `LOKI_TEST_SCALE=full`
/// (the CI setting, for a long local run), else `quick`, so that a
/// newcomer's `cargo test` stays short while CI keeps the full loops.
pub fn sized(full: usize, quick: usize) -> usize {
    let asked_full = std::env::var("LOKI_TEST_SCALE").is_ok_and(|v| v == "full");
    if in_ci() || asked_full { full } else { quick }
}

/// Under CI, fails unless the harness runs the ignored checks too
/// (`cargo test -- --include-ignored`): they need root or peteos, which a
/// local run may lack (the summary shows them as ignored) but CI provides.
/// Also fails on anything else that would make a green run mean less: see
/// [`ci_guard`].
pub fn assert_ci_runs_ignored_checks() {
    if in_ci() {
        let args: Vec<String> = std::env::args().collect();
        assert!(
            args.iter()
                .any(|a| a == "--include-ignored" || a == "--ignored"),
            "CI must run the ignored checks: cargo test -- --include-ignored (args: {args:?})"
        );
        ci_guard();
    }
}

/// The variables that shrink a run (fewer rounds, kills or cases), bless
/// it (snapshots accepted or rewritten, docs rewritten) or redirect a check.
pub const WEAKENING: [&str; 7] = [
    "LOKI_STRESS_ROUNDS",
    "LOKI_CRASH_KILLS",
    "PROPTEST_CASES",
    "INSTA_FORCE_PASS",
    "INSTA_UPDATE",
    "UPDATE_DOCS",
    "PETEOS_FIXTURES",
];

/// Under CI, refuses what makes a green run mean less than every test
/// passing (see [`ci_verdict`]). Called by every run of the binary
/// ([`command`]) and by the checks that need root or peteos.
pub fn ci_guard() {
    if !in_ci() {
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(why) = ci_verdict(&args, |var| std::env::var_os(var).is_some()) {
        panic!("{why}");
    }
}

/// Why a run with the test harness's `args` and the variables `is_set`
/// says is set would mean less than every test passing: a variable of
/// [`WEAKENING`], or a test filter (`--skip`, `--exact`, `--ignored` alone,
/// a name).
pub fn ci_verdict(args: &[String], is_set: impl Fn(&str) -> bool) -> Result<(), String> {
    if let Some(var) = WEAKENING.into_iter().find(|var| is_set(var)) {
        return Err(format!(
            "{var} is set under CI: it changes what the tests check"
        ));
    }
    // libtest's options that take a value; anything else not an option is a filter.
    const WITH_VALUE: [&str; 5] = ["--test-threads", "--color", "--format", "--logfile", "-Z"];
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            rest.next();
            continue;
        }
        let option = arg.split('=').next().unwrap_or_default();
        if ["--skip", "--exact", "--ignored"].contains(&option) || !arg.starts_with('-') {
            return Err(format!(
                "CI runs every test: {arg:?} would leave some out (args: {args:?})"
            ));
        }
    }
    Ok(())
}

/// The settings a headless UI test runs with on a store of `kind`: the
/// binary's own defaults (cl100k_base, each agent's window, the default
/// purge policy), the disk not followed.
pub fn ui_settings(kind: loki_sessions::store::StoreKind) -> loki_sessions::tui::model::Settings {
    loki_sessions::cli::default_settings(kind)
}

/// The token-count files in the cache folder `cache` (one per session
/// whose counts were kept).
pub fn count_files(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let slots = std::fs::read_dir(cache.join("loki-sessions")).into_iter();
    for slot in slots.flatten().flatten() {
        for file in std::fs::read_dir(slot.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if file.file_name().to_string_lossy().starts_with("counts-") {
                out.push(file.path());
            }
        }
    }
    out
}

/// What a trim reports about tokens, and what it keeps: what one taking
/// kept counts must say as one counting afresh.
pub fn decided(
    trim: &serde_json::Value,
) -> (serde_json::Value, serde_json::Value, serde_json::Value) {
    (
        trim["tokens_before"].clone(),
        trim["tokens_after"].clone(),
        trim["kept_message_ids"].clone(),
    )
}

/// The kept token counts of `file` (our sealed side-file format: the magic
/// `LSTOKC2\n`, the counts in postcard, the SHA-256 of both), each count
/// changed by `change(index, count)` and the file sealed again, as a file
/// of that format would be written; how many counts it holds. Read here
/// from the format itself, not through the store's code.
pub fn plant_counts(file: &Path, change: impl Fn(usize, u64) -> u64) -> usize {
    use sha2::{Digest, Sha256};
    #[derive(serde::Serialize, serde::Deserialize)]
    struct Counts {
        encoding: String,
        entries: Vec<([u8; 16], u64)>,
    }
    let bytes = std::fs::read(file).unwrap();
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    assert_eq!(Sha256::digest(body).as_slice(), sum, "a sealed file");
    let (magic, contents) = body.split_at(8);
    assert_eq!(magic, b"LSTOKC2\n");
    let mut counts: Counts = postcard::from_bytes(contents).unwrap();
    for (i, entry) in counts.entries.iter_mut().enumerate() {
        entry.1 = change(i, entry.1);
    }
    let mut out = magic.to_vec();
    out.extend(postcard::to_stdvec(&counts).unwrap());
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    std::fs::write(file, out).unwrap();
    counts.entries.len()
}
