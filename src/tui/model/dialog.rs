//! Modal questions over a screen: help, yes/no, a line of text.

use crate::tui::model::TextField;

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
    /// Trim a session an agent owns (the viewer).
    TrimAgentOwned,
    /// Delete a context (fork) of the session open in the viewer.
    DeleteContext { id: String },
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

/// What a typed line is for (the list carries both out).
#[derive(Clone, Debug, PartialEq)]
pub enum InputPurpose {
    /// The first prompt of a new session.
    NewSession,
    /// A new name for a session.
    Rename { id: String },
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

impl Input {
    /// A field for `purpose`, starting with `text`.
    pub fn new(purpose: InputPurpose, text: &str) -> Self {
        let limit = match purpose {
            InputPurpose::NewSession => PROMPT_LIMIT,
            InputPurpose::Rename { .. } => NAME_LIMIT,
        };
        Input {
            purpose,
            text: TextField::new(text, limit),
        }
    }
}
