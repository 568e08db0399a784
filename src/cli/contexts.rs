//! `loki-sessions contexts SESSION [--tokens] [--encoding E] [--json]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, args, completions};
use crate::humanize;
use crate::store::{ContextInfo, CreatedFrom, Encoding, prewarm};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde_json::json;

/// Arguments of `contexts`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions contexts fix-the-login-bug
  loki-sessions contexts fix-the-login-bug --tokens --json | jq -r '.contexts[] | select(.relation == \"other\") | .id'

Each context is active, an ancestor of the active one (it was forked from it,
directly or not), or other; forks are indented under the context they were
forked from. CREATED is the first message's timestamp for a
context that is not a fork, and the file's modification time for a fork (whose
messages keep their old timestamps); the JSON says which in created_from.")]
pub struct ContextsArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// Also count the tokens of each context.
    #[arg(long)]
    pub tokens: bool,
    /// Token encoding for --tokens [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Lists the contexts of a session. Reads only.
pub fn run(env: &CliEnv, args: ContextsArgs) -> Result<(), CliError> {
    let encoding = if args.tokens {
        let encoding = env.encoding(args.encoding)?;
        prewarm(encoding);
        Some(encoding)
    } else {
        None
    };
    let target = env.locate(&args.session)?;
    let contexts = env.store.contexts(&target, encoding)?;
    if args.json {
        return output::print_json(&json!({
            "session": target.record.id,
            "encoding": encoding,
            "contexts": contexts,
        }));
    }
    output::print_lines(table(&contexts, encoding.is_some()))
}

fn table(contexts: &[ContextInfo], with_tokens: bool) -> Vec<String> {
    let shown_id = |c: &ContextInfo| format!("{}{}", "  ".repeat(c.depth), c.id);
    let width = contexts
        .iter()
        .map(|c| shown_id(c).len())
        .max()
        .unwrap_or(0)
        .max(2);
    let row = |id: &str, relation: &str, messages: &str, tokens: &str, created: &str| {
        let tokens = if with_tokens {
            format!("{tokens:>9}  ")
        } else {
            String::new()
        };
        format!("{id:<width$}  {relation:<8}  {messages:>6}  {tokens}{created}")
    };
    let mut lines = vec![row("ID", "RELATION", "MSGS", "TOKENS", "CREATED")];
    for c in contexts {
        let messages = c.messages.map_or("-".into(), |m| m.to_string());
        let tokens = c.tokens.map_or("-".into(), humanize::count);
        let created = match (c.created_at, c.created_from) {
            (Some(at), Some(CreatedFrom::FirstMessage)) => {
                format!("{} (first message)", humanize::datetime(at))
            }
            (Some(at), _) => format!("{} (file)", humanize::datetime(at)),
            (None, _) => "-".into(),
        };
        let mut line = row(
            &shown_id(c),
            &c.relation.to_string(),
            &messages,
            &tokens,
            &created,
        );
        if let Some(error) = &c.error {
            line.push_str(&format!("  DAMAGED: {error}"));
        }
        lines.push(line);
    }
    lines
}
