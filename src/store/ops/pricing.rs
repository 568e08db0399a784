//! What a session's recorded usage would cost: the dated price table in
//! `assets/prices.toml` (per model, per million tokens), with the person's
//! own prices from the config on top. Always an estimate: providers change
//! prices, discount batches and bill some tokens this table does not see.

use crate::store::format::usage::{Usage, UsageByModel};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The table shipped with this version.
const BUILTIN: &str = include_str!("../../../assets/prices.toml");

/// One model's prices, US dollars per million tokens, and its window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Input, not from the cache.
    pub input: f64,
    /// Output.
    pub output: f64,
    /// Input read from the prompt cache (unlisted: a tenth of `input`).
    #[serde(default)]
    pub cache_read: Option<f64>,
    /// Input written to the prompt cache for five minutes (unlisted: 1.25
    /// times `input`); a one-hour write costs twice `input`.
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Long-context prices: for the tokens of a request past its first
    /// 200k of each kind (unlisted: the prices above).
    #[serde(default)]
    pub input_above_200k: Option<f64>,
    /// See `input_above_200k`.
    #[serde(default)]
    pub output_above_200k: Option<f64>,
    /// See `input_above_200k`.
    #[serde(default)]
    pub cache_read_above_200k: Option<f64>,
    /// See `input_above_200k`.
    #[serde(default)]
    pub cache_write_above_200k: Option<f64>,
    /// The context window the list gives (tokens).
    #[serde(default)]
    pub window: Option<u64>,
}

impl ModelPrice {
    /// The cost of `u`, `long` of it past 200k tokens of a kind in its
    /// request, as ccusage prices it: 5-minute cache writes at
    /// `cache_write`, one-hour ones at twice `input`, thinking recorded
    /// apart at `output`.
    pub fn cost(&self, u: &Usage, long: &Usage) -> f64 {
        let base = u.minus(long);
        let at = |input: f64, output: f64, read: Option<f64>, write: Option<f64>, u: &Usage| {
            let read = read.unwrap_or(input * 0.1);
            let write = write.unwrap_or(input * 1.25);
            let five_minute = u.cache_write.saturating_sub(u.cache_write_1h);
            (u.input as f64 * input
                + (u.output + u.thoughts) as f64 * output
                + u.cache_read as f64 * read
                + five_minute as f64 * write
                + u.cache_write_1h as f64 * input * 2.0)
                / 1e6
        };
        let input = self.input_above_200k.unwrap_or(self.input);
        at(
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            &base,
        ) + at(
            input,
            self.output_above_200k.unwrap_or(self.output),
            self.cache_read_above_200k.or(self.cache_read),
            self.cache_write_above_200k.or(self.cache_write),
            long,
        )
    }
}

/// Prices by model name, and the date they were listed.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct PriceTable {
    /// When the built-in prices were read from the list.
    pub date: String,
    /// Where they were read from.
    #[serde(default)]
    pub source: String,
    /// By model name, as the agents record them.
    pub models: BTreeMap<String, ModelPrice>,
}

/// The price table a store estimates with, made when it is first asked
/// for: the shipped table is a hundred models of TOML to parse (most of a
/// millisecond), and most commands price nothing; a listing prices on the
/// core that decodes its index, not before its first look at the disk.
#[derive(Debug)]
pub struct Prices {
    table: std::sync::OnceLock<PriceTable>,
    /// The config's prices, put over the shipped table when it is made.
    overrides: Option<BTreeMap<String, ModelPrice>>,
}

impl Prices {
    /// The shipped table with `overrides` on top, made when first asked for.
    pub fn shipped_with(overrides: Option<BTreeMap<String, ModelPrice>>) -> Prices {
        Prices {
            table: std::sync::OnceLock::new(),
            overrides,
        }
    }
}

impl std::ops::Deref for Prices {
    type Target = PriceTable;

    fn deref(&self) -> &PriceTable {
        self.table.get_or_init(|| {
            let shipped = PriceTable::builtin();
            match &self.overrides {
                Some(overrides) => shipped.with_overrides(overrides),
                None => shipped,
            }
        })
    }
}

/// A session's estimated cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CostEstimate {
    /// US dollars, for the models the table knows (None when it knows
    /// none of those recorded: unpriced, never $0).
    pub usd: Option<f64>,
    /// The date of the prices used.
    pub prices_of: String,
    /// Models recorded that the table has no price for (their tokens are
    /// not in `usd`).
    pub unpriced_models: Vec<String>,
}

