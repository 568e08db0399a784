//! Asking a person at a terminal before doing something that cannot be
//! undone. Only a terminal can answer: a script says what it wants with
//! flags (`--yes`), and a question is never answered by a pipe.

use crate::cli::CliError;
use std::io::{BufRead, IsTerminal, Write};

/// True when a person can be asked: stdin and stderr are both terminals.
pub fn can_ask() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Writes `lines` and `question [y/N] ` to stderr and reads the answer;
/// anything but y/yes (an empty line, end of input) is No.
pub fn yes_or_no(lines: &[String], question: &str) -> std::io::Result<bool> {
    let mut err = std::io::stderr().lock();
    for line in lines {
        writeln!(err, "{line}")?;
    }
    write!(err, "{question} [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
}

/// Asks `question` after `lines`; refuses with `refusal` (exit 2) when no
/// person can answer, and stops with `cancelled` (exit 1) on No.
pub fn confirm(
    lines: &[String],
    question: &str,
    refusal: &str,
    cancelled: &str,
) -> Result<(), CliError> {
    if !can_ask() {
        return Err(CliError::usage(refusal));
    }
    if yes_or_no(lines, question)? {
        Ok(())
    } else {
        Err(CliError::nothing(cancelled))
    }
}
