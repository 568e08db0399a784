//! Tokens an agent recorded as spent, as the provider billed them: input
//! (not counting what was read from the cache), output, cache reads and
//! cache writes (a part of them for an hour), per model so a price can be
//! put on each; the part of each request past its first 200k tokens of a
//! kind (long-context prices); and when it was spent, by quarter hour, so
//! reports by day come out right in any time zone.

use serde::{Deserialize, Serialize};

/// The tokens of a request past this many of one kind are billed at a
/// model's long-context prices, where it has them (Anthropic's rule).
pub const LONG_CONTEXT: u64 = 200_000;

/// Seconds in the time buckets usage is kept by: every time zone's offset
/// is a whole number of them.
pub const QUARTER_HOUR: f64 = 900.0;

/// The kinds of tokens a provider bills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens, cache reads and writes excluded.
    pub input: u64,
    /// Output tokens (reasoning included where the agent counts it there).
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Of `cache_write`, those written for an hour (Claude Code records
    /// them apart; they cost more than five-minute ones).
    #[serde(default)]
    pub cache_write_1h: u64,
    /// Thinking billed as output but recorded apart from it (Gemini CLI's
    /// `thoughts`): in the total and the cost, not in `output`.
    #[serde(default)]
    pub thoughts: u64,
}

impl Usage {
    /// Every kind added up (the 1h writes are part of `cache_write`).
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write + self.thoughts
    }

    /// Adds `other` to this.
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cache_write_1h += other.cache_write_1h;
        self.thoughts += other.thoughts;
    }

    /// This less `other`, kind by kind (never below zero).
    pub fn minus(&self, other: &Usage) -> Usage {
        Usage {
            input: self.input.saturating_sub(other.input),
            output: self.output.saturating_sub(other.output),
            cache_read: self.cache_read.saturating_sub(other.cache_read),
            cache_write: self.cache_write.saturating_sub(other.cache_write),
            cache_write_1h: self.cache_write_1h.saturating_sub(other.cache_write_1h),
            thoughts: self.thoughts.saturating_sub(other.thoughts),
        }
    }

    /// The part of one request's usage past [`LONG_CONTEXT`] of each kind.
    pub fn past_long_context(&self) -> Usage {
        let past = |n: u64| n.saturating_sub(LONG_CONTEXT);
        Usage {
            input: past(self.input),
            output: past(self.output),
            cache_read: past(self.cache_read),
            cache_write: past(self.cache_write),
            cache_write_1h: past(self.cache_write_1h).min(past(self.cache_write)),
            thoughts: past(self.thoughts),
        }
    }

    /// The prompt the request sent, as the model's window saw it: input,
    /// cache reads and cache writes.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }
}

/// What was spent on one model in one quarter hour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spend {
    /// Quarter hours since the epoch (UTC).
    pub quarter: u32,
    /// The model, as an index into [`UsageByModel::models`].
    pub model: u16,
    /// The tokens.
    pub usage: Usage,
    /// Of them, those past [`LONG_CONTEXT`] in their request.
    pub long: Usage,
}

/// A session's usage by model, in the order the models first appear.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageByModel {
    /// `(model, usage)`; the model is empty when the agent did not say.
    pub models: Vec<(String, Usage)>,
    /// Per model (as in `models`), the tokens past [`LONG_CONTEXT`] in
    /// their request.
    pub long: Vec<Usage>,
    /// When it was spent (requests whose time is known).
    pub spends: Vec<Spend>,
}

/// How much of each session's usage a listing reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageDetail {
    /// Each model's tokens ([`UsageTotals`]): what `list` shows and sorts by.
    Totals,
    /// And when they were spent, by quarter hour: what the usage report
    /// sums by day.
    ByQuarterHour,
}

/// [`UsageByModel`] read without when it was spent: what a listing needs
/// (each model's tokens and their cost), without holding a session's
/// quarter hours, which in a session used over days are most of its usage.
/// Its fields are [`UsageByModel`]'s, in the same order: the same bytes
/// decode (postcard reads by position).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct UsageTotals {
    models: Vec<(String, Usage)>,
    long: Vec<Usage>,
    #[serde(deserialize_with = "read_past_spends")]
    _spends: (),
}

/// Reads each [`Spend`] of a sequence and keeps none.
fn read_past_spends<'de, D: serde::Deserializer<'de>>(d: D) -> Result<(), D::Error> {
    struct Past;
    impl<'de> serde::de::Visitor<'de> for Past {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("the quarter hours of a usage")
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element::<Spend>()?.is_some() {}
            Ok(())
        }
    }
    d.deserialize_seq(Past)
}

impl From<UsageTotals> for UsageByModel {
    /// Its totals, with no quarter hours.
    fn from(totals: UsageTotals) -> UsageByModel {
        UsageByModel {
            models: totals.models,
            long: totals.long,
            spends: Vec::new(),
        }
    }
}

impl UsageByModel {
    /// Adds `usage` spent on `model` in one request, at `at` (seconds
    /// since the epoch) when the agent says.
    pub fn add_request(&mut self, model: &str, usage: &Usage, at: Option<f64>) {
        self.add_spend(model, usage, usage.past_long_context(), at);
    }

    /// Adds `usage` spent on `model` over many requests, the sum the agent
    /// recorded at `at` (Copilot CLI's, at the end of a run): dated, but
    /// with no request's tokens known past the long-context mark.
    pub fn add_sum_at(&mut self, model: &str, usage: &Usage, at: Option<f64>) {
        self.add_spend(model, usage, Usage::default(), at);
    }

