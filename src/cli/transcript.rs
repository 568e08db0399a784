//! `show SESSION --format transcript`: the conversation as the viewer's
//! transcript shows it (the same blocks, rows and styles, printed), through
//! `$PAGER` when stdout is a terminal.

use crate::cli::{CliError, output};
use crate::render::theme::{Background, Theme};
use crate::render::transcript::Display;
use crate::render::transcript::printed::{self, render};
use crate::store::Context;
use std::io::IsTerminal;

/// How to print a transcript.
#[derive(Clone, Copy, Debug)]
pub struct Printing {
    /// Thinking, tools, markdown.
    pub display: Display,
    /// No escape sequences (no colours, no bold).
    pub plain: bool,
    /// Print to stdout even on a terminal.
    pub no_pager: bool,
    /// The background colours are chosen for (the config's theme).
    pub background: Option<Background>,
}

/// Columns a transcript is wrapped at when stdout is not a terminal.
const PIPE_WIDTH: usize = 100;

/// Prints `context` (token counts in `counts`).
pub fn print(context: &Context, counts: &[u64], how: Printing) -> Result<(), CliError> {
    let terminal = std::io::stdout().is_terminal();
    let width = if terminal {
        crossterm::terminal::size().map_or(PIPE_WIDTH, |(w, _)| usize::from(w))
    } else {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(PIPE_WIDTH)
    };
    // Escapes only where something reads them: a terminal, or its pager.
    let styled = !how.plain && terminal;
    let background = how.background.unwrap_or_else(|| {
        std::env::var("COLORFGBG")
            .ok()
            .and_then(|v| Background::from_colorfgbg(&v))
            .unwrap_or_default()
    });
    let theme = Theme::from_env(background);
    let lines = render(context, counts, how.display, width, styled.then_some(theme));
    if terminal && !how.no_pager {
        return page(&lines);
    }
    output::print_rendered_lines(lines)
}

/// Shows `lines` through `$PAGER` (`less`, told to pass colours and to
/// quit when the text fits one screen, unless `LESS` says otherwise); with
/// no pager to run, prints them.
fn page(lines: &[String]) -> Result<(), CliError> {
    match printed::page(lines, "FRX", None) {
        Ok(true) => Ok(()),
        Ok(false) => output::print_rendered_lines(lines.iter().cloned()),
        Err(e) => Err(CliError::usage(format!("the pager failed: {e}"))),
    }
}
