//! The command line: one file per subcommand over the shared store.

mod activate;
mod args;
mod ask;
mod browse;
mod completions;
mod contexts;
mod delete;
mod delete_context;
mod demo;
mod diff;
mod env;
mod error;
mod export;
mod import;
mod index;
mod list;
mod new;
mod output;
mod purge;
mod resume;
mod resume_command;
mod search;
mod show;
mod transcript;
mod trim;

pub use completions::complete_from_env;
pub use env::{CliEnv, RootFrom};
pub use error::CliError;

use crate::store::Encoding;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const AFTER_HELP: &str = "\
Examples:
  loki-sessions                          browse sessions; Enter prints the workspace
  cd \"$(loki-sessions)\"                  resume a session in its workspace
  loki-sessions list --json | jq '.[0].id'
  loki-sessions show fix-the-login-bug   a session by name (or a name prefix, an id, an id prefix)
  loki-sessions trim fix-the-login --max-tokens 50000 --dry-run
  loki-sessions trim fix-the-login --clear-tool-results-over 2000
  loki-sessions diff fix-the-login       what the last trim changed
  loki-sessions purge --keep 50 --max-age 14d --dry-run

A SESSION argument is an id, a unique id prefix, a name (or the first prompt
it was made from), a unique name prefix, or a path to a session directory.";

/// Browse, search, read, trim and purge AI-agent sessions.
#[derive(Debug, Parser)]
#[command(name = "loki-sessions", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    /// Loki home holding users/<user>/session/ [env: LOKI_HOME] [default: ~/.loki]
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Whose sessions [default: the OS user]
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,
    /// Use a folder of bare peteos sessions (<uuid>/session.json) in place (overrides --root)
    #[arg(long, global = true, value_name = "DIR")]
    pub peteos: Option<PathBuf>,
    /// Config file [default: $XDG_CONFIG_HOME/loki-sessions/config.toml]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to do; without one, the terminal UI opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of the terminal UI.
    #[command(flatten)]
    pub tui: TuiArgs,
}

/// Options for the terminal UI (used when no subcommand is given).
#[derive(Debug, Args, Default)]
pub struct TuiArgs {
    /// What Enter prints on resume.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub print: Option<PrintWhat>,
    /// Run CMD on resume instead of printing; {id}, {workspace}, {path} are replaced.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Open the UI on a demo store made in a temporary directory (removed on exit).
    #[arg(long)]
    pub demo: bool,
    /// With --demo: keep the demo store on exit (its path is printed).
    #[arg(long, requires = "demo")]
    pub keep: bool,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// Model context window for the token gauge [default: 128000]
    #[arg(long, value_name = "TOKENS", value_parser = args::tokens)]
    pub window: Option<u64>,
}

/// What to print about a resumed session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PrintWhat {
    /// The workspace directory (default).
    Workspace,
    /// The session id.
    Id,
    /// The session directory.
    Path,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List sessions, most recently used first.
    List(list::ListArgs),
    /// Start a new session (purging stale ones first) and print its id.
    New(new::NewArgs),
    /// Mark a session used and print its workspace.
    Resume(resume::ResumeArgs),
    /// Search the messages of every session (words, "phrases", role:).
    Search(search::SearchArgs),
    /// Bring the search index up to date (or --rebuild it) and show it.
    Index(index::IndexArgs),
    /// Show the messages of a session's active context with token counts.
    Show(show::ShowArgs),
    /// Fork the active context: keep the last N messages or a token budget, drop chosen messages, or clear tool results.
    Trim(trim::TrimArgs),
    /// Show how a context differs from its parent: dropped, cleared, added messages and tokens.
    Diff(diff::DiffArgs),
    /// Write a context as a Markdown, text or JSON transcript.
    Export(export::ExportArgs),
    /// List a session's contexts (forks): which is active, which are its ancestors.
    Contexts(contexts::ContextsArgs),
    /// Make a context of a session active (undoes a trim).
    Activate(activate::ActivateArgs),
    /// Delete a context that is neither active nor an ancestor of the active one.
    DeleteContext(delete_context::DeleteContextArgs),
    /// Delete stale sessions (preview with --dry-run).
    Purge(purge::PurgeArgs),
    /// Delete one session (asks first on a terminal).
    Delete(delete::DeleteArgs),
    /// Print a shell completion script (it completes session names and ids too).
    Completions(completions::CompletionsArgs),
    /// Copy a bare peteos session into a new Loki session (the source is only read).
    Import(import::ImportArgs),
    /// Fill an empty store with realistic generated sessions.
    Demo(demo::DemoArgs),
}

