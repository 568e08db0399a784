//! The UI's real loop on a virtual screen.

mod hand_trim;
mod panes;
