//! `loki-sessions trim SESSION (--max-tokens N | --keep-messages K | --drop ID... |
//! --clear ID... | --clear-tool-results-over N | --clear-older-than-turns K)
//! [--dry-run] [--json]`.

use crate::cli::output;
use crate::cli::resume::AGENT_OWNS;
use crate::cli::{CliEnv, CliError, args, completions};
use crate::humanize;
use crate::store::{
    AgentFork, ClearChoice, EditOutcome, EditRequest, Encoding, RESULTS_OVER, ResumableFix,
    StoreError, TrimOutcome, TrimRequest, prewarm,
};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde_json::{Value, json};

/// Arguments of `trim`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions trim fix-the-login-bug --max-tokens 50000 --dry-run
  loki-sessions trim 20261129-3f0c2a9e --keep-messages 40 --json
  loki-sessions trim fix-the-login-bug --drop b93b6f52 0c1d2e3f --with-pairs
  loki-sessions trim fix-the-login-bug --clear-tool-results-over 2000 --dry-run
  loki-sessions trim fix-the-login-bug --clear-older-than-turns 3
  loki-sessions trim fix-the-login-bug --resumable --dry-run
  loki-sessions trim 4f1c2b3a --resumable --results-over 5k --keep-turns 20
Message ids come from `loki-sessions show SESSION` (a unique prefix is enough).
Undo: the old context stays on disk: `loki-sessions contexts SESSION` lists it,
`loki-sessions activate SESSION CONTEXT` makes it active again;
`loki-sessions diff SESSION` shows what a trim changed.")]
#[command(group = clap::ArgGroup::new("amount").required(true).args([
    "max_tokens", "keep_messages", "drop", "clear", "clear_tool_results_over", "clear_older_than_turns",
    "resumable",
]))]
pub struct TrimArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// Keep the newest messages that fit in N tokens (rolling_token_window); 50000, 50k, 1.5M.
    #[arg(long, value_name = "N", value_parser = args::budget)]
    pub max_tokens: Option<u64>,
    /// Keep the last K messages (rolling_sequence_window); K >= 1.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_messages: Option<u64>,
    /// Drop these messages (ids or unique prefixes); a drop that would split a tool call from its result is refused.
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub drop: Vec<String>,
    /// With --drop: drop the other halves of tool pairs too (the results of dropped calls, the calls of dropped results).
    #[arg(long, requires = "drop")]
    pub with_pairs: bool,
    /// Replace the tool results in these messages (ids or unique prefixes) with a short placeholder.
    #[arg(long, value_name = "ID", num_args = 1..)]
    pub clear: Vec<String>,
    /// Replace every tool result holding more than N tokens with a placeholder (2000, 2k).
    #[arg(long, value_name = "N", value_parser = args::tokens)]
    pub clear_tool_results_over: Option<u64>,
    /// Replace every tool result older than the last K turns (a turn starts at a user message with text) with a placeholder.
    #[arg(long, value_name = "K")]
    pub clear_older_than_turns: Option<u64>,
    /// Make it resumable: every image and document becomes a text naming its type and size, tool results over --results-over tokens are cleared, and with --keep-turns only the last K turns are kept.
    #[arg(long)]
    pub resumable: bool,
    /// With --resumable: clear tool results holding more than N tokens [default: 10k].
    #[arg(long, value_name = "N", value_parser = args::tokens, requires = "resumable")]
    pub results_over: Option<u64>,
    /// With --resumable: keep only the last K turns (a turn starts at a prompt); K >= 1.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..), requires = "resumable")]
    pub keep_turns: Option<u64>,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// Show what would change, or why it would be refused; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// What was asked: a window, or an edit by hand.
enum Asked {
    Window(TrimRequest),
    Edit(EditRequest),
}

impl TrimArgs {
    fn asked(&self) -> Result<Asked, CliError> {
        Ok(if let Some(n) = self.max_tokens {
            Asked::Window(TrimRequest::MaxTokens(n))
        } else if let Some(k) = self.keep_messages {
            Asked::Window(TrimRequest::KeepMessages(k as usize))
        } else if !self.drop.is_empty() {
            Asked::Edit(EditRequest::Drop {
                messages: self.drop.clone(),
                with_pairs: self.with_pairs,
            })
        } else if !self.clear.is_empty() {
            Asked::Edit(EditRequest::Clear(ClearChoice::Messages(
                self.clear.clone(),
            )))
        } else if let Some(n) = self.clear_tool_results_over {
            Asked::Edit(EditRequest::Clear(ClearChoice::Over(n)))
        } else if let Some(k) = self.clear_older_than_turns {
            Asked::Edit(EditRequest::Clear(ClearChoice::OlderThanTurns(k as usize)))
        } else if self.resumable {
            Asked::Edit(EditRequest::Resumable(ResumableFix {
                results_over: self.results_over.unwrap_or(RESULTS_OVER),
                keep_turns: self.keep_turns.map(|k| k as usize),
            }))
        } else {
            return Err(CliError::usage(
                "say what to trim: --max-tokens, --keep-messages, --drop, a --clear option or --resumable",
            ));
        })
    }
}

