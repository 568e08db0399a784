//! `--host` through OpenSSH itself: a real `sshd` on 127.0.0.1 (a host
//! key and a user key made for the test, a second home as the other
//! machine, every login's command run in that home with nothing of this
//! machine's environment), and the person's `ssh` with a config file
//! naming it. Needs the OpenSSH server and root (CI installs it).

use super::Machines;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An sshd for the test, stopped on drop.
struct Sshd {
    child: Child,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (OpenSSH) is needed");
    assert!(ok.success());
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts sshd on `port`, logins running in `home`; writes the client's
/// config to `dir/ssh_config` with the hosts `other` (that sshd), `hang`
/// (a ProxyCommand that sleeps) and `closed` (a port nobody listens on).
fn start(dir: &Path, port: u16, home: &Path) -> Sshd {
    let sshd = ["/usr/sbin/sshd", "/usr/bin/sshd"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("the OpenSSH server (sshd) is needed: apt-get install openssh-server");
    keygen(&dir.join("host_key"));
    keygen(&dir.join("id"));
    std::fs::copy(dir.join("id.pub"), dir.join("authorized_keys")).unwrap();
    // Privilege separation wants this folder (root can make it).
    std::fs::create_dir_all("/run/sshd").unwrap();
    let user = loki_sessions::store::os_user_name().expect("a user name");
    let path = std::env::var("PATH").unwrap_or_default();
    std::fs::write(
        dir.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\n\
             AllowUsers {user}\n\
             ForceCommand cd {home} && exec env -i HOME={home} PATH={path} LOKI_SESSIONS_ARCHIVE_DUE=off /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"\n",
            d = dir.display(),
            home = home.display(),
        ),
    )
    .unwrap();
    let child = Command::new(sshd)
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Sshd { child };
    let up = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(up.elapsed() < Duration::from_secs(20), "sshd did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let closed = free_port();
    std::fs::write(
        dir.join("ssh_config"),
        format!(
            "Host other\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {d}/id\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {d}/known_hosts\n  StrictHostKeyChecking accept-new\n  LogLevel ERROR\n\
             Host hang\n  HostName 127.0.0.1\n  ProxyCommand sleep 600\n\
             Host closed\n  HostName 127.0.0.1\n  Port {closed}\n  UserKnownHostsFile {d}/known_hosts\n",
            d = dir.display(),
        ),
    )
    .unwrap();
    server
}

#[test]
#[ignore = "needs the OpenSSH server and root; CI installs it and runs it"]
fn list_search_show_resume_and_pull_through_a_real_sshd_and_a_hanging_or_hostile_host_never_holds_them()
 {
    crate::common::ci_guard();
    let m = Machines::new("[hosts.closed]\nssh = \"closed\"\ncommand = \"loki-sessions\"\n");
    let dir = m.homes.join("ssh");
    std::fs::create_dir_all(&dir).unwrap();
    let other = m.homes.join("other");
    let _sshd = start(&dir, free_port(), &other);
    let ssh = format!("ssh -F {}", dir.join("ssh_config").display());
    let run = |args: &[&str]| {
        let mut c = Command::new(crate::common::bin());
        crate::common::Sandboxed::at_home(&mut c, &m.here);
        c.env("LOKI_SESSIONS_SSH", &ssh)
            .arg("--config")
            .arg(&m.config)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let started = Instant::now();
    let out = run(&[
        "--host", "other", "--host", "hang", "--host", "closed", "list", "--json",
    ]);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{said}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    // Cut at the deadline by us, or by ssh's own connect timeout (which
    // the deadline bounds): either way named and left out, in time.
    assert!(
        said.contains("host hang: did not answer within 3 s")
            || said.contains("host hang: unreachable:"),
        "{said}"
    );
    assert!(said.contains("host closed: unreachable:"), "{said}");
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        super::ids(&rows),
        m.ids_at(&other),
        "the other machine's sessions"
    );
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .all(|r| r["host"] == "other")
    );
    // Search and show through the same (now shared) connection.
    let out = run(&["--host", "other", "search", "the", "--json"]);
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!hits.as_array().unwrap().is_empty());
    let id = super::ids(&rows).into_iter().next().unwrap();
    let out = run(&["--host", "other", "show", &id]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(&id));
    // Resume runs there (here with --print, so no agent is started).
    let out = run(&["--host", "other", "--print", "id", "resume", &id]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), id);
    // A Claude Code session pulled here through it, its folder moved.
    let claude = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["agent"] == "claude" && r["error"].is_null())
        .unwrap();
    let claude_id = claude["id"].as_str().unwrap();
    let to = m.here.join("work");
    std::fs::create_dir_all(&to).unwrap();
    let out = run(&[
        "--host",
        "other",
        "pull",
        claude_id,
        "--to",
        to.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(Path::new(plan["to_file"].as_str().unwrap()).is_file());
    // A hostile program there: escapes and wrong types refused, the host
    // named, nothing raw on this terminal.
    // Hostile programs there: a raw escape (no JSON at all), wrong types,
    // an answer over the limit; each refused, the host named, nothing raw
    // on this terminal, the other host's rows shown all the same.
    let version = env!("CARGO_PKG_VERSION");
    let hostile = [
        (
            "escape",
            "printf '[{\"id\":\"a\",\"agent\":\"claude\",\"name\":\"\\033]0;owned\\007\",\"last_used_at\":1}]'",
            "answered something that is not JSON",
        ),
        (
            "types",
            "printf '[{\"id\":\"../../x\",\"agent\":\"claude\",\"name\":7,\"last_used_at\":\"soon\"}]'",
            "whose id is not what it should be",
        ),
        (
            "huge",
            "echo '['; exec cat /dev/zero",
            "answered more than 512 MiB",
        ),
    ];
    let mut config = std::fs::read_to_string(&m.config).unwrap();
    for (name, body, _) in hostile {
        let script = m.homes.join(format!("{name}.sh"));
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'loki-sessions {version}'; exit 0; fi\n{body}\n"
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        config.push_str(&format!(
            "[hosts.{name}]\nssh = \"other\"\ncommand = \"{}\"\n",
            script.display()
        ));
    }
    std::fs::write(&m.config, config).unwrap();
    let out = run(&[
        "--host", "escape", "--host", "types", "--host", "huge", "--host", "other", "list",
    ]);
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for (name, _, why) in hostile {
        // A loaded machine may not pass 512 MiB through ssh within the
        // timeout: then the endless answer is left out for its time.
        let left_out = name == "huge" && said.contains("host huge: did not answer within");
        assert!(
            said.contains(&format!("host {name}: ")) && (said.contains(why) || left_out),
            "{name}: {said}"
        );
    }
    assert!(!said.contains('\u{1b}') && !text.contains('\u{1b}'));
    assert!(
        text.contains("other "),
        "the other host's rows still: {text}"
    );
}
