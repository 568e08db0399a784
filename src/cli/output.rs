//! Writing results to stdout and progress to stderr.

use crate::cli::CliError;
use serde::Serialize;
use std::io::{BufRead, IsTerminal, Write};
use std::time::{Duration, Instant};

/// Prints `value` as pretty JSON and a newline.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    // Stdout is line-buffered; a big listing would cost a write per line.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)
        .map_err(|e| CliError::from(std::io::Error::from(e)))?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Prints text lines (each gets a newline).
pub fn print_lines<I: IntoIterator<Item = String>>(lines: I) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in lines {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

/// Asks `question` y/N (No the default) on the terminal, after `lines` on
/// stderr. Without a terminal on stdin it refuses (exit 2) with `refusal`,
/// which should say how to go on (`--yes`); a No is `cancelled` (exit 1).
pub fn confirm(
    lines: &[String],
    question: &str,
    refusal: &str,
    cancelled: &str,
) -> Result<(), CliError> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Err(CliError::usage(refusal));
    }
    let mut err = std::io::stderr().lock();
    for line in lines {
        writeln!(err, "{line}")?;
    }
    write!(err, "{question} [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") {
        Ok(())
    } else {
        Err(CliError::nothing(cancelled))
    }
}

/// A progress line on stderr, drawn only when stderr is a terminal.
pub struct Progress {
    label: &'static str,
    enabled: bool,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A progress line titled `label`.
    pub fn new(label: &'static str) -> Self {
        Progress {
            label,
            enabled: std::io::stderr().is_terminal(),
            last_draw: None,
        }
    }

    /// Shows `done` of `total`, at most ten times a second.
    pub fn update(&mut self, done: usize, total: usize) {
        if !self.enabled {
            return;
        }
        let due = self
            .last_draw
            .is_none_or(|t| t.elapsed() >= Duration::from_millis(100));
        if due || done == total {
            eprint!("\r\x1b[2K{} {done}/{total}", self.label);
            self.last_draw = Some(Instant::now());
        }
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        if self.enabled && self.last_draw.is_some() {
            eprint!("\r\x1b[2K");
        }
    }
}
