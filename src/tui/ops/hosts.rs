//! The other machines' pane asks each host for its sessions over ssh.
//! Not a call of the store's door: a host may take its whole timeout, so
//! each is asked on a thread of its own ([`ask`]), never on the pool the
//! store's calls share; the headless driver calls the same function.

use crate::hosts::{self, Host, RemoteSession};
use crate::store::{Pack, PullPlan, Store};
use std::path::PathBuf;
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

/// Bringing session `id` of `host` here, its project in `to`: its files
/// fetched (unless `pack` holds them already), then the store's pull
/// planned, or written when `write`.
#[derive(Clone, Debug)]
pub struct PullJob {
    /// The request the answer comes as.
    pub req: u64,
    /// The host.
    pub host: Host,
    /// The session there.
    pub id: String,
    /// The project's folder here.
    pub to: PathBuf,
    /// Its files, when the preview fetched them.
    pub pack: Option<Arc<Pack>>,
    /// Write (else only plan).
    pub write: bool,
    /// How long the host has to answer.
    pub deadline: Duration,
}

impl PullJob {
    /// Runs it on `store`: the same `hosts::fetch_pack` and
    /// `Store::pull_session` as `pull --host`; `pack` spares a second
    /// fetch after the preview.
    pub fn run(self, store: &Store) -> HostsReply {
        let PullJob {
            host,
            id,
            to,
            pack,
            write,
            deadline,
            ..
        } = self;
        let result = pack
            .map_or_else(
                || {
                    hosts::fetch_pack(&host, &id, deadline)
                        .map(Arc::new)
                        .map_err(|why| format!("host {}: {why}", host.name))
                },
                Ok,
            )
            .and_then(|pack| {
                store
                    .pull_session(&pack, &to, write)
                    .map(|plan| (pack, Box::new(plan)))
                    .map_err(|e| e.to_string())
            });
        HostsReply::Pulled { write, result }
    }
}
