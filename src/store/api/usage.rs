//! The door's usage reports: what the agents spent by day, week, month,
//! project, model, agent or session (`stats`, and the dashboard, which
//! hands in the usage its list already holds).

use super::Store;
use crate::store::clock::local_day;
use crate::store::error::Result;
use crate::store::format::usage::{UsageByModel, UsageDetail};
use crate::store::ops::usage_report::{self, ReportQuery, SessionUsage, UsageReport};
use crate::store::sources::agents;
use crate::store::sources::record::SessionRecord;

impl Store {
    /// The report of what `sessions` spent, priced by this store's table,
    /// by the local dates of `TZ` (or the system's zone).
    pub fn usage_report_of(
        &self,
        sessions: &[SessionUsage<'_>],
        query: &ReportQuery,
    ) -> UsageReport {
        usage_report::report(sessions, query, &self.prices, &|t| self.day_of(t))
    }

    /// The date (`YYYY-MM-DD`) reports put the moment `seconds` on: the
    /// local one, or UTC's for a store made [`Store::with_days_in_utc`].
    pub fn day_of(&self, seconds: f64) -> String {
        if self.days_in_utc {
            usage_report::utc_day(seconds)
        } else {
            local_day(seconds)
        }
    }

    /// The same store dating its reports in UTC, whatever `TZ` says (the
    /// tests' snapshots).
    pub fn with_days_in_utc(mut self) -> Store {
        self.days_in_utc = true;
        self
    }

    /// The report of every session shown: their usage from the search
    /// indexes, brought up to date first (a session the index cannot hold
    /// is read from its files).
    pub fn usage_report(&self, query: &ReportQuery, now: f64) -> Result<UsageReport> {
        // An index that cannot be brought up to date leaves its sessions
        // to be read from their files below, not the report undone.
        let _ = self.update_index(now, &|_, _| {});
        let (records, indexed) = self.list_with_indexed_stats(UsageDetail::ByQuarterHour)?;
        // Each record with the usage its index knows.
        let known: Vec<(&SessionRecord, Option<&UsageByModel>)> = records
            .iter()
            .zip(&indexed)
            .map(|(r, s)| (r, s.as_ref().and_then(|s| s.usage.as_deref())))
            .collect();
        let read: Vec<Option<UsageByModel>> =
            crate::store::parallel::map_ordered(&known, |&(r, known)| {
                match (r.agent.is_external(), known) {
                    (true, None) if r.error.is_none() => agents::read(r).ok().map(|a| a.usage),
                    _ => None,
                }
            });
        let sessions: Vec<SessionUsage> = known
            .iter()
            .zip(&read)
            .filter_map(|(&(r, known), own)| {
                let usage = own.as_ref().or(known)?;
                Some(SessionUsage {
                    agent: r.agent,
                    id: &r.id,
                    title: r.shown_name(),
                    cwd: r.cwd.as_deref(),
                    last_used_at: r.last_used_at,
                    usage,
                })
            })
            .collect();
        Ok(self.usage_report_of(&sessions, query))
    }
}
