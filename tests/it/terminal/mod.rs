//! The binary in a real terminal (tmux).

mod agents;
mod escape;
mod hosts;
mod input;
mod keys;
mod live;
