//! `loki-sessions watch [SESSION...] [--json] [--once]`: one line per
//! message an agent appends (session, agent, role, tokens, the running
//! total and how full the model's window is), until interrupted; `--once`
//! prints where each session stands and exits. For scripts and status
//! lines: the UI's watcher and counter (`Store::watch`, `Store::reread`,
//! `Store::count_tokens_from`), printed.

mod track;

use crate::cli::{CliEnv, CliError, args, browse, completions, output};
use crate::store::{Encoding, StoreEvent, WatchMode, prewarm};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use std::io::Write;
use std::sync::mpsc;
use track::{Line, Tracker};

/// Arguments of `watch`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions watch                        every session, as agents write
  loki-sessions watch fix-the-login-bug --json | jq -r 'select(.fraction > 0.8) | .session'
  loki-sessions watch --once --json          where each session stands now

A line per message appended: the session, its agent, the message's role and
tokens, the context's running total, and the fraction of the model's window
it fills (the window of each agent from [windows] in the config, else
model_window or --window). A fork the agent makes (a trim, a compaction), a
new session and a session deleted get a line too (\"event\" says which in
the JSON). Runs until interrupted. The disk is followed as the UI follows
it: notifications, polling where they cannot be had (watch = \"poll\" in
the config forces it); stderr says which once it is ready.")]
pub struct WatchArgs {
    /// Sessions to watch (ids, names, unique prefixes or paths); every
    /// session when none is given.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub sessions: Vec<String>,
    /// Print where each session stands now (messages, tokens, fraction of
    /// the window) and exit.
    #[arg(long)]
    pub once: bool,
    /// Print JSON, one object per line.
    #[arg(long)]
    pub json: bool,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// Model context window, for the fraction [default: model_window, else 128000]
    #[arg(long, value_name = "TOKENS")]
    pub window: Option<u64>,
}

/// Watches, printing a line per new message; reads only.
pub fn run(env: &CliEnv, args: WatchArgs) -> Result<(), CliError> {
    env.check_folder()?;
    let encoding = env.encoding(args.encoding)?;
    prewarm(encoding);
    let default_window = args
        .window
        .or(env.config.model_window)
        .unwrap_or(browse::DEFAULT_WINDOW);
    let windows = env.config.agent_windows().map_err(CliError::usage)?;
    let only = if args.sessions.is_empty() {
        None
    } else {
        let mut ids = Vec::new();
        for arg in &args.sessions {
            ids.push(env.locate(arg)?.record);
        }
        Some(ids)
    };
    let mut tracker = Tracker::new(&env.store, encoding, default_window, windows, only);
    if args.once {
        let lines = tracker.now()?;
        return print(&lines, args.json);
    }
    let options = env
        .config
        .watch_options()
        .map_err(CliError::usage)?
        .ok_or_else(|| {
            CliError::usage(
                "watch = \"off\" in the config: nothing to watch with (use auto or poll)",
            )
        })?;
    let (tx, rx) = mpsc::channel();
    let _watch = env
        .store
        .watch(options, move |event| tx.send(event).is_ok());
    // What stands before the first change: the baseline new lines count from.
    tracker.start()?;
    for event in rx {
        match event {
            StoreEvent::Mode(mode) => crate::note!("loki-sessions: {}", mode_note(&mode, &tracker)),
            StoreEvent::Everything => {
                let lines = tracker.everything()?;
                print(&lines, args.json)?;
            }
            StoreEvent::FolderGone(dir) => crate::note!(
                "loki-sessions: {} went; its sessions are watched again when it is back",
                dir.display()
            ),
            StoreEvent::FolderBack(dir) => {
                crate::note!(
                    "loki-sessions: {} is there again; watching it",
                    dir.display()
                );
                // What it holds was written before: a baseline, not news.
                tracker.adopt()?;
            }
            StoreEvent::Sessions(sessions) => {
                let lines = tracker.changed(&sessions)?;
                print(&lines, args.json)?;
            }
        }
    }
    Ok(())
}

fn mode_note(mode: &WatchMode, tracker: &Tracker) -> String {
    let what = tracker.watched();
    match mode {
        WatchMode::Notify { watches } => {
            format!("watching {what} ({watches} folders, by notification)")
        }
        WatchMode::Mixed {
            watches,
            polled,
            why,
        } => format!("watching {what} ({watches} folders by notification, {polled} polled: {why})"),
        WatchMode::Polling { polled, why } => {
            format!("watching {what} by polling {polled} folders: {why}")
        }
    }
}

/// Prints `lines`, each flushed at once (a status line reads them as they
/// come); a closed pipe ends quietly.
fn print(lines: &[Line], json: bool) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    for line in lines {
        if json {
            output::write_json_line(&mut out, line)?;
        } else {
            writeln!(out, "{}", crate::store::safe_text::safe_text(&line.text()))?;
        }
    }
    out.flush()?;
    Ok(())
}
