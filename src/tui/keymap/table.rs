//! The table itself: every key of the UI, once.

use super::{Binding, Scope};
use crate::tui::msg::Action;
use crossterm::event::{KeyCode, KeyModifiers};

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const ALT: KeyModifiers = KeyModifiers::ALT;

/// A plain key.
const fn k(code: KeyCode) -> (KeyCode, KeyModifiers) {
    (code, NONE)
}

/// A printable character.
const fn c(ch: char) -> (KeyCode, KeyModifiers) {
    (KeyCode::Char(ch), NONE)
}

/// Alt (Meta) and a letter.
const fn alt(ch: char) -> (KeyCode, KeyModifiers) {
    (KeyCode::Char(ch), ALT)
}

/// Ctrl and a letter.
const fn ctrl(ch: char) -> (KeyCode, KeyModifiers) {
    (KeyCode::Char(ch), CTRL)
}

/// A binding: in `scope`, `keys` do `action`; `help` says what in the help
/// overlay; `footer` is the word the footer shows (with its first
/// `shown` keys), if it shows this binding at all.
const fn bind(
    scope: Scope,
    keys: &'static [(KeyCode, KeyModifiers)],
    action: Action,
    help: &'static str,
    footer: Option<(usize, &'static str)>,
) -> Binding {
    Binding {
        scope,
        keys,
        action,
        help,
        footer,
        partner: None,
    }
}

/// A footer item for two opposite actions: "+ - keep".
const fn pair(
    scope: Scope,
    keys: &'static [(KeyCode, KeyModifiers)],
    action: Action,
    help: &'static str,
    partner: Action,
    footer: &'static str,
) -> Binding {
    Binding {
        scope,
        keys,
        action,
        help,
        footer: Some((1, footer)),
        partner: Some(partner),
    }
}

use Action as A;
use KeyCode as K;
use Scope as S;
use tui_input::InputRequest as E;

/// Every binding. Printable characters in the list and in text fields go to
/// the text, and the line-editing keys of a shell edit it, so the list's
/// actions sit on keys that collide with neither (F-keys, Alt, a few Ctrl
/// keys that shells do not use for editing).
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    bind(S::Everywhere, &[ctrl('c')], A::Quit, "quit at once", None),
    bind(S::Everywhere, &[ctrl('z')], A::Suspend, "suspend (fg comes back)", None),
    bind(S::List, &[k(K::Enter)], A::Resume, "resume: print the workspace and exit (another agent's: resume in it)", Some((1, "resume"))),
    bind(S::List, &[k(K::Tab), ctrl('o')], A::Open, "open: read messages and tokens, trim", Some((1, "open"))),
    bind(S::List, &[k(K::Up), ctrl('p')], A::Up, "move up", None),
    bind(S::List, &[k(K::Down), ctrl('n')], A::Down, "move down", None),
    bind(S::List, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::List, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::List, &[(K::Home, CTRL)], A::Home, "first session", None),
    bind(S::List, &[(K::End, CTRL)], A::End, "last session", None),
    bind(S::List, &[k(K::F(7)), alt('n')], A::NewSession, "new session", Some((1, "new"))),
    bind(S::List, &[k(K::F(2)), alt('r')], A::Rename, "rename", None),
    bind(S::List, &[k(K::F(8)), ctrl('d')], A::Delete, "delete (asks first)", None),
    bind(S::List, &[ctrl('f')], A::ToggleSearchMode, "search the text of every message", Some((1, "messages"))),
    bind(S::List, &[k(K::F(6)), alt('s')], A::CycleSort, "sort by last used, created, size, messages, tokens, context fill, name", None),
    bind(S::List, &[k(K::F(4)), alt('a')], A::CycleAgent, "one agent's sessions, the next, then all (@agent)", None),
    bind(S::List, &[ctrl('g'), k(K::F(9))], A::PurgePreview, "purge preview", Some((1, "purge"))),
    bind(S::List, &[k(K::F(3)), alt('t')], A::Trash, "the trash: what a delete or a purge moved there, to put back", None),
    bind(S::List, &[ctrl('r'), k(K::F(5))], A::Refresh, "refresh", None),
    bind(S::List, &[ctrl('t')], A::ToggleEncoding, "switch encoding", None),
    bind(S::List, &[k(K::Esc)], A::ClearOrQuit, "clear the query, then quit", Some((1, "clear/quit"))),
    bind(S::List, &[k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Messages, &[k(K::Enter)], A::Resume, "resume the session of the message", Some((1, "resume"))),
    bind(S::Messages, &[k(K::Tab), ctrl('o')], A::Open, "open the session at the message", Some((1, "open there"))),
    bind(S::Messages, &[k(K::Up), ctrl('p')], A::Up, "previous hit", None),
    bind(S::Messages, &[k(K::Down), ctrl('n')], A::Down, "next hit", None),
    bind(S::Messages, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Messages, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::Messages, &[(K::Home, CTRL)], A::Home, "first hit", None),
    bind(S::Messages, &[(K::End, CTRL)], A::End, "last hit", None),
    bind(S::Messages, &[ctrl('f')], A::ToggleSearchMode, "back to searching names", Some((1, "names"))),
    bind(S::Messages, &[ctrl('r'), k(K::F(5))], A::Refresh, "refresh", None),
    bind(S::Messages, &[k(K::Esc)], A::ClearOrQuit, "clear the query, then quit", Some((1, "clear/quit"))),
    bind(S::Messages, &[k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Viewer, &[k(K::Up), c('k')], A::Up, "previous message", None),
    bind(S::Viewer, &[k(K::Down), c('j')], A::Down, "next message", None),
    bind(S::Viewer, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Viewer, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::Viewer, &[k(K::Home), c('g')], A::Home, "first message", None),
    bind(S::Viewer, &[k(K::End), c('G')], A::End, "last message", None),
    bind(S::Viewer, &[c('F')], A::Follow, "follow the end as the agent writes (as less +F)", None),
    bind(S::Viewer, &[c(']')], A::DetailDown, "scroll the message text down", None),
    bind(S::Viewer, &[c('[')], A::DetailUp, "scroll the message text up", None),
    bind(S::Viewer, &[k(K::Enter), c('v')], A::ReadMessage, "read the message full screen", Some((1, "read"))),
    bind(S::Viewer, &[k(K::Tab)], A::ToggleTranscript, "transcript: every message as one document", Some((1, "transcript"))),
    bind(S::Viewer, &[c('r')], A::Resume, "resume: print the workspace and exit", None),
    pair(S::Viewer, &[c('t')], A::TrimKeepLast, "trim: keep the last N messages", A::TrimBudget, "trim"),
    bind(S::Viewer, &[c('b')], A::TrimBudget, "trim: fit a token budget", None),
    bind(S::Viewer, &[c('w')], A::Breakdown, "where the tokens go, by kind", None),
    bind(S::Viewer, &[c('s')], A::SortBySize, "largest messages first, or back in order", None),
    bind(S::Viewer, &[c('>')], A::NextBig, "next message over the size (1,000 tokens at first)", None),
    bind(S::Viewer, &[c('<')], A::PrevBig, "previous message over the size", None),
    bind(S::Viewer, &[c('=')], A::SetBigSize, "set the size > and < go to, in tokens", None),
    bind(S::Viewer, &[k(K::Char(' '))], A::Mark, "mark the message to drop (edit by hand)", Some((1, "mark"))),
    bind(S::Viewer, &[c('V')], A::MarkRange, "mark from the last mark to here", None),
    bind(S::Viewer, &[c('C')], A::StartClear, "clear tool results: marked, big or old ones", None),
    bind(S::Viewer, &[c('R')], A::StartResumable, "make it resumable: images named, big results cleared", None),
    bind(S::Viewer, &[c('x')], A::Export, "export the context to a file (.md .txt .json)", None),
    bind(S::Viewer, &[c('y')], A::CopyMessage, "copy the message's text", None),
    bind(S::Viewer, &[c('Y')], A::CopySessionId, "copy the session id", None),
    bind(S::Viewer, &[c('p')], A::CopySessionPath, "copy the session path", None),
    bind(S::Viewer, &[c('e')], A::ToggleEncoding, "switch encoding", None),
    bind(S::Viewer, &[c('c')], A::Contexts, "contexts: switch back (undo a trim), delete", Some((1, "contexts"))),
    bind(S::Viewer, &[c('m')], A::ToggleMouse, "mouse off to select and copy text, or on", None),
    bind(S::Viewer, &[k(K::Esc), c('q'), k(K::Left)], A::Back, "back to the list", Some((1, "back"))),
    bind(S::Viewer, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Trim, &[k(K::Up), c('+'), k(K::Right)], A::More, "keep more", Some((2, "more"))),
    bind(S::Trim, &[k(K::Down), c('-'), k(K::Left)], A::Less, "keep less", Some((2, "less"))),
    bind(S::Trim, &[k(K::Backspace)], A::Backspace, "erase a digit", None),
    bind(S::Trim, &[c('t')], A::TrimKeepLast, "measure in messages", Some((1, "by messages"))),
    bind(S::Trim, &[c('b')], A::TrimBudget, "measure in tokens", Some((1, "by tokens"))),
    bind(S::Trim, &[k(K::PageUp)], A::PageUp, "scroll messages up", None),
    bind(S::Trim, &[k(K::PageDown)], A::PageDown, "scroll messages down", None),
    bind(S::Trim, &[k(K::Home)], A::Home, "first message", None),
    bind(S::Trim, &[k(K::End)], A::End, "last message", None),
    bind(S::Trim, &[k(K::Enter)], A::Confirm, "fork and make it active", Some((1, "apply"))),
    bind(S::Trim, &[k(K::Esc)], A::Back, "cancel: change nothing", Some((1, "cancel"))),
    bind(S::Trim, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Edit, &[k(K::Char(' '))], A::Mark, "mark or unmark the message, then go down", Some((1, "mark"))),
    bind(S::Edit, &[c('V')], A::MarkRange, "mark from the last mark to here", Some((1, "range"))),
    pair(S::Edit, &[c('d')], A::StartDrop, "drop the marked messages instead", A::StartClear, "drop/clear"),
    bind(S::Edit, &[c('C')], A::StartClear, "clear tool results instead", None),
    bind(S::Edit, &[c('R')], A::StartResumable, "make it resumable instead", None),
    bind(S::Edit, &[k(K::Tab)], A::CycleClearChoice, "clear: marked, over N tokens, older than K turns; resumable: size or turns", Some((1, "which"))),
    bind(S::Edit, &[k(K::Up), c('k')], A::Up, "previous message (clearing by a number: raise it)", None),
    bind(S::Edit, &[k(K::Down), c('j')], A::Down, "next message (clearing by a number: lower it)", None),
    bind(S::Edit, &[c('+'), k(K::Right)], A::More, "raise the number of a clear", None),
    bind(S::Edit, &[c('-'), k(K::Left)], A::Less, "lower the number of a clear", None),
    bind(S::Edit, &[k(K::Backspace)], A::Backspace, "erase a digit", None),
    bind(S::Edit, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Edit, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::Edit, &[k(K::Home), c('g')], A::Home, "first message", None),
    bind(S::Edit, &[k(K::End), c('G')], A::End, "last message", None),
    bind(S::Edit, &[c('s')], A::SortBySize, "largest messages first, or back in order", None),
    bind(S::Edit, &[c('>')], A::NextBig, "next message over the size", None),
    bind(S::Edit, &[c('<')], A::PrevBig, "previous message over the size", None),
    bind(S::Edit, &[c('=')], A::SetBigSize, "set the size > and < go to, in tokens", None),
    bind(S::Edit, &[k(K::Enter)], A::Confirm, "fork with the edit and make it active", Some((1, "apply"))),
    bind(S::Edit, &[k(K::Esc)], A::Back, "cancel: change nothing", Some((1, "cancel"))),
    bind(S::Edit, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Breakdown, &[k(K::Esc), c('w'), c('q')], A::Back, "close", Some((2, "close"))),
    bind(S::Breakdown, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Contexts, &[k(K::Up)], A::Up, "previous context", None),
    bind(S::Contexts, &[k(K::Down)], A::Down, "next context", None),
    bind(S::Contexts, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Contexts, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::Contexts, &[k(K::Home)], A::Home, "first context", None),
    bind(S::Contexts, &[k(K::End)], A::End, "last context", None),
    bind(S::Contexts, &[k(K::Enter)], A::Confirm, "make it the active context", Some((1, "make active"))),
    bind(S::Contexts, &[c('d'), k(K::Delete)], A::DeleteContext, "delete (asks; not active or an ancestor)", Some((1, "delete"))),
    bind(S::Contexts, &[c('=')], A::Diff, "compare with its parent: dropped, cleared, added", Some((1, "diff"))),
    bind(S::Contexts, &[k(K::Esc)], A::Back, "close", Some((1, "back"))),
    bind(S::Contexts, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Diff, &[k(K::Up), c('k')], A::Up, "scroll up", None),
    bind(S::Diff, &[k(K::Down), c('j')], A::Down, "scroll down", None),
    bind(S::Diff, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Diff, &[k(K::PageDown), k(K::Char(' '))], A::PageDown, "page down", None),
    bind(S::Diff, &[k(K::Home), c('g')], A::Home, "top", None),
    bind(S::Diff, &[k(K::End), c('G')], A::End, "bottom", None),
    bind(S::Diff, &[k(K::Esc), c('q')], A::Back, "back to the contexts", Some((1, "back"))),
    bind(S::Diff, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Message, &[k(K::Up), c('k')], A::Up, "scroll up a line", None),
    bind(S::Message, &[k(K::Down), c('j')], A::Down, "scroll down a line", None),
    bind(S::Message, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Message, &[k(K::PageDown), k(K::Char(' '))], A::PageDown, "page down", None),
    bind(S::Message, &[k(K::Home), c('g')], A::Home, "top", None),
    bind(S::Message, &[k(K::End), c('G')], A::End, "bottom", None),
    bind(S::Message, &[c('/')], A::Find, "find text (letters in any case)", Some((1, "find"))),
    pair(S::Message, &[c('n')], A::NextMatch, "next match", A::PrevMatch, "match"),
    bind(S::Message, &[c('N')], A::PrevMatch, "previous match", None),
    bind(S::Message, &[c('y')], A::CopyMessage, "copy the message's text", None),
    bind(S::Message, &[c('Y')], A::CopySessionId, "copy the session id", None),
    bind(S::Message, &[c('p')], A::CopySessionPath, "copy the session path", None),
    bind(S::Message, &[c('m')], A::ToggleMouse, "mouse off to select and copy text, or on", Some((1, "mouse"))),
    bind(S::Message, &[k(K::Esc), c('q'), k(K::Left)], A::Back, "back to the messages", Some((2, "back"))),
    bind(S::Message, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Transcript, &[k(K::Up), c('k')], A::Up, "scroll up a line", None),
    bind(S::Transcript, &[k(K::Down), c('j')], A::Down, "scroll down a line", None),
    bind(S::Transcript, &[c('u')], A::HalfPageUp, "up half a screen", None),
    bind(S::Transcript, &[c('d')], A::HalfPageDown, "down half a screen", None),
    bind(S::Transcript, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Transcript, &[k(K::PageDown), k(K::Char(' '))], A::PageDown, "page down", None),
    bind(S::Transcript, &[k(K::Home), c('g')], A::Home, "first message", None),
    bind(S::Transcript, &[k(K::End), c('G')], A::End, "end of the last message", None),
    bind(S::Transcript, &[c('F')], A::Follow, "follow the end as the agent writes (as less +F)", None),
    bind(S::Transcript, &[c(']')], A::NextMessage, "next message", None),
    bind(S::Transcript, &[c('[')], A::PrevMessage, "start of this message, then the previous one", None),
    bind(S::Transcript, &[k(K::Enter), c('v')], A::ReadMessage, "read the selected message full screen", None),
    bind(S::Transcript, &[c('/')], A::Find, "find text in every message, folded parts too", Some((1, "find"))),
    bind(S::Transcript, &[c('n')], A::NextMatch, "next match", None),
    bind(S::Transcript, &[c('N')], A::PrevMatch, "previous match", None),
    bind(S::Transcript, &[c('T')], A::ToggleThinking, "thinking shown or hidden", Some((1, "thinking"))),
    bind(S::Transcript, &[c('t')], A::CycleTools, "tool calls and results: off, truncated, full", Some((1, "tools"))),
    bind(S::Transcript, &[c('R')], A::ToggleRaw, "markdown rendered, or the text as written", Some((1, "raw"))),
    bind(S::Transcript, &[c('y')], A::CopyMessage, "copy the selected message's text", Some((1, "copy"))),
    bind(S::Transcript, &[c('Y')], A::CopySessionId, "copy the session id", None),
    bind(S::Transcript, &[c('p')], A::CopySessionPath, "copy the session path", None),
    bind(S::Transcript, &[c('e')], A::ToggleEncoding, "switch encoding", None),
    bind(S::Transcript, &[c('m')], A::ToggleMouse, "mouse off to select and copy text, or on", None),
    bind(S::Transcript, &[k(K::Tab)], A::ToggleTranscript, "back to the table", Some((1, "table"))),
    bind(S::Transcript, &[k(K::Esc), c('q'), k(K::Left)], A::Back, "back to the table", Some((1, "back"))),
    bind(S::Transcript, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Find, &[k(K::Enter)], A::Confirm, "done: keep the matches marked", Some((1, "done"))),
    bind(S::Find, &[k(K::Esc)], A::Back, "cancel the search", Some((1, "cancel"))),
    pair(S::Find, &[k(K::Down)], A::NextMatch, "next match", A::PrevMatch, "match"),
    bind(S::Find, &[k(K::Up)], A::PrevMatch, "previous match", None),
    bind(S::Purge, &[k(K::Up)], A::Up, "move up", None),
    bind(S::Purge, &[k(K::Down)], A::Down, "move down", None),
    bind(S::Purge, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Purge, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::Purge, &[k(K::Home)], A::Home, "first row", None),
    bind(S::Purge, &[k(K::End)], A::End, "last row", None),
    pair(S::Purge, &[c('+')], A::KeepMore, "keep more sessions", A::KeepLess, "keep"),
    bind(S::Purge, &[c('-')], A::KeepLess, "keep fewer sessions", None),
    pair(S::Purge, &[c(']')], A::AgeMore, "raise the maximum age", A::AgeLess, "max age"),
    bind(S::Purge, &[c('[')], A::AgeLess, "lower the maximum age", None),
    bind(S::Purge, &[c('k')], A::ToggleKept, "show every kept session", None),
    bind(S::Purge, &[c('a'), k(K::F(4))], A::CycleAgent, "purge the next agent's sessions: this store's, then each other agent listed (those go to the trash)", None),
    bind(S::Purge, &[c('y')], A::Confirm, "purge (asks first)", Some((1, "purge…"))),
    bind(S::Purge, &[c('t'), k(K::F(3))], A::Trash, "the trash: what was moved there, to put back", Some((1, "trash"))),
    bind(S::Purge, &[k(K::Esc), c('q')], A::Back, "back to the list", Some((2, "back"))),
    bind(S::Purge, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Trash, &[k(K::Up)], A::Up, "move up", None),
    bind(S::Trash, &[k(K::Down)], A::Down, "move down", None),
    bind(S::Trash, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Trash, &[k(K::PageDown)], A::PageDown, "page down", None),
    bind(S::Trash, &[k(K::Home)], A::Home, "first row", None),
    bind(S::Trash, &[k(K::End)], A::End, "last row", None),
    bind(S::Trash, &[c('r'), k(K::Enter)], A::Restore, "put the session back where it was", Some((1, "restore"))),
    bind(S::Trash, &[c('E'), k(K::F(8))], A::Delete, "empty the trash: delete for good what was trashed over the age shown (asks first)", Some((1, "empty…"))),
    pair(S::Trash, &[c(']')], A::AgeMore, "empty only what was trashed longer ago", A::AgeLess, "age"),
    bind(S::Trash, &[c('[')], A::AgeLess, "empty also what was trashed more recently", None),
    bind(S::Trash, &[ctrl('r'), k(K::F(5))], A::Refresh, "list the trash again", None),
    bind(S::Trash, &[k(K::Esc), c('q')], A::Back, "back (to the purge preview, when it opened the trash)", Some((2, "back"))),
    bind(S::Trash, &[c('?'), k(K::F(1))], A::Help, "this help", Some((1, "help"))),
    bind(S::Confirm, &[c('y'), c('Y')], A::Yes, "yes", Some((1, "yes"))),
    bind(S::Confirm, &[c('n'), k(K::Enter), k(K::Esc), c('N')], A::No, "no (the default)", Some((3, "no"))),
    bind(S::Input, &[k(K::Enter)], A::Confirm, "done", Some((1, "done"))),
    bind(S::Input, &[k(K::Esc)], A::Back, "cancel", Some((1, "cancel"))),
    bind(S::Help, &[k(K::Esc), c('?'), c('q'), k(K::Enter), k(K::F(1))], A::Back, "close the help", Some((3, "close"))),
    bind(S::Help, &[k(K::Up), c('k')], A::Up, "scroll up", None),
    bind(S::Help, &[k(K::Down), c('j')], A::Down, "scroll down", None),
    bind(S::Help, &[k(K::PageUp)], A::PageUp, "page up", None),
    bind(S::Help, &[k(K::PageDown), k(K::Char(' '))], A::PageDown, "page down", Some((1, "more"))),
    // Editing the search and every text field, as in a shell line.
    bind(S::LineEdit, &[k(K::Left), ctrl('b')], A::Edit(E::GoToPrevChar), "cursor left", None),
    bind(S::LineEdit, &[k(K::Right)], A::Edit(E::GoToNextChar), "cursor right", None),
    bind(S::LineEdit, &[alt('b'), (K::Left, CTRL)], A::Edit(E::GoToPrevWord), "a word left", None),
    bind(S::LineEdit, &[alt('f'), (K::Right, CTRL)], A::Edit(E::GoToNextWord), "a word right", None),
    bind(S::LineEdit, &[k(K::Home), ctrl('a')], A::Edit(E::GoToStart), "start of the line", None),
    bind(S::LineEdit, &[k(K::End), ctrl('e')], A::Edit(E::GoToEnd), "end of the line", None),
    bind(S::LineEdit, &[k(K::Backspace), ctrl('h')], A::Edit(E::DeletePrevChar), "erase the character before", None),
    bind(S::LineEdit, &[k(K::Delete)], A::Edit(E::DeleteNextChar), "erase the character under the cursor", None),
    bind(S::LineEdit, &[ctrl('w'), (K::Backspace, ALT)], A::Edit(E::DeletePrevWord), "erase the word before", None),
    bind(S::LineEdit, &[alt('d')], A::Edit(E::DeleteNextWord), "erase the word after", None),
    bind(S::LineEdit, &[ctrl('u')], A::Edit(E::DeleteFromStart), "erase to the start", None),
    bind(S::LineEdit, &[ctrl('k')], A::Edit(E::DeleteTillEnd), "erase to the end", None),
    bind(S::LineEdit, &[ctrl('y')], A::Edit(E::Yank), "paste back what was erased", None),
];