/// Runs a subcommand, or the terminal UI when there is none.
pub fn run(cli: Cli, env: &CliEnv) -> Result<(), CliError> {
    let Some(command) = cli.command else {
        return browse::run(env, &cli.tui);
    };
    // `resume` does what Enter in the UI does, so it takes the UI's
    // `--print` and `--exec`; no other subcommand uses the UI's options.
    let applies: &[&str] = match command {
        Command::Resume(_) => &["--print", "--exec"],
        _ => &[],
    };
    refuse_ui_options(&cli.tui, command.name(), applies)?;
    match command {
        Command::List(args) => list::run(env, args),
        Command::New(args) => new::run(env, args),
        Command::Resume(args) => {
            let top = match (&cli.tui.exec, cli.tui.print) {
                (Some(template), _) => resume::ResumeOutput::Exec(template.clone()),
                (None, print) => resume::ResumeOutput::Print(print.unwrap_or(PrintWhat::Workspace)),
            };
            resume::run(env, args, top)
        }
        Command::Show(args) => show::run(env, args),
        Command::Search(args) => search::run(env, args),
        Command::Index(args) => index::run(env, args),
        Command::Trim(args) => trim::run(env, args),
        Command::Diff(args) => diff::run(env, args),
        Command::Export(args) => export::run(env, args),
        Command::Contexts(args) => contexts::run(env, args),
        Command::Activate(args) => activate::run(env, args),
        Command::DeleteContext(args) => delete_context::run(env, args),
        Command::Purge(args) => purge::run(env, args),
        Command::Delete(args) => delete::run(env, args),
        Command::Completions(args) => completions::run(args),
        Command::Demo(args) => demo::run(env, args),
        Command::Import(args) => import::run(env, args),
    }
}

impl Command {
    /// The subcommand as typed, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Command::List(_) => "list",
            Command::New(_) => "new",
            Command::Resume(_) => "resume",
            Command::Search(_) => "search",
            Command::Index(_) => "index",
            Command::Show(_) => "show",
            Command::Trim(_) => "trim",
            Command::Diff(_) => "diff",
            Command::Export(_) => "export",
            Command::Contexts(_) => "contexts",
            Command::Activate(_) => "activate",
            Command::DeleteContext(_) => "delete-context",
            Command::Purge(_) => "purge",
            Command::Delete(_) => "delete",
            Command::Completions(_) => "completions",
            Command::Import(_) => "import",
            Command::Demo(_) => "demo",
        }
    }
}

/// Refuses the UI's options given before a subcommand that does not use
/// them (`loki-sessions --demo list`), rather than ignoring them; `allowed`
/// are the ones this subcommand applies.
fn refuse_ui_options(tui: &TuiArgs, command: &str, allowed: &[&str]) -> Result<(), CliError> {
    let given = [
        ("--print", tui.print.is_some()),
        ("--exec", tui.exec.is_some()),
        ("--demo", tui.demo),
        ("--keep", tui.keep),
        ("--encoding", tui.encoding.is_some()),
        ("--window", tui.window.is_some()),
    ];
    match given
        .iter()
        .find(|(flag, set)| *set && !allowed.contains(flag))
    {
        Some((flag, _)) => Err(CliError::usage(format!(
            "{flag} before `{command}` is an option of the terminal UI, and `{command}` does not use it; \
             see `loki-sessions {command} --help` for its own options"
        ))),
        None => Ok(()),
    }
}
