//! A failure as the UI carries it: what kind it is, kept until the view
//! words it (or a screen acts on it: a file that exists is asked about),
//! and the store's message, which names the file and what was being done.

use crate::store::StoreError;

/// What kind of failure a reply carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// What was asked for is not there (a session, a file, a folder).
    NotFound,
    /// The request cannot be done as asked: a bad query, a drop that would
    /// split a tool pair, a damaged session's write, an unsafe path.
    Refused,
    /// A file could not be read as its format says: the session is damaged.
    Damaged,
    /// An agent is at work on the session (another process holds its lock
    /// or its file open, or wrote to it while it was read): try again.
    Busy,
    /// A file to be written exists already.
    Exists,
    /// Anything else: the disk, the tokenizer.
    Failed,
}

/// A failure with its kind and its message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text}")]
pub struct UiError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// The message, as the store (or the query parser) put it.
    pub text: String,
}

impl UiError {
    /// A failure of `kind` saying `text`.
    pub fn new(kind: ErrorKind, text: impl Into<String>) -> Self {
        UiError {
            kind,
            text: text.into(),
        }
    }
}

impl From<StoreError> for UiError {
    fn from(e: StoreError) -> Self {
        let kind = if e.is_not_found() {
            ErrorKind::NotFound
        } else {
            match &e {
                StoreError::Parse { .. } | StoreError::Shape { .. } | StoreError::Damaged(_) => {
                    ErrorKind::Damaged
                }
                StoreError::Locked { .. } | StoreError::Busy(_) => ErrorKind::Busy,
                StoreError::Exists { .. } => ErrorKind::Exists,
                StoreError::NotFound(_) | StoreError::Missing { .. } => ErrorKind::NotFound,
                StoreError::Invalid(_)
                | StoreError::Unsupported(_)
                | StoreError::Ambiguous { .. }
                | StoreError::AlreadyImported { .. }
                | StoreError::SplitsToolPair(_)
                | StoreError::Unsafe { .. } => ErrorKind::Refused,
                StoreError::Io { .. } | StoreError::Tokenizer { .. } | StoreError::Failed(_) => {
                    ErrorKind::Failed
                }
            }
        };
        UiError::new(kind, e.to_string())
    }
}

/// The status line shows the message.
impl From<UiError> for String {
    fn from(e: UiError) -> Self {
        e.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_store_error_keeps_its_kind_and_its_text() {
        let path = PathBuf::from("s/memory/ctx.json");
        let cases = [
            (StoreError::shape(&path, "no messages"), ErrorKind::Damaged),
            (StoreError::Locked { path: path.clone() }, ErrorKind::Busy),
            (StoreError::Exists { path: path.clone() }, ErrorKind::Exists),
            (
                StoreError::NotFound("no session x".into()),
                ErrorKind::NotFound,
            ),
            (
                StoreError::io("read", &path, std::io::ErrorKind::NotFound.into()),
                ErrorKind::NotFound,
            ),
            (
                StoreError::io("read", &path, std::io::ErrorKind::PermissionDenied.into()),
                ErrorKind::Failed,
            ),
            (
                StoreError::SplitsToolPair("m3 and m4".into()),
                ErrorKind::Refused,
            ),
            (
                StoreError::Damaged("session s could not be read".into()),
                ErrorKind::Damaged,
            ),
            (
                StoreError::Busy("Claude Code wrote to it since the preview".into()),
                ErrorKind::Busy,
            ),
            (
                StoreError::Unsupported("Gemini CLI sessions are not forked here".into()),
                ErrorKind::Refused,
            ),
            (
                StoreError::Failed("cannot write the index manifest".into()),
                ErrorKind::Failed,
            ),
        ];
        for (error, kind) in cases {
            let text = error.to_string();
            let ui = UiError::from(error);
            assert_eq!((ui.kind, ui.text.as_str()), (kind, text.as_str()));
        }
    }
}
