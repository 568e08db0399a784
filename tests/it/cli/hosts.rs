//! `--host`: the same command asked of other machines over ssh, put
//! together with a HOST column. These run through `tests/fake_ssh.sh` (an
//! ssh stand-in that runs the remote line in another home) so a
//! workstation without an sshd checks the merging, the deadline and the
//! refusals; `real_ssh` does the same through OpenSSH's own ssh and sshd.

mod pull;
mod real_ssh;

use crate::common::{Sandboxed, command};
use loki_sessions::demo::agents::{self, AgentsSpec};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

const NOW: f64 = 1_795_939_200.0;

/// This machine's home and the other machines' homes (one folder each
/// under `homes`, by destination), and a config naming the hosts.
struct Machines {
    _tmp: tempfile::TempDir,
    here: PathBuf,
    homes: PathBuf,
    config: PathBuf,
}

impl Machines {
    /// This machine and `other` with every agent's fixtures, `gone`
    /// unreachable, `hang` never answering, and the hosts `extra` adds.
    fn new(extra: &str) -> Machines {
        let tmp = tempfile::tempdir().unwrap();
        let here = tmp.path().join("here");
        let homes = tmp.path().join("homes");
        agents::generate(&here, &AgentsSpec::fixtures(NOW)).unwrap();
        let mut other = AgentsSpec::fixtures(NOW);
        other.seed ^= 0x5eed;
        agents::generate(&homes.join("other"), &other).unwrap();
        let bin = crate::common::bin();
        let config = tmp.path().join("config.toml");
        let host = |name: &str| {
            format!(
                "[hosts.{name}]\nssh = \"{name}\"\ncommand = \"{}\"\n",
                bin.display()
            )
        };
        std::fs::write(
            &config,
            format!(
                "host_timeout = \"3s\"\n{}{}{}{extra}",
                host("other"),
                host("gone"),
                host("hang")
            ),
        )
        .unwrap();
        Machines {
            _tmp: tmp,
            here,
            homes,
            config,
        }
    }

