//! What a session's recorded usage would cost: the dated price table in
//! `assets/prices.toml` (per model, per million tokens), with the person's
//! own prices from the config on top. Always an estimate: providers change
//! prices, discount batches and bill some tokens this table does not see.

use crate::store::format::usage::{Usage, UsageByModel};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The table shipped with this version.
const BUILTIN: &str = include_str!("../../../assets/prices.toml");

/// One model's prices, US dollars per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Input, not from the cache.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Input read from the prompt cache.
    #[serde(default)]
    pub cache_read: f64,
    /// Input written to the prompt cache.
    #[serde(default)]
    pub cache_write: f64,
}

impl ModelPrice {
    /// The cost of `u` at these prices.
    pub fn cost(&self, u: &Usage) -> f64 {
        (u.input as f64 * self.input
            + u.output as f64 * self.output
            + u.cache_read as f64 * self.cache_read
            + u.cache_write as f64 * self.cache_write)
            / 1e6
    }
}

/// Prices by model name, and the date they were listed.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PriceTable {
    /// When the built-in prices were read from the providers' lists.
    pub date: String,
    /// By model name (a prefix of the names agents record).
    pub models: BTreeMap<String, ModelPrice>,
}

/// A session's estimated cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CostEstimate {
    /// US dollars, for the models the table knows.
    pub usd: f64,
    /// The date of the prices used.
    pub prices_of: String,
    /// Models recorded that the table has no price for (their tokens are
    /// not in `usd`).
    pub unpriced_models: Vec<String>,
}

impl PriceTable {
    /// The table shipped with this version.
    pub fn builtin() -> PriceTable {
        toml::from_str(BUILTIN).expect("assets/prices.toml is checked by a test")
    }

    /// This table with `overrides` (from the config) replacing or adding models.
    pub fn with_overrides(mut self, overrides: &BTreeMap<String, ModelPrice>) -> PriceTable {
        for (model, price) in overrides {
            self.models.insert(model.clone(), *price);
        }
        self
    }

    /// The price of `model`: the longest name in the table it starts with.
    pub fn price_of(&self, model: &str) -> Option<&ModelPrice> {
        let model = model.to_ascii_lowercase();
        self.models
            .iter()
            .filter(|(name, _)| model.starts_with(name.as_str()))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| p)
    }

    /// The estimated cost of `usage`.
    pub fn estimate(&self, usage: &UsageByModel) -> CostEstimate {
        let mut out = CostEstimate {
            prices_of: self.date.clone(),
            ..CostEstimate::default()
        };
        for (model, u) in &usage.models {
            match self.price_of(model) {
                Some(price) => out.usd += price.cost(u),
                None if u.total() > 0 => {
                    let name = if model.is_empty() {
                        "(no model named)"
                    } else {
                        model
                    };
                    if !out.unpriced_models.iter().any(|m| m == name) {
                        out.unpriced_models.push(name.to_string());
                    }
                }
                None => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_table_reads_and_finds_models_by_their_longest_prefix() {
        let table = PriceTable::builtin();
        assert!(!table.date.is_empty());
        let sonnet = table.price_of("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!((sonnet.input, sonnet.cache_write), (3.0, 3.75));
        assert_eq!(table.price_of("gpt-5-codex").unwrap().input, 1.25);
        assert_eq!(table.price_of("gemini-2.5-flash-lite").unwrap().input, 0.1);
        assert!(table.price_of("mystery-model").is_none());
    }

    #[test]
    fn an_estimate_adds_models_and_names_the_unpriced() {
        let mut usage = UsageByModel::default();
        let u = Usage {
            input: 1_000_000,
            output: 100_000,
            cache_read: 2_000_000,
            cache_write: 0,
        };
        usage.add("claude-sonnet-4-5-20250929", &u);
        usage.add("mystery", &u);
        let mut overrides = BTreeMap::new();
        overrides.insert(
            "claude-sonnet-4-5".to_string(),
            ModelPrice {
                input: 1.0,
                output: 1.0,
                cache_read: 0.0,
                cache_write: 0.0,
            },
        );
        let est = PriceTable::builtin().estimate(&usage);
        assert!((est.usd - (3.0 + 1.5 + 0.6)).abs() < 1e-9, "{est:?}");
        assert_eq!(est.unpriced_models, ["mystery"]);
        let cheap = PriceTable::builtin()
            .with_overrides(&overrides)
            .estimate(&usage);
        assert!((cheap.usd - 1.1).abs() < 1e-9, "{cheap:?}");
    }
}
