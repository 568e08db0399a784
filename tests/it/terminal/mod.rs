//! The binary in a real terminal (tmux).

mod input;
mod keys;
mod live;
