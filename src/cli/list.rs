//! `loki-sessions list [--json] [--tokens]`.

use crate::cli::output::{self, Progress};
use crate::cli::{CliEnv, CliError, args};
use crate::humanize;
use crate::store::{
    Agent, ContextFigure, CostEstimate, Encoding, SessionRecord, SessionStats, Usage, UsageDetail,
};
use clap::Args;
use serde::Serialize;
use std::path::Path;
use std::sync::Mutex;

mod json;

/// Arguments of `list`.
#[derive(Debug, Args)]
#[command(
    after_help = "Without --tokens, token counts come from the search index (cl100k_base) for the sessions it knows as they are now; run `loki-sessions index` to bring it up to date.\n\nExamples:\n  loki-sessions list --sort size | head\n  loki-sessions list --json --tokens | jq -r '.[] | select(.tokens > 100000) | .id'"
)]
pub struct ListArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also count the tokens of each session's active context.
    #[arg(long)]
    pub tokens: bool,
    /// Token encoding for --tokens [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// Order: last-used (default), created, size, messages, tokens, name.
    #[arg(long, value_enum, value_name = "KEY", default_value = "last-used")]
    pub sort: SortBy,
}

/// How `list` orders the sessions (biggest, newest first; names A to Z).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SortBy {
    /// Most recently used first.
    LastUsed,
    /// Most recently created first.
    Created,
    /// Biggest first.
    Size,
    /// Most messages first.
    Messages,
    /// Most tokens first (counted, or from the search index).
    Tokens,
    /// Costliest first (other agents' recorded usage, priced).
    Cost,
    /// A to Z.
    Name,
}

/// One session in `list --json`, borrowed from its record and stats: a
/// listing of 100k sessions streams its rows and never holds a copy of all.
#[derive(Debug, Serialize)]
pub struct ListItem<'a> {
    agent: Agent,
    id: &'a str,
    name: &'a str,
    title: &'a str,
    cwd: Option<&'a str>,
    user: &'a str,
    first_prompt: &'a str,
    created_at: f64,
    last_used_at: f64,
    path: &'a Path,
    bytes: u64,
    messages: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<u64>,
    is_active: bool,
    error: Option<&'a str>,
    /// Tokens the agent recorded as spent (another agent's session, when
    /// read: with --tokens, or from the search index).
    usage: Option<Usage>,
    /// What that usage would cost, estimated from the price table.
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_estimate: Option<&'a CostEstimate>,
    /// How full its context is: as the agent's API saw it where the agent
    /// records it (with what came after counted), else counted here.
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<ContextFigure>,
    /// When the agent's own cleanup deletes it (seconds since the epoch;
    /// null: it does not, or its agent has none).
    agent_deletes_at: Option<f64>,
    /// Kept in our archive after its agent deleted it (`restore
    /// --from-archive` puts it back); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    archived: bool,
}

impl<'a> ListItem<'a> {
    fn new(
        record: &'a SessionRecord,
        stats: &'a SessionStats,
        window: u64,
        agent_deletes_at: Option<f64>,
    ) -> Self {
        ListItem {
            agent_deletes_at,
            archived: record.archived,
            context: ContextFigure::of(stats.tokens, stats.context.as_deref(), window),
            cost_estimate: stats.cost.as_deref(),
            agent: record.agent,
            id: &record.id,
            title: &record.title,
            cwd: record.cwd.as_deref(),
            usage: stats.usage.as_ref().map(|u| u.total()),
            name: &record.name,
            user: &record.user,
            first_prompt: &record.first_prompt,
            created_at: record.created_at,
            last_used_at: record.last_used_at,
            path: &record.path,
            bytes: stats.bytes,
            messages: stats.messages,
            tokens: stats.tokens,
            is_active: stats.is_active,
            error: record.error.as_deref().or(stats.error.as_deref()),
        }
    }
}

/// The sessions in the order asked, each row made as it is written.
struct Rows<'a> {
    records: &'a [SessionRecord],
    stats: &'a [SessionStats],
    order: &'a [usize],
    window_for: &'a (dyn Fn(Agent) -> u64 + Sync),
    /// When each record goes by its agent's cleanup, in the records' order.
    deletes_at: &'a [Option<f64>],
}

impl Rows<'_> {
    fn items(&self) -> impl Iterator<Item = ListItem<'_>> + '_ {
        (0..self.order.len()).map(|k| self.item(k))
    }

    /// The `k`-th row shown.
    fn item(&self, k: usize) -> ListItem<'_> {
        let i = self.order[k];
        let r = &self.records[i];
        ListItem::new(
            r,
            &self.stats[i],
            (self.window_for)(r.agent),
            self.deletes_at.get(i).copied().flatten(),
        )
    }
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.items())
    }
}

