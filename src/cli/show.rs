//! `loki-sessions show SESSION [--full | --message ID | --format transcript] [--json] [--encoding E]`.

use crate::cli::output;
use crate::cli::transcript::{self, Printing};
use crate::cli::{CliEnv, CliError, args, completions};
use crate::humanize;
use crate::store::{
    Breakdown, Context, ContextFigure, CostEstimate, EditFacts, Encoding, SessionRecord,
    SourceLines, TokenKind, Usage, message_counts, prewarm,
};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde::Serialize;

/// Arguments of `show`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions show fix-the-login-bug
  loki-sessions show fix-the-login --full | less
  loki-sessions show 20261129-3f0c2a9e --message b93b6f52
  loki-sessions show fix-the-login-bug --json --encoding o200k_base | jq .total_tokens
  loki-sessions show fix-the-login-bug --format transcript --thinking --tools full")]
pub struct ShowArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// Print each message in full (thinking, tool calls and results labelled), not one line.
    #[arg(long, conflicts_with = "message")]
    pub full: bool,
    /// Print one message in full: its id or a unique prefix of it.
    #[arg(long, value_name = "ID")]
    pub message: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// `table`: a line per message; `transcript`: the conversation as the UI's transcript shows it.
    #[arg(long, value_enum, default_value = "table", conflicts_with_all = ["json", "full", "message"])]
    pub format: Format,
    /// In a transcript, show the model's thinking in full.
    #[arg(long)]
    pub thinking: bool,
    /// In a transcript, tool calls and results: off (a line each), truncated (first lines) or full.
    #[arg(long, value_name = "HOW", default_value = "truncated", value_parser = ["off", "truncated", "full"])]
    pub tools: String,
    /// In a transcript, print no colours or other escape sequences.
    #[arg(long)]
    pub plain: bool,
    /// In a transcript, do not page through $PAGER on a terminal.
    #[arg(long)]
    pub no_pager: bool,
}

/// How `show` prints the context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per message.
    Table,
    /// Every message as a document.
    Transcript,
}

/// `show --json`.
#[derive(Debug, Serialize)]
struct ShowOutput<'a> {
    session: &'a SessionRecord,
    /// The session's size (apparent bytes of its files).
    bytes: u64,
    active_context_id: Option<&'a str>,
    encoding: Encoding,
    total_tokens: u64,
    /// Tokens by kind (system prompt, tool results, ...); they add up to
    /// `total_tokens`. `not_in_file` (another agent's session): what its
    /// API took at the last recorded request beyond the transcript counted
    /// up to it (its system prompt and tool definitions), not in the sum.
    breakdown: serde_json::Map<String, serde_json::Value>,
    /// Whether the messages' `tokens` are the model's own count (`exact`)
    /// or cl100k_base's, an estimate for an agent whose tokenizer is another.
    tokens_are: &'static str,
    /// How full the context is (see `list --json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<ContextFigure>,
    /// Tokens another agent recorded as spent (None for Loki and peteos).
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    /// What that usage would cost, estimated from the price table.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_estimate: Option<CostEstimate>,
    /// What could not be read of another agent's files (bad lines,
    /// unknown types), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    messages: Vec<ShownMessage>,
}

/// One message of `show --json`.
#[derive(Debug, Serialize)]
struct ShownMessage {
    index: usize,
    id: String,
    role: String,
    special: Option<&'static str>,
    sequence: Option<i64>,
    tokens: u64,
    /// One line: the summary a table shows.
    text: String,
    /// Every part in full, with `--full` or `--message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    full_text: Option<String>,
    /// A message that is not an ordinary one (`CompactionBoundary`,
    /// `CompactSummary`, …), by its type.
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    /// Another agent's session: the lines of its file this message was
    /// made from (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<u32>>,
}

