//! A green CI means every test ran as written: `.ci/run` refuses arguments
//! (a filter, `--skip`) and the variables that shrink or bless a run, before
//! it does anything; and under `CI=true` the tests themselves refuse the
//! same (`common::ci_guard`), should someone run them by hand.

use crate::common::*;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
        if started.elapsed() > crate::common::patience(Duration::from_secs(20)) {
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

#[test]
fn under_ci_the_tests_refuse_filters_and_weakening_variables() {
    let args = |a: &[&str]| {
        a.iter()
            .map(std::string::ToString::to_string)
            .collect::<Vec<_>>()
    };
    let unset = |_: &str| false;
    // What .ci/run passes, with libtest's own options, is a full run.
    let full = args(&["--include-ignored", "--test-threads", "2", "--color=always"]);
    assert_eq!(ci_verdict(&full, unset), Ok(()));
    for filtered in [
        &["--include-ignored", "hostile"][..],
        &["--include-ignored", "--skip", "nothing"],
        &["--include-ignored", "--exact", "x"],
        &["--ignored"],
    ] {
        let verdict = ci_verdict(&args(filtered), unset);
        assert!(
            verdict
                .as_ref()
                .is_err_and(|e| e.contains("would leave some out")),
            "{filtered:?}: {verdict:?}"
        );
    }
    for var in WEAKENING {
        let verdict = ci_verdict(&full, |v| v == var);
        assert!(
            verdict.as_ref().is_err_and(|e| e.contains(var)),
            "{var}: {verdict:?}"
        );
    }
}
