//! What the UI and the CLI both draw: a conversation as a transcript
//! (`show --format transcript`, the pager and the viewer's transcript),
//! the colours of both (`theme`), and text wrapped to a width. Outside
//! `tui/` so that `show` and the config reach it without the UI.

pub mod theme;
pub(crate) mod transcript;
pub(crate) mod wrap;