/// What any kind of trim reports: one shape for scripts.
struct Report {
    changed: bool,
    kept: Vec<String>,
    dropped: Vec<String>,
    cleared: Vec<String>,
    tokens_before: u64,
    tokens_after: u64,
    new_context_id: Option<String>,
    parent_id: String,
    warnings: Vec<String>,
    also_dropped: Vec<Value>,
    cleared_detail: Vec<Value>,
    /// Another agent's session: the new session written beside it.
    fork: Option<AgentFork>,
    /// The size of the file before and of the new one (a fork's, or a
    /// Loki context's when an edit says it).
    bytes: Option<(u64, u64)>,
}

impl Report {
    fn of_window(outcome: &TrimOutcome, request: TrimRequest) -> Report {
        let plan = &outcome.plan;
        Report {
            changed: plan.changed,
            kept: outcome.kept_ids(),
            dropped: outcome.dropped_ids(),
            cleared: Vec::new(),
            tokens_before: plan.tokens_before,
            tokens_after: plan.tokens_after,
            new_context_id: outcome.child.as_ref().map(|c| c.id().to_string()),
            parent_id: outcome.parent.id().to_string(),
            warnings: plan.warnings(request),
            also_dropped: Vec::new(),
            cleared_detail: Vec::new(),
            fork: outcome.fork.clone(),
            bytes: outcome
                .fork
                .as_ref()
                .map(|f| (f.bytes_before, f.bytes_after)),
        }
    }

    fn of_edit(outcome: &EditOutcome) -> Report {
        let plan = &outcome.plan;
        let also_dropped = outcome
            .partners()
            .map(|(p, reason)| {
                json!({"id": outcome.index.id(p.index), "partner_of": outcome.index.id(p.partner_of),
                       "call_id": p.call_id, "reason": reason})
            })
            .collect();
        let cleared_detail = outcome
            .cleared()
            .into_iter()
            .map(|c| {
                json!({"id": c.id, "new_id": c.new_id, "tokens_before": c.tokens_before,
                       "tokens_after": c.tokens_after, "results": c.results, "media": c.media})
            })
            .collect();
        Report {
            changed: plan.changed,
            kept: outcome.kept_ids(),
            dropped: outcome.dropped_ids(),
            cleared: outcome.cleared_ids(),
            tokens_before: plan.tokens_before,
            tokens_after: plan.tokens_after,
            new_context_id: outcome.child.as_ref().map(|c| c.id().to_string()),
            parent_id: outcome.parent.id().to_string(),
            warnings: outcome.notes(),
            also_dropped,
            cleared_detail,
            fork: outcome.fork.clone(),
            bytes: outcome
                .fork
                .as_ref()
                .map(|f| (f.bytes_before, f.bytes_after))
                .or(outcome.bytes),
        }
    }
}

