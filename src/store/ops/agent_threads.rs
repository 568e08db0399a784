//! The threads of another agent's session seen as contexts: the main
//! conversation is the active one, each subagent or side conversation a
//! context forked from it, so `contexts`, `export --context` and the
//! viewer's list of contexts read them as they read a Loki session's forks.

use crate::store::error::{Result, StoreError};
use crate::store::format::Context;
use crate::store::format::tokens::Encoding;
use crate::store::format::transcript::{self, TranscriptFormat, TranscriptHeader};
use crate::store::ops::contexts::{ContextInfo, CreatedFrom, Relation};
use crate::store::ops::counting::total_tokens;
use crate::store::sources::agent_read::{AgentRead, Thread, parse_time};
use crate::store::sources::agents;
use crate::store::sources::record::SessionRecord;

/// Every thread of `record` as a context, the main one first.
pub fn list(record: &SessionRecord, encoding: Option<Encoding>) -> Result<Vec<ContextInfo>> {
    let read = agents::read(record)?;
    let others: Vec<String> = read
        .others
        .iter()
        .map(|t| t.context.id().to_string())
        .collect();
    let info = |t: &Thread, relation: Relation, depth: usize, children: Vec<String>| {
        let created = t
            .context
            .message(0)
            .and_then(|m| m.created())
            .and_then(parse_time);
        ContextInfo {
            id: t.context.id().to_string(),
            messages: Some(t.context.len()),
            tokens: encoding.and_then(|e| total_tokens(&t.context, e).ok()),
            created_at: created,
            created_from: created.map(|_| CreatedFrom::FirstMessage),
            relation,
            origin_context_id: t.context.origin_context_id().map(str::to_string),
            children,
            depth,
            error: None,
        }
    };
    let mut out = vec![info(&read.main, Relation::Active, 0, others)];
    for t in &read.others {
        out.push(info(t, Relation::Other, 1, Vec::new()));
    }
    Ok(out)
}

/// The thread id `arg` names: itself or a unique prefix of one.
pub fn find(record: &SessionRecord, arg: &str) -> Result<String> {
    let read = agents::read(record)?;
    find_in(&read, arg, record).map(|t| t.context.id().to_string())
}

fn find_in<'a>(read: &'a AgentRead, arg: &str, record: &SessionRecord) -> Result<&'a Thread> {
    if arg.is_empty() {
        return Err(StoreError::Invalid("the context argument is empty".into()));
    }
    if let Some(t) = read.thread(arg) {
        return Ok(t);
    }
    let all: Vec<&Thread> = std::iter::once(&read.main).chain(&read.others).collect();
    let found: Vec<&&Thread> = all
        .iter()
        .filter(|t| t.context.id().starts_with(arg))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(StoreError::NotFound(format!(
            "no context {arg:?} in {} (its threads: {})",
            record.path.display(),
            all.iter()
                .map(|t| t.context.id())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        many => Err(StoreError::Invalid(format!(
            "{arg:?} matches {} contexts; give more of the id",
            many.len()
        ))),
    }
}

/// The context of thread `context` (None: the main one).
pub fn context(record: &SessionRecord, context: Option<&str>) -> Result<Context> {
    let read = agents::read(record)?;
    Ok(match context {
        None => read.main.context,
        Some(arg) => find_in(&read, arg, record)?.context.clone(),
    })
}

/// The transcript of thread `context` (None: the main one) in `format`.
pub fn transcript(
    record: &SessionRecord,
    context: Option<&str>,
    format: TranscriptFormat,
    usage: Option<&str>,
) -> Result<String> {
    let ctx = self::context(record, context)?;
    let header = TranscriptHeader {
        session_id: &record.id,
        name: &record.title,
        usage,
    };
    Ok(transcript::render(&ctx, format, header))
}