/// Prints the active context of a session (or one message of it). Reads only.
pub fn run(env: &CliEnv, args: ShowArgs) -> Result<(), CliError> {
    let encoding = env.encoding(args.encoding)?;
    // The tables build while the conversation is read.
    prewarm(encoding);
    let target = env.locate(&args.session)?;
    let (context, read) = if target.record.agent.is_external() {
        let conversation = env.store.load_conversation(&target)?;
        let read = AgentFacts {
            notes: conversation.notes,
            usage: conversation.usage,
            source: conversation.source,
            recorded: conversation.recorded,
        };
        (Some(conversation.context), Some(read))
    } else {
        (env.store.active_context(&target)?, None)
    };
    let active_context_id = context.as_ref().map(Context::id);
    if args.format == Format::Transcript {
        let Some(ctx) = &context else {
            return Err(CliError::nothing(format!(
                "session {} has no active context to print",
                target.record.id
            )));
        };
        let display = crate::render::transcript::Display {
            thinking: args.thinking,
            tools: args.tools.parse().map_err(CliError::usage)?,
            raw: false,
        };
        let background = match env.config.theme.as_deref() {
            Some(name) => Some(name.parse().map_err(CliError::usage)?),
            None => None,
        };
        let counts = message_counts(ctx, encoding)?;
        let how = Printing {
            display,
            plain: args.plain,
            no_pager: args.no_pager,
            background,
        };
        return transcript::print(ctx, &counts, how);
    }
    let full = args.full || args.message.is_some();
    let (mut messages, breakdown) = match &context {
        Some(ctx) => shown_messages(ctx, encoding, full)?,
        None => (Vec::new(), Breakdown::default()),
    };
    if let (Some(source), Some(ctx)) = (read.as_ref().and_then(|r| r.source.as_ref()), &context) {
        for ((m, spans), message) in messages.iter_mut().zip(&source.lines).zip(ctx.messages()) {
            m.lines = Some(spans.iter().map(|s| s.line).collect());
            m.kind = (message.type_name() != "Message").then(|| message.type_name().to_string());
        }
    }
    let total_tokens = messages.iter().map(|m| m.tokens).sum();
    if let Some(arg) = &args.message {
        let Some(ctx) = &context else {
            return Err(CliError::nothing(format!(
                "session {} has no active context, so no message {arg:?}",
                target.record.id
            )));
        };
        let index = env.store.find_message(ctx, arg)?;
        let message = messages.swap_remove(index);
        if args.json {
            return output::print_json(&message);
        }
        return output::print_lines(full_message(&message));
    }
    let bytes = env
        .store
        .stats(std::slice::from_ref(&target.record), None, &|_| {})
        .first()
        .map_or(0, |s| s.bytes);
    let usage = read.as_ref().and_then(|r| r.usage.clone());
    let cost = usage.as_ref().map(|u| env.prices().estimate(u));
    let counts: Vec<u64> = messages.iter().map(|m| m.tokens).collect();
    let recorded = read
        .as_ref()
        .and_then(|r| r.recorded.clone())
        .map(|c| crate::store::with_counted_after(c, &counts));
    let context = ContextFigure::of(
        Some(total_tokens),
        recorded.as_ref(),
        env.window_for(target.record.agent),
    );
    // What the API took that the file does not hold.
    let not_in_file = recorded.as_ref().map(|r| {
        let before: u64 = counts.iter().take(r.messages_seen).sum();
        r.tokens.saturating_sub(before)
    });
    let tokens_are = tokens_are(target.record.agent, encoding);
    let notes = read.map(|r| r.notes).unwrap_or_default();
    if args.json {
        return output::print_json(&ShowOutput {
            session: &target.record,
            bytes,
            active_context_id,
            encoding,
            total_tokens,
            breakdown: breakdown
                .iter()
                .map(|(kind, total)| (kind.as_str().to_string(), total.tokens.into()))
                .chain(not_in_file.map(|n| ("not_in_file".to_string(), n.into())))
                .collect(),
            tokens_are,
            context,
            usage: usage.as_ref().map(|u| u.total()),
            cost_estimate: cost,
            notes,
            messages,
        });
    }
    let mut lines = vec![
        format!("{}  {}", target.record.id, target.record.name),
        format!(
            "context {}  {}  {} tokens ({encoding})  {}",
            active_context_id.unwrap_or("-"),
            humanize::plural(messages.len() as u64, "message"),
            humanize::count(total_tokens),
            humanize::bytes(bytes)
        ),
        breakdown_line(&breakdown),
    ];
    if let Some(u) = usage.as_ref().map(|u| u.total()) {
        lines.push(usage_line(&u, cost.as_ref()));
    }
    if let Some(c) = context.as_ref().filter(|c| c.is_recorded()) {
        lines.push(context_line(c, not_in_file));
    }
    lines.extend(notes.iter().map(|n| format!("note: {n}")));
    lines.push(String::new());
    if args.full {
        for m in &messages {
            lines.extend(full_message(m));
            lines.push(String::new());
        }
        return output::print_lines(lines);
    }
    lines.push(format!(
        "{:>5}  {:<9}  {:>7}  {:>9}  TEXT",
        "#", "ROLE", "TOKENS", "TOTAL"
    ));
    let mut running = 0;
    for m in &messages {
        running += m.tokens;
        lines.push(format!(
            "{:>5}  {:<9}  {:>7}  {:>9}  {}",
            m.index + 1,
            role_label(m),
            humanize::count(m.tokens),
            humanize::count(running),
            humanize::truncate(&m.text, 100)
        ));
    }
    output::print_lines(lines)
}

