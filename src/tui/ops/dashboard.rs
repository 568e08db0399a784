//! What the usage dashboard asks of the store, and its answer: the reports
//! of the usage the list already holds (made on a worker: pricing and
//! adding up ten thousand sessions is no work for the UI thread).

use crate::store::{Agent, GroupBy, ReportQuery, SessionUsage, UsageByModel, UsageReport};
use crate::tui::ops::{Job, UiError};
use std::sync::Arc;

/// One session's part, owned (the list's rows stay on the UI thread).
#[derive(Clone, Debug)]
pub struct OwnedUsage {
    /// Whose session.
    pub agent: Agent,
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The folder it worked in.
    pub cwd: Option<String>,
    /// When it was last used.
    pub last_used_at: f64,
    /// What it spent.
    pub usage: UsageByModel,
}

/// A store operation of the dashboard.
#[derive(Clone, Debug)]
pub enum DashboardOp {
    /// The reports of `sessions` over the last `days` local dates up to
    /// `now`, and of the month so far (answers `Reports`).
    Report {
        sessions: Arc<Vec<OwnedUsage>>,
        days: u32,
        now: f64,
    },
}

/// The dashboard's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DashboardReports {
    /// By day, oldest first.
    pub days: UsageReport,
    /// By project, the costliest first.
    pub projects: UsageReport,
    /// By model.
    pub models: UsageReport,
    /// By agent.
    pub agents: UsageReport,
    /// The month so far, all of it.
    pub month: UsageReport,
    /// Every local date of the period, oldest first (days nothing was
    /// spent on too: the chart shows them empty).
    pub calendar: Vec<String>,
}

/// An answer for the dashboard.
#[derive(Clone, Debug)]
pub enum DashboardReply {
    /// The reports (or why not).
    Reports {
        result: Result<Box<DashboardReports>, UiError>,
    },
}

impl DashboardOp {
    /// One call of the door per report.
    pub(super) fn run(self, job: &Job) -> DashboardReply {
        let DashboardOp::Report {
            sessions,
            days,
            now,
        } = self;
        let day = |t: f64| job.store.day_of(t);
        let since = day(now - f64::from(days.saturating_sub(1)) * 86_400.0);
        let today = day(now);
        let month = today.get(..7).unwrap_or(&today).to_string();
        let parts: Vec<SessionUsage> = sessions
            .iter()
            .map(|s| SessionUsage {
                agent: s.agent,
                id: &s.id,
                title: &s.title,
                cwd: s.cwd.as_deref(),
                last_used_at: s.last_used_at,
                usage: &s.usage,
            })
            .collect();
        let report = |by: GroupBy, since: &str| {
            let query = ReportQuery {
                by,
                since: Some(since.to_string()),
            };
            job.store.usage_report_of(&parts, &query)
        };
        let calendar = (0..days)
            .rev()
            .map(|back| day(now - f64::from(back) * 86_400.0))
            .fold(Vec::<String>::new(), |mut out, day| {
                if out.last() != Some(&day) {
                    out.push(day);
                }
                out
            });
        let reports = DashboardReports {
            calendar,
            days: report(GroupBy::Day, &since),
            projects: report(GroupBy::Project, &since),
            models: report(GroupBy::Model, &since),
            agents: report(GroupBy::Agent, &since),
            month: report(GroupBy::Month, &format!("{month}-01")),
        };
        DashboardReply::Reports {
            result: Ok(Box::new(reports)),
        }
    }
}
