//! Token counts of a whole context, on all cores: the one counter the CLI
//! and the UI share. Messages differ a lot in length, so threads take small
//! slices as they free up rather than a fixed share each.

use crate::store::error::{Result, StoreError};
use crate::store::format::edit_facts::EditFacts;
use crate::store::format::tokens::{self, Encoding};
use crate::store::format::{Context, Message, clear};
use crate::store::ops::count_cache::{self, CountCache, CountKey};
use crate::store::ops::edit_plan::ClearedCounts;
use crate::store::ops::resumable::Replacement;
use crate::store::parallel;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Below this many messages one thread counts them all.
const SERIAL_BELOW: usize = 64;
/// Messages a thread takes at a time.
const SLICE: usize = 32;

/// Counts every message of `ctx`, handing each counted slice to
/// `on_slice(first index, counts)` as it is done (in no particular order).
/// `on_slice` returns false to stop early: nobody needs the rest.
pub fn count_messages(
    ctx: &Context,
    encoding: Encoding,
    on_slice: &(dyn Fn(usize, Vec<u64>) -> bool + Sync),
) -> Result<()> {
    count_messages_from(ctx, 0, encoding, on_slice)
}

/// [`count_messages`] for the messages from index `from` on (those an
/// agent appended since the rest were counted); slices are numbered in
/// the whole context.
pub fn count_messages_from(
    ctx: &Context,
    from: usize,
    encoding: Encoding,
    on_slice: &(dyn Fn(usize, Vec<u64>) -> bool + Sync),
) -> Result<()> {
    let messages: Vec<_> = ctx.messages().skip(from).collect();
    let on_slice = |start: usize, counts: Vec<u64>| on_slice(from + start, counts);
    if messages.len() < SERIAL_BELOW {
        let counts = messages
            .iter()
            .map(|m| tokens::effective_count(m, encoding))
            .collect::<Result<Vec<u64>>>()?;
        on_slice(0, counts);
        return Ok(());
    }
    tokens::counter(encoding)?;
    let next = AtomicUsize::new(0);
    let stopped = AtomicBool::new(false);
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..parallel::workers())
            .map(|_| {
                scope.spawn(|| {
                    while !stopped.load(Ordering::Relaxed) {
                        let start = next.fetch_add(SLICE, Ordering::Relaxed);
                        if start >= messages.len() {
                            break;
                        }
                        let slice = &messages[start..(start + SLICE).min(messages.len())];
                        let counts = slice
                            .iter()
                            .map(|m| tokens::effective_count(m, encoding))
                            .collect::<Result<Vec<u64>>>()?;
                        if !on_slice(start, counts) {
                            stopped.store(true, Ordering::Relaxed);
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(StoreError::Failed("token counting panicked".into())))
            })
            .collect()
    });
    results.into_iter().collect()
}

/// Effective token counts of every message of `ctx`, in order.
pub fn message_counts(ctx: &Context, encoding: Encoding) -> Result<Vec<u64>> {
    let counts = std::sync::Mutex::new(vec![0; ctx.len()]);
    count_messages(ctx, encoding, &|start, slice| {
        if let Ok(mut all) = counts.lock() {
            all[start..start + slice.len()].copy_from_slice(&slice);
        }
        true
    })?;
    counts
        .into_inner()
        .map_err(|_| StoreError::Failed("token counting panicked".into()))
}

/// [`message_counts`] taking what `cache` kept: only messages whose text
/// it does not know are counted (the tokenizer is built only then), and
/// the cache is rewritten when some were. A cache that cannot be written
/// costs the next run a count, never this one its answer.
pub fn message_counts_kept(
    ctx: &Context,
    encoding: Encoding,
    cache: Option<&CountCache>,
) -> Result<Vec<u64>> {
    let Some(cache) = cache else {
        return message_counts(ctx, encoding);
    };
    let messages: Vec<_> = ctx.messages().collect();
    let looked_up = look_up(&messages, encoding, cache);
    let missing: Vec<usize> = (0..messages.len())
        .filter(|&i| looked_up[i].1.is_none())
        .collect();
    let mut counts: Vec<u64> = looked_up.iter().map(|(_, c)| c.unwrap_or(0)).collect();
    if missing.is_empty() {
        return Ok(counts);
    }
    if missing.len() >= SERIAL_BELOW {
        tokens::counter(encoding)?;
    }
    let counted = parallel::map_ordered(&missing, |&i| {
        tokens::computed_count(&messages[i], encoding)
    });
    for (&i, count) in missing.iter().zip(counted) {
        counts[i] = count?;
    }
    keep(cache, encoding, &looked_up, &counts);
    Ok(counts)
}

