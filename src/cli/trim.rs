//! `loki-sessions trim SESSION (--max-tokens N | --keep-messages K | --drop ID... |
//! --clear ID... | --clear-tool-results-over N | --clear-older-than-turns K)
//! [--dry-run] [--json]`.

use crate::cli::output;
use crate::cli::resume::AGENT_OWNS;
use crate::cli::{CliEnv, CliError, args, completions};
use crate::humanize;
use crate::store::{
    Change, ChangeReport, ClearChoice, Encoding, Mode, RESULTS_OVER, ResumableFix, StoreError,
    Window, prewarm,
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

impl TrimArgs {
    fn change(&self) -> Result<Change, CliError> {
        Ok(if let Some(n) = self.max_tokens {
            Change::Window(Window::MaxTokens(n))
        } else if let Some(k) = self.keep_messages {
            Change::Window(Window::KeepMessages(k as usize))
        } else if !self.drop.is_empty() {
            Change::Drop {
                messages: self.drop.clone(),
                with_pairs: self.with_pairs,
            }
        } else if !self.clear.is_empty() {
            Change::Clear(ClearChoice::Messages(self.clear.clone()))
        } else if let Some(n) = self.clear_tool_results_over {
            Change::Clear(ClearChoice::Over(n))
        } else if let Some(k) = self.clear_older_than_turns {
            Change::Clear(ClearChoice::OlderThanTurns(k as usize))
        } else if self.resumable {
            Change::Resumable(ResumableFix {
                results_over: self.results_over.unwrap_or(RESULTS_OVER),
                keep_turns: self.keep_turns.map(|k| k as usize),
            })
        } else {
            return Err(CliError::usage(
                "say what to trim: --max-tokens, --keep-messages, --drop, a --clear option or --resumable",
            ));
        })
    }
}

/// Forks the active context (or previews it); exits 1 when nothing would change.
pub fn run(env: &CliEnv, args: TrimArgs) -> Result<(), CliError> {
    let encoding = env.encoding(args.encoding)?;
    let change = args.change()?;
    let target = env.locate(&args.session)?;
    // The tables build while the conversation is read, unless the counts
    // were kept by an earlier look (a clear counts new text, so it builds
    // them anyway).
    if change.needs_only_counts() {
        env.store.prewarm_counting(&target, encoding);
    } else {
        prewarm(encoding);
    }
    if env.store.agent_owns(&target) {
        crate::note!("{AGENT_OWNS}");
    }
    let mode = if args.dry_run {
        Mode::Preview
    } else {
        Mode::Write { expected: None }
    };
    let report = env
        .store
        .change(&target, &change, encoding, mode, env.now)
        .map_err(pair_hint)?;
    for warning in &report.notes {
        crate::note!("note: {warning}");
    }
    if args.json {
        output::print_json(&json_of(&report))?;
    } else {
        output::print_lines(text_lines(&report, &change, args.dry_run, encoding))?;
    }
    if report.plan.changed {
        return Ok(());
    }
    Err(CliError::nothing(match change {
        Change::Window(_) => "nothing to trim: the context already fits",
        Change::Resumable(_) => {
            "nothing to do: no image, no document, no tool result over the size, no older turn"
        }
        Change::Drop { .. } | Change::Clear(_) => {
            "nothing to clear: no chosen tool result would get smaller"
        }
    }))
}

/// The report for scripts: one shape for every kind of change.
fn json_of(report: &ChangeReport) -> Value {
    let plan = &report.plan;
    let written = report.fork.as_ref().filter(|f| f.written);
    let also_dropped: Vec<Value> = report
        .partners()
        .map(|(p, reason)| {
            json!({"id": report.facts.id(p.index), "partner_of": report.facts.id(p.partner_of),
                   "call_id": p.call_id, "reason": reason})
        })
        .collect();
    json!({
        "changed": plan.changed,
        "kept_message_ids": report.kept_ids(),
        "dropped_message_ids": report.dropped_ids(),
        "cleared_message_ids": report.cleared_ids(),
        "tokens_before": plan.tokens_before,
        "tokens_after": plan.tokens_after,
        "new_context_id": report.child.as_ref().map(|c| c.id()),
        "bytes_before": report.bytes.map(|b| b.0),
        "bytes_after": report.bytes.map(|b| b.1),
        "new_session_id": written.map(|f| f.new_session_id.clone()),
        "new_session_file": written.map(|f| f.path.display().to_string()),
        "planned_session_file": report.fork.as_ref().filter(|f| !f.written).map(|f| f.path.display().to_string()),
        "warnings": report.notes,
        "also_dropped": also_dropped,
        "cleared": report.cleared().into_iter().map(|c| json!({
            "id": c.id, "new_id": c.new_id, "tokens_before": c.tokens_before,
            "tokens_after": c.tokens_after, "results": c.results, "media": c.media,
        })).collect::<Vec<_>>(),
    })
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

fn text_lines(
    report: &ChangeReport,
    change: &Change,
    dry_run: bool,
    encoding: Encoding,
) -> Vec<String> {
    let plan = &report.plan;
    let total = plan.kept.len() + plan.dropped.len();
    let tokens = format!(
        "{} -> {} tokens ({encoding})",
        humanize::count(plan.tokens_before),
        humanize::count(plan.tokens_after)
    );
    let (would, verb) = if dry_run { ("would ", "") } else { ("", "ed") };
    let first = match change {
        Change::Window(_) => format!(
            "{} {} of {}, {tokens}",
            if dry_run { "would keep" } else { "kept" },
            plan.kept.len(),
            humanize::plural(total as u64, "message")
        ),
        Change::Drop { .. } => format!(
            "{would}drop{} {} of {}, {tokens}",
            if dry_run { "" } else { "ped" },
            plan.dropped.len(),
            humanize::plural(total as u64, "message")
        ),
        Change::Clear(_) => format!(
            "{would}clear{verb} the tool results of {}, {tokens}",
            humanize::plural(plan.cleared.len() as u64, "message")
        ),
        Change::Resumable(_) => {
            let (replace, clear, drop) = if dry_run {
                ("would replace", "clear", "drop")
            } else {
                ("replaced", "cleared", "dropped")
            };
            format!(
                "{replace} {} and {clear} {}, {drop} {} of {}, {tokens}",
                humanize::media(report.media_replaced() as u64),
                humanize::plural(report.results_cleared() as u64, "tool result"),
                plan.dropped.len(),
                humanize::plural(total as u64, "message")
            )
        }
    };
    let mut lines = vec![first];
    for c in report.cleared() {
        lines.push(format!(
            "  {}  {} -> {} tokens",
            c.id,
            humanize::count(c.tokens_before),
            humanize::count(c.tokens_after)
        ));
    }
    if let Some((before, after)) = report.bytes {
        lines.push(format!(
            "{} -> {} bytes",
            humanize::count(before),
            humanize::count(after)
        ));
    }
    if let Some(fork) = report.fork.as_ref().filter(|f| !f.written) {
        lines.push(format!(
            "would write a new session beside the original, which stays as it is ({})",
            fork.path.display()
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
    if let Some(child) = &report.child {
        lines.push(format!(
            "new active context {} (the previous one, {}, is kept: `activate` switches back)",
            child.id(),
            report.parent.id()
        ));
    }
    lines
}
