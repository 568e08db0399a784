//! Exit codes: 0 ok, 1 not found or nothing to do, 2 bad input or usage,
//! 3 busy (an agent at work on the session: try again).

use crate::store::StoreError;

/// A failure to report on stderr, with the exit code it maps to.
#[derive(Debug)]
pub struct CliError {
    /// 1: not found or nothing to do; 2: bad input or usage.
    pub code: u8,
    /// What to print (empty: print nothing, e.g. for a closed pipe).
    pub message: String,
}

impl CliError {
    /// Bad input or usage (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// Not found, or nothing to do (exit 1).
    pub fn nothing(message: impl Into<String>) -> Self {
        CliError {
            code: 1,
            message: message.into(),
        }
    }

    /// The reader of our output went away: stop quietly with success.
    pub fn closed_pipe() -> Self {
        CliError {
            code: 0,
            message: String::new(),
        }
    }
}

impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        let code = if e.is_nothing_to_do() {
            1
        } else if e.is_busy() {
            3
        } else {
            2
        };
        CliError {
            code,
            message: e.to_string(),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::closed_pipe()
        } else {
            CliError::usage(format!("cannot write output: {e}"))
        }
    }
}