/// What [`run`] reads of another agent's session beside its messages.
struct AgentFacts {
    notes: Vec<String>,
    usage: Option<crate::store::UsageByModel>,
    source: Option<SourceLines>,
    recorded: Option<crate::store::RecordedContext>,
}

/// `context: 22,000 of 1,000,000 tokens (2%): 21,552 at the last request
/// (12,000 of them not in the file: system prompt, tools) + ≈448 since`.
fn context_line(c: &ContextFigure, not_in_file: Option<u64>) -> String {
    let hidden = not_in_file.filter(|n| *n > 0).map_or(String::new(), |n| {
        format!(
            " ({} of them not in the file: system prompt, tools)",
            humanize::count(n)
        )
    });
    let after = if c.estimated_after > 0 {
        format!(" + ≈{} since", humanize::count(c.estimated_after))
    } else {
        String::new()
    };
    format!(
        "context: {} of {} tokens ({:.0}%): {} at the last request{hidden}{after}",
        humanize::count(c.tokens),
        humanize::count(c.window),
        c.fraction * 100.0,
        humanize::count(c.recorded.unwrap_or(0)),
    )
}

/// Whether counts in `encoding` are `agent`'s own model's: exact for Loki
/// and peteos (cl100k_base is peteos's) and for Codex in o200k_base, an
/// estimate for the rest.
fn tokens_are(agent: crate::store::Agent, encoding: Encoding) -> &'static str {
    if agent.provider().counts_exactly_in(encoding) {
        "exact"
    } else {
        "estimate"
    }
}

/// `usage: input 1,200 · output 800 · cache read 40,000 · cache write 2,000 · about $0.12`.
pub fn usage_line(u: &Usage, cost: Option<&CostEstimate>) -> String {
    let mut line = format!(
        "usage: input {} · output {} · cache read {} · cache write {}",
        humanize::count(u.input),
        humanize::count(u.output),
        humanize::count(u.cache_read),
        humanize::count(u.cache_write)
    );
    if let Some(c) = cost {
        line.push_str(&format!(
            " · cost {} (estimate, prices of {})",
            humanize::cost(c),
            c.prices_of
        ));
        if !c.unpriced_models.is_empty() {
            line.push_str(&format!("; no price for {}", c.unpriced_models.join(", ")));
        }
    }
    line
}

/// The kinds holding tokens, biggest first: `tool results 61,200 (74%) · ...`.
fn breakdown_line(breakdown: &Breakdown) -> String {
    let total = breakdown.total().max(1);
    let mut kinds: Vec<(TokenKind, u64)> = breakdown
        .iter()
        .map(|(kind, t)| (kind, t.tokens))
        .filter(|(_, tokens)| *tokens > 0)
        .collect();
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    let shown: Vec<String> = kinds
        .iter()
        .map(|(kind, tokens)| {
            format!(
                "{} {} ({}%)",
                kind.label(),
                humanize::count(*tokens),
                tokens * 100 / total
            )
        })
        .collect();
    format!(
        "tokens by kind: {}",
        if shown.is_empty() {
            "-".to_string()
        } else {
            shown.join(" · ")
        }
    )
}

/// The role as a table shows it: special messages marked with `*`.
fn role_label(m: &ShownMessage) -> String {
    match m.special {
        Some("system_prompt") => "system*".to_string(),
        Some(_) => "tools*".to_string(),
        None => m.role.clone(),
    }
}

/// A message in full: a header line (index, role, tokens, id), then its text.
fn full_message(m: &ShownMessage) -> Vec<String> {
    let mut lines = vec![format!(
        "── {} {}  {} tokens  {}",
        humanize::message_number(m.index),
        role_label(m),
        humanize::count(m.tokens),
        m.id
    )];
    lines.extend(
        m.full_text
            .as_deref()
            .unwrap_or(&m.text)
            .lines()
            .map(str::to_string),
    );
    lines
}

fn shown_messages(
    ctx: &Context,
    encoding: Encoding,
    full: bool,
) -> Result<(Vec<ShownMessage>, Breakdown), CliError> {
    let counts = message_counts(ctx, encoding)?;
    let breakdown = EditFacts::new(ctx).breakdown(&counts);
    let messages = ctx
        .messages()
        .zip(counts)
        .enumerate()
        .map(|(index, (m, tokens))| ShownMessage {
            index,
            id: m.id().to_string(),
            role: m.role().to_string(),
            special: ctx.special_at(index).map(|s| s.as_str()),
            sequence: m.sequence(),
            tokens,
            text: m.one_line(),
            full_text: full.then(|| m.readable()),
            kind: None,
            lines: None,
        })
        .collect();
    Ok((messages, breakdown))
}
