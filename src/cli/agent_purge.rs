//! `loki-sessions purge --agent claude|codex|gemini|copilot|qwen|cursor [--keep N] [--max-age AGE]
//! [--dry-run] [--yes] [--json]`: another agent's old sessions moved into
//! the trash (`restore` puts one back), by the same policy as Loki's purge
//! but with defaults of their own, more conservative.

use crate::cli::ask;
use crate::cli::output::{self, Progress};
use crate::cli::purge::{PurgeArgs, finish, plan_json, tell_left_and_failed};
use crate::cli::{CliEnv, CliError};
use crate::config;
use crate::humanize;
use crate::store::{Agent, PurgePlan, PurgePolicy, PurgeReport, agent_purge_policy};
use serde_json::{Value, json};

/// A kept session its agent's own cleanup deletes within this (seconds)
/// is named under the plan: kept by the purge is not kept for good.
const DELETES_SOON: f64 = 7.0 * 86_400.0;

/// When the agent's own cleanup deletes each session of the plan (by id),
/// and the rule that says so.
struct Cleanup {
    deletes_at: crate::store::DeletesAt,
    rule: Option<String>,
}

impl Cleanup {
    fn of(env: &CliEnv, agent: Agent, plan: &PurgePlan) -> Cleanup {
        let records: Vec<_> = plan
            .entries
            .iter()
            .map(|e| e.candidate.record.clone())
            .collect();
        Cleanup {
            deletes_at: env.store.agent_deletes_at(&records, env.now),
            rule: env
                .store
                .retention_rules()
                .into_iter()
                .find(|r| r.agent == agent)
                .map(|r| r.describe()),
        }
    }
}

/// The other agent `--agent` names for a purge, if it names one; several,
/// or one beside Loki's, is refused (a purge is of one agent's sessions).
pub fn asked_agent(env: &CliEnv) -> Result<Option<Agent>, CliError> {
    let external: Vec<Agent> = env
        .agents
        .iter()
        .copied()
        .filter(|a| a.is_external())
        .collect();
    match external.as_slice() {
        [] => Ok(None),
        [one] if external.len() == env.agents.len() => Ok(Some(*one)),
        _ => Err(CliError::usage(
            "a purge is of one agent's sessions: pass one --agent (claude, codex or gemini), \
             or none for Loki's",
        )),
    }
}

/// The policy asked for: the flags, else the conservative defaults for
/// other agents (the config's `keep` and `max_age` are Loki's alone).
fn policy(args: &PurgeArgs) -> Result<PurgePolicy, CliError> {
    let defaults = agent_purge_policy();
    Ok(PurgePolicy {
        keep: args.keep.unwrap_or(defaults.keep),
        max_age_days: match args.max_age.as_deref() {
            Some(text) => config::parse_days(text).map_err(CliError::usage)?,
            None => defaults.max_age_days,
        },
    })
}

/// Plans, confirms and applies a purge of `agent`'s sessions into the trash.
pub fn run(env: &CliEnv, args: PurgeArgs, agent: Agent) -> Result<(), CliError> {
    let policy = policy(&args)?;
    let plan = env
        .store
        .agent_purge_plan(agent, policy, &args.exclude, env.now)?;
    let removals = plan.removals().count();
    let cleanup = Cleanup::of(env, agent, &plan);
    if args.dry_run || removals == 0 {
        print_plan(agent, &plan, &cleanup, None, args.json, env.now)?;
        return finish(removals);
    }
    if !args.yes {
        ask::confirm(
            &plan_lines(agent, &plan, &cleanup, env.now),
            &format!(
                "Move {} {} ({}) to the trash? `loki-sessions restore` brings one back.",
                humanize::plural(removals as u64, "session"),
                agent.display_name(),
                humanize::bytes(plan.bytes_freed())
            ),
            "refusing to purge without confirmation: stdin is not a terminal; preview with --dry-run, then pass --yes",
            "purge cancelled; nothing moved",
        )?;
    }
    let mut progress = Progress::new("moving to the trash");
    let report = env
        .store
        .apply_agent_purge(&plan, &args.exclude, env.now, |p| {
            progress.update(p.done, p.total)
        })?;
    progress.finish();
    tell_left_and_failed(&report, "moved", "move");
    print_plan(agent, &plan, &cleanup, Some(&report), args.json, env.now)?;
    if report.failed.is_empty() {
        finish(report.removed.len())
    } else {
        Err(CliError::usage(format!(
            "{} could not be moved to the trash",
            humanize::plural(report.failed.len() as u64, "session")
        )))
    }
}

