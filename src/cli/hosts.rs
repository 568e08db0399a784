//! `--host NAME` on `list`, `search`, `show`, `export` and `stats`: the
//! same command asked of each host named (and of this machine for
//! `local` or `all`) at once, over the person's own ssh, and the answers
//! checked and put together: a HOST column (`host` in JSON) for lists and
//! hits, a section per host for stats, one host's output for show and
//! export. A host that fails or is slow is named on stderr and left out;
//! the others are shown all the same.

use crate::cli::{CliEnv, CliError, Command, output};
use crate::hosts::answer::{self, Kind};
use crate::hosts::{self, Host, MAX_ANSWER, Reply};
use crate::humanize;
use serde_json::{Map, Value, json};

/// Runs `command` on the hosts `asked`.
pub fn run(env: &CliEnv, command: &Command, asked: &[String]) -> Result<(), CliError> {
    let configured = env.config.hosts().map_err(CliError::usage)?;
    let chosen = hosts::chosen(asked, &configured).map_err(CliError::usage)?;
    let deadline = env.config.host_timeout().map_err(CliError::usage)?;
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut args = remote_args(&raw);
    let shape = match command {
        Command::List(a) => Shape::Rows(answer::LIST_ROW, a.json),
        Command::Search(a) => Shape::Rows(answer::SEARCH_HIT, a.json),
        Command::Stats(a) => Shape::Relayed(a.json),
        Command::Show(a) => Shape::One(a.json),
        Command::Resume(_) => return resume(&chosen, &args, deadline),
        Command::Pull(a) => return crate::cli::pull::run(env, a, &chosen, deadline),
        Command::Export(a) => {
            if a.output.is_some() {
                return Err(CliError::usage(
                    "with --host, export prints the transcript: leave out -o and redirect it (> FILE)",
                ));
            }
            Shape::One(false)
        }
        other => {
            return Err(CliError::usage(format!(
                "--host works with list, search, show, export, stats, resume and pull, not {}",
                other.name()
            )));
        }
    };
    if matches!(shape, Shape::Rows(..)) && !args.iter().any(|a| a == "--json") {
        args.push("--json".into());
    }
    if matches!(shape, Shape::One(_)) && chosen.len() != 1 {
        return Err(CliError::usage(format!(
            "{} reads one session: name one host (--host NAME)",
            command.name()
        )));
    }
    if let Shape::Rows(fields, json) = shape {
        // Each host's rows read on its own thread as it answers.
        let read = hosts::ask_each(&chosen, &args, deadline, MAX_ANSWER, &|_, reply| {
            reply.and_then(|r| hosts::answered_rows(&r, fields))
        });
        let mut listed = Vec::new();
        for (host, rows) in chosen.iter().zip(read) {
            match rows {
                Ok(rows) => listed.push((host, rows)),
                Err(why) => crate::note!("loki-sessions: host {}: {why}", host.name),
            }
        }
        if listed.is_empty() {
            return Err(CliError::usage("no host answered"));
        }
        return self::rows(env, listed, json, command);
    }
    let replies = hosts::ask(&chosen, &args, deadline, MAX_ANSWER);
    let mut answered: Vec<(&Host, Reply)> = Vec::new();
    for (host, reply) in chosen.iter().zip(replies) {
        match reply.and_then(|r| answer::check_version(&r.version).map(|()| r)) {
            Ok(r) => answered.push((host, r)),
            Err(why) => crate::note!("loki-sessions: host {}: {why}", host.name),
        }
    }
    if answered.is_empty() {
        return Err(CliError::usage("no host answered"));
    }
    // Stats, show and export: each host's output as it printed it, checked.
    relayed(&answered, shape.json())
}

/// `resume` on one host: its version checked first, then the program run
/// there on this terminal (a Claude Code or Codex session resumes in its
/// agent there, in its folder there); its exit code is ours. Enter on a
/// row of the UI's other machines' pane ends here too.
pub fn resume(
    chosen: &[Host],
    args: &[String],
    deadline: std::time::Duration,
) -> Result<(), CliError> {
    let [host] = chosen else {
        return Err(CliError::usage(
            "resume runs on one machine: name one host (--host NAME)",
        ));
    };
    if host.is_local() {
        return Err(CliError::usage(
            "--host local resume is a resume here: leave out --host",
        ));
    }
    hosts::ask(
        std::slice::from_ref(host),
        &["--version".into()],
        deadline,
        4096,
    )
    .remove(0)
    .and_then(|r| answer::check_version(&r.version))
    .map_err(|why| CliError::usage(format!("host {}: {why}", host.name)))?;
    match hosts::interactive(host, args) {
        Ok(0) => Ok(()),
        Ok(code) => Err(CliError {
            code: u8::try_from(code).unwrap_or(1),
            message: String::new(),
        }),
        Err(why) => Err(CliError::usage(format!("host {}: {why}", host.name))),
    }
}

/// What is done with the answers.
#[derive(Clone, Copy)]
enum Shape {
    /// Rows of these fields, put together (printed as JSON when true).
    Rows(&'static [(&'static str, Kind)], bool),
    /// Each host's output, under its name.
    Relayed(bool),
    /// One host's output.
    One(bool),
}

impl Shape {
    /// Whether JSON was asked for.
    fn json(self) -> bool {
        match self {
            Shape::Rows(_, json) | Shape::Relayed(json) | Shape::One(json) => json,
        }
    }
}

