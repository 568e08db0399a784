//! The answer to a message search as the list shows it: the hits of one
//! session grouped under its best (with how many there are), a group
//! opened on request to show the others.

use crate::store::{Hit, SearchOutcome};
use crate::tui::ops::UiError;
use std::collections::{HashMap, HashSet};

/// The hits of a message search and where the cursor is among them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageHits {
    /// The query they answer.
    pub query: String,
    /// Best first.
    pub hits: Vec<Hit>,
    /// What the table shows, in order (see [`HitRow`]).
    pub rows: Vec<HitRow>,
    /// Sessions whose group is open, by id.
    pub opened: HashSet<String>,
    /// Position of the cursor in `rows`.
    pub selected: usize,
    /// Messages that matched in all.
    pub total: usize,
    /// Sessions the answer covers, of all in the store.
    pub covered: usize,
    /// Sessions in the store.
    pub sessions: usize,
    /// Sessions whose conversation could not be read, so were not searched.
    pub unreadable: usize,
    /// Why there is no answer (a query being typed, an index problem).
    pub error: Option<UiError>,
    /// True once an answer arrived for the current query.
    pub answered: bool,
}

/// A row of the hits table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HitRow {
    /// The hit it shows (an index into [`MessageHits::hits`]).
    pub hit: usize,
    /// On a session's first row, the hits of that session shown (1: no
    /// group); 0 on the other rows of an opened group.
    pub group: usize,
    /// True on the first row of a group that is open.
    pub open: bool,
}

impl MessageHits {
    /// The answer `outcome` to `query`, its groups closed but those in
    /// `opened` (kept while the same query is answered again).
    pub fn answered(query: String, outcome: SearchOutcome, opened: HashSet<String>) -> Self {
        let mut hits = MessageHits {
            query,
            hits: outcome.hits,
            opened,
            total: outcome.total,
            covered: outcome.covered,
            sessions: outcome.sessions,
            unreadable: outcome.unreadable.len(),
            answered: true,
            ..MessageHits::default()
        };
        hits.lay_out();
        hits
    }

    /// Sessions that have hits.
    pub fn session_count(&self) -> usize {
        self.rows.iter().filter(|r| r.group > 0).count()
    }

    /// The hit under the cursor.
    pub fn selected_hit(&self) -> Option<&Hit> {
        self.hits.get(self.rows.get(self.selected)?.hit)
    }

    /// The row showing `hit`: its own, or its closed group's first row.
    pub fn row_of(&self, session_id: &str, message_id: &str) -> Option<usize> {
        let hit = |r: &HitRow| &self.hits[r.hit];
        let own = self
            .rows
            .iter()
            .position(|r| hit(r).session_id == session_id && hit(r).message_id == message_id);
        own.or_else(|| {
            self.rows
                .iter()
                .position(|r| r.group > 0 && hit(r).session_id == session_id)
        })
    }

    /// Opens the group under the cursor, or closes the group the cursor
    /// is in (the cursor goes to its first row). False when the cursor is
    /// on a session with one hit: there is nothing to open.
    pub fn toggle_group(&mut self) -> bool {
        let Some(row) = self.rows.get(self.selected).copied() else {
            return false;
        };
        let session = self.hits[row.hit].session_id.clone();
        let first = self.row_of_group(&session);
        if self.rows[first].group <= 1 {
            return false;
        }
        if !self.opened.remove(&session) {
            self.opened.insert(session);
        }
        self.lay_out();
        self.selected = first;
        true
    }

    fn row_of_group(&self, session_id: &str) -> usize {
        self.rows
            .iter()
            .position(|r| r.group > 0 && self.hits[r.hit].session_id == session_id)
            .unwrap_or(0)
    }

    /// `rows` from `hits` and `opened`: each session at the place of its
    /// best hit, its other hits under it when its group is open.
    fn lay_out(&mut self) {
        let mut order: Vec<&str> = Vec::new();
        let mut of_session: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, hit) in self.hits.iter().enumerate() {
            let members = of_session.entry(&hit.session_id).or_default();
            if members.is_empty() {
                order.push(&hit.session_id);
            }
            members.push(i);
        }
        let mut rows = Vec::with_capacity(self.hits.len());
        for session in order {
            let members = &of_session[session];
            let open = members.len() > 1 && self.opened.contains(session);
            rows.push(HitRow {
                hit: members[0],
                group: members.len(),
                open,
            });
            if open {
                rows.extend(members[1..].iter().map(|&hit| HitRow {
                    hit,
                    group: 0,
                    open: false,
                }));
            }
        }
        self.rows = rows;
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
    }
}
