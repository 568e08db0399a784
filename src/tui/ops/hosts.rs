//! The other machines' pane asks each host for its sessions over ssh.
//! Not a call of the store's door: a host may take its whole timeout, so
//! each is asked on a thread of its own ([`ask`]), never on the pool the
//! store's calls share; the headless driver calls the same function.

use crate::hosts::{self, Host, RemoteSession};
use crate::store::{Pack, PullPlan, Store};
use std::path::Path;
use std::sync::Arc;
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
    /// What pulling a session here would write, or (`write`) wrote; the
    /// files fetched, kept for the write.
    Pulled {
        /// Written (else planned).
        write: bool,
        /// The session's files and the plan, or why not.
        result: Result<(Arc<Pack>, Box<PullPlan>), String>,
    },
}

/// Asks `host` for its sessions within `deadline`.
pub fn ask(host: &Host, deadline: Duration) -> HostsReply {
    HostsReply::Listed {
        host: host.name.clone(),
        result: hosts::list(host, deadline),
    }
}

/// Pulls session `id` of `host` into `to` on `store` (planned, or written
/// when `write`): the same `hosts::fetch_pack` and `Store::pull_session`
/// as `pull --host`; `pack` spares a second fetch after the preview.
pub fn pull(
    store: &Store,
    host: &Host,
    id: &str,
    to: &Path,
    pack: Option<Arc<Pack>>,
    write: bool,
    deadline: Duration,
) -> HostsReply {
    let result = pack
        .map_or_else(
            || {
                hosts::fetch_pack(host, id, deadline)
                    .map(Arc::new)
                    .map_err(|why| format!("host {}: {why}", host.name))
            },
            Ok,
        )
        .and_then(|pack| {
            store
                .pull_session(&pack, to, write)
                .map(|plan| (pack, Box::new(plan)))
                .map_err(|e| e.to_string())
        });
    HostsReply::Pulled { write, result }
}
