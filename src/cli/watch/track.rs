//! What `watch` knows of each session between changes: its active
//! context, how many messages it had and their running total. A change
//! reads the context again and counts only what was appended; a context
//! that is another one now (a fork the agent made) or is shorter than
//! before (rewritten) is announced and taken as the new baseline.

use crate::humanize;
use crate::store::{
    Context, ContextFigure, Encoding, RecordedContext, Reread, Result, SessionRecord, SessionRef,
    Store,
};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Mutex;

/// One line of output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// `message` (one appended), `fork` (the agent made another context
    /// active), `rewritten` (the context is shorter than before), `gone`
    /// (the session was deleted), `state` (`--once`).
    pub event: &'static str,
    /// The session's id.
    pub session: String,
    /// Its name.
    pub name: String,
    /// Whose session it is (`loki`, `peteos`, ...).
    pub agent: String,
    /// The active context's id.
    pub context: String,
    /// The message's role (for `message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The message's id (for `message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Its place in the context, from 0 (for `message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Its tokens (for `message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Messages in the context (up to this one, for `message`).
    pub messages: usize,
    /// Tokens of the transcript counted here (up to this one, for `message`).
    pub total: u64,
    /// What the agent's API took at its last recorded request, where the
    /// agent records it (and the request came before this message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<u64>,
    /// The context's tokens: `recorded` plus what was appended after it
    /// (counted here, an estimate), else `total`.
    pub context_tokens: u64,
    /// `recorded` or `counted`: where `context_tokens` comes from.
    pub source: &'static str,
    /// The model's window the fraction is of: the one the file records,
    /// else the model's, else the configured one.
    pub window: u64,
    /// `context_tokens` over `window`.
    pub fraction: f64,
}

/// A session's last recorded request, with the counts of the messages of
/// its context from the one after it on.
type Api = (RecordedContext, Vec<u64>);

impl Line {
    /// The line as a person reads it.
    pub fn text(&self) -> String {
        let share = format!(
            "{}{} / {} ({:.0}%)",
            if self.source == "recorded" { "≈" } else { "" },
            humanize::count(self.context_tokens),
            humanize::count(self.window),
            100.0 * self.fraction
        );
        let who = format!("{} [{}]", self.name, self.agent);
        match self.event {
            "message" => format!(
                "{who}  {:<9} {:>8} tokens   total {share}",
                self.role.as_deref().unwrap_or(""),
                humanize::count(self.tokens.unwrap_or(0)),
            ),
            "state" => format!(
                "{who}  {}   {share}",
                humanize::plural(self.messages as u64, "message")
            ),
            "gone" => format!("{who}  deleted"),
            event => format!(
                "{who}  {event}: context {} now, {}   total {share}",
                self.context,
                humanize::plural(self.messages as u64, "message")
            ),
        }
    }
}

struct Tracked {
    record: SessionRecord,
    /// None when only the count is known (the baseline of every session).
    context: Option<String>,
    len: usize,
    total: Option<u64>,
}

/// The sessions watched and where each stood.
pub struct Tracker<'s> {
    store: &'s Store,
    encoding: Encoding,
    default_window: u64,
    windows: Vec<(String, u64)>,
    only: Option<Vec<SessionRecord>>,
    state: HashMap<String, Tracked>,
}

