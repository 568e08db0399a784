//! The tokens a Claude Code session spent, from each line's
//! `message.usage`, counted as ccusage counts them. One API message
//! streamed over several lines repeats its usage on each, so lines of one
//! `message.id` (and one `requestId`, where the line has one) count once:
//! a copy in the main conversation before one in a side chain, then the
//! copy with the largest total, then the first. A side chain's replay of a
//! message already counted under another request is not counted again. A
//! line without a `message.id` counts on its own. Subagents' files count
//! with their parent (the caller hands their lines in too).

use crate::store::format::usage::{Usage, UsageByModel};
use crate::store::sources::agent_read::parse_time;
#[cfg(test)]
use crate::store::sources::claude::chain::Parsed;
use crate::store::sources::claude::line::Line;
use serde_json::Value;
use std::collections::HashMap;

/// One line's usage, with what says which API message it belongs to.
#[derive(Clone, Debug)]
pub struct Spent {
    /// `message.id`, and `requestId` where the line has one.
    key: Option<(String, Option<String>)>,
    sidechain: bool,
    model: String,
    usage: Usage,
    at: Option<f64>,
}

/// The usage each line of `lines` carries.
#[cfg(test)]
pub fn spent(lines: &[Parsed]) -> Vec<Spent> {
    lines.iter().filter_map(|p| spent_of(&p.line)).collect()
}

/// The usage `line` carries, if it carries some (asked of each line as it
/// is parsed, on every core).
pub fn spent_of(line: &Line) -> Option<Spent> {
    let usage = line.message_field("usage").and_then(read_usage)?;
    let key = line
        .message_id()
        .map(|id| (id.to_string(), line.request_id.clone()));
    Some(Spent {
        key,
        sidechain: line.is_sidechain == Some(true),
        model: line.model().unwrap_or("").to_string(),
        usage,
        at: line.timestamp.as_deref().and_then(parse_time),
    })
}

/// The usage of `lines`, by model.
#[cfg(test)]
pub fn usage(lines: &[Parsed]) -> UsageByModel {
    total(&spent(lines))
}

/// What `spent` adds up to, each API message counted once.
pub fn total(spent: &[Spent]) -> UsageByModel {
    // The copy kept of each key, in the order keys first appear.
    let mut kept: Vec<&Spent> = Vec::new();
    let mut at_key: HashMap<&(String, Option<String>), usize> = HashMap::new();
    for s in spent {
        let Some(key) = &s.key else {
            kept.push(s);
            continue;
        };
        match at_key.get(key) {
            Some(&at) => {
                let old = kept[at];
                let better = (old.sidechain && !s.sidechain)
                    || (old.sidechain == s.sidechain && s.usage.total() > old.usage.total());
                if better {
                    kept[at] = s;
                }
            }
            None => {
                at_key.insert(key, kept.len());
                kept.push(s);
            }
        }
    }
    // A side chain's copy of a message counted under another request.
    let mut counted_in_main: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for s in &kept {
        if let (Some((id, _)), false) = (&s.key, s.sidechain) {
            counted_in_main.insert(id);
        }
    }
    let mut out = UsageByModel::default();
    for s in kept {
        let replay = s.sidechain
            && s.key
                .as_ref()
                .is_some_and(|(id, _)| counted_in_main.contains(id.as_str()));
        if !replay {
            out.add_request(&s.model, &s.usage, s.at);
        }
    }
    out
}

/// An Anthropic `usage` object: `input_tokens` already excludes cache reads
/// and writes, which come in their own fields; `cache_creation` (where
/// Claude Code writes it) splits the writes into five-minute and one-hour
/// ones, and then is what counts.
pub fn read_usage(v: &Value) -> Option<Usage> {
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    if !v.is_object() {
        return None;
    }
    let (cache_write, cache_write_1h) = match v.get("cache_creation").filter(|c| c.is_object()) {
        Some(c) => {
            let hour = n(c, "ephemeral_1h_input_tokens");
            (n(c, "ephemeral_5m_input_tokens") + hour, hour)
        }
        None => (n(v, "cache_creation_input_tokens"), 0),
    };
    Some(Usage {
        input: n(v, "input_tokens"),
        output: n(v, "output_tokens"),
        cache_read: n(v, "cache_read_input_tokens"),
        cache_write,
        cache_write_1h,
        thoughts: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sources::claude::line::Line;
    use crate::store::sources::jsonl::LineSpan;

    fn line(id: &str, request: Option<&str>, input: u64, output: u64) -> Parsed {
        line_with(id, request, input, output, "")
    }

    fn line_with(id: &str, request: Option<&str>, input: u64, output: u64, extra: &str) -> Parsed {
        let request = request.map_or(String::new(), |r| format!(r#","requestId":"{r}""#));
        let text = format!(
            r#"{{"type":"assistant"{request}{extra},"message":{{"id":"{id}","model":"m","usage":{{"input_tokens":{input},"output_tokens":{output}}}}}}}"#
        );
        Parsed {
            span: LineSpan {
                line: 1,
                offset: 0,
                len: 0,
            },
            line: Box::new(Line::parse(text.as_bytes()).unwrap()),
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
        // m1 at its largest (20 + 5 is less than 10 + 50); m2 once per
        // request, and once for the line without a requestId.
        let total = usage(&lines).total();
        assert_eq!((total.input, total.output), (10 + 7 * 3, 50 + 9 * 3));
    }

    #[test]
    fn streamed_lines_without_a_request_id_count_once() {
        let lines = [
            line("m1", None, 10, 5),
            line("m1", None, 10, 40),
            line("m2", None, 1, 1),
        ];
        let total = usage(&lines).total();
        assert_eq!((total.input, total.output), (11, 41));
    }

    #[test]
    fn the_main_copy_wins_and_a_side_chains_replay_is_not_counted_again() {
        let side = r#","isSidechain":true"#;
        let lines = [
            line_with("m1", Some("r1"), 10, 90, side),
            line("m1", Some("r1"), 10, 5),
            line_with("m1", Some("r9"), 10, 5, side),
            line_with("m2", Some("r2"), 3, 3, side),
        ];
        let total = usage(&lines).total();
        assert_eq!((total.input, total.output), (13, 8));
    }

    #[test]
    fn one_hour_cache_writes_are_read_apart() {
        let v = serde_json::json!({"input_tokens": 1, "output_tokens": 2, "cache_creation_input_tokens": 999,
            "cache_creation": {"ephemeral_5m_input_tokens": 30, "ephemeral_1h_input_tokens": 70}});
        let u = read_usage(&v).unwrap();
        assert_eq!((u.cache_write, u.cache_write_1h), (100, 70));
        let flat = read_usage(&serde_json::json!({"cache_creation_input_tokens": 5})).unwrap();
        assert_eq!((flat.cache_write, flat.cache_write_1h), (5, 0));
    }
}
