//! Tokens an agent recorded as spent, as the provider billed them: input
//! (not counting what was read from the cache), output, cache reads and
//! cache writes, per model so a price can be put on each.

use serde::{Deserialize, Serialize};

/// The four kinds of tokens a provider bills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens, cache reads excluded.
    pub input: u64,
    /// Output tokens (reasoning included where the agent counts it there).
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
}

impl Usage {
    /// All four added up.
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }

    /// Adds `other` to this.
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }
}

/// A session's usage by model, in the order the models first appear.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageByModel {
    /// `(model, usage)`; the model is empty when the agent did not say.
    pub models: Vec<(String, Usage)>,
}

impl UsageByModel {
    /// Adds `usage` spent on `model`.
    pub fn add(&mut self, model: &str, usage: &Usage) {
        match self.models.iter_mut().find(|(m, _)| m == model) {
            Some((_, u)) => u.add(usage),
            None => self.models.push((model.to_string(), *usage)),
        }
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

    #[test]
    fn models_add_up() {
        let mut by = UsageByModel::default();
        let u = Usage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
        };
        by.add("a", &u);
        by.add("b", &u);
        by.add("a", &u);
        assert_eq!(by.models.len(), 2);
        assert_eq!(by.total().total(), 30);
        assert_eq!(by.models[0].1.input, 2);
    }
}