/// The bytes of the removals the report says were moved.
fn bytes_moved(plan: &PurgePlan, report: &PurgeReport) -> u64 {
    plan.removals()
        .filter(|e| report.removed.contains(&e.candidate.record.id.to_string()))
        .map(|e| e.candidate.bytes)
        .sum()
}

fn print_plan(
    agent: Agent,
    plan: &PurgePlan,
    cleanup: &Cleanup,
    report: Option<&PurgeReport>,
    json: bool,
    now: f64,
) -> Result<(), CliError> {
    if json {
        return output::print_json(&agent_json(agent, plan, cleanup, report));
    }
    let mut lines = plan_lines(agent, plan, cleanup, now);
    if let Some(report) = report {
        let first = report.removed.first().map_or("ID", String::as_str);
        lines.push(format!(
            "moved {} ({}) to the trash; `loki-sessions restore {first}` brings one back, \
             `loki-sessions trash --empty` deletes them for good",
            humanize::plural(report.removed.len() as u64, "session"),
            humanize::bytes(bytes_moved(plan, report))
        ));
    }
    output::print_lines(lines)
}

fn plan_lines(agent: Agent, plan: &PurgePlan, cleanup: &Cleanup, now: f64) -> Vec<String> {
    let mut lines = Vec::new();
    for entry in plan.removals() {
        let r = &entry.candidate.record;
        lines.push(format!(
            "trash   {:<36}  {:>14}  {:>9}  {}  {}",
            r.id,
            humanize::ago(r.last_used_at, now),
            humanize::bytes(entry.candidate.bytes),
            humanize::pad(&humanize::truncate(r.shown_name(), 28), 28),
            entry.decision
        ));
    }
    let spared: Vec<_> = plan
        .kept()
        .filter(|e| !e.decision.is_routine_keep())
        .collect();
    for entry in &spared {
        lines.push(format!(
            "spare   {:<36}  {}",
            entry.candidate.record.id, entry.decision
        ));
    }
    // Kept by this purge, deleted soon by the agent itself.
    let doomed: Vec<_> = plan
        .kept()
        .filter_map(|e| {
            let at = *cleanup.deletes_at.get(e.candidate.record.id.as_str())?;
            (at - now < DELETES_SOON).then_some((e, at))
        })
        .collect();
    for (entry, at) in &doomed {
        let when = humanize::cleanup_when(*at, now);
        lines.push(format!(
            "cleanup {:<36}  kept here, but {} deletes it {when}",
            entry.candidate.record.id,
            agent.display_name()
        ));
    }
    if let (false, Some(rule)) = (doomed.is_empty(), &cleanup.rule) {
        lines.push(format!(
            "{rule}; `loki-sessions archive --agent {} --due-within 7d` keeps those",
            agent.name()
        ));
    }
    lines.push(format!(
        "{} {} {} to move to the trash, {} kept ({} of them spared against the policy), {}  [keep {}, max age {}]",
        humanize::count(plan.removals().count() as u64),
        agent.display_name(),
        if plan.removals().count() == 1 { "session" } else { "sessions" },
        plan.kept().count(),
        spared.len(),
        humanize::bytes(plan.bytes_freed()),
        plan.policy.keep,
        humanize::days(plan.policy.max_age_days)
    ));
    lines
}

/// Loki's purge JSON, and: `agent`, `trashed: true`, `agent_deletes_at`
/// on each row (when the agent's own cleanup deletes it, or null) and
/// `agent_cleanup` (that rule in words, or null), `bytes` (what goes to
/// the trash, or went), `bytes_freed` 0 (nothing is freed until the trash
/// is emptied), and `name` the title a person reads.
fn agent_json(
    agent: Agent,
    plan: &PurgePlan,
    cleanup: &Cleanup,
    report: Option<&PurgeReport>,
) -> Value {
    let mut out = plan_json(plan, report);
    let deletes_at = |id: &str| json!(cleanup.deletes_at.get(id));
    if let Some(remove) = out["remove"].as_array_mut() {
        for (row, entry) in remove.iter_mut().zip(plan.removals()) {
            row["name"] = json!(entry.candidate.record.shown_name());
            row["agent_deletes_at"] = deletes_at(&entry.candidate.record.id);
        }
    }
    if let Some(keep) = out["keep"].as_array_mut() {
        for (row, entry) in keep.iter_mut().zip(plan.kept()) {
            row["agent_deletes_at"] = deletes_at(&entry.candidate.record.id);
        }
    }
    out["agent_cleanup"] = json!(cleanup.rule);
    out["agent"] = json!(agent);
    out["trashed"] = json!(true);
    out["bytes"] = json!(report.map_or(plan.bytes_freed(), |r| bytes_moved(plan, r)));
    out["bytes_freed"] = json!(0);
    out
}
