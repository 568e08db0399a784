//! The other machines' pane asks each host for its sessions over ssh.
//! Not a call of the store's door: a host may take its whole timeout, so
//! each is asked on a thread of its own ([`ask`]), never on the pool the
//! store's calls share; the headless driver calls the same function.

use crate::hosts::{self, Host, RemoteSession};
use std::time::Duration;

/// What a host answered.
#[derive(Clone, Debug)]
pub enum HostsReply {
    /// Its sessions, newest first, or why it is left out.
    Listed {
        /// The host's name.
        host: String,
        /// Its sessions, checked.
        result: Result<Vec<RemoteSession>, String>,
    },
}

/// Asks `host` for its sessions within `deadline`.
pub fn ask(host: &Host, deadline: Duration) -> HostsReply {
    HostsReply::Listed {
        host: host.name.clone(),
        result: hosts::list(host, deadline),
    }
}
