//! The binary in a real terminal (tmux).

mod agents;
mod input;
mod keys;
mod live;
