//! `loki-sessions export SESSION [--context ID] [--format md|html|json|txt] [-o FILE] [--force]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, completions};
use crate::store::TranscriptFormat;
use clap::{Args, ValueEnum};
use clap_complete::engine::ArgValueCandidates;
use std::path::PathBuf;

/// Arguments of `export`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions export fix-the-login-bug -o login-bug.md        the format from the name
  loki-sessions export fix-the-login-bug -o login-bug.html      one page to share (no script, nothing fetched)
  loki-sessions export fix-the-login-bug --context 20261129-8d1b --format txt | less
  loki-sessions export fix-the-login-bug --format json | jq '.messages | length'

Without -o the transcript goes to stdout. A file is never written inside the
session tree, and an existing one is replaced only with --force.")]
pub struct ExportArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// The context to export (id or unique prefix) [default: the active one]
    #[arg(long, value_name = "ID")]
    pub context: Option<String>,
    /// md: Markdown transcript; html: one self-contained page to share; txt: plain text; json: the messages as stored [default: from -o's extension]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<ExportFormat>,
    /// Write to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// With -o: replace FILE if it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
}

/// The formats `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Markdown.
    Md,
    /// One self-contained HTML page.
    Html,
    /// JSON.
    Json,
    /// Plain text.
    Txt,
}

/// Prints or writes a transcript. Reads the session only.
pub fn run(env: &CliEnv, args: ExportArgs) -> Result<(), CliError> {
    let by_name = args.output.as_deref().and_then(TranscriptFormat::for_path);
    let format = match (args.format, by_name) {
        (Some(ExportFormat::Md), _) => TranscriptFormat::Markdown,
        (Some(ExportFormat::Html), _) => TranscriptFormat::Html,
        (Some(ExportFormat::Json), _) => TranscriptFormat::Json,
        (Some(ExportFormat::Txt), _) => TranscriptFormat::Text,
        (None, Some(format)) => format,
        (None, None) => {
            return Err(CliError::usage(match &args.output {
                Some(path) => format!(
                    "which format for {}? give --format md, html, txt or json (or a file name ending in .md, .html, .txt or .json)",
                    path.display()
                ),
                None => "which format? give --format md, html, txt or json".to_string(),
            }));
        }
    };
    let target = env.locate(&args.session)?;
    let text = env.store.export(&target, args.context.as_deref(), format)?;
    match &args.output {
        Some(path) => {
            env.store.write_export(&target, path, &text, args.force)?;
            output::print_lines([path.display().to_string()])
        }
        // To a terminal (or a pipe to one) made safe; `--output` keeps
        // the exact text.
        None => output::print_text(&text),
    }
}
