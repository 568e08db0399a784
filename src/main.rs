//! `loki-sessions`: parse arguments, then run a subcommand or the terminal UI.

use clap::Parser;
use loki_sessions::cli::{self, Cli, CliEnv, CliError};
use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = match Cli::try_parse() {
        Ok(cli) => cli,
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
                eprintln!("loki-sessions: {}", e.message);
            }
            ExitCode::from(e.code)
        }
    }
}

fn run(parsed: Cli) -> Result<(), CliError> {
    let env = CliEnv::from_cli(&parsed)?;
    match parsed.command {
        Some(command) => cli::run(command, &env),
        None => Err(CliError::usage(
            "the terminal UI is not built into this version yet; use a subcommand (see --help)",
        )),
    }
}