    /// The program here with `args`, the hosts reached through the stand-in.
    fn run(&self, args: &[&str]) -> Output {
        let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_ssh.sh");
        command()
            .at_home(&self.here)
            .env("LOKI_SESSIONS_SSH", fake)
            .env("FAKE_SSH_HOMES", &self.homes)
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// The config with the `[hosts]` entries `extra` added.
    fn add_hosts(&self, extra: &str) {
        let base = std::fs::read_to_string(&self.config).unwrap();
        std::fs::write(&self.config, format!("{base}{extra}")).unwrap();
    }

    /// The ids `list --json` gives at the home `home`, asked there.
    fn ids_at(&self, home: &Path) -> BTreeSet<String> {
        let out = command()
            .at_home(home)
            .args(["list", "--json"])
            .output()
            .unwrap();
        ids(&serde_json::from_slice(&out.stdout).unwrap())
    }
}

fn ids(rows: &Value) -> BTreeSet<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn every_host_answers_at_once_with_its_name_and_the_slow_and_unreachable_are_named() {
    let m = Machines::new("");
    let started = Instant::now();
    let out = m.run(&["--host", "all", "list", "--json"]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", stderr(&out));
    // The hang is cut at its deadline, and the others did not wait on it.
    assert!(took < Duration::from_secs(15), "{took:?}");
    let said = stderr(&out);
    assert!(
        said.contains("host hang: did not answer within 3 s"),
        "{said}"
    );
    assert!(
        said.contains("host gone: unreachable: ssh: Could not resolve hostname gone"),
        "{said}"
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let on = |host: &str| -> Value {
        Value::Array(
            rows.as_array()
                .unwrap()
                .iter()
                .filter(|r| r["host"] == host)
                .cloned()
                .collect(),
        )
    };
    // Each host's rows are what the program there lists.
    assert_eq!(ids(&on("local")), m.ids_at(&m.here));
    assert_eq!(ids(&on("other")), m.ids_at(&m.homes.join("other")));
    assert_ne!(ids(&on("local")), ids(&on("other")), "two machines");
    // The table has a HOST column.
    let out = m.run(&["--host", "other", "--agent", "claude", "list"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("HOST "), "{text}");
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.starts_with("other  claude ")),
        "{text}"
    );
}

#[test]
fn search_show_and_stats_reach_the_host_and_what_cannot_is_refused() {
    let m = Machines::new("");
    let other = m.homes.join("other");
    let out = m.run(&["--host", "other", "search", "the", "--json"]);
    let hits: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!hits.as_array().unwrap().is_empty(), "{}", stderr(&out));
    assert!(
        hits.as_array()
            .unwrap()
            .iter()
            .all(|h| h["host"] == "other")
    );
    let id = m.ids_at(&other).into_iter().next().unwrap();
    let shown = m.run(&["--host", "other", "show", &id, "--json"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let there = command()
        .at_home(&other)
        .args(["show", &id, "--json"])
        .output()
        .unwrap();
    let parse = |o: &Output| serde_json::from_slice::<Value>(&o.stdout).unwrap();
    assert_eq!(parse(&shown), parse(&there), "the host's answer, whole");
    let stats = m.run(&[
        "--host", "local", "--host", "other", "stats", "--by", "agent",
    ]);
    let text = String::from_utf8(stats.stdout).unwrap();
    assert!(
        text.contains("── local ──") && text.contains("── other ──"),
        "{text}"
    );
    // One session is read from one host; writes are not sent anywhere.
    let out = m.run(&["--host", "all", "show", &id]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("name one host"), "{}", stderr(&out));
    let out = m.run(&["--host", "other", "trim", &id, "--keep-messages", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--host works with list, search"),
        "{}",
        stderr(&out)
    );
    let out = m.run(&["--host", "nowhere", "list"]);
    assert!(
        stderr(&out).contains("no host \"nowhere\""),
        "{}",
        stderr(&out)
    );
    let out = m.run(&["--host", "other", "export", &id, "-o", "x.md"]);
    assert!(stderr(&out).contains("redirect it"), "{}", stderr(&out));
}

/// A host whose program answers `answer` after the version line `version`.
fn answering(m: &Machines, name: &str, version: &str, answer: &str) -> String {
    running(m, name, version, &format!("cat <<'END'\n{answer}\nEND"))
}

/// A host whose program says the version line `version` when asked, and
/// otherwise runs the shell lines `body`; its `[hosts]` entry.
fn running(m: &Machines, name: &str, version: &str, body: &str) -> String {
    let script = m.homes.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '{version}'; exit 0; fi\n{body}\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(m.homes.join(name)).unwrap();
    format!(
        "[hosts.{name}]\nssh = \"{name}\"\ncommand = \"{}\"\n",
        script.display()
    )
}

#[test]
fn a_hostile_or_wrong_answer_is_refused_naming_the_host_and_escapes_never_reach_the_terminal() {
    let version = format!("loki-sessions {}", env!("CARGO_PKG_VERSION"));
    let probe = Machines::new("");
    let id = "0a8f5c1e-1111-4222-8333-944445555666";
    // A second id with a two-byte letter across the column's cut.
    let escapes = format!(
        r#"[{{"id":"{id}","agent":"claude","name":"x","title":"owned \u001b]0;pwned\u0007 \u001b[2J","last_used_at":1795939000}},{{"id":"aaaaaaaaaaaaaaaaé-cut","agent":"codex","name":"cut","last_used_at":1795939000}}]"#
    );
    let extra = [
        answering(&probe, "escapes", &version, &escapes),
        answering(
            &probe,
            "types",
            &version,
            r#"[{"id":"../../etc/passwd","agent":"claude","name":"x","last_used_at":"soon"}]"#,
        ),
        answering(&probe, "notjson", &version, "<html>"),
        answering(&probe, "older", "loki-sessions 0.0.1", "[]"),
        format!(
            "[hosts.missing]\nssh = \"other\"\ncommand = \"{}\"\n",
            probe.homes.join("nothing-here").display()
        ),
    ]
    .concat();
    // The same homes, now with the hosts above in the config.
    probe.add_hosts(&extra);
    let m = probe;
    let hosts = ["escapes", "types", "notjson", "older", "missing"];
    let mut args: Vec<&str> = hosts.iter().flat_map(|h| ["--host", *h]).collect();
    args.push("list");
    let out = m.run(&args);
    let (text, said) = (String::from_utf8(out.stdout.clone()).unwrap(), stderr(&out));
    assert!(
        !text.contains('\u{1b}') && !said.contains('\u{1b}'),
        "{text:?} {said:?}"
    );
    assert!(text.contains(r"owned \x1b]0;pwned\x07 \x1b[2J"), "{text}");
    assert!(
        text.contains("aaaaaaaaaaaaaaaaé "),
        "cut by characters: {text}"
    );
    assert!(
        said.contains("host types: answered a row #1 whose id is not what it should be (refused)"),
        "{said}"
    );
    assert!(
        said.contains("host notjson: answered something that is not JSON"),
        "{said}"
    );
    assert!(
        said.contains("host older: runs loki-sessions 0.0.1"),
        "{said}"
    );
    assert!(
        said.contains("host missing:") && said.contains("is not installed there"),
        "{said}"
    );
    assert!(out.status.success(), "one host answered: {said}");
}

#[test]
fn resume_runs_on_the_one_host_named_with_its_version_checked_first() {
    let m = Machines::new("");
    let other = m.homes.join("other");
    let listed = command()
        .at_home(&other)
        .args(["--agent", "claude", "list", "--json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = rows[0]["id"].as_str().unwrap().to_string();
    // What the host's own resume prints, printed here.
    let out = m.run(&["--host", "other", "--print", "command", "resume", &id]);
    let there = command()
        .at_home(&other)
        .args(["--print", "command", "resume", &id])
        .output()
        .unwrap();
    assert!(there.status.success(), "{}", stderr(&there));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(out.stdout, there.stdout);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("--resume={id}")));
    // One host, not this machine, and one that answers.
    for (hosts, said) in [
        (&["--host", "other", "--host", "gone"][..], "name one host"),
        (&["--host", "local"][..], "leave out --host"),
        (&["--host", "gone"][..], "host gone: unreachable"),
    ] {
        let out = m.run(&[hosts, &["resume", &id]].concat());
        assert_eq!(out.status.code(), Some(2), "{hosts:?}");
        assert!(stderr(&out).contains(said), "{hosts:?}: {}", stderr(&out));
    }
}

#[test]
fn an_answer_over_the_limit_is_refused_at_once_not_waited_out() {
    let probe = Machines::new("");
    let version = format!("loki-sessions {}", env!("CARGO_PKG_VERSION"));
    // More than the 512 MiB a host may answer, and never ending.
    let huge = running(&probe, "huge", &version, "echo '['\nexec cat /dev/zero");
    probe.add_hosts(&huge);
    let m = probe;
    let out = m.run(&["--host", "huge", "--host", "other", "list"]);
    let said = stderr(&out);
    assert!(
        said.contains("host huge: answered more than 512 MiB (refused)"),
        "refused for its size, not waited out to the deadline: {said}"
    );
    assert!(out.status.success(), "the other host's rows: {said}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("other"));
}
