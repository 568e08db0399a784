//! The state of the usage dashboard: what the agents spent over the last
//! 30 or 90 days, by day, project, model and agent, and the month so far.

use crate::tui::ops::{DashboardReports, UiError};

/// The periods the dashboard shows, in days, one step of `]` or `[`.
pub const PERIODS: [u32; 2] = [30, 90];

/// The dashboard.
#[derive(Clone, Debug)]
pub struct DashboardView {
    /// The days shown (one of [`PERIODS`]).
    pub days: u32,
    /// The reports (None until they come).
    pub reports: Option<Box<DashboardReports>>,
    /// Why they could not be made.
    pub error: Option<UiError>,
    /// The tag of the reports the dashboard waits for.
    pub waiting: u64,
}

impl Default for DashboardView {
    fn default() -> Self {
        DashboardView {
            days: PERIODS[0],
            reports: None,
            error: None,
            waiting: 0,
        }
    }
}
