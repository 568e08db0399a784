//! `loki-sessions purge [--keep N] [--max-age 30d] [--dry-run] [--yes] [--json]`;
//! with `--agent claude|codex|gemini`, that agent's sessions go to the
//! trash instead (`cli/agent_purge.rs`).

use crate::cli::agent_purge;
use crate::cli::ask;
use crate::cli::output::{self, Progress};
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{PurgePlan, PurgeReport};
use clap::Args;
use serde_json::{Value, json};

/// Arguments of `purge`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions purge --dry-run\n  loki-sessions purge --keep 50 --max-age 14d --yes --json\n  loki-sessions purge --agent claude --dry-run\n\nWithout --agent, Loki's (or the peteos folder's) sessions are deleted for good.\nWith --agent claude, codex, gemini, copilot, qwen or cursor, that agent's sessions are\nmoved to the trash with their subagents' files and side folders\n(`loki-sessions restore ID` puts one back); its defaults are conservative:\nkeep the 1000 most recent, remove those unused for more than 90 days (the\nconfig's keep and max_age are Loki's alone). A session its agent may be\nwriting is never moved."
)]
pub struct PurgeArgs {
    /// Sessions beyond the N most recently used are removed; the age limit applies too [default: 100; another agent's: 1000]
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Remove sessions unused for longer than this: 30d, 12h, 2w [default: 30d; another agent's: 90d]
    #[arg(long, value_name = "AGE")]
    pub max_age: Option<String>,
    /// Never remove this session (the live one); may be repeated.
    #[arg(long, value_name = "ID")]
    pub exclude: Vec<String>,
    /// Show the plan; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove without asking.
    #[arg(long)]
    pub yes: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Plans, confirms and applies a purge.
pub fn run(env: &CliEnv, args: PurgeArgs) -> Result<(), CliError> {
    if let Some(agent) = agent_purge::asked_agent(env)? {
        return agent_purge::run(env, args, agent);
    }
    let policy = env.policy(args.keep, args.max_age.as_deref())?;
    env.check_folder()?;
    let plan = env.store.purge_plan(policy, &args.exclude, env.now)?;
    let removals = plan.removals().count();
    if args.dry_run || removals == 0 {
        print_plan(&plan, None, args.json, env.now)?;
        return finish(removals);
    }
    if !args.yes {
        confirm(&plan, env.now)?;
    }
    let mut progress = Progress::new("purging");
    let report = env
        .store
        .apply_purge(&plan, &args.exclude, |p| progress.update(p.done, p.total))?;
    progress.finish();
    tell_left_and_failed(&report, "removed", "remove");
    print_plan(&plan, Some(&report), args.json, env.now)?;
    if report.failed.is_empty() {
        finish(report.removed.len())
    } else {
        Err(CliError::usage(format!(
            "{} could not be removed",
            humanize::plural(report.failed.len() as u64, "session")
        )))
    }
}

/// Says on stderr which sessions were left (changed since the plan) and
/// which failed: `not removed ID: why`, `failed to remove ID: why`.
pub(super) fn tell_left_and_failed(report: &PurgeReport, done: &str, verb: &str) {
    for (id, why) in &report.skipped {
        crate::note!("not {done} {id}: {why}");
    }
    for (id, why) in &report.failed {
        crate::note!("failed to {verb} {id}: {why}");
    }
}

/// Exit 1 when nothing was purged.
pub(super) fn finish(removed: usize) -> Result<(), CliError> {
    if removed == 0 {
        Err(CliError::nothing("nothing to purge"))
    } else {
        Ok(())
    }
}

/// Asks y/N on the terminal; refuses without one.
fn confirm(plan: &PurgePlan, now: f64) -> Result<(), CliError> {
    ask::confirm(
        &plan_lines(plan, now),
        &format!(
            "Remove {} ({})?",
            humanize::plural(plan.removals().count() as u64, "session"),
            humanize::bytes(plan.bytes_freed())
        ),
        "refusing to purge without confirmation: stdin is not a terminal; preview with --dry-run, then pass --yes",
        "purge cancelled; nothing removed",
    )
}

fn print_plan(
    plan: &PurgePlan,
    report: Option<&PurgeReport>,
    json: bool,
    now: f64,
) -> Result<(), CliError> {
    if json {
        return output::print_json(&plan_json(plan, report));
    }
    let mut lines = plan_lines(plan, now);
    if let Some(report) = report {
        lines.push(format!(
            "removed {}, freed {}",
            humanize::plural(report.removed.len() as u64, "session"),
            humanize::bytes(report.bytes_freed)
        ));
    }
    output::print_lines(lines)
}

fn plan_lines(plan: &PurgePlan, now: f64) -> Vec<String> {
    let mut lines = Vec::new();
    for entry in plan.removals() {
        let r = &entry.candidate.record;
        lines.push(format!(
            "remove  {:<17}  {:>14}  {:>9}  {}  {}",
            r.id.chars().take(17).collect::<String>(),
            humanize::ago(r.last_used_at, now),
            humanize::bytes(entry.candidate.bytes),
            humanize::pad(&humanize::truncate(&r.name, 28), 28),
            entry.decision
        ));
    }
    let spared: Vec<_> = plan
        .kept()
        .filter(|e| !e.decision.is_routine_keep())
        .collect();
    for entry in &spared {
        let r = &entry.candidate.record;
        lines.push(format!(
            "spare   {:<17}  {}",
            r.id.chars().take(17).collect::<String>(),
            entry.decision
        ));
    }
    lines.push(format!(
        "{} to remove, {} kept ({} of them spared against the policy), {} freed  [keep {}, max age {}]",
        humanize::plural(plan.removals().count() as u64, "session"),
        plan.kept().count(),
        spared.len(),
        humanize::bytes(plan.bytes_freed()),
        plan.policy.keep,
        humanize::days(plan.policy.max_age_days)
    ));
    lines
}

pub(super) fn plan_json(plan: &PurgePlan, report: Option<&PurgeReport>) -> Value {
    let remove: Vec<Value> = plan
        .removals()
        .map(|e| {
            let r = &e.candidate.record;
            json!({"id": r.id, "name": r.name, "reason": e.decision.to_string(),
                   "last_used_at": r.last_used_at, "bytes": e.candidate.bytes, "path": r.path})
        })
        .collect();
    let keep: Vec<Value> = plan
        .kept()
        .map(|e| json!({"id": e.candidate.record.id, "reason": e.decision.to_string()}))
        .collect();
    let mut out = json!({
        "remove": remove,
        "keep": keep,
        "bytes_freed": report.map_or(plan.bytes_freed(), |r| r.bytes_freed),
        "policy": {"keep": plan.policy.keep, "max_age_days": plan.policy.max_age_days},
    });
    if let Some(report) = report {
        out["removed"] = json!(report.removed);
        out["skipped"] = json!(
            report
                .skipped
                .iter()
                .map(|(id, why)| json!({"id": id, "reason": why}))
                .collect::<Vec<_>>()
        );
        out["failed"] = json!(
            report
                .failed
                .iter()
                .map(|(id, why)| json!({"id": id, "error": why}))
                .collect::<Vec<_>>()
        );
    }
    out
}
