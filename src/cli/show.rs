//! `loki-sessions show SESSION [--json] [--encoding E]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{Context, Encoding, SessionRecord, message_counts, prewarm};
use clap::Args;
use serde::Serialize;

/// Arguments of `show`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions show 20261129-3f\n  loki-sessions show 20261129-3f --json --encoding o200k_base | jq .total_tokens"
)]
pub struct ShowArgs {
    /// An id, a unique id prefix, or a path to a session directory.
    pub session: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING")]
    pub encoding: Option<String>,
}

/// `show --json`.
#[derive(Debug, Serialize)]
struct ShowOutput<'a> {
    session: &'a SessionRecord,
    active_context_id: Option<&'a str>,
    encoding: Encoding,
    total_tokens: u64,
    messages: Vec<ShownMessage>,
}

/// One message of `show --json`.
#[derive(Debug, Serialize)]
struct ShownMessage {
    id: String,
    role: String,
    special: Option<&'static str>,
    sequence: Option<i64>,
    tokens: u64,
    text: String,
}

/// Prints the active context of a session. Reads only.
pub fn run(env: &CliEnv, args: ShowArgs) -> Result<(), CliError> {
    let encoding = env.encoding(args.encoding.as_deref())?;
    // The tables build while the conversation is read.
    prewarm(encoding);
    let target = env.store.locate(&args.session)?;
    let context = env.store.active_context(&target)?;
    let active_context_id = context.as_ref().map(Context::id);
    let messages = match &context {
        Some(ctx) => shown_messages(ctx, encoding)?,
        None => Vec::new(),
    };
    let total_tokens = messages.iter().map(|m| m.tokens).sum();
    if args.json {
        return output::print_json(&ShowOutput {
            session: &target.record,
            active_context_id,
            encoding,
            total_tokens,
            messages,
        });
    }
    let mut lines = vec![
        format!("{}  {}", target.record.id, target.record.name),
        format!(
            "context {}  {} messages  {} tokens ({encoding})",
            active_context_id.unwrap_or("-"),
            messages.len(),
            humanize::count(total_tokens)
        ),
        String::new(),
        format!(
            "{:>5}  {:<9}  {:>7}  {:>9}  TEXT",
            "#", "ROLE", "TOKENS", "TOTAL"
        ),
    ];
    let mut running = 0;
    for (i, m) in messages.iter().enumerate() {
        running += m.tokens;
        let role = match m.special {
            Some("system_prompt") => "system*".to_string(),
            Some(_) => "tools*".to_string(),
            None => m.role.clone(),
        };
        lines.push(format!(
            "{i:>5}  {role:<9}  {:>7}  {:>9}  {}",
            humanize::count(m.tokens),
            humanize::count(running),
            humanize::truncate(&m.text, 100)
        ));
    }
    output::print_lines(lines)
}

fn shown_messages(ctx: &Context, encoding: Encoding) -> Result<Vec<ShownMessage>, CliError> {
    let counts = message_counts(ctx, encoding)?;
    Ok(ctx
        .messages()
        .zip(counts)
        .enumerate()
        .map(|(i, (m, tokens))| ShownMessage {
            id: m.id().to_string(),
            role: m.role().to_string(),
            special: ctx.special_at(i).map(|s| s.as_str()),
            sequence: m.sequence(),
            tokens,
            text: m.one_line(),
        })
        .collect())
}
