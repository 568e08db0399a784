//! `loki-sessions completions bash|zsh|fish`.

use crate::cli::{Cli, CliError};
use clap::{Args, CommandFactory};

/// Arguments of `completions`.
#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  loki-sessions completions bash > ~/.local/share/bash-completion/completions/loki-sessions"
)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Shells we write completions for.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Shell {
    /// GNU bash.
    Bash,
    /// Z shell.
    Zsh,
    /// fish.
    Fish,
}

/// Prints the completion script.
pub fn run(args: CompletionsArgs) -> Result<(), CliError> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "loki-sessions", &mut out);
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}