/// Lists the sessions. A store that is not there is an error; an empty
/// one says on stderr where it looked.
pub fn run(env: &CliEnv, args: ListArgs) -> Result<(), CliError> {
    let encoding = if args.tokens {
        Some(env.encoding(args.encoding)?)
    } else {
        None
    };
    env.check_folder()?;
    if let Some(encoding) = encoding {
        crate::store::prewarm(encoding);
    }
    // Without --tokens, the search index's counts (cl100k_base) stand in,
    // for the sessions it knows as they are now.
    let (records, indexed) =
        if encoding.is_none() && env.encoding(args.encoding)? == Encoding::Cl100kBase {
            env.store.list_with_indexed_stats(UsageDetail::Totals)?
        } else {
            (env.store.list()?, Default::default())
        };
    if records.is_empty() {
        crate::note!("loki-sessions: no sessions in {}", env.looked_in());
        return if args.json {
            output::print_json(&[] as &[ListItem])
        } else {
            Ok(())
        };
    }
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
    // What the index knows is moved into the rows, its cost priced by the
    // store with the same table as the rows' own usage.
    let mut indexed = indexed;
    let mut stats = stats;
    // (Empty with --tokens: then nothing is moved.)
    for ((r, s), known) in records.iter().zip(stats.iter_mut()).zip(indexed.iter_mut()) {
        if let Some(known) = known {
            if s.tokens.is_none() {
                s.tokens = known.tokens;
            }
            if s.messages.is_none() && r.agent.is_external() {
                s.messages = Some(known.messages);
            }
            if s.usage.is_none() {
                s.usage = known.usage.take();
                s.cost = known.cost.take();
            }
            if s.context.is_none() {
                s.context = known.context.take();
            }
        }
    }
    // Left to the exit, as the records are at the end.
    std::mem::forget(indexed);
    let order = sorted(&records, &stats, args.sort);
    let deletes_at = env.store.agent_deletes_at_each(&records, env.now);
    // Each agent's window asked once, not once a row (the config builds
    // its table of windows at each question).
    let windows: Vec<(Agent, u64)> = Agent::ALL
        .iter()
        .map(|&agent| (agent, env.window_for(agent)))
        .collect();
    let rows = Rows {
        deletes_at: &deletes_at,
        records: &records,
        stats: &stats,
        order: &order,
        window_for: &|agent| {
            windows
                .iter()
                .find(|(a, _)| *a == agent)
                .map_or_else(|| env.window_for(agent), |(_, w)| *w)
        },
    };
    if args.json {
        output::print_json_array(order.len(), |out: &mut Vec<u8>, k| {
            rows.item(k).write_pretty(out)
        })?;
    } else {
        let items: Vec<ListItem> = rows.items().collect();
        output::print_lines(table(&items, env.now))?;
    }
    keep_what_is_due(env, &records, &deletes_at);
    // The process ends after this: freeing 10,000 records piece by piece
    // (made on other threads, so freed the slow way) costs 10 ms the
    // system does at once when the process exits.
    std::mem::forget(records);
    std::mem::forget(stats);
    Ok(())
}

/// The `archive_due` setting: what the agents' own cleanups delete soon,
/// kept in the archive after the listing is printed (said on stderr when
/// something new was kept; a bad setting is said, never fatal to `list`).
fn keep_what_is_due(env: &CliEnv, records: &[SessionRecord], deletes_at: &[Option<f64>]) {
    match env.archive_due() {
        Ok(Some(within)) => {
            let results = env
                .store
                .archive_due_given(records, deletes_at, within, env.now);
            if let Some(note) = crate::cli::archive::due_note(&results, within) {
                crate::note!("{note}");
            }
        }
        Ok(None) => {}
        Err(e) => crate::note!("{}", e.message),
    }
}

/// The order of the sessions by `key`, most recently used first among
/// equals (the store lists them that way, and the sort is stable).
fn sorted(records: &[SessionRecord], stats: &[SessionStats], key: SortBy) -> Vec<usize> {
    let mut order: Vec<usize> = (0..records.len().min(stats.len())).collect();
    match key {
        SortBy::LastUsed => {}
        SortBy::Created => {
            order.sort_by(|&a, &b| records[b].created_at.total_cmp(&records[a].created_at))
        }
        SortBy::Size => order.sort_by_key(|&i| std::cmp::Reverse(stats[i].bytes)),
        SortBy::Messages => {
            order.sort_by_key(|&i| std::cmp::Reverse(stats[i].messages.unwrap_or(0)))
        }
        SortBy::Tokens => order.sort_by_key(|&i| std::cmp::Reverse(stats[i].tokens.unwrap_or(0))),
        SortBy::Cost => {
            let usd = |i: usize| stats[i].cost.as_ref().and_then(|c| c.usd).unwrap_or(0.0);
            order.sort_by(|&a, &b| usd(b).total_cmp(&usd(a)));
        }
        SortBy::Name => order.sort_by_cached_key(|&i| records[i].name.to_lowercase()),
    }
    order
}

/// The table: the TOKENS column only when tokens are known.
fn table(items: &[ListItem], now: f64) -> Vec<String> {
    let with_tokens = items.iter().any(|i| i.tokens.is_some());
    let with_agent = items.iter().any(|i| i.agent != items[0].agent);
    let row = |agent: &str,
               id: &str,
               used: &str,
               messages: &str,
               tokens: &str,
               size: &str,
               name: &str| {
        let tokens = if with_tokens {
            format!("{tokens:>8}  ")
        } else {
            String::new()
        };
        let agent = if with_agent {
            format!("{agent:<6}  ")
        } else {
            String::new()
        };
        format!("{agent}{id:<17}  {used:>14}  {messages:>6}  {tokens}{size:>9}  {name}")
    };
    let mut lines = vec![row(
        "AGENT",
        "ID",
        "LAST USED",
        "MSGS",
        "TOKENS",
        "SIZE",
        "NAME",
    )];
    for item in items {
        let id: String = item.id.chars().take(17).collect();
        let messages = item
            .messages
            .map_or("-".into(), |m| humanize::count(m as u64));
        let tokens = item.tokens.map_or("-".into(), humanize::count);
        let name = match &item.error {
            Some(e) => format!("DAMAGED: {e}"),
            None if item.agent.is_external() => {
                let words: Vec<&str> = item.title.split_whitespace().collect();
                words.join(" ").chars().take(100).collect()
            }
            None => item.name.to_string(),
        };
        let used = if item.error.is_some() && item.last_used_at == 0.0 {
            "-".to_string()
        } else {
            humanize::ago(item.last_used_at, now)
        };
        lines.push(row(
            item.agent.name(),
            &id,
            &used,
            &messages,
            &tokens,
            &humanize::bytes(item.bytes),
            &name,
        ));
    }
    lines
}
