//! A program the UI hands the terminal to when the person asks (`o`: the
//! transcript in `$PAGER`; `O`: the session's file in `$EDITOR`), taking
//! the terminal back when it ends.

use crate::render::transcript::Display;
use crate::store::Context;
use std::path::PathBuf;
use std::sync::Arc;

/// What runs with the terminal.
#[derive(Clone, Debug)]
pub enum External {
    /// The transcript of `context` (tokens in `counts`), as `show --format
    /// transcript` prints it, through `$PAGER`.
    Pager {
        /// The conversation.
        context: Arc<Context>,
        /// Its messages' token counts (0 where not counted yet).
        counts: Vec<u64>,
        /// Thinking, tools, markdown, as the viewer shows them.
        display: Display,
    },
    /// `path` opened in `$VISUAL`, else `$EDITOR`, else `vi`.
    Editor {
        /// The file.
        path: PathBuf,
    },
}
