//! Driving the real loop without a terminal: keys go through the keymap,
//! `update` and the worker exactly as in a session, on a `TestBackend`.
//! Effects run synchronously on the calling thread, so every step ends with
//! all replies handled: tests and benchmarks are deterministic.

use crate::store::Store;
use crate::tui::effect::Effect;
use crate::tui::matcher::Matcher;
use crate::tui::model::{Model, Settings};
use crate::tui::msg::Msg;
use crate::tui::runtime::{self, Incoming};
use crate::tui::theme::Theme;
use crate::tui::view::ViewState;
use crate::tui::worker::Worker;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

/// A UI session on a virtual screen.
pub struct Headless {
    /// The screen.
    pub terminal: Terminal<TestBackend>,
    /// The state.
    pub model: Model,
    /// Render-time state.
    pub state: ViewState,
    incoming: Receiver<Incoming>,
    sender: Sender<Incoming>,
    worker: Worker,
    matcher: Matcher,
    replies: Receiver<Msg>,
}

impl Headless {
    /// Opens the UI on `store` with a `width` x `height` screen at time `now`.
    pub fn open(
        store: Store,
        settings: Settings,
        width: u16,
        height: u16,
        now: f64,
        clock: fn() -> f64,
    ) -> Self {
        let (sender, incoming) = mpsc::channel();
        let (reply_tx, replies) = mpsc::channel();
        let (match_tx, _match_rx) = mpsc::channel();
        let worker = Worker::new(Arc::new(store), reply_tx, match_tx, clock);
        let mut ui = Headless {
            terminal: Terminal::new(TestBackend::new(width, height))
                .expect("a test backend never fails"),
            model: Model::new(settings, now),
            state: ViewState::new(Theme { color: false }),
            incoming,
            sender,
            worker,
            matcher: Matcher::default(),
            replies,
        };
        let mut pending = Vec::new();
        let mut collect = |e| pending.push(e);
        let _ = runtime::start(&mut ui.terminal, &mut ui.model, &mut ui.state, &mut collect);
        ui.run_effects(pending);
        ui.settle();
        ui
    }

    /// Types `key` and handles everything it leads to, then redraws.
    pub fn press(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        let _ = self
            .sender
            .send(Incoming::Event(Event::Key(KeyEvent::new(code, modifiers))));
        self.settle();
    }

    /// Types each character of `text`.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.press(KeyCode::Char(c), KeyModifiers::NONE);
        }
    }

    /// Resizes the screen.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.terminal.backend_mut().resize(width, height);
        let _ = self
            .sender
            .send(Incoming::Event(Event::Resize(width, height)));
        self.settle();
    }

    /// Handles queued events and replies until nothing is left, then draws.
    pub fn settle(&mut self) {
        loop {
            for msg in self.replies.try_iter() {
                let _ = self.sender.send(Incoming::Msg(msg));
            }
            let Ok(first) = self.incoming.try_recv() else {
                break;
            };
            let mut effects = Vec::new();
            let mut collect = |e| effects.push(e);
            runtime::handle_burst(&mut self.model, first, &self.incoming, &mut collect);
            self.run_effects(effects);
        }
        let (model, state) = (&self.model, &mut self.state);
        let _ = self
            .terminal
            .draw(|frame| crate::tui::view::draw(frame, model, state));
    }

    fn run_effects(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::IndexForSearch { rows } => self.matcher.index(rows),
                Effect::ResetSearch => self.matcher.reset(),
                Effect::SortFacts { rows } => self.matcher.facts(rows),
                Effect::Filter { req, query, sort } => {
                    let rows = self
                        .matcher
                        .query_progressive(&query, sort, |_| true)
                        .unwrap_or_default();
                    let _ = self.sender.send(Incoming::Msg(Msg::Filtered {
                        req,
                        query,
                        rows,
                        complete: true,
                    }));
                }
                other => self.worker.run_now(other),
            }
        }
    }

    /// The screen as text, one line per row, drawn afresh (so no cell is
    /// left over from an earlier frame) with wide characters counted once.
    pub fn screen(&self) -> String {
        let area = self.terminal.backend().buffer().area;
        let mut fresh = Terminal::new(TestBackend::new(area.width, area.height))
            .expect("a test backend never fails");
        let mut state = self.state;
        let _ = fresh.draw(|frame| crate::tui::view::draw(frame, &self.model, &mut state));
        let buffer = fresh.backend().buffer();
        let width = usize::from(buffer.area.width);
        buffer
            .content
            .chunks(width)
            .map(|row| {
                let mut line = String::new();
                let mut skip = 0;
                for cell in row {
                    if skip > 0 {
                        skip -= 1;
                        continue;
                    }
                    let symbol = cell.symbol();
                    skip = unicode_width::UnicodeWidthStr::width(symbol).saturating_sub(1);
                    line.push_str(symbol);
                }
                line.trim_end().to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
