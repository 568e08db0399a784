//! The UI's real loop on a virtual screen.

mod agents;
mod hand_trim;
mod panes;
