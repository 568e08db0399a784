//! The transcript's search on its own thread: every part of every message
//! of the open context, folded or not. The search texts (markdown rendered,
//! letters folded to lower case) are made once per context and kept while
//! the person types; only the newest query is answered, and the first
//! match at or after the message on screen is sent before the rest.

use crate::render::transcript::{self, TextMatch};
use crate::store::Context;
use crate::tui::latest::{LatestWins, Out};
use crate::tui::msg::Msg;
use crate::tui::ops::ViewerReply;
use std::sync::Arc;

/// The most matches a search keeps (the counter says when there are more).
pub const HIT_LIMIT: usize = 100_000;

/// Messages searched between two looks for a newer query.
const CHUNK: usize = 512;

/// A query to answer.
#[derive(Clone, Debug)]
pub struct FindJob {
    /// The request tag.
    pub req: u64,
    /// The conversation.
    pub context: Arc<Context>,
    /// Search the text as written (raw mode) rather than rendered.
    pub raw: bool,
    /// What to find (ASCII letters in any case).
    pub query: String,
    /// The message on screen: the first answer is the first match from it.
    pub from: usize,
}

/// The search texts of the context searched last.
#[derive(Default)]
pub struct Finder {
    /// Which context (id, mutation counter, length, address) and mode.
    key: Option<(String, i64, usize, usize, bool)>,
    /// Lower-cased search texts of each part, by message, made on demand.
    texts: Vec<Option<Vec<String>>>,
}

impl Finder {
    /// Answers `job`, sending a first match early and then every match;
    /// stops when the UI is gone or a newer query waits.
    fn find(&mut self, job: &FindJob, out: &mut Out<'_>) {
        let ctx = &job.context;
        let key = (
            ctx.id().to_string(),
            ctx.mutation_counter(),
            ctx.len(),
            Arc::as_ptr(ctx) as usize,
            job.raw,
        );
        if self.key.as_ref() != Some(&key) {
            self.key = Some(key);
            self.texts = vec![None; job.context.len()];
        }
        let needle = job.query.to_ascii_lowercase();
        let len = job.context.len();
        let from = job.from.min(len.saturating_sub(1));
        let (mut after, mut before) = (Vec::new(), Vec::new());
        let mut first_sent = false;
        let mut more = false;
        for (n, i) in (from..len).chain(0..from).enumerate() {
            if n % CHUNK == CHUNK - 1 && out.superseded() {
                return;
            }
            if needle.is_empty() {
                break;
            }
            let texts = self.texts_of(&job.context, i, job.raw);
            let hits = if i >= from { &mut after } else { &mut before };
            let had = hits.len();
            for (part, text) in texts.iter().enumerate() {
                for (at, _) in text.match_indices(&needle) {
                    if after.len() + before.len() >= HIT_LIMIT {
                        more = true;
                        break;
                    }
                    let hits = if i >= from { &mut after } else { &mut before };
                    hits.push(TextMatch {
                        message: i,
                        part,
                        start: at,
                        end: at + needle.len(),
                    });
                }
            }
            let hits = if i >= from { &after } else { &before };
            if !first_sent && hits.len() > had {
                first_sent = true;
                let first = Msg::reply(
                    job.req,
                    ViewerReply::TranscriptFound {
                        hits: Arc::new(vec![hits[had]]),
                        complete: false,
                        more: false,
                    },
                );
                if !out.send(first) {
                    return;
                }
            }
            if more {
                break;
            }
        }
        before.extend(after);
        out.send(Msg::reply(
            job.req,
            ViewerReply::TranscriptFound {
                hits: Arc::new(before),
                complete: true,
                more,
            },
        ));
    }

    fn texts_of(&mut self, context: &Context, i: usize, raw: bool) -> &[String] {
        let slot = &mut self.texts[i];
        if slot.is_none() {
            let texts = context.message(i).map_or_else(Vec::new, |m| {
                transcript::search_texts(&m, raw)
                    .into_iter()
                    .map(|t| t.to_ascii_lowercase())
                    .collect()
            });
            *slot = Some(texts);
        }
        slot.as_deref().unwrap_or_default()
    }
}

/// Every job is a query; a newer one abandons the search in progress.
impl LatestWins for Finder {
    type Job = FindJob;
    type Query = FindJob;

    fn take(&mut self, job: FindJob) -> Option<FindJob> {
        Some(job)
    }

    fn is_query(_: &FindJob) -> bool {
        true
    }

    fn answer(&mut self, job: FindJob, out: &mut Out<'_>) {
        self.find(&job, out);
    }
}
