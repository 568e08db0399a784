//! `loki-sessions list [--json] [--tokens]`.

use crate::cli::output::{self, Progress};
use crate::cli::{CliEnv, CliError};
use crate::humanize;
use crate::store::{SessionRecord, SessionStats};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Mutex;

/// Arguments of `list`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions list\n  loki-sessions list --json --tokens | jq -r '.[] | select(.tokens > 100000) | .id'"
)]
pub struct ListArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also count the tokens of each session's active context.
    #[arg(long)]
    pub tokens: bool,
    /// Token encoding for --tokens [default: cl100k_base]
    #[arg(long, value_name = "ENCODING")]
    pub encoding: Option<String>,
}

/// One session in `list --json`.
#[derive(Debug, Serialize)]
pub struct ListItem {
    id: String,
    name: String,
    user: String,
    first_prompt: String,
    created_at: f64,
    last_used_at: f64,
    path: PathBuf,
    bytes: u64,
    messages: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<u64>,
    is_active: bool,
    error: Option<String>,
}

impl ListItem {
    fn new(record: SessionRecord, stats: SessionStats) -> Self {
        ListItem {
            id: record.id,
            name: record.name,
            user: record.user,
            first_prompt: record.first_prompt,
            created_at: record.created_at,
            last_used_at: record.last_used_at,
            path: record.path,
            bytes: stats.bytes,
            messages: stats.messages,
            tokens: stats.tokens,
            is_active: stats.is_active,
            error: record.error.or(stats.error),
        }
    }
}

/// Lists the sessions.
pub fn run(env: &CliEnv, args: ListArgs) -> Result<(), CliError> {
    let encoding = if args.tokens {
        Some(env.encoding(args.encoding.as_deref())?)
    } else {
        None
    };
    if let Some(encoding) = encoding {
        crate::store::prewarm(encoding);
    }
    let records = env.store.list()?;
    let progress = Mutex::new(Progress::new("reading sessions"));
    let total = records.len();
    let stats = env.store.stats(&records, encoding, &|done| {
        if let Ok(mut p) = progress.lock() {
            p.update(done, total);
        }
    });
    if let Ok(mut p) = progress.lock() {
        p.finish();
    }
    let items: Vec<ListItem> = records
        .into_iter()
        .zip(stats)
        .map(|(r, s)| ListItem::new(r, s))
        .collect();
    if args.json {
        return output::print_json(&items);
    }
    output::print_lines(table(&items, env.now))
}

fn table(items: &[ListItem], now: f64) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<17}  {:>10}  {:>6}  {:>8}  {:>9}  NAME",
        "ID", "LAST USED", "MSGS", "TOKENS", "SIZE"
    )];
    for item in items {
        let id: String = item.id.chars().take(17).collect();
        let messages = item.messages.map_or("-".into(), |m| m.to_string());
        let tokens = item.tokens.map_or(String::new(), humanize::count);
        let name = match &item.error {
            Some(e) => format!("DAMAGED: {e}"),
            None => item.name.clone(),
        };
        let used = if item.error.is_some() && item.last_used_at == 0.0 {
            "-".to_string()
        } else {
            humanize::ago(item.last_used_at, now)
        };
        lines.push(format!(
            "{id:<17}  {used:>10}  {messages:>6}  {tokens:>8}  {:>9}  {name}",
            humanize::bytes(item.bytes)
        ));
    }
    lines
}
