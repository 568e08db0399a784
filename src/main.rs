//! `loki-sessions`: parse arguments, then run a subcommand or the terminal UI.

use clap::{CommandFactory, FromArgMatches};
use loki_sessions::cli::{self, Cli, CliEnv, CliError};
use std::process::ExitCode;

fn main() -> ExitCode {
    loki_sessions::heap::grow_in_large_steps();
    // A shell asking for completions (COMPLETE=bash …) is answered here.
    cli::complete_from_env();
    // Reports panics and errors readably; the UI adds a hook that restores
    // the terminal first.
    let _ = color_eyre::install();
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(parsed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if !e.message.is_empty() {
                loki_sessions::cli::output::eprint_safe(&format!("loki-sessions: {}", e.message));
            }
            ExitCode::from(e.code)
        }
    }
}

fn run(parsed: Cli) -> Result<(), CliError> {
    let env = CliEnv::from_cli(&parsed)?;
    cli::run(parsed, &env)
}
