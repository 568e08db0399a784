//! What the agents spent, added up by day, week, month, project, model,
//! agent or session: the dashboard's figures and `stats`. Pure: the
//! sessions' usage comes in (the search index keeps it), the time zone as
//! a function giving a moment's local date.

use crate::store::format::usage::{QUARTER_HOUR, Usage, UsageByModel};
use crate::store::ops::pricing::{ModelPrice, PriceTable};
use crate::store::sources::agent::Agent;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How a report is grouped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// The local date (`2026-11-29`).
    #[default]
    Day,
    /// The Monday of the local week (`2026-11-23`).
    Week,
    /// The local month (`2026-11`).
    Month,
    /// The folder the session worked in.
    Project,
    /// The model.
    Model,
    /// The agent.
    Agent,
    /// The session.
    Session,
}

impl std::str::FromStr for GroupBy {
    type Err = String;

    fn from_str(s: &str) -> Result<GroupBy, String> {
        Ok(match s {
            "day" => GroupBy::Day,
            "week" => GroupBy::Week,
            "month" => GroupBy::Month,
            "project" => GroupBy::Project,
            "model" => GroupBy::Model,
            "agent" => GroupBy::Agent,
            "session" => GroupBy::Session,
            other => {
                return Err(format!(
                    "cannot group by {other:?}; one of day, week, month, project, model, agent, session"
                ));
            }
        })
    }
}

/// One session's part in a report.
#[derive(Clone, Debug)]
pub struct SessionUsage<'a> {
    /// Whose session.
    pub agent: Agent,
    /// Its id.
    pub id: &'a str,
    /// Its title.
    pub title: &'a str,
    /// The folder it worked in.
    pub cwd: Option<&'a str>,
    /// When it was last used: the time of usage the agent did not date.
    pub last_used_at: f64,
    /// What it spent.
    pub usage: &'a UsageByModel,
}

/// What a report is asked for.
#[derive(Clone, Debug, Default)]
pub struct ReportQuery {
    /// The grouping.
    pub by: GroupBy,
    /// Only usage of this local date or later (`YYYY-MM-DD`).
    pub since: Option<String>,
}

/// One row of a report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ReportRow {
    /// What the row is: a date, a month, a folder, a model, an agent, an id.
    pub key: String,
    /// A session's title (by session only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tokens.
    pub usage: Usage,
    /// Estimated US dollars of the models priced (None: none was).
    pub cost_usd: Option<f64>,
    /// Models of the row with no price (their tokens are not in the cost).
    pub unpriced_models: Vec<String>,
    /// The models used.
    pub models: Vec<String>,
    /// Sessions that spent in the row.
    pub sessions: usize,
}

/// A report: its rows, their totals and the prices it used.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UsageReport {
    /// The grouping.
    pub by: GroupBy,
    /// The first local date counted, when one was asked for.
    pub since: Option<String>,
    /// The rows: by time oldest first, else the costliest first.
    pub rows: Vec<ReportRow>,
    /// Every row added up.
    pub totals: ReportRow,
    /// The date of the prices.
    pub prices_of: String,
}

/// One piece of usage: a session's spend on one model in one quarter hour
/// (or, undated, at the session's last use).
struct Piece<'a> {
    session: usize,
    model: &'a str,
    day: String,
    usage: Usage,
    long: Usage,
}

