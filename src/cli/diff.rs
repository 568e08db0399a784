//! `loki-sessions diff SESSION [CONTEXT] [--json] [--encoding E]`.

use crate::cli::output;
use crate::cli::{CliEnv, CliError, args, completions};
use crate::humanize;
use crate::store::{ContextDiff, DiffMessage, Encoding, prewarm};
use clap::Args;
use clap_complete::engine::ArgValueCandidates;
use serde::Serialize;

/// Arguments of `diff`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  loki-sessions diff fix-the-login-bug                 what the last trim changed
  loki-sessions diff fix-the-login-bug 20261129-8d1b --json | jq '.dropped[].id'

Messages are matched by id; a cleared message is a copy with a new id whose
cleared_from names the original. Messages the parent does not hold were added
since the fork (by the agent).")]
pub struct DiffArgs {
    /// The session: an id, a unique id prefix, a name, a unique name prefix, or a path.
    #[arg(add = ArgValueCandidates::new(completions::session_candidates))]
    pub session: String,
    /// The context to compare with its parent (id or unique prefix) [default: the active one]
    pub context: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Token encoding [default: cl100k_base]
    #[arg(long, value_name = "ENCODING", value_parser = args::encoding())]
    pub encoding: Option<Encoding>,
}

/// `diff --json`.
#[derive(Serialize)]
struct DiffOutput<'a> {
    session: &'a str,
    encoding: Encoding,
    #[serde(flatten)]
    diff: &'a ContextDiff,
}

/// Compares a context with its parent. Reads only.
pub fn run(env: &CliEnv, args: DiffArgs) -> Result<(), CliError> {
    let encoding = env.encoding(args.encoding)?;
    prewarm(encoding);
    let target = env.locate(&args.session)?;
    let diff = env.store.diff(&target, args.context.as_deref(), encoding)?;
    if args.json {
        return output::print_json(&DiffOutput {
            session: &target.record.id,
            encoding,
            diff: &diff,
        });
    }
    let side = |what: &str, s: &crate::store::DiffSide| {
        format!(
            "{what:<8}{}  {}  {} tokens",
            s.id,
            humanize::plural(s.messages as u64, "message"),
            humanize::count(s.tokens)
        )
    };
    let mut lines = vec![
        side("context", &diff.context),
        side("parent", &diff.parent),
        format!(
            "{} kept, {} dropped, {} cleared, {} added since the fork ({encoding})",
            diff.kept,
            diff.dropped.len(),
            diff.cleared.len(),
            diff.added.len()
        ),
    ];
    let listed = |lines: &mut Vec<String>, mark: &str, items: &[DiffMessage]| {
        for m in items {
            lines.push(format!(
                "{mark} {:<6} {:<9} {:>7} tokens  {}  {}",
                humanize::message_number(m.index),
                m.role,
                humanize::count(m.tokens),
                m.id,
                m.text
            ));
        }
    };
    listed(&mut lines, "-", &diff.dropped);
    for c in &diff.cleared {
        lines.push(format!(
            "~ {:<6} {:<9} {:>7} -> {} tokens  {} (cleared from {})",
            humanize::message_number(c.index),
            c.role,
            humanize::count(c.tokens_before),
            humanize::count(c.tokens_after),
            c.id,
            c.cleared_from
        ));
    }
    listed(&mut lines, "+", &diff.added);
    output::print_lines(lines)
}
