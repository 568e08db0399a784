//! The command line, run as a script runs it.

mod agents;
mod answers;
mod asks;
mod codex_lineage;
mod contract;
mod daily;
mod diff_export;
mod hand_trim;
mod hostile;
mod hosts;
mod watch;
