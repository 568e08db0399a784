//! Errors of the session store: every one names the file and what was being done.

use std::path::{Path, PathBuf};

/// What went wrong, with the path involved and the action that failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An I/O call failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file is not valid JSON.
    #[error("cannot parse {}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    /// A file is valid JSON but not of the expected shape.
    #[error("bad data in {}: {message}", path.display())]
    Shape { path: PathBuf, message: String },
    /// No session matched what the user asked for.
    #[error("{0}")]
    NotFound(String),
    /// The request itself is invalid (bad id, bad argument).
    #[error("{0}")]
    Invalid(String),
    /// The session could not be read (its record says why), so what was
    /// asked is not done to it: it is left as it is.
    #[error("{0}")]
    Damaged(String),
    /// Something this machine or this program could not do, through no
    /// fault of the request: no cache or data folder, a search index that
    /// could not be written, counting that broke.
    #[error("{0}")]
    Failed(String),
    /// What was asked is not done to this kind of session (another agent's
    /// that is not forked, deleted or moved here, an archived copy): the
    /// message says what can be done instead.
    #[error("{0}")]
    Unsupported(String),
    /// The store's folder is not there (a mistyped `--root`, a user with no
    /// folder): a mistake to report, not an empty store.
    #[error("{message}")]
    Missing { path: PathBuf, message: String },
    /// A `SESSION` argument names more than one session.
    #[error("{}", ambiguous_text(arg, candidates))]
    Ambiguous {
        arg: String,
        candidates: Vec<SessionMatch>,
    },
    /// The peteos session is in the tree already (imported before, as
    /// session `id`, or that session's own conversation).
    #[error("{} was already imported: session {id} ({name}) holds the same peteos session (uuid {uuid}); pass --again for a second copy", dir.display())]
    AlreadyImported {
        dir: PathBuf,
        uuid: String,
        id: String,
        name: String,
    },
    /// A drop would leave half of a tool pair (a call without its result,
    /// or a result without its call); the message names both.
    #[error("{0}")]
    SplitsToolPair(String),
    /// A file to be written exists already (and replacing it was not asked).
    #[error("{} exists already; --force replaces it", path.display())]
    Exists { path: PathBuf },
    /// Another process holds the session's lock.
    #[error("{} is locked by another process (an agent may be writing to it); try again", path.display())]
    Locked { path: PathBuf },
    /// An agent is at work on the session (it has the file open, or wrote
    /// to it while it was read): nothing was done; try again when it is
    /// idle.
    #[error("{0}")]
    Busy(String),
    /// The tree belongs to somebody else or is otherwise unsafe to touch.
    #[error("refusing to operate on {}: {reason}", path.display())]
    Unsafe { path: PathBuf, reason: String },
    /// The tokenizer could not be built.
    #[error("cannot load the {encoding} tokenizer: {message}")]
    Tokenizer {
        encoding: &'static str,
        message: String,
    },
}

/// One of the sessions an ambiguous argument matches.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionMatch {
    /// The session id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its last use, seconds since the epoch.
    pub last_used_at: f64,
}

fn ambiguous_text(arg: &str, candidates: &[SessionMatch]) -> String {
    let mut text = format!(
        "{arg:?} matches {} sessions; give more of the name or the id:",
        candidates.len()
    );
    for c in candidates {
        let time =
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(c.last_used_at.max(0.0) as u64);
        let used = humantime::format_rfc3339_seconds(time).to_string();
        text.push_str(&format!(
            "\n  {}  last used {} UTC  {}",
            c.name,
            used.get(..16).unwrap_or(&used).replace('T', " "),
            c.id
        ));
    }
    text
}

/// Shorthand for results of store operations.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl StoreError {
    /// An I/O error with the action that was attempted and the path.
    pub fn io(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        StoreError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }

    /// Data of the wrong shape in `path`.
    pub fn shape(path: &Path, message: impl Into<String>) -> Self {
        StoreError::Shape {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    /// The error with what is wrong first and the file by its name only,
    /// for a one-line panel about the file already on screen (a full path
    /// would push the reason off a narrow terminal).
    pub fn reason_first(&self) -> String {
        let name = |path: &Path| {
            let name = path.file_name().unwrap_or(path.as_os_str());
            name.to_string_lossy().into_owned()
        };
        match self {
            StoreError::Shape { path, message } | StoreError::Parse { path, message } => {
                format!("{message}, in {}", name(path))
            }
            other => other.to_string(),
        }
    }

    /// True when there is nothing to do (exit 1 in the CLI) rather than a
    /// mistake or a failure: something not found, or already done.
    pub fn is_nothing_to_do(&self) -> bool {
        self.is_not_found() || matches!(self, StoreError::AlreadyImported { .. })
    }

    /// True when an agent or another process is at work on the session:
    /// the same request may succeed later.
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Locked { .. } | StoreError::Busy(_))
    }

    /// True when the error means "not there" rather than "broken".
    pub fn is_not_found(&self) -> bool {
        match self {
            StoreError::NotFound(_) => true,
            StoreError::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        }
    }
}

/// Adds the action and path to an `io::Result`.
pub trait IoContext<T> {
    /// Wraps the error with what was being done to which path.
    fn ctx(self, action: &'static str, path: &Path) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn ctx(self, action: &'static str, path: &Path) -> Result<T> {
        self.map_err(|e| StoreError::io(action, path, e))
    }
}
