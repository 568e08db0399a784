//! How full a session's context is: as the agent's API saw it at the last
//! request the agent recorded, plus what was appended since (counted here,
//! an estimate), in the window the agent recorded, else the model's, else
//! the one configured; or, for a session whose agent records none, the
//! transcript counted here.

use crate::store::ops::pricing::PriceTable;
use crate::store::sources::agent_read::RecordedContext;
use serde::Serialize;
use std::sync::OnceLock;

/// A session's context: its tokens, where they come from, its window.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextFigure {
    /// The tokens in the context now.
    pub tokens: u64,
    /// What the API took at the last recorded request (input, cache reads
    /// and cache writes), when the agent records it.
    pub recorded: Option<u64>,
    /// When that request was made (seconds since the epoch).
    pub recorded_at: Option<f64>,
    /// Tokens of the messages appended after it, counted here.
    pub estimated_after: u64,
    /// The model's context window.
    pub window: u64,
    /// `tokens` over `window`.
    pub fraction: f64,
    /// `recorded` (the agent's figure, plus what came after) or `counted`
    /// (the transcript counted here: no system prompt, no tools, another
    /// tokenizer than the model's).
    pub source: &'static str,
}

impl ContextFigure {
    /// The figure of a session whose transcript counts `counted` tokens
    /// here, whose agent recorded `recorded`; `configured` is the window
    /// when neither the file nor the model says one.
    pub fn of(
        counted: Option<u64>,
        recorded: Option<&RecordedContext>,
        configured: u64,
    ) -> Option<ContextFigure> {
        let window = recorded
            .and_then(|r| r.window.or_else(|| model_window(&r.model)))
            .unwrap_or(configured)
            .max(1);
        let figure = match recorded {
            Some(r) => ContextFigure {
                tokens: r.tokens + r.counted_after,
                recorded: Some(r.tokens),
                recorded_at: r.at,
                estimated_after: r.counted_after,
                window,
                fraction: 0.0,
                source: "recorded",
            },
            None => ContextFigure {
                tokens: counted?,
                recorded: None,
                recorded_at: None,
                estimated_after: 0,
                window,
                fraction: 0.0,
                source: "counted",
            },
        };
        Some(ContextFigure {
            fraction: figure.tokens as f64 / window as f64,
            ..figure
        })
    }

    /// True when the figure is the agent's own (with an estimate for what
    /// came after it at most).
    pub fn is_recorded(&self) -> bool {
        self.source == "recorded"
    }
}

/// The context window the price list gives `model`. Remembered by each
/// thread: a listing asks it for every row, of a few models, and finding a
/// model in the list makes the names it may be listed under.
pub fn model_window(model: &str) -> Option<u64> {
    static TABLE: OnceLock<PriceTable> = OnceLock::new();
    thread_local! {
        static KNOWN: std::cell::RefCell<rustc_hash::FxHashMap<String, Option<u64>>> =
            Default::default();
    }
    KNOWN.with_borrow_mut(|known| {
        if let Some(window) = known.get(model) {
            return *window;
        }
        let window = TABLE
            .get_or_init(PriceTable::builtin)
            .price_of(model)
            .and_then(|p| p.window);
        known.insert(model.to_string(), window);
        window
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_figure_wins_with_what_came_after_and_the_models_window() {
        let recorded = RecordedContext {
            tokens: 21_552,
            model: "claude-opus-4-6".into(),
            counted_after: 448,
            ..RecordedContext::default()
        };
        let f = ContextFigure::of(Some(6_286), Some(&recorded), 200_000).unwrap();
        assert_eq!(
            (f.tokens, f.recorded, f.estimated_after),
            (22_000, Some(21_552), 448)
        );
        assert_eq!(f.window, 1_000_000, "the model's window");
        assert!(f.is_recorded() && (f.fraction - 0.022).abs() < 1e-9);
        let codex = RecordedContext {
            tokens: 100_000,
            window: Some(272_000),
            model: "gpt-5-codex".into(),
            ..RecordedContext::default()
        };
        assert_eq!(
            ContextFigure::of(None, Some(&codex), 1).unwrap().window,
            272_000
        );
        let counted = ContextFigure::of(Some(50_000), None, 200_000).unwrap();
        assert_eq!((counted.source, counted.window), ("counted", 200_000));
        assert!(ContextFigure::of(None, None, 200_000).is_none());
        let unknown = RecordedContext {
            tokens: 5,
            model: "acme".into(),
            ..RecordedContext::default()
        };
        assert_eq!(
            ContextFigure::of(None, Some(&unknown), 128_000)
                .unwrap()
                .window,
            128_000
        );
    }
}
