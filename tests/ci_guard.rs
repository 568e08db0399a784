//! A green CI means every test ran as written: `.ci/run` refuses arguments
//! (a filter, `--skip`) and the variables that shrink or bless a run, before
//! it does anything; and under `CI=true` the tests themselves refuse the
//! same (`common::ci_guard`), should someone run them by hand.

mod common;
use common::*;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the children this test spawns of its own binary.
const PROBE: &str = "LOKI_CI_GUARD_PROBE";

/// Runs `.ci/run` with `args` and `env`; it must stop at once (a run that
/// goes on is killed, with all it started, and fails the test).
fn ci_run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run");
    let mut command = Command::new(script);
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    for var in WEAKENING {
        if !env.iter().any(|(k, _)| *k == var) {
            command.env_remove(var);
        }
    }
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            // SAFETY: the group is the script's own, made by process_group(0).
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            panic!(".ci/run {args:?} {env:?} went on: it did not refuse");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

#[test]
fn the_ci_script_refuses_what_would_weaken_it() {
    if std::env::var_os(PROBE).is_some() {
        return;
    }
    for var in WEAKENING {
        let (code, stderr) = ci_run(&[], &[(var, "1")]);
        assert_eq!(code, Some(1), "{var}: {stderr}");
        assert!(stderr.contains(var), "{var}: {stderr}");
    }
    for args in [
        &["--skip", "crash"][..],
        &["hostile"][..],
        &["--", "--exact", "x"][..],
    ] {
        let (code, stderr) = ci_run(args, &[]);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("takes no arguments"), "{args:?}: {stderr}");
    }
}

/// What `guarded_probe` does when this binary runs it as a child.
#[test]
fn guarded_probe() {
    if std::env::var_os(PROBE).is_some() {
        ci_guard();
    }
}

#[test]
fn under_ci_the_tests_refuse_filters_and_weakening_variables() {
    if std::env::var_os(PROBE).is_some() {
        return;
    }
    let me = std::env::current_exe().unwrap();
    let probe = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(&me);
        command.args(args).env("CI", "true").env(PROBE, "1");
        for var in WEAKENING {
            command.env_remove(var);
        }
        command.envs(env.iter().copied());
        let out = command.output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (passed, out) = probe(&["--include-ignored"], &[]);
    assert!(passed, "the CI invocation itself passes: {out}");
    for args in [
        &["--include-ignored", "guarded_probe"][..],
        &["--include-ignored", "--skip", "nothing"],
        &["--include-ignored", "--exact", "guarded_probe"],
    ] {
        let (passed, out) = probe(args, &[]);
        assert!(!passed, "{args:?} refused under CI: {out}");
        assert!(out.contains("would leave some out"), "{args:?}: {out}");
    }
    for var in WEAKENING {
        let (passed, out) = probe(&["--include-ignored"], &[(var, "1")]);
        assert!(!passed, "{var} refused under CI: {out}");
        assert!(out.contains(var), "{var}: {out}");
    }
}
