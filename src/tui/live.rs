//! The real loop with its real threads (worker, matcher), on a virtual
//! screen: what the benchmarks measure. Unlike `headless`, effects run in
//! the background exactly as in a terminal session, so times are real.

use crate::render::theme::Theme;
use crate::store::{Store, now_seconds};
use crate::tui::model::{Model, Settings};
use crate::tui::runtime::{self, Incoming};
use crate::tui::view::{self, ViewState};
use crate::tui::worker::Worker;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// A UI session with live background work, drawn on a `TestBackend`.
pub struct Live {
    /// The screen.
    pub terminal: Terminal<TestBackend>,
    /// The state.
    pub model: Model,
    state: ViewState,
    incoming: Receiver<Incoming>,
    sender: Sender<Incoming>,
    worker: Worker,
    /// The longest time the loop spent handling one burst and drawing.
    pub longest_turn: Duration,
    applied: runtime::Applied,
}

impl Live {
    /// Starts the UI on `store`; returns at once (the scan runs on).
    pub fn open(store: Store, settings: Settings, width: u16, height: u16) -> Self {
        let (sender, incoming) = mpsc::channel::<Incoming>();
        let (msg_tx, msg_rx) = mpsc::channel();
        let forward = sender.clone();
        std::thread::spawn(move || {
            for msg in msg_rx {
                if forward.send(Incoming::Msg(msg)).is_err() {
                    return;
                }
            }
        });
        let worker = Worker::new(Arc::new(store), msg_tx, now_seconds);
        crate::render::transcript::prewarm();
        let mut live = Live {
            terminal: Terminal::new(TestBackend::new(width, height))
                .expect("a test backend never fails"),
            model: Model::new(settings, now_seconds()),
            state: ViewState::new(Theme::dark()),
            incoming,
            sender,
            worker,
            longest_turn: Duration::ZERO,
            applied: runtime::Applied::default(),
        };
        let worker = live.worker.clone();
        let _ = runtime::start(
            &mut live.terminal,
            &mut live.model,
            &mut live.state,
            &mut |e| worker.perform(e),
        );
        live
    }

    /// Presses a key (it is handled by the next `run_until`).
    pub fn key(&self, code: KeyCode, modifiers: KeyModifiers) {
        let _ = self
            .sender
            .send(Incoming::Event(Event::Key(KeyEvent::new(code, modifiers))));
    }

    /// Pastes `text` (bracketed paste: one event).
    pub fn paste(&self, text: &str) {
        let _ = self
            .sender
            .send(Incoming::Event(Event::Paste(text.to_string())));
    }

    /// Runs the loop (handle what arrives, draw) until `done(model)` holds
    /// after a draw, or `limit` passes; returns the time it took, if it held.
    pub fn run_until(
        &mut self,
        limit: Duration,
        mut done: impl FnMut(&Model) -> bool,
    ) -> Option<Duration> {
        let started = Instant::now();
        loop {
            if done(&self.model) {
                return Some(started.elapsed());
            }
            let left = limit.checked_sub(started.elapsed())?;
            let first = match self
                .incoming
                .recv_timeout(left.min(Duration::from_millis(50)))
            {
                Ok(item) => item,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return None,
            };
            let turn = Instant::now();
            let worker = self.worker.clone();
            runtime::handle_burst(&mut self.model, first, &self.incoming, &mut |e| {
                worker.perform(e)
            });
            runtime::apply(
                &self.model,
                &mut self.applied,
                &mut |_| {},
                &mut |_| {},
                &mut |_| {},
                &mut |_, _| {},
            );
            let (model, state) = (&self.model, &mut self.state);
            let _ = self.terminal.draw(|frame| view::draw(frame, model, state));
            self.longest_turn = self.longest_turn.max(turn.elapsed());
        }
    }
}