impl<'s> Tracker<'s> {
    /// A tracker of `only` (every session when None).
    pub fn new(
        store: &'s Store,
        encoding: Encoding,
        default_window: u64,
        windows: Vec<(String, u64)>,
        only: Option<Vec<SessionRecord>>,
    ) -> Tracker<'s> {
        Tracker {
            store,
            encoding,
            default_window,
            windows,
            only,
            state: HashMap::new(),
        }
    }

    /// What is watched, for a note.
    pub fn watched(&self) -> String {
        match &self.only {
            Some(only) => humanize::plural(only.len() as u64, "session"),
            None => format!(
                "every session ({})",
                humanize::count(self.state.len() as u64)
            ),
        }
    }

    fn agent(&self, record: &SessionRecord) -> String {
        record.agent.name().into()
    }

    fn window(&self, record: &SessionRecord) -> u64 {
        let agent = self.agent(record);
        self.windows
            .iter()
            .find(|(a, _)| *a == agent)
            .map_or(self.default_window, |(_, w)| *w)
            .max(1)
    }

    fn records(&self) -> Result<Vec<SessionRecord>> {
        match &self.only {
            Some(only) => Ok(only.clone()),
            None => self.store.list(),
        }
    }

    /// The baseline: the sessions named are read and counted whole; of
    /// every session, only the number of messages (the index's when it
    /// knows the file as it is, else from the end of a Loki file or the
    /// whole of another agent's), and the tokens are counted at its first
    /// change. A change then prints only what came after: no replay.
    pub fn start(&mut self) -> Result<()> {
        let records = self.records()?;
        if self.only.is_some() {
            for record in records {
                if let Some(context) = self.context_of(&record) {
                    let total = self.count(&context, 0)?.iter().sum();
                    let tracked = Tracked {
                        context: Some(context.id().to_string()),
                        len: context.len(),
                        total: Some(total),
                        record,
                    };
                    self.state.insert(tracked.record.id.to_string(), tracked);
                }
            }
            return Ok(());
        }
        self.baseline(records);
        Ok(())
    }

    /// Takes every session not tracked yet as it is now, printing nothing
    /// (a folder of sessions back where it was).
    pub fn adopt(&mut self) -> Result<()> {
        let records: Vec<SessionRecord> = self
            .records()?
            .into_iter()
            .filter(|r| !self.state.contains_key(r.id.as_str()))
            .collect();
        self.baseline(records);
        Ok(())
    }

    fn baseline(&mut self, records: Vec<SessionRecord>) {
        let counts = self.store.message_counts(&records);
        for (record, count) in records.into_iter().zip(counts) {
            let tracked = Tracked {
                context: None,
                // Unreadable now: what it holds once readable is its baseline.
                len: count.unwrap_or(usize::MAX),
                total: None,
                record,
            };
            self.state.insert(tracked.record.id.to_string(), tracked);
        }
    }

    /// `--once`: where each session stands.
    pub fn now(&mut self) -> Result<Vec<Line>> {
        let mut lines = Vec::new();
        for record in self.records()? {
            let Some(context) = self.context_of(&record) else {
                continue;
            };
            let total = self.count(&context, 0)?.iter().sum();
            lines.push(self.line("state", &record, &context, context.len(), total, None));
        }
        Ok(lines)
    }

    /// Events were lost: every session watched is looked at.
    pub fn everything(&mut self) -> Result<Vec<Line>> {
        let sessions: Vec<SessionRef> = self
            .records()?
            .into_iter()
            .map(|r| SessionRef {
                agent: r.agent,
                id: r.id.into(),
                path: r.path,
            })
            .collect();
        self.changed(&sessions)
    }

    /// The watcher named `sessions`: a line per message appended since.
    pub fn changed(&mut self, sessions: &[SessionRef]) -> Result<Vec<Line>> {
        let watched: Vec<SessionRef> = sessions
            .iter()
            .filter(|s| {
                self.only
                    .as_ref()
                    .is_none_or(|only| only.iter().any(|r| r.id == s.id && r.path == s.path))
            })
            .cloned()
            .collect();
        let mut lines = Vec::new();
        for reread in self.store.reread(&watched) {
            match reread {
                Reread::Gone(session) => {
                    if let Some(t) = self.state.remove(&session.id) {
                        let window = self.window(&t.record);
                        let total = t.total.unwrap_or(0);
                        lines.push(Line {
                            event: "gone",
                            session: t.record.id.to_string(),
                            name: t.record.name.clone(),
                            agent: self.agent(&t.record),
                            context: t.context.clone().unwrap_or_default(),
                            role: None,
                            message_id: None,
                            index: None,
                            tokens: None,
                            messages: t.len,
                            total,
                            recorded: None,
                            context_tokens: total,
                            source: "counted",
                            window,
                            fraction: total as f64 / window as f64,
                        });
                    }
                }
                Reread::Present(record) => lines.extend(self.follow(*record)?),
            }
        }
        Ok(lines)
    }

    fn follow(&mut self, record: SessionRecord) -> Result<Vec<Line>> {
        let Some((context, recorded)) = self.read(&record) else {
            return Ok(Vec::new());
        };
        let api = self.api(&context, recorded)?;
        let (len, total) = match self.state.get(record.id.as_str()) {
            // A session seen for the first time: everything in it is new.
            None => (0, Some(0)),
            Some(t) if t.context.as_deref().is_some_and(|id| id != context.id()) => {
                return self.rebase("fork", record, &context);
            }
            Some(t) if t.len == usize::MAX => {
                // Unreadable when watching began: nothing to count from.
                let total = self.count(&context, 0)?.iter().sum();
                self.keep(record, &context, Some(total));
                return Ok(Vec::new());
            }
            Some(t) if context.len() < t.len => return self.rebase("rewritten", record, &context),
            Some(t) => (t.len, t.total),
        };
        let mut lines = Vec::new();
        if context.len() > len {
            let (counts, mut running) = match total {
                Some(total) => (self.count(&context, len)?, total),
                None => {
                    let all = self.count(&context, 0)?;
                    let before = all[..len].iter().sum();
                    (all[len..].to_vec(), before)
                }
            };
            for (offset, tokens) in counts.iter().enumerate() {
                let index = len + offset;
                running += tokens;
                let message = context.message(index).expect("counted above");
                let mut line = self.line(
                    "message",
                    &record,
                    &context,
                    index + 1,
                    running,
                    api.as_ref(),
                );
                line.role = Some(message.role().to_string());
                line.message_id = Some(message.id().to_string());
                line.index = Some(index);
                line.tokens = Some(*tokens);
                lines.push(line);
            }
            self.keep(record, &context, Some(running));
        } else {
            let total = match total {
                Some(total) => Some(total),
                None => Some(self.count(&context, 0)?.iter().sum()),
            };
            self.keep(record, &context, total);
        }
        Ok(lines)
    }

    /// Another context (or a shorter one) is the baseline now, announced.
    fn rebase(
        &mut self,
        event: &'static str,
        record: SessionRecord,
        context: &Context,
    ) -> Result<Vec<Line>> {
        let total = self.count(context, 0)?.iter().sum();
        let line = self.line(event, &record, context, context.len(), total, None);
        self.keep(record, context, Some(total));
        Ok(vec![line])
    }

    fn keep(&mut self, record: SessionRecord, context: &Context, total: Option<u64>) {
        let tracked = Tracked {
            context: Some(context.id().to_string()),
            len: context.len(),
            total,
            record,
        };
        self.state.insert(tracked.record.id.to_string(), tracked);
    }

    fn line(
        &self,
        event: &'static str,
        record: &SessionRecord,
        context: &Context,
        messages: usize,
        total: u64,
        api: Option<&Api>,
    ) -> Line {
        // The request's figure holds for the messages after it.
        let recorded = api
            .filter(|(r, _)| messages >= r.messages_seen)
            .map(|(r, after)| {
                let counted = messages - r.messages_seen;
                RecordedContext {
                    counted_after: after.iter().take(counted).sum(),
                    ..r.clone()
                }
            });
        let figure = ContextFigure::of(Some(total), recorded.as_ref(), self.window(record))
            .expect("a counted total");
        Line {
            event,
            session: record.id.to_string(),
            name: record.name.clone(),
            agent: self.agent(record),
            context: context.id().to_string(),
            role: None,
            message_id: None,
            index: None,
            tokens: None,
            messages,
            total,
            recorded: figure.recorded,
            context_tokens: figure.tokens,
            source: figure.source,
            window: figure.window,
            fraction: figure.fraction,
        }
    }

    /// The active context of `record`; None (said on stderr) when it
    /// cannot be read, or it has none yet.
    fn context_of(&self, record: &SessionRecord) -> Option<Context> {
        self.read(record).map(|(context, _)| context)
    }

    /// [`Tracker::context_of`] with, for another agent's session, its last
    /// recorded request.
    fn read(&self, record: &SessionRecord) -> Option<(Context, Option<RecordedContext>)> {
        let target = self.store.target(record);
        let read = if record.agent.is_external() {
            self.store
                .load_conversation(&target)
                .map(|c| Some((c.context, c.recorded)))
        } else {
            self.store
                .active_context(&target)
                .map(|c| c.map(|c| (c, None)))
        };
        match read {
            Ok(read) => read,
            Err(e) => {
                crate::note!("loki-sessions: {}: {e}", record.id);
                None
            }
        }
    }

    /// The counts `line` needs of what came after `recorded`'s request.
    fn api(&self, context: &Context, recorded: Option<RecordedContext>) -> Result<Option<Api>> {
        let Some(r) = recorded else {
            return Ok(None);
        };
        let after = self.count(context, r.messages_seen.min(context.len()))?;
        Ok(Some((r, after)))
    }

    /// Counts of the messages of `context` from `from` on.
    fn count(&self, context: &Context, from: usize) -> Result<Vec<u64>> {
        let counts = Mutex::new(vec![0; context.len().saturating_sub(from)]);
        self.store
            .count_tokens_from(context, from, self.encoding, &|start, slice| {
                if let Ok(mut all) = counts.lock() {
                    let at = start - from;
                    all[at..at + slice.len()].copy_from_slice(&slice);
                }
                true
            })?;
        Ok(counts.into_inner().unwrap_or_default())
    }
}
