//! Runs `loki-sessions` on a host through `ssh`: BatchMode (a host that
//! would ask for a password is unreachable, never a prompt under the
//! list), a connect timeout, one shared connection per host
//! (`ControlMaster=auto`, kept a minute) in a private folder, every word
//! of the remote line quoted. Hosts answer in parallel, each within the
//! deadline or killed and said to be slow; an answer larger than the
//! limit is cut off and refused. `LOKI_SESSIONS_SSH` names the ssh
//! program and its options (`ssh -F FILE`), split as a shell would.

use super::Host;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a host printed, once it ended within the deadline.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The version line of the program there (`loki-sessions 0.1.0`).
    pub version: String,
    /// Its output after the version line.
    pub stdout: Vec<u8>,
    /// Its exit code.
    pub code: i32,
    /// The last line of its error output, made safe to print.
    pub said: String,
}

/// The most a host's error output is read (its last line is what is said).
const STDERR_BYTES: u64 = 64 * 1024;

/// Asks every host in `hosts` for `args` (a subcommand and its options, as
/// the program takes them) at once; each answer comes within `deadline`
/// or is an error saying why, in the hosts' order.
pub fn ask(
    hosts: &[Host],
    args: &[String],
    deadline: Duration,
    max_bytes: u64,
) -> Vec<Result<Reply, String>> {
    ask_each(hosts, args, deadline, max_bytes, &|_, reply| reply)
}

/// [`ask`], each answer handed to `then` on its host's own thread as soon
/// as it comes (a list read while the other hosts still answer, and
/// several read at once); what `then` made, in the hosts' order.
pub fn ask_each<T: Send>(
    hosts: &[Host],
    args: &[String],
    deadline: Duration,
    max_bytes: u64,
    then: &(dyn Fn(&Host, Result<Reply, String>) -> T + Sync),
) -> Vec<T> {
    std::thread::scope(|scope| {
        let asked: Vec<_> = hosts
            .iter()
            .map(|host| scope.spawn(move || then(host, ask_one(host, args, deadline, max_bytes))))
            .collect();
        asked
            .into_iter()
            .zip(hosts)
            .map(|(t, host)| {
                t.join()
                    .unwrap_or_else(|_| then(host, Err("its answer could not be read".into())))
            })
            .collect()
    })
}

