//! The UI's real loop on a virtual screen.

mod agents;
mod dashboard;
mod delete;
mod fill;
mod hand_trim;
mod live;
mod live_agents;
mod panes;