impl PriceTable {
    /// The table shipped with this version.
    pub fn builtin() -> PriceTable {
        // Parsed once per process: every command's start asks for it, and
        // the table is a hundred models of TOML.
        static TABLE: std::sync::LazyLock<PriceTable> = std::sync::LazyLock::new(|| {
            toml::from_str(BUILTIN).expect("assets/prices.toml is checked by a test")
        });
        TABLE.clone()
    }

    /// This table with `overrides` (from the config) replacing or adding models.
    pub fn with_overrides(mut self, overrides: &BTreeMap<String, ModelPrice>) -> PriceTable {
        for (model, price) in overrides {
            let model = model.to_ascii_lowercase();
            // An override of `claude-sonnet-4-5` prices its dated names too.
            self.models
                .retain(|listed, _| without_date(listed) != Some(model.as_str()));
            self.models.insert(model, *price);
        }
        self
    }

    /// The price of `model`: by its exact name, else by its name without a
    /// provider's prefix (`anthropic/`), a long-context mark (`[1m]`) or a
    /// date (`-20250929`, `@20250929`, `-2025-08-07`). Never by another
    /// model's prefix: `claude-opus-4-6` is not `claude-opus-4`.
    pub fn price_of(&self, model: &str) -> Option<&ModelPrice> {
        model_names(model)
            .into_iter()
            .find_map(|name| self.models.get(&name))
    }

    /// The estimated cost of `usage`.
    pub fn estimate(&self, usage: &UsageByModel) -> CostEstimate {
        self.estimate_by(usage, &mut |model| self.price_of(model).copied())
    }

