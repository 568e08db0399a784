//! Transitions of the usage dashboard: opened from the list with the
//! usage its rows hold, the newest answer alone taken, 30 or 90 days, read
//! again when the disk changes, Esc back.

use super::*;
use crate::store::{StoreEvent, UsageByModel, UsageReport};
use crate::tui::ops::{DashboardOp, DashboardReply, DashboardReports};

/// The one dashboard request `effects` make: its tag, sessions and days.
fn asked(effects: &[Effect]) -> (u64, usize, u32) {
    let (req, (sessions, days)) = among_store!(
        effects,
        StoreOp::Dashboard(DashboardOp::Report { sessions, days, .. }) => (sessions.len(), *days)
    );
    (req, sessions, days)
}

/// A list whose first row recorded some usage.
fn listed_with_usage() -> Model {
    let mut m = listed(true);
    let mut usage = UsageByModel::default();
    usage.add(
        "claude-sonnet-4-5",
        &crate::store::Usage {
            input: 10,
            ..Default::default()
        },
    );
    m.list.rows[0].stats = Some(SessionStats {
        usage: Some(Box::new(usage)),
        ..SessionStats::default()
    });
    m
}

fn reports(total_sessions: usize) -> DashboardReply {
    let mut days = UsageReport::default();
    days.totals.sessions = total_sessions;
    DashboardReply::Reports {
        result: Ok(Box::new(DashboardReports {
            days,
            ..DashboardReports::default()
        })),
    }
}

#[test]
fn the_dashboard_opens_on_the_lists_usage_and_takes_the_newest_answer() {
    let mut m = listed_with_usage();
    let (first, sessions, days) = asked(&act(&mut m, Action::Dashboard));
    assert_eq!((sessions, days), (1, 30), "only rows that recorded usage");
    assert!(m.dashboard().is_some_and(|d| d.reports.is_none()));
    // 90 days asks again; the answer to the first request is late.
    let (second, _, days) = asked(&act(&mut m, Action::AgeMore));
    assert_eq!(days, 90);
    assert!(act(&mut m, Action::AgeMore).is_empty(), "90 is the most");
    reply(&mut m, first, reports(7));
    assert!(
        m.dashboard().unwrap().reports.is_none(),
        "a late answer is dropped"
    );
    reply(&mut m, second, reports(3));
    assert_eq!(
        m.dashboard()
            .unwrap()
            .reports
            .as_ref()
            .unwrap()
            .days
            .totals
            .sessions,
        3
    );
    let (_, _, days) = asked(&act(&mut m, Action::AgeLess));
    assert_eq!(days, 30);
    act(&mut m, Action::Back);
    assert!(matches!(m.screen, Screen::List));
}

#[test]
fn the_dashboard_follows_the_disk() {
    let mut m = listed_with_usage();
    let _ = act(&mut m, Action::Dashboard);
    let effects = update(
        &mut m,
        Msg::Disk {
            event: StoreEvent::Everything,
            at: NOW,
        },
    );
    asked(&effects);
    // Keys that mean nothing here do nothing.
    assert!(act(&mut m, Action::Delete).is_empty());
    assert!(update(&mut m, Msg::Paste("]".into())).is_empty());
}