fn ask_one(
    host: &Host,
    args: &[String],
    deadline: Duration,
    max_bytes: u64,
) -> Result<Reply, String> {
    let mut command = if host.is_local() {
        local_command(args)?
    } else {
        ssh_command(host, args, deadline)?
    };
    // Its own process group: a timeout kills what ssh started too (a
    // ProxyCommand, a shell), not ssh alone.
    use std::os::unix::process::CommandExt;
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run ssh: {e}"))?;
    let _in_flight = InFlight::register(child.id());
    let (out_tx, out_rx) = mpsc::channel();
    let (err_tx, err_rx) = mpsc::channel();
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = (&mut stdout).take(max_bytes + 1).read_to_end(&mut bytes);
        let _ = out_tx.send(read.map(|_| bytes));
    });
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = (&mut stderr).take(STDERR_BYTES).read_to_end(&mut bytes);
        let _ = err_tx.send(bytes);
    });
    let started = Instant::now();
    let mut output = None;
    let status = loop {
        if output.is_none() {
            output = out_rx.try_recv().ok();
        }
        // Over the limit: refused at once, never waited out (the host
        // would be stuck writing to a pipe nobody reads).
        if let Some(Ok(bytes)) = &output
            && bytes.len() as u64 > max_bytes
        {
            stop(&mut child);
            return Err(format!(
                "answered more than {} (refused)",
                crate::humanize::bytes(max_bytes)
            ));
        }
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if started.elapsed() >= deadline {
            stop(&mut child);
            return Err(format!(
                "did not answer within {} s (left out)",
                deadline.as_secs()
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // A shared connection kept in the background may hold the error
    // output open: what came by now is what is said.
    let grace = Duration::from_secs(2);
    let stdout = match output {
        Some(read) => read,
        None => out_rx
            .recv_timeout(grace)
            .map_err(|_| "its output did not end".to_string())?,
    }
    .map_err(|e| format!("its output could not be read: {e}"))?;
    let stderr = err_rx.recv_timeout(grace).unwrap_or_default();
    if stdout.len() as u64 > max_bytes {
        return Err(format!(
            "answered more than {} (refused)",
            crate::humanize::bytes(max_bytes)
        ));
    }
    let said = last_line(&stderr);
    let code = status.code().unwrap_or(-1);
    match code {
        // ssh's own failure: it could not connect or log in.
        255 if !host.is_local() => return Err(format!("unreachable: {said}")),
        127 => {
            return Err(format!(
                "{} is not installed there (or not on its PATH): install it on that machine, \
                 or name its path as hosts.{}.command in the config",
                host.command, host.name
            ));
        }
        _ => {}
    }
    let (version, rest) = match stdout.iter().position(|&b| b == b'\n') {
        Some(end) => (&stdout[..end], &stdout[end + 1..]),
        None if code != 0 => return Err(format!("failed (exit {code}): {said}")),
        None => return Err("answered without its version line (refused)".into()),
    };
    Ok(Reply {
        version: crate::store::safe_text::safe_line(&String::from_utf8_lossy(version)).into_owned(),
        stdout: rest.to_vec(),
        code,
        said,
    })
}

/// The process groups of the questions still waiting for a host, so that
/// a program ending before its hosts answered (the UI left with Enter)
/// leaves no ssh, and no ProxyCommand, behind.
static IN_FLIGHT: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());

/// A question's process group, listed while it waits, unlisted on drop.
struct InFlight(u32);

impl InFlight {
    fn register(pid: u32) -> InFlight {
        if let Ok(mut groups) = IN_FLIGHT.lock() {
            groups.push(pid);
        }
        InFlight(pid)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut groups) = IN_FLIGHT.lock() {
            groups.retain(|&g| g != self.0);
        }
    }
}

/// Ends every question still waiting for a host, and what each started.
pub fn stop_all() {
    let groups = IN_FLIGHT.lock().map(|g| g.clone()).unwrap_or_default();
    for group in groups {
        kill_group(group);
    }
}

/// Ends `child` and everything it started.
fn stop(child: &mut std::process::Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills the process group `pid` leads (made so at its start).
fn kill_group(pid: u32) {
    let group = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw);
    if let Some(group) = group {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// This machine: the program itself, asked as a host is.
fn local_command(args: &[String]) -> Result<Command, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let line = format!(
        "{} --version && {}",
        quoted(&me.to_string_lossy())?,
        std::iter::once(quoted(&me.to_string_lossy()))
            .chain(args.iter().map(|a| quoted(a)))
            .collect::<Result<Vec<_>, _>>()?
            .join(" ")
    );
    let mut command = Command::new("sh");
    command.arg("-c").arg(line);
    Ok(command)
}

fn ssh_command(host: &Host, args: &[String], deadline: Duration) -> Result<Command, String> {
    let program_line = program_word(&host.command)?;
    let line = format!("{program_line} --version && {}", remote_line(host, args)?);
    let connect = deadline.as_secs().clamp(1, 10);
    let mut command = ssh_program()?;
    command.args([
        "-o",
        "BatchMode=yes",
        "-o",
        &format!("ConnectTimeout={connect}"),
        "-T",
    ]);
    shared(&mut command);
    command.arg("--").arg(&host.destination).arg(line);
    Ok(command)
}

/// Runs the program on `host` with `args` on this terminal (`ssh -t`: a
/// resume there is the agent at work, keys and all); its exit code.
pub fn interactive(host: &Host, args: &[String]) -> Result<i32, String> {
    let mut command = ssh_program()?;
    command.args(["-o", "ConnectTimeout=10", "-t"]);
    shared(&mut command);
    command
        .arg("--")
        .arg(&host.destination)
        .arg(remote_line(host, args)?);
    let status = command
        .status()
        .map_err(|e| format!("could not run ssh: {e}"))?;
    Ok(status.code().unwrap_or(1))
}

/// `ssh` or what `LOKI_SESSIONS_SSH` says, with its options.
fn ssh_program() -> Result<Command, String> {
    let mut words = match std::env::var("LOKI_SESSIONS_SSH") {
        Ok(text) if !text.trim().is_empty() => shlex::split(&text)
            .filter(|w| !w.is_empty())
            .ok_or("LOKI_SESSIONS_SSH is not a command line")?,
        _ => vec!["ssh".to_string()],
    };
    let mut command = Command::new(words.remove(0));
    command.args(words);
    Ok(command)
}

/// One connection per host, shared by the runs of the next minute.
fn shared(command: &mut Command) {
    if let Some(dir) = control_dir() {
        command.args([
            "-o",
            "ControlMaster=auto",
            "-o",
            &format!("ControlPath={}/%C", dir.display()),
            "-o",
            "ControlPersist=60",
        ]);
    }
}

/// The program and `args`, each word quoted, as the host's shell reads it.
fn remote_line(host: &Host, args: &[String]) -> Result<String, String> {
    let words: Vec<String> = std::iter::once(program_word(&host.command))
        .chain(args.iter().map(|a| quoted(a)))
        .collect::<Result<_, _>>()?;
    Ok(words.join(" "))
}

/// The program's word in the remote line: quoted, a leading `~/` left for
/// the remote shell to expand.
fn program_word(command: &str) -> Result<String, String> {
    match command.strip_prefix("~/") {
        Some(rest) => Ok(format!("~/{}", quoted(rest)?)),
        None => quoted(command),
    }
}

fn quoted(word: &str) -> Result<String, String> {
    crate::cli::quote_word(word)
}

/// A private folder for the shared connections' sockets (short: a socket
/// path is limited to about 100 bytes), or none, and then no sharing.
fn control_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|d| d.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let uid = crate::store::current_uid();
    let dir = base.join(format!("loki-sessions-ssh-{uid}"));
    use std::os::unix::fs::DirBuilderExt;
    let made = std::fs::DirBuilder::new().mode(0o700).create(&dir);
    if made.is_err_and(|e| e.kind() != std::io::ErrorKind::AlreadyExists) {
        return None;
    }
    // Ours alone: a folder someone else made there is not used.
    let meta = std::fs::symlink_metadata(&dir).ok()?;
    use std::os::unix::fs::MetadataExt;
    (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0).then_some(dir)
}

/// The last line a host's program wrote on its error output, made safe.
fn last_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    // The program there names itself as it does here: said once, by us.
    let line = line.strip_prefix("loki-sessions: ").unwrap_or(line);
    let line = crate::store::safe_text::safe_line(line);
    crate::humanize::truncate(&line, 300)
}