/// The arguments for the program on a host: this run's, without the
/// hosts and without what names this machine's folders and files (the
/// host reads its own).
fn remote_args(raw: &[String]) -> Vec<String> {
    const LOCAL_ONLY: [&str; 5] = ["--host", "--root", "--user", "--peteos", "--config"];
    let mut out = Vec::new();
    let mut words = raw.iter();
    while let Some(word) = words.next() {
        if word == "--" {
            out.push(word.clone());
            out.extend(words.by_ref().cloned());
            break;
        }
        if LOCAL_ONLY.contains(&word.as_str()) {
            words.next();
        } else if !LOCAL_ONLY.iter().any(|o| {
            word.strip_prefix(o)
                .is_some_and(|rest| rest.starts_with('='))
        }) {
            out.push(word.clone());
        }
    }
    out
}

fn rows(
    env: &CliEnv,
    listed: Vec<(&Host, Vec<Map<String, Value>>)>,
    json: bool,
    command: &Command,
) -> Result<(), CliError> {
    let all: Vec<(String, Map<String, Value>)> = listed
        .into_iter()
        .flat_map(|(host, rows)| rows.into_iter().map(|r| (host.name.clone(), r)))
        .collect();
    if json {
        let merged: Vec<Value> = all
            .into_iter()
            .map(|(host, mut row)| {
                row.insert("host".into(), json!(host));
                Value::Object(row)
            })
            .collect();
        let merged = Value::Array(merged);
        let printed = output::print_json(&merged);
        // The process ends next: freeing every row one by one took a
        // fifth of the merge's time, and the memory goes with it anyway.
        std::mem::forget(merged);
        return printed;
    }
    let width = all.iter().map(|(h, _)| h.len()).max().unwrap_or(4).max(4);
    let text = |row: &Map<String, Value>, key: &str| {
        row.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let time = |row: &Map<String, Value>| {
        row.get("last_used_at")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    let mut lines = Vec::new();
    match command {
        Command::Search(_) => {
            for (host, r) in &all {
                let id = text(r, "session_id");
                lines.push(format!(
                    "{host:<width$}  {}  {:<9}  {}  {}",
                    humanize::pad(&humanize::truncate(&text(r, "session_name"), 32), 32),
                    text(r, "role"),
                    humanize::id_prefix(&id, 17),
                    humanize::truncate(&text(r, "snippet").replace('\n', " "), 80)
                ));
            }
        }
        _ => {
            lines.push(format!(
                "{:<width$}  {:<7}  {:<17}  {:<14}  NAME",
                "HOST", "AGENT", "ID", "LAST USED"
            ));
            for (host, r) in &all {
                let id = text(r, "id");
                lines.push(format!(
                    "{host:<width$}  {:<7}  {:<17}  {:<14}  {}",
                    text(r, "agent"),
                    humanize::id_prefix(&id, 17),
                    humanize::last_used(time(r), env.now),
                    // Another agent's session is shown by its title.
                    humanize::truncate(
                        &Some(text(r, "title"))
                            .filter(|t| !t.is_empty())
                            .unwrap_or_else(|| text(r, "name")),
                        60
                    )
                ));
            }
        }
    }
    output::print_lines(lines)
}

/// Each host's output as it printed it, checked: JSON parsed and its
/// strings made safe (several hosts: `[{host, answer}]`), text made safe
/// for the terminal (several hosts: a heading each).
fn relayed(answered: &[(&Host, Reply)], json: bool) -> Result<(), CliError> {
    let mut out = Vec::new();
    let mut failed = 0;
    for (host, reply) in answered {
        if reply.code != 0 {
            crate::note!(
                "loki-sessions: host {}: failed (exit {}): {}",
                host.name,
                reply.code,
                reply.said
            );
            failed += 1;
            continue;
        }
        if json {
            match serde_json::from_slice::<Value>(&reply.stdout) {
                Ok(value) => out.push((host, answer::made_safe(value).to_string())),
                Err(e) => {
                    crate::note!(
                        "loki-sessions: host {}: answered something that is not JSON ({e}) (refused)",
                        host.name
                    );
                    failed += 1;
                }
            }
        } else {
            let text = String::from_utf8_lossy(&reply.stdout);
            out.push((host, crate::store::safe_text::safe_text(&text).into_owned()));
        }
    }
    if out.is_empty() && failed > 0 {
        return Err(CliError::usage("no host answered"));
    }
    let several = answered.len() > 1;
    if json {
        if several {
            let merged: Vec<Value> = out
                .iter()
                .map(|(host, text)| json!({"host": host.name, "answer": serde_json::from_str::<Value>(text).unwrap_or(Value::Null)}))
                .collect();
            return output::print_json(&Value::Array(merged));
        }
        let value: Value = serde_json::from_str(&out[0].1).unwrap_or(Value::Null);
        return output::print_json(&value);
    }
    let mut lines = Vec::new();
    for (host, text) in &out {
        if several {
            lines.push(format!("── {} ──", host.name));
        }
        lines.extend(text.lines().map(str::to_string));
    }
    output::print_lines(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_and_this_machines_folders_stay_here() {
        let raw: Vec<String> = [
            "--host",
            "dev",
            "--root=/here",
            "list",
            "--agent",
            "claude",
            "--config",
            "/c.toml",
            "--host=gpu",
            "--json",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(remote_args(&raw), ["list", "--agent", "claude", "--json"]);
        let raw: Vec<String> = ["search", "--", "--host"].map(String::from).to_vec();
        assert_eq!(remote_args(&raw), ["search", "--", "--host"]);
    }
}