/// Forks the active context (or previews it); exits 1 when nothing would change.
pub fn run(env: &CliEnv, args: TrimArgs) -> Result<(), CliError> {
    let encoding = env.encoding(args.encoding)?;
    let asked = args.asked()?;
    let target = env.locate(&args.session)?;
    // The tables build while the conversation is read, unless a window's
    // counts were kept by an earlier trim (edits by hand count afresh).
    // Another agent's drop counts nothing new when its counts were kept.
    match &asked {
        Asked::Window(_) => env.store.prewarm_counting(&target, encoding),
        Asked::Edit(EditRequest::Drop { .. }) if target.record.agent.is_external() => {
            env.store.prewarm_counting(&target, encoding)
        }
        Asked::Edit(_) => prewarm(encoding),
    }
    if env.store.agent_owns(&target) {
        crate::note!("{AGENT_OWNS}");
    }
    let report = match &asked {
        Asked::Window(request) => {
            let outcome = if args.dry_run {
                env.store.trim_preview(&target, *request, encoding)?
            } else {
                env.store.trim(&target, *request, encoding, None, env.now)?
            };
            Report::of_window(&outcome, *request)
        }
        Asked::Edit(request) => {
            let outcome = if args.dry_run {
                env.store.edit_preview(&target, request, encoding)
            } else {
                env.store.edit(&target, request, encoding, None, env.now)
            };
            Report::of_edit(&outcome.map_err(pair_hint)?)
        }
    };
    for warning in &report.warnings {
        crate::note!("note: {warning}");
    }
    if args.json {
        output::print_json(&json!({
            "changed": report.changed,
            "kept_message_ids": report.kept,
            "dropped_message_ids": report.dropped,
            "cleared_message_ids": report.cleared,
            "tokens_before": report.tokens_before,
            "tokens_after": report.tokens_after,
            "new_context_id": report.new_context_id,
            "bytes_before": report.bytes.map(|b| b.0),
            "bytes_after": report.bytes.map(|b| b.1),
            "new_session_id": report.fork.as_ref().filter(|f| f.written).map(|f| f.new_session_id.clone()),
            "new_session_file": report.fork.as_ref().filter(|f| f.written).map(|f| f.path.display().to_string()),
            "warnings": report.warnings,
            "also_dropped": report.also_dropped,
            "cleared": report.cleared_detail,
        }))?;
    } else {
        output::print_lines(text_lines(&report, &asked, args.dry_run, encoding))?;
    }
    if report.changed {
        return Ok(());
    }
    Err(CliError::nothing(match asked {
        Asked::Window(_) => "nothing to trim: the context already fits",
        Asked::Edit(EditRequest::Resumable(_)) => {
            "nothing to do: no image, no document, no tool result over the size, no older turn"
        }
        Asked::Edit(_) => "nothing to clear: no chosen tool result would get smaller",
    }))
}

/// A split tool pair is refused by the store; say which option allows it.
fn pair_hint(e: StoreError) -> CliError {
    let split = matches!(e, StoreError::SplitsToolPair(_));
    let mut error = CliError::from(e);
    if split {
        error.message.push_str(" (--with-pairs drops it along)");
    }
    error
}

fn text_lines(report: &Report, asked: &Asked, dry_run: bool, encoding: Encoding) -> Vec<String> {
    let total = report.kept.len() + report.dropped.len();
    let tokens = format!(
        "{} -> {} tokens ({encoding})",
        humanize::count(report.tokens_before),
        humanize::count(report.tokens_after)
    );
    let (would, verb) = if dry_run { ("would ", "") } else { ("", "ed") };
    let first = match asked {
        Asked::Window(_) => format!(
            "{} {} of {}, {tokens}",
            if dry_run { "would keep" } else { "kept" },
            report.kept.len(),
            humanize::plural(total as u64, "message")
        ),
        Asked::Edit(EditRequest::Drop { .. }) => format!(
            "{would}drop{} {} of {}, {tokens}",
            if dry_run { "" } else { "ped" },
            report.dropped.len(),
            humanize::plural(total as u64, "message")
        ),
        Asked::Edit(EditRequest::Clear(_)) => format!(
            "{would}clear{verb} the tool results of {}, {tokens}",
            humanize::plural(report.cleared.len() as u64, "message")
        ),
        Asked::Edit(EditRequest::Resumable(_)) => {
            let count = |key: &str| -> u64 {
                report
                    .cleared_detail
                    .iter()
                    .map(|c| c[key].as_u64().unwrap_or(0))
                    .sum()
            };
            let (replace, clear, drop) = if dry_run {
                ("would replace", "clear", "drop")
            } else {
                ("replaced", "cleared", "dropped")
            };
            format!(
                "{replace} {} and {clear} {}, {drop} {} of {}, {tokens}",
                humanize::media(count("media")),
                humanize::plural(count("results"), "tool result"),
                report.dropped.len(),
                humanize::plural(total as u64, "message")
            )
        }
    };
    let mut lines = vec![first];
    for c in &report.cleared_detail {
        lines.push(format!(
            "  {}  {} -> {} tokens",
            c["id"].as_str().unwrap_or(""),
            humanize::count(c["tokens_before"].as_u64().unwrap_or(0)),
            humanize::count(c["tokens_after"].as_u64().unwrap_or(0))
        ));
    }
    if let Some((before, after)) = report.bytes {
        lines.push(format!(
            "{} -> {} bytes",
            humanize::count(before),
            humanize::count(after)
        ));
    }
    if let Some(fork) = report.fork.as_ref().filter(|f| f.written) {
        lines.push(format!(
            "new session {} written beside the original, which is unchanged ({}); resume it with `loki-sessions resume {}`, undo by deleting it",
            fork.new_session_id,
            fork.path.display(),
            fork.new_session_id
        ));
    }
    if let Some(id) = &report.new_context_id {
        lines.push(format!(
            "new active context {id} (the previous one, {}, is kept: `activate` switches back)",
            report.parent_id
        ));
    }
    lines
}