/// Each message's key in the cache and the count it keeps: a count the
/// message carries wins where the encoding trusts it (as `effective_count`,
/// no key then); the others are looked up by their text's key.
fn look_up(
    messages: &[Message<'_>],
    encoding: Encoding,
    cache: &CountCache,
) -> Vec<(Option<CountKey>, Option<u64>)> {
    let known = cache.load(encoding);
    parallel::map_ordered(messages, |m| match m.cached_token_count() {
        Some(cached) if encoding.trusts_cached_counts() => (None, Some(cached)),
        _ => {
            let key = count_cache::key(encoding, &tokens::message_text(m));
            (Some(key), known.get(&key).copied())
        }
    })
}

/// Writes the counts of every keyed message to `cache`. A cache that
/// cannot be written costs the next run a count, never this one its answer.
fn keep(
    cache: &CountCache,
    encoding: Encoding,
    looked_up: &[(Option<CountKey>, Option<u64>)],
    counts: &[u64],
) {
    let entries: Vec<(CountKey, u64)> = looked_up
        .iter()
        .zip(counts)
        .filter_map(|((key, _), &count)| key.map(|k| (k, count)))
        .collect();
    let _ = cache.save(encoding, &entries);
}

/// [`count_messages`] taking what `cache` kept: the counts it knows are
/// handed over first, the rest counted as `count_messages` counts them
/// (slice by slice, on all cores); once every message is counted the cache
/// is written again, so the next look at the session, or a trim of it,
/// counts nothing it counted before.
pub fn count_messages_kept(
    ctx: &Context,
    encoding: Encoding,
    cache: &CountCache,
    on_slice: &(dyn Fn(usize, Vec<u64>) -> bool + Sync),
) -> Result<()> {
    let messages: Vec<_> = ctx.messages().collect();
    let looked_up = look_up(&messages, encoding, cache);
    let n = messages.len();
    let counts = std::sync::Mutex::new(looked_up.iter().map(|(_, c)| *c).collect::<Vec<_>>());
    let mut i = 0;
    while i < n {
        if looked_up[i].1.is_none() {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && looked_up[i].1.is_some() {
            i += 1;
        }
        let run = looked_up[start..i]
            .iter()
            .map(|(_, c)| c.unwrap_or(0))
            .collect();
        if !on_slice(start, run) {
            return Ok(());
        }
    }
    let missing: Vec<usize> = (0..n).filter(|&i| looked_up[i].1.is_none()).collect();
    let record = |start: usize, slice: &[u64]| {
        if let Ok(mut all) = counts.lock() {
            for (at, &c) in slice.iter().enumerate() {
                all[start + at] = Some(c);
            }
        }
    };
    match missing.first() {
        None => {}
        // The usual case: nothing kept, or only what an agent appended since.
        Some(&first) if missing.len() == n - first => {
            count_messages_from(ctx, first, encoding, &|start, slice| {
                record(start, &slice);
                on_slice(start, slice)
            })?;
        }
        Some(_) => {
            let counted = parallel::map_ordered(&missing, |&i| {
                tokens::effective_count(&messages[i], encoding)
            });
            for (&i, count) in missing.iter().zip(counted) {
                let count = count?;
                record(i, &[count]);
                if !on_slice(i, vec![count]) {
                    return Ok(());
                }
            }
        }
    }
    let counts = counts
        .into_inner()
        .map_err(|_| StoreError::Failed("token counting panicked".into()))?;
    let counts: Option<Vec<u64>> = counts.into_iter().collect();
    if let Some(counts) = counts.filter(|_| !missing.is_empty()) {
        keep(cache, encoding, &looked_up, &counts);
    }
    Ok(())
}

/// Sum of the effective token counts of `ctx`.
pub fn total_tokens(ctx: &Context, encoding: Encoding) -> Result<u64> {
    Ok(message_counts(ctx, encoding)?.iter().sum())
}

/// The count of each message in `which` once its tool results are cleared
/// (each replaced by the placeholder stating its share of `counts[i]`),
/// counted on the new text with the same counter; on all cores.
pub fn cleared_counts(
    ctx: &Context,
    index: &EditFacts,
    counts: &[u64],
    encoding: Encoding,
    which: &[usize],
) -> Result<ClearedCounts> {
    let replacements: Vec<Replacement> = which
        .iter()
        .filter_map(|&i| {
            let results = index.result_shares(i, *counts.get(i)?);
            (!results.is_empty()).then_some(Replacement {
                index: i,
                results,
                media: Vec::new(),
            })
        })
        .collect();
    replaced_counts(ctx, encoding, &replacements)
}

/// The count of each message of `replacements` once replaced as it says
/// (results cleared, media named), counted on the new text; on all cores.
pub fn replaced_counts(
    ctx: &Context,
    encoding: Encoding,
    replacements: &[Replacement],
) -> Result<ClearedCounts> {
    let count_one = |r: &Replacement| -> Result<Option<(usize, u64)>> {
        let Some(message) = ctx.message(r.index) else {
            return Ok(None);
        };
        let content = clear::cleared_content(&message, &r.results, &r.media);
        let text = tokens::token_text(message.raw().get("role"), Some(&content));
        Ok(Some((r.index, tokens::count_text(&text, encoding)?)))
    };
    let mut out = ClearedCounts::new(ctx.len());
    let chunks: Vec<&[Replacement]> = replacements.chunks(SLICE).collect();
    let next = AtomicUsize::new(0);
    let threads = if replacements.len() < SERIAL_BELOW {
        1
    } else {
        parallel::workers()
    };
    tokens::counter(encoding)?;
    let found: Vec<Result<Vec<(usize, u64)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(chunk) = chunks.get(at) else { break };
                        for r in *chunk {
                            done.extend(count_one(r)?);
                        }
                    }
                    Ok(done)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(StoreError::Failed("token counting panicked".into())))
            })
            .collect()
    });
    for part in found {
        for (i, count) in part? {
            out.set(i, count);
        }
    }
    Ok(out)
}