    fn add_spend(&mut self, model: &str, usage: &Usage, long: Usage, at: Option<f64>) {
        let index = self.add_total(model, usage, &long);
        let Some(at) = at.filter(|t| t.is_finite() && *t >= 0.0) else {
            return;
        };
        let quarter = (at / QUARTER_HOUR) as u32;
        let model = u16::try_from(index).unwrap_or(u16::MAX);
        // Requests come mostly in time order: the newest bucket first.
        match self
            .spends
            .iter_mut()
            .rev()
            .find(|s| s.quarter == quarter && s.model == model)
        {
            Some(s) => {
                s.usage.add(usage);
                s.long.add(&long);
            }
            None => self.spends.push(Spend {
                quarter,
                model,
                usage: *usage,
                long,
            }),
        }
    }

    /// Adds `usage` spent on `model` with no time and no request known
    /// (a sum the agent recorded).
    pub fn add(&mut self, model: &str, usage: &Usage) {
        self.add_total(model, usage, &Usage::default());
    }

    fn add_total(&mut self, model: &str, usage: &Usage, long: &Usage) -> usize {
        let index = match self.models.iter().position(|(m, _)| m == model) {
            Some(at) => at,
            None => {
                self.models.push((model.to_string(), Usage::default()));
                self.models.len() - 1
            }
        };
        self.models[index].1.add(usage);
        if self.long.len() < self.models.len() {
            self.long.resize(self.models.len(), Usage::default());
        }
        self.long[index].add(long);
        index
    }

    /// Adds everything `other` spent (a subagent's usage to its parent's).
    pub fn merge(&mut self, other: &UsageByModel) {
        let mut index_of = Vec::with_capacity(other.models.len());
        for (i, (model, usage)) in other.models.iter().enumerate() {
            let long = other.long.get(i).copied().unwrap_or_default();
            index_of.push(self.add_total(model, usage, &long));
        }
        for s in &other.spends {
            let Some(&model) = index_of.get(usize::from(s.model)) else {
                continue;
            };
            self.spends.push(Spend {
                model: u16::try_from(model).unwrap_or(u16::MAX),
                ..*s
            });
        }
    }

    /// The tokens of model `index` past [`LONG_CONTEXT`] in their request.
    pub fn long_of(&self, index: usize) -> Usage {
        self.long.get(index).copied().unwrap_or_default()
    }

    /// Every model's usage added up.
    pub fn total(&self) -> Usage {
        let mut total = Usage::default();
        for (_, u) in &self.models {
            total.add(u);
        }
        total
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The totals read from what a whole usage wrote are its models and
    /// their long-context parts, and the reading ends where the usage
    /// does (what follows it in a manifest is read right).
    #[test]
    fn totals_read_a_whole_usage_without_its_quarter_hours() {
        let mut whole = UsageByModel::default();
        for (n, model) in ["opus", "sonnet", "opus"].iter().enumerate() {
            let at = 1_700_000_000.0 + 2000.0 * n as f64;
            whole.add_request(model, &u(300_000 + n as u64), Some(at));
        }
        assert_eq!(whole.spends.len(), 3);
        let bytes = postcard::to_stdvec(&(Some(&whole), 77u32)).unwrap();
        let (totals, after): (Option<UsageTotals>, u32) = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(after, 77);
        let read = UsageByModel::from(totals.unwrap());
        assert_eq!(read.models, whole.models);
        assert_eq!(read.long, whole.long);
        assert!(read.spends.is_empty());
    }

    fn u(n: u64) -> Usage {
        Usage {
            input: n,
            output: 2 * n,
            cache_read: 3 * n,
            cache_write: 4 * n,
            ..Usage::default()
        }
    }

    #[test]
    fn models_add_up() {
        let mut by = UsageByModel::default();
        by.add("a", &u(1));
        by.add("b", &u(1));
        by.add("a", &u(1));
        assert_eq!(by.models.len(), 2);
        assert_eq!(by.total().total(), 30);
        assert_eq!(by.models[0].1.input, 2);
    }

    #[test]
    fn requests_keep_their_quarter_hour_and_their_long_part() {
        let mut by = UsageByModel::default();
        by.add_request("a", &u(1), Some(900.0 * 10.0 + 1.0));
        by.add_request("a", &u(1), Some(900.0 * 10.0 + 899.0));
        by.add_request("b", &u(100_000), Some(900.0 * 11.0));
        by.add_request("a", &u(1), None);
        assert_eq!(by.spends.len(), 2, "{:?}", by.spends);
        assert_eq!(by.spends[0].quarter, 10);
        assert_eq!(
            by.spends[0].usage,
            Usage {
                input: 2,
                output: 4,
                cache_read: 6,
                cache_write: 8,
                ..Usage::default()
            }
        );
        // 200k output, 300k cache reads, 400k writes: past 200k, 0, 100k, 200k.
        let long = by.long_of(1);
        assert_eq!(
            (long.input, long.output, long.cache_read, long.cache_write),
            (0, 0, 100_000, 200_000)
        );
        assert_eq!(by.spends[1].long, long);
        assert_eq!(
            by.models[0].1.input, 3,
            "the request without a time counts too"
        );
    }

    #[test]
    fn a_merge_keeps_models_long_parts_and_times() {
        let mut parent = UsageByModel::default();
        parent.add_request("a", &u(1), Some(0.0));
        let mut child = UsageByModel::default();
        child.add_request("b", &u(300_000), Some(1800.0));
        child.add_request("a", &u(1), Some(1800.0));
        parent.merge(&child);
        assert_eq!(
            parent
                .models
                .iter()
                .map(|(m, _)| m.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(parent.long_of(1).input, 100_000);
        assert_eq!(parent.spends.len(), 3);
        assert!(parent.spends.iter().any(|s| s.model == 1 && s.quarter == 2));
        assert_eq!(parent.total().input, 300_002);
    }
}
