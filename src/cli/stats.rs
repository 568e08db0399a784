//! `loki-sessions stats [--by day|week|month|project|model|agent|session]
//! [--since DATE] [--json]`: what the agents spent, as the dashboard shows it.

use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{GroupBy, ReportQuery, ReportRow, UsageReport};
use clap::Args;

/// Arguments of `stats`.
#[derive(Debug, Args)]
#[command(
    after_help = "Tokens and estimated cost the agents recorded (Claude Code, Codex, Gemini CLI, Copilot CLI as its last run recorded them, Qwen Code, OpenCode), added up. Days are local dates (set TZ for another zone), as ccusage counts them; a model with no price is shown as ? and named, never counted as $0.\n\nExamples:\n  loki-sessions stats                      by day\n  loki-sessions stats --by model --since 2026-11-01\n  loki-sessions --agent claude stats --by project --json"
)]
pub struct StatsArgs {
    /// How to group: day, week, month, project, model, agent or session.
    #[arg(long, value_name = "BY", default_value = "day", value_parser = clap::builder::PossibleValuesParser::new(["day", "week", "month", "project", "model", "agent", "session"]))]
    pub by: String,
    /// Only what was spent on this local date or later (YYYY-MM-DD).
    #[arg(long, value_name = "DATE", value_parser = date)]
    pub since: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn date(text: &str) -> Result<String, String> {
    let ok = text.len() == 10
        && text.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        });
    if ok {
        Ok(text.to_string())
    } else {
        Err(format!(
            "{text:?} is not a date; write it as YYYY-MM-DD (2026-11-01)"
        ))
    }
}

/// Prints the report.
pub fn run(env: &CliEnv, args: StatsArgs) -> Result<(), CliError> {
    let by: GroupBy = args.by.parse().map_err(CliError::usage)?;
    let query = ReportQuery {
        by,
        since: args.since,
    };
    let report = env.store.usage_report(&query, env.now)?;
    if args.json {
        return output::print_json(&report);
    }
    if report.rows.is_empty() {
        return Err(CliError::nothing("no recorded usage to report"));
    }
    output::print_lines(table(&report))
}

/// The report as a table with a bar of each row's cost (or tokens, where
/// no row is priced).
fn table(report: &UsageReport) -> Vec<String> {
    let heading = match report.by {
        GroupBy::Day => "DAY",
        GroupBy::Week => "WEEK OF",
        GroupBy::Month => "MONTH",
        GroupBy::Project => "PROJECT",
        GroupBy::Model => "MODEL",
        GroupBy::Agent => "AGENT",
        GroupBy::Session => "SESSION",
    };
    let width = report
        .rows
        .iter()
        .map(|r| r.key.chars().count().min(48))
        .max()
        .unwrap_or(0)
        .max(heading.len());
    let weight = |r: &ReportRow| r.cost_usd.unwrap_or(0.0);
    let most = report.rows.iter().map(weight).fold(0.0, f64::max);
    let mut lines = vec![format!(
        "{heading:<width$}  {:>9}  {:>9}  {:>10}  {:>10}  {:>9}",
        "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"
    )];
    let line = |key: &str, r: &ReportRow, bar: String| {
        let key = humanize::truncate(key, 48);
        format!(
            "{key:<width$}  {:>9}  {:>9}  {:>10}  {:>10}  {:>9}  {bar}",
            humanize::count(r.usage.input),
            humanize::count(r.usage.output + r.usage.thoughts),
            humanize::count(r.usage.cache_read),
            humanize::count(r.usage.cache_write),
            cost(r),
        )
    };
    for r in &report.rows {
        let bar = if most > 0.0 {
            "█".repeat(((weight(r) / most) * 20.0).round() as usize)
        } else {
            String::new()
        };
        let key = match &r.title {
            Some(title) => format!("{} {}", crate::store::id_start(&r.key), title),
            None => r.key.clone(),
        };
        lines.push(line(&key, r, bar));
    }
    lines.push(line("total", &report.totals, String::new()));
    if !report.totals.unpriced_models.is_empty() {
        lines.push(format!(
            "? no price for {} (their tokens are not in the cost)",
            report.totals.unpriced_models.join(", ")
        ));
    }
    lines.push(format!(
        "Costs are estimates at the prices of {}.",
        report.prices_of
    ));
    lines
}

fn cost(r: &ReportRow) -> String {
    humanize::dollars(r.cost_usd, !r.unpriced_models.is_empty())
}