/// The report of `sessions` for `query`, priced by `prices`; `local_day`
/// gives the local date (`YYYY-MM-DD`) of a moment (seconds since the epoch).
pub fn report(
    sessions: &[SessionUsage<'_>],
    query: &ReportQuery,
    prices: &PriceTable,
    local_day: &dyn Fn(f64) -> String,
) -> UsageReport {
    let mut days: HashMap<u32, String> = HashMap::new();
    let mut day_of = |quarter: u32| {
        days.entry(quarter)
            .or_insert_with(|| local_day(f64::from(quarter) * QUARTER_HOUR))
            .clone()
    };
    let mut pieces: Vec<Piece> = Vec::new();
    for (n, s) in sessions.iter().enumerate() {
        let mut dated = vec![(Usage::default(), Usage::default()); s.usage.models.len()];
        for spend in &s.usage.spends {
            let index = usize::from(spend.model);
            let Some((model, _)) = s.usage.models.get(index) else {
                continue;
            };
            dated[index].0.add(&spend.usage);
            dated[index].1.add(&spend.long);
            pieces.push(Piece {
                session: n,
                model,
                day: day_of(spend.quarter),
                usage: spend.usage,
                long: spend.long,
            });
        }
        // What the agent did not date counts at the session's last use.
        let undated_day = day_of((s.last_used_at.max(0.0) / QUARTER_HOUR) as u32);
        for (index, (model, total)) in s.usage.models.iter().enumerate() {
            let usage = total.minus(&dated[index].0);
            if usage.total() > 0 {
                pieces.push(Piece {
                    session: n,
                    model,
                    day: undated_day.clone(),
                    usage,
                    long: s.usage.long_of(index).minus(&dated[index].1),
                });
            }
        }
    }
    if let Some(since) = &query.since {
        pieces.retain(|p| p.day.as_str() >= since.as_str());
    }
    let key_of = |p: &Piece| -> String {
        let s = &sessions[p.session];
        match query.by {
            GroupBy::Day => p.day.clone(),
            GroupBy::Week => monday_of(&p.day),
            GroupBy::Month => p.day.get(..7).unwrap_or(&p.day).to_string(),
            GroupBy::Project => s.cwd.unwrap_or("(no folder recorded)").to_string(),
            GroupBy::Model if p.model.is_empty() => "(no model named)".to_string(),
            GroupBy::Model => p.model.to_string(),
            GroupBy::Agent => s.agent.name().to_string(),
            GroupBy::Session => s.id.to_string(),
        }
    };
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut totals = Row::default();
    // Each model's price found once, not once a piece.
    let mut price_of: HashMap<&str, Option<&ModelPrice>> = HashMap::new();
    for p in &pieces {
        let price = *price_of
            .entry(p.model)
            .or_insert_with(|| prices.price_of(p.model));
        let key = key_of(p);
        let row = rows.entry(key).or_default();
        for r in [row, &mut totals] {
            r.add(p, price);
        }
    }
    let mut rows: Vec<ReportRow> = rows
        .into_iter()
        .map(|(key, row)| {
            let title = (query.by == GroupBy::Session)
                .then(|| row.sessions.first().map(|&n| sessions[n].title.to_string()))
                .flatten();
            ReportRow {
                title,
                ..row.finish(key)
            }
        })
        .collect();
    if !matches!(query.by, GroupBy::Day | GroupBy::Week | GroupBy::Month) {
        rows.sort_by(|a, b| {
            b.cost_usd
                .unwrap_or(0.0)
                .total_cmp(&a.cost_usd.unwrap_or(0.0))
                .then_with(|| b.usage.total().cmp(&a.usage.total()))
        });
    }
    UsageReport {
        by: query.by,
        since: query.since.clone(),
        rows,
        totals: totals.finish("total".into()),
        prices_of: prices.date.clone(),
    }
}

/// A row being added up.
#[derive(Default)]
struct Row {
    usage: Usage,
    usd: Option<f64>,
    unpriced: BTreeSet<String>,
    models: BTreeSet<String>,
    sessions: Vec<usize>,
}

impl Row {
    fn add(&mut self, p: &Piece, price: Option<&ModelPrice>) {
        self.usage.add(&p.usage);
        let name = if p.model.is_empty() {
            "(no model named)"
        } else {
            p.model
        };
        self.models.insert(name.to_string());
        match price {
            Some(price) => *self.usd.get_or_insert(0.0) += price.cost(&p.usage, &p.long),
            None => {
                self.unpriced.insert(name.to_string());
            }
        }
        if !self.sessions.contains(&p.session) {
            self.sessions.push(p.session);
        }
    }

    fn finish(self, key: String) -> ReportRow {
        ReportRow {
            key,
            title: None,
            usage: self.usage,
            cost_usd: self.usd,
            unpriced_models: self.unpriced.into_iter().collect(),
            models: self.models.into_iter().collect(),
            sessions: self.sessions.len(),
        }
    }
}

/// The UTC date of `seconds` since the epoch.
pub fn utc_day(seconds: f64) -> String {
    civil_from_days((seconds / 86_400.0).floor() as i64)
}

/// The Monday of the week of `day` (`YYYY-MM-DD`).
fn monday_of(day: &str) -> String {
    let Some(days) = days_from_civil(day) else {
        return day.to_string();
    };
    // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
    let monday = days - (days + 3).rem_euclid(7);
    civil_from_days(monday)
}

/// Days since 1970-01-01 of `YYYY-MM-DD` (Howard Hinnant's algorithm).
fn days_from_civil(day: &str) -> Option<i64> {
    let mut parts = day.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// `YYYY-MM-DD` of days since 1970-01-01.
fn civil_from_days(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spent(tokens: u64) -> Usage {
        Usage {
            input: tokens,
            output: tokens,
            ..Usage::default()
        }
    }

    #[test]
    fn weeks_start_on_monday() {
        assert_eq!(monday_of("2026-11-29"), "2026-11-23"); // a Sunday
        assert_eq!(monday_of("2026-11-23"), "2026-11-23");
        assert_eq!(monday_of("2026-03-01"), "2026-02-23");
        assert_eq!(
            civil_from_days(days_from_civil("2024-02-29").unwrap()),
            "2024-02-29"
        );
    }

    #[test]
    fn usage_is_grouped_by_day_model_and_session_with_costs() {
        let day = 86_400.0;
        let mut a = UsageByModel::default();
        a.add_request(
            "claude-sonnet-4-5",
            &spent(1_000_000),
            Some(10.0 * day + 60.0),
        );
        a.add_request(
            "claude-sonnet-4-5",
            &spent(1_000_000),
            Some(11.0 * day + 60.0),
        );
        let mut b = UsageByModel::default();
        b.add_request("acme-llm", &spent(5), Some(11.0 * day));
        b.add("claude-sonnet-4-5", &spent(1)); // undated: at the last use
        let sessions = [
            SessionUsage {
                agent: Agent::Claude,
                id: "a",
                title: "A",
                cwd: Some("/w/a"),
                last_used_at: 11.0 * day,
                usage: &a,
            },
            SessionUsage {
                agent: Agent::Codex,
                id: "b",
                title: "B",
                cwd: None,
                last_used_at: 12.0 * day,
                usage: &b,
            },
        ];
        let prices = PriceTable::builtin();
        let by_day = report(&sessions, &ReportQuery::default(), &prices, &utc_day);
        let keys: Vec<&str> = by_day.rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["1970-01-11", "1970-01-12", "1970-01-13"]);
        assert!((by_day.rows[0].cost_usd.unwrap() - 18.0).abs() < 1e-9);
        assert_eq!(by_day.rows[1].unpriced_models, ["acme-llm"]);
        assert_eq!(by_day.rows[1].sessions, 2);
        assert_eq!(by_day.totals.usage.input, 2_000_006);
        let since = ReportQuery {
            by: GroupBy::Day,
            since: Some("1970-01-12".into()),
        };
        assert_eq!(report(&sessions, &since, &prices, &utc_day).rows.len(), 2);
        let by_model = report(
            &sessions,
            &ReportQuery {
                by: GroupBy::Model,
                since: None,
            },
            &prices,
            &utc_day,
        );
        assert_eq!(
            by_model.rows[0].key, "claude-sonnet-4-5",
            "the costliest first"
        );
        assert_eq!(by_model.rows[1].cost_usd, None, "unpriced, not $0");
        let by_session = report(
            &sessions,
            &ReportQuery {
                by: GroupBy::Session,
                since: None,
            },
            &prices,
            &utc_day,
        );
        assert_eq!(by_session.rows[0].title.as_deref(), Some("A"));
        let by_project = report(
            &sessions,
            &ReportQuery {
                by: GroupBy::Project,
                since: None,
            },
            &prices,
            &utc_day,
        );
        assert!(
            by_project
                .rows
                .iter()
                .any(|r| r.key == "(no folder recorded)")
        );
    }
}
