//! `loki-sessions trim SESSION (--max-tokens N | --keep-messages K) [--dry-run] [--json]`.

use crate::cli::output;
use crate::cli::resume::AGENT_OWNS;
use crate::cli::{CliEnv, CliError, args, completions};
use crate::humanize;
use crate::store::{Encoding, TrimRequest, prewarm};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde_json::json;

/// Arguments of `trim`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions trim fix-the-login-bug --max-tokens 50000 --dry-run\n  loki-sessions trim 20261129-3f0c2a9e --keep-messages 40 --json\nUndo: the old context stays on disk: `loki-sessions contexts SESSION` lists it,\n`loki-sessions activate SESSION CONTEXT` makes it active again."
)]
#[command(group = clap::ArgGroup::new("amount").required(true).args(["max_tokens", "keep_messages"]))]
pub struct TrimArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// Keep the newest messages that fit in N tokens (rolling_token_window).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Keep the last K messages (rolling_sequence_window); K >= 1.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_messages: Option<u64>,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// Show what would be dropped; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Forks the active context (or previews it); exits 1 when nothing would change.
pub fn run(env: &CliEnv, args: TrimArgs) -> Result<(), CliError> {
    let encoding = env.encoding(args.encoding)?;
    // The tables build while the conversation is read.
    prewarm(encoding);
    let request = match (args.max_tokens, args.keep_messages) {
        (Some(n), _) => TrimRequest::MaxTokens(n),
        (None, Some(k)) => TrimRequest::KeepMessages(k as usize),
        (None, None) => return Err(CliError::usage("give --max-tokens or --keep-messages")),
    };
    let target = env.locate(&args.session)?;
    if env.store.agent_owns(&target) {
        eprintln!("{AGENT_OWNS}");
    }
    let outcome = if args.dry_run {
        env.store.trim_preview(&target, request, encoding)?
    } else {
        env.store.trim(&target, request, encoding, None, env.now)?
    };
    let plan = &outcome.plan;
    let new_context_id = outcome.child.as_ref().map(|c| c.id().to_string());
    let warnings = plan.warnings(request);
    for warning in &warnings {
        eprintln!("note: {warning}");
    }
    if args.json {
        output::print_json(&json!({
            "changed": plan.changed,
            "kept_message_ids": outcome.kept_ids(),
            "dropped_message_ids": outcome.dropped_ids(),
            "tokens_before": plan.tokens_before,
            "tokens_after": plan.tokens_after,
            "new_context_id": new_context_id,
            "warnings": warnings,
        }))?;
    } else {
        let verb = if args.dry_run { "would keep" } else { "kept" };
        let mut lines = vec![format!(
            "{verb} {} of {}, {} -> {} tokens ({encoding})",
            plan.kept.len(),
            humanize::plural((plan.kept.len() + plan.dropped.len()) as u64, "message"),
            humanize::count(plan.tokens_before),
            humanize::count(plan.tokens_after)
        )];
        if let Some(id) = &new_context_id {
            lines.push(format!(
                "new active context {id} (the previous one, {}, is kept: `activate` switches back)",
                outcome.parent.id()
            ));
        }
        output::print_lines(lines)?;
    }
    if plan.changed {
        Ok(())
    } else {
        Err(CliError::nothing(
            "nothing to trim: the context already fits",
        ))
    }
}