    /// The estimated costs of many sessions' usage, each model's price
    /// looked up once (a listing prices 10,000 sessions of a few models).
    pub fn estimator(&self) -> impl FnMut(&UsageByModel) -> CostEstimate + '_ {
        let mut known: rustc_hash::FxHashMap<String, Option<ModelPrice>> = Default::default();
        move |usage| {
            self.estimate_by(usage, &mut |model| match known.get(model) {
                Some(price) => *price,
                None => {
                    let price = self.price_of(model).copied();
                    known.insert(model.to_string(), price);
                    price
                }
            })
        }
    }

    /// [`PriceTable::estimate`], each model's price asked of `price_of`.
    fn estimate_by(
        &self,
        usage: &UsageByModel,
        price_of: &mut dyn FnMut(&str) -> Option<ModelPrice>,
    ) -> CostEstimate {
        let mut out = CostEstimate {
            prices_of: self.date.clone(),
            ..CostEstimate::default()
        };
        for (i, (model, u)) in usage.models.iter().enumerate() {
            match price_of(model) {
                Some(price) => {
                    *out.usd.get_or_insert(0.0) += price.cost(u, &usage.long_of(i));
                }
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
        if out.usd.is_none() && out.unpriced_models.is_empty() {
            out.usd = Some(0.0);
        }
        out
    }
}

/// The names `model` may be listed under, the most exact first.
fn model_names(model: &str) -> Vec<String> {
    let mut name = model.trim().to_ascii_lowercase();
    for prefix in ["anthropic/", "openai/", "google/", "gemini/", "models/"] {
        if let Some(rest) = name.strip_prefix(prefix) {
            name = rest.to_string();
        }
    }
    let mut out = vec![name.clone()];
    if let Some(rest) = name.strip_suffix("[1m]") {
        name = rest.to_string();
        out.push(name.clone());
    }
    if let Some((base, _)) = name.split_once('@') {
        out.push(base.to_string());
    }
    if let Some(base) = without_date(&name) {
        out.push(base.to_string());
    }
    // Copilot CLI writes Claude's versions with a dot (`claude-sonnet-4.5`),
    // Anthropic with a dash.
    if name.starts_with("claude-") && name.contains('.') {
        out.push(name.replace('.', "-"));
    }
    out
}

/// `name` without a trailing date (`-20250929`, `-2025-08-07`).
fn without_date(name: &str) -> Option<&str> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((base, date)) = name.rsplit_once('-')
        && date.len() == 8
        && digits(date)
    {
        return Some(base);
    }
    let bytes = name.as_bytes();
    if name.len() > 11 && bytes[name.len() - 11] == b'-' {
        let (base, date) = name.split_at(name.len() - 11);
        let parts: Vec<&str> = date[1..].split('-').collect();
        if parts.len() == 3 && parts.iter().all(|p| digits(p)) && parts[0].len() == 4 {
            return Some(base);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, read: u64, write: u64) -> Usage {
        Usage {
            input,
            output,
            cache_read: read,
            cache_write: write,
            ..Usage::default()
        }
    }

    #[test]
    fn the_builtin_table_reads_and_prices_the_models_agents_record_today() {
        let table = PriceTable::builtin();
        assert!(!table.date.is_empty() && table.source.starts_with("litellm"));
        let sonnet = table.price_of("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!((sonnet.input, sonnet.cache_write), (3.0, Some(3.75)));
        // Opus 4.5 and 4.6 cost $5 / $25, not Opus 4's $15 / $75.
        for opus in [
            "claude-opus-4-6",
            "claude-opus-4-5-20251101",
            "claude-opus-4-5",
            "claude-opus-4.5",
        ] {
            let p = table.price_of(opus).unwrap_or_else(|| panic!("{opus}"));
            assert_eq!((p.input, p.output), (5.0, 25.0), "{opus}");
        }
        assert_eq!(
            table.price_of("claude-opus-4-20250514").unwrap().input,
            15.0
        );
        for model in [
            "claude-sonnet-4-20250514",
            "claude-haiku-4-5-20251001",
            "claude-3-7-sonnet-20250219",
            "gpt-5",
            "gpt-5-codex",
            "gpt-5.1-codex",
            "gemini-2.5-pro",
            "gemini-2.5-flash",
            "anthropic/claude-sonnet-4-5",
            "claude-sonnet-4-5-20250929[1m]",
        ] {
            assert!(table.price_of(model).is_some(), "{model} is priced");
        }
        assert_eq!(
            table.price_of("claude-opus-4-6").unwrap().window,
            Some(1_000_000)
        );
        assert!(table.price_of("mystery-model").is_none());
        assert!(
            table.price_of("claude-opus-4-99").is_none(),
            "no prefix across versions"
        );
        assert!(
            table.price_of("claude-3-sonnet-20240229").is_none(),
            "not listed"
        );
    }

    #[test]
    fn cache_writes_are_priced_by_their_duration_and_long_requests_at_their_rates() {
        let p = ModelPrice {
            input: 3.0,
            output: 15.0,
            cache_read: Some(0.3),
            cache_write: Some(3.75),
            input_above_200k: Some(6.0),
            output_above_200k: Some(22.5),
            ..ModelPrice::default()
        };
        let mut u = usage(1_000_000, 0, 0, 1_000_000);
        u.cache_write_1h = 400_000;
        // 1M input at 3; 600k 5-minute writes at 3.75, 400k 1-hour at 6.
        let cost = p.cost(&u, &Usage::default());
        assert!((cost - (3.0 + 2.25 + 2.4)).abs() < 1e-9, "{cost}");
        let long = usage(100_000, 0, 0, 0);
        let cost = p.cost(&usage(300_000, 0, 0, 0), &long);
        assert!((cost - (0.6 + 0.6)).abs() < 1e-9, "{cost}");
        // Unlisted cache prices: a tenth and 1.25 times the input.
        let bare = ModelPrice {
            input: 2.0,
            output: 8.0,
            ..ModelPrice::default()
        };
        let cost = bare.cost(&usage(0, 0, 1_000_000, 1_000_000), &Usage::default());
        assert!((cost - (0.2 + 2.5)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn an_estimate_adds_models_and_names_the_unpriced_never_zero() {
        let mut by = UsageByModel::default();
        let u = usage(1_000_000, 100_000, 2_000_000, 0);
        by.add("claude-sonnet-4-5-20250929", &u);
        by.add("mystery", &u);
        let est = PriceTable::builtin().estimate(&by);
        assert!(
            (est.usd.unwrap() - (3.0 + 1.5 + 0.6)).abs() < 1e-9,
            "{est:?}"
        );
        assert_eq!(est.unpriced_models, ["mystery"]);
        let mut only_unknown = UsageByModel::default();
        only_unknown.add("gemini-9-ultra", &u);
        let est = PriceTable::builtin().estimate(&only_unknown);
        assert_eq!(est.usd, None, "unpriced, not $0");
        let mut overrides = BTreeMap::new();
        overrides.insert(
            "claude-sonnet-4-5".to_string(),
            ModelPrice {
                input: 1.0,
                output: 1.0,
                cache_read: Some(0.0),
                cache_write: Some(0.0),
                ..ModelPrice::default()
            },
        );
        let cheap = PriceTable::builtin()
            .with_overrides(&overrides)
            .estimate(&by);
        assert!((cheap.usd.unwrap() - 1.1).abs() < 1e-9, "{cheap:?}");
    }

    #[test]
    fn dates_and_marks_come_off_a_name_but_nothing_else() {
        assert_eq!(
            without_date("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(without_date("gpt-5-2025-08-07"), Some("gpt-5"));
        assert_eq!(without_date("gpt-5-codex"), None);
        assert_eq!(without_date("claude-opus-4-6"), None);
        assert!(
            model_names("Anthropic/claude-opus-4@20250514").contains(&"claude-opus-4".to_string())
        );
    }
}
