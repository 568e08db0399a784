//! Everything that can happen to the UI: user intents and the answers of
//! background work.

use crate::store::StoreEvent;
use crate::tui::ops::Reply;
use tui_input::InputRequest;

/// A user intent, produced by the keymap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Move the cursor up one row.
    Up,
    /// Move the cursor down one row.
    Down,
    /// Up one page.
    PageUp,
    /// Down one page.
    PageDown,
    /// To the first row.
    Home,
    /// To the last row.
    End,
    /// Resume the selected session (touch it and exit).
    Resume,
    /// Open the selected session in the viewer.
    Open,
    /// Leave the current screen (or cancel the current step).
    Back,
    /// Clear the query; quit when it is already empty.
    ClearOrQuit,
    /// Quit at once.
    Quit,
    /// Give the terminal back and stop, as Ctrl-Z does in a shell; `fg`
    /// comes back to the same screen.
    Suspend,
    /// Show the key help.
    Help,
    /// Ask for a first prompt and start a session.
    NewSession,
    /// Rename the selected session.
    Rename,
    /// Delete the selected session (asks first).
    Delete,
    /// Move the selected session where its project went (asks the
    /// folder, shows what changes, then asks).
    MoveSession,
    /// Read the store again.
    Refresh,
    /// Open the purge preview.
    PurgePreview,
    /// Erase the last typed character.
    Backspace,
    /// Edit the text field in focus (move, delete a word, ...).
    Edit(InputRequest),
    /// Switch the list's search between session names and message text.
    ToggleSearchMode,
    /// Sort the sessions the next way (last used, created, size, ...).
    CycleSort,
    /// Show one agent's sessions, the next agent listed (then every one
    /// again): an `@agent` term at the start of the query.
    CycleAgent,
    /// Switch between cl100k_base and o200k_base.
    ToggleEncoding,
    /// Start trimming to the last N messages.
    TrimKeepLast,
    /// Start trimming to a token budget.
    TrimBudget,
    /// Keep more (N + step, or a bigger budget).
    More,
    /// Keep less.
    Less,
    /// Confirm the step on screen.
    Confirm,
    /// Answer yes to a question.
    Yes,
    /// Answer no to a question.
    No,
    /// Show the session's contexts (forks) to switch back to one.
    Contexts,
    /// Scroll the message detail down.
    DetailDown,
    /// Scroll the message detail up.
    DetailUp,
    /// Keep more sessions in the purge policy.
    KeepMore,
    /// Keep fewer sessions.
    KeepLess,
    /// Raise the purge's maximum age.
    AgeMore,
    /// Lower it.
    AgeLess,
    /// Show or hide the sessions kept for being recent.
    ToggleKept,
    /// Open the trash: the other agents' sessions a delete or a purge moved there.
    Trash,
    /// Open the usage dashboard: what the agents spent, by day, project, model, agent.
    Dashboard,
    /// Other machines' sessions, over ssh.
    Hosts,
    /// Copy another machine's session here.
    Pull,
    /// Put the selected session in the trash back where it was.
    Restore,
    /// Read the selected message full screen.
    ReadMessage,
    /// Start finding text in the message read.
    Find,
    /// Go to the next match.
    NextMatch,
    /// Go to the previous match.
    PrevMatch,
    /// Take the mouse, or give it back to the terminal to select text.
    ToggleMouse,
    /// Delete the selected context (asks first).
    DeleteContext,
    /// Switch the viewer between the table and the transcript.
    ToggleTranscript,
    /// Down half a screen.
    HalfPageDown,
    /// Up half a screen.
    HalfPageUp,
    /// To the next message's header.
    NextMessage,
    /// To the selected message's header, then the previous message's.
    PrevMessage,
    /// Show or hide thinking in the transcript.
    ToggleThinking,
    /// Tool calls and results: off, truncated, full.
    CycleTools,
    /// Markdown rendered, or the text as written.
    ToggleRaw,
    /// Copy the selected message's text to the clipboard.
    CopyMessage,
    /// Copy the session's id.
    CopySessionId,
    /// Copy the session's path.
    CopySessionPath,
    /// The transcript in `$PAGER`.
    OpenInPager,
    /// The session's file in `$EDITOR`.
    OpenInEditor,
    /// Show where the tokens go, by kind.
    Breakdown,
    /// Sort the messages largest first, or back in order.
    SortBySize,
    /// To the next message over the size set.
    NextBig,
    /// To the previous message over the size set.
    PrevBig,
    /// Set the size the jumps go to messages over.
    SetBigSize,
    /// Mark (or unmark) the selected message for an edit by hand.
    Mark,
    /// Mark every message from the last mark to the cursor.
    MarkRange,
    /// Start choosing tool results to clear.
    StartClear,
    /// Start making the session resumable (or switch the edit to it).
    StartResumable,
    /// Switch an edit by hand to dropping the marked messages.
    StartDrop,
    /// Choose which tool results a clear picks: marked, by size, by turns.
    CycleClearChoice,
    /// Compare the chosen context with its parent.
    Diff,
    /// Write the context's transcript to a file.
    Export,
    /// Follow the end as the agent writes (as `less +F`), or stop.
    Follow,
}

/// A message to `update`.
#[derive(Clone, Debug)]
pub enum Msg {
    /// A user intent.
    Action(Action),
    /// A character typed into the query, a number or a text field.
    Type(char),
    /// Text pasted (bracketed paste): inserted as text, never as keys.
    Paste(String),
    /// The mouse wheel turned (positive: down).
    Scroll(i32),
    /// Time passed (seconds since the epoch now).
    Tick(f64),
    /// The process received this signal: end the UI, restoring the terminal.
    Signal(i32),
    /// The terminal has this many columns and rows.
    Resize(u16, u16),
    /// Fill the next slice of rows from the index's stats (`generation`
    /// names the stats it began with).
    FillIndexed { generation: u64 },
    /// The watcher saw sessions change on disk (at `at`, seconds since
    /// the epoch), or says how it watches.
    Disk { event: StoreEvent, at: f64 },
    /// An answer (or progress) of the background work asked as request
    /// `req`, for the screen that asked.
    Reply { req: u64, reply: Reply },
    /// A program the terminal was handed to ended: what to say of it
    /// (an error when it could not run or failed).
    Ran(Result<String, String>),
}

impl Msg {
    /// The answer `reply` to request `req`.
    pub fn reply(req: u64, reply: impl Into<Reply>) -> Self {
        Msg::Reply {
            req,
            reply: reply.into(),
        }
    }
}
