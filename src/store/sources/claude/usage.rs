//! The tokens a Claude Code session spent, from each line's
//! `message.usage`. One API message streamed over several lines repeats
//! its usage on each, so lines sharing a `message.id` and a `requestId`
//! count once: the copy with the largest total (the last to be written is
//! complete; on a tie the first), as ccusage counts them. A line missing
//! either id counts on its own. Side conversations and other branches count
//! too: their tokens were spent.

use crate::store::format::usage::{Usage, UsageByModel};
use crate::store::sources::claude::chain::Parsed;
use serde_json::Value;
use std::collections::HashMap;

/// One line's usage, with what says which API message it belongs to.
#[derive(Clone, Debug)]
pub struct Spent {
    /// `(message.id, requestId)`, when the line has both.
    key: Option<(String, String)>,
    model: String,
    usage: Usage,
}

/// The usage each line of `lines` carries.
pub fn spent(lines: &[Parsed]) -> Vec<Spent> {
    lines
        .iter()
        .filter_map(|p| {
            let usage = p.line.message_field("usage").and_then(read_usage)?;
            let key = match (p.line.message_id(), p.line.request_id.as_deref()) {
                (Some(id), Some(request)) => Some((id.to_string(), request.to_string())),
                _ => None,
            };
            Some(Spent {
                key,
                model: p.line.model().unwrap_or("").to_string(),
                usage,
            })
        })
        .collect()
}

/// The usage of `lines`, by model.
#[cfg(test)]
pub fn usage(lines: &[Parsed]) -> UsageByModel {
    total(&spent(lines))
}

/// What `spent` adds up to, each API message counted once.
pub fn total(spent: &[Spent]) -> UsageByModel {
    let mut kept: Vec<(&str, Usage)> = Vec::new();
    let mut by_key: HashMap<&(String, String), usize> = HashMap::new();
    for s in spent {
        match &s.key {
            Some(key) => match by_key.get(key) {
                Some(&at) => {
                    if s.usage.total() > kept[at].1.total() {
                        kept[at] = (&s.model, s.usage);
                    }
                }
                None => {
                    by_key.insert(key, kept.len());
                    kept.push((&s.model, s.usage));
                }
            },
            None => kept.push((&s.model, s.usage)),
        }
    }
    let mut out = UsageByModel::default();
    for (model, u) in &kept {
        out.add(model, u);
    }
    out
}

/// An Anthropic `usage` object: `input_tokens` already excludes cache reads
/// and writes, which come in their own fields.
fn read_usage(v: &Value) -> Option<Usage> {
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    v.is_object().then(|| Usage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sources::claude::line::Line;
    use crate::store::sources::jsonl::LineSpan;

    fn line(id: &str, request: Option<&str>, input: u64, output: u64) -> Parsed {
        let request = request.map_or(String::new(), |r| format!(r#","requestId":"{r}""#));
        let text = format!(
            r#"{{"type":"assistant"{request},"message":{{"id":"{id}","model":"m","usage":{{"input_tokens":{input},"output_tokens":{output}}}}}}}"#
        );
        Parsed {
            span: LineSpan {
                line: 1,
                offset: 0,
                len: 0,
            },
            line: Line::parse(text.as_bytes()).unwrap(),
        }
    }

    #[test]
    fn a_streamed_message_counts_once_at_its_largest() {
        let lines = [
            line("m1", Some("r1"), 10, 5),
            line("m1", Some("r1"), 10, 50),
            line("m1", Some("r1"), 20, 5),
            line("m2", Some("r2"), 7, 9),
            line("m2", None, 7, 9),
            line("m2", Some("r3"), 7, 9),
        ];
        let total = usage(&lines).total();
        assert_eq!((total.input, total.output), (10 + 7 * 3, 50 + 9 * 3));
    }
}
