//! Modal questions over a screen: help, yes/no, a line of text.

use crate::tui::model::TextField;
use std::path::PathBuf;

/// A modal over the screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    /// The key help, generated from the keymap, scrolled by this many lines.
    Help(usize),
    /// A yes/no question; No is the default.
    Confirm(Confirm),
    /// A line of text to type.
    Input(Input),
}

/// What a confirmed question does (the screen that asked carries it out).
#[derive(Clone, Debug, PartialEq)]
pub enum ConfirmAction {
    /// Apply the purge plan on screen (the purge preview).
    Purge,
    /// Delete one session (the list); `damaged`: although it cannot be read.
    Delete { id: String, damaged: bool },
    /// Put back a session its agent deleted, from the archive (the list).
    RestoreArchived { id: String },
    /// Move a session to the folder `to` (the list), as previewed.
    Move { id: String, to: PathBuf },
    /// Write the session `id` of `host` here, its project in `to` (the
    /// other machines' pane), as previewed.
    Pull {
        host: String,
        id: String,
        to: PathBuf,
    },
    /// Trim a session an agent owns (the viewer).
    TrimAgentOwned,
    /// Delete a context (fork) of the session open in the viewer.
    DeleteContext { id: String },
    /// Apply an edit by hand to a session an agent owns (the viewer).
    EditAgentOwned,
    /// Write the fix for resuming the store just previewed (the viewer).
    Resumable,
    /// Delete these trash entries for good (the trash pane).
    EmptyTrash { entries: Vec<String> },
    /// Replace an existing file with an export (the viewer).
    ReplaceExport { path: PathBuf },
}

/// A yes/no question.
#[derive(Clone, Debug, PartialEq)]
pub struct Confirm {
    /// The question.
    pub title: String,
    /// What will happen, line by line.
    pub lines: Vec<String>,
    /// What yes does.
    pub action: ConfirmAction,
}

/// What a typed line is for (the screen that asked carries it out).
#[derive(Clone, Debug, PartialEq)]
pub enum InputPurpose {
    /// The first prompt of a new session (the list).
    NewSession,
    /// A new name for a session (the list).
    Rename { id: String },
    /// The size, in tokens, the viewer's jumps go to messages over.
    BigMessage,
    /// The file an export of the viewer's context is written to.
    Export,
    /// The folder a session's project moved to (the list).
    Move { id: String },
    /// The folder here a session of another machine is pulled into (the
    /// other machines' pane).
    PullTo { host: String, id: String },
}

impl InputPurpose {
    /// True for the lines the viewer asked for (the list asked for the rest).
    pub fn belongs_to_viewer(&self) -> bool {
        matches!(self, InputPurpose::BigMessage | InputPurpose::Export)
    }
}

/// A line being typed.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// What it is for.
    pub purpose: InputPurpose,
    /// The text so far.
    pub text: TextField,
}

/// The longest name, in characters.
pub const NAME_LIMIT: usize = 200;
/// The longest first prompt typed or pasted here, in characters.
pub const PROMPT_LIMIT: usize = 10_000;
/// The longest number typed in a field, in characters (`1,000,000,000`).
pub const NUMBER_LIMIT: usize = 20;
/// The longest file path typed, in characters.
pub const PATH_LIMIT: usize = 4_096;

impl Input {
    /// A field for `purpose`, starting with `text`.
    pub fn new(purpose: InputPurpose, text: &str) -> Self {
        let limit = match purpose {
            InputPurpose::NewSession => PROMPT_LIMIT,
            InputPurpose::Rename { .. } => NAME_LIMIT,
            InputPurpose::BigMessage => NUMBER_LIMIT,
            InputPurpose::Export | InputPurpose::Move { .. } | InputPurpose::PullTo { .. } => {
                PATH_LIMIT
            }
        };
        Input {
            purpose,
            text: TextField::new(text, limit),
        }
    }
}

/// A folder as typed: `~/` read from the home folder, a relative one from
/// where the UI runs; `nothing` says what an empty one does not do.
pub fn typed_folder(text: &str, nothing: &str) -> Result<PathBuf, String> {
    if text.is_empty() {
        return Err(format!("no folder given: {nothing}"));
    }
    let path = match text.strip_prefix("~/") {
        Some(rest) => dirs::home_dir()
            .ok_or("there is no home folder to read ~ from")?
            .join(rest),
        None => PathBuf::from(text),
    };
    std::path::absolute(&path).map_err(|e| format!("{text}: {e}"))
}
