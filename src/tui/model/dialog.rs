//! Modal questions over a screen: help, yes/no, a line of text.

/// A modal over the screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Overlay {
    /// The key help, generated from the keymap.
    Help,
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
    /// Delete one session (the list).
    Delete { id: String },
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
    pub text: String,
}
