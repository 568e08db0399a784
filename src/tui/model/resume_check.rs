//! What is asked before the UI ends to resume a session: whatever runs
//! next (the agent's own program, an `--exec` command) must be there, or
//! the person would lose the UI to a "No such file or directory".

use crate::store::Target;
use std::fmt;
use std::sync::Arc;

/// Why a session cannot be resumed from here, and the command a person can
/// run once it can (copied for them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResumeBlocked {
    /// Said on the status line.
    pub why: String,
    /// `cd DIR && PROGRAM ARGS…`, when it can be printed safely.
    pub command: Option<String>,
}

type Check = dyn Fn(&Target) -> Result<(), ResumeBlocked> + Send + Sync;

/// The check the program that started the UI supplies (it alone knows the
/// resume commands); by default nothing is checked.
#[derive(Clone, Default)]
pub struct ResumeCheck(Option<Arc<Check>>);

impl ResumeCheck {
    /// A check that runs `check` on the session to resume.
    pub fn new(
        check: impl Fn(&Target) -> Result<(), ResumeBlocked> + Send + Sync + 'static,
    ) -> Self {
        Self(Some(Arc::new(check)))
    }

    /// Asks the check about `target` (always fine when there is none).
    pub fn check(&self, target: &Target) -> Result<(), ResumeBlocked> {
        self.0.as_ref().map_or(Ok(()), |check| check(target))
    }
}

impl fmt::Debug for ResumeCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "ResumeCheck(set)"
        } else {
            "ResumeCheck(none)"
        })
    }
}

/// Two checks are the same when they are the same function (settings are
/// compared to see what the person changed, never this).
impl PartialEq for ResumeCheck {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}
