//! Driving the real loop without a terminal: keys go through the keymap,
//! `update` and the same store operations (`ops::Runner`) and latest-wins
//! jobs as in a session, on a `TestBackend`. Effects run synchronously on
//! the calling thread, so every step ends with all replies handled: tests
//! and benchmarks are deterministic.

use crate::render::theme::Theme;
use crate::store::Store;
use crate::tui::effect::Effect;
use crate::tui::finder::Finder;
use crate::tui::latest;
use crate::tui::matcher::Matcher;
use crate::tui::model::{Model, Settings};
use crate::tui::msg::Msg;
use crate::tui::ops::Runner;
use crate::tui::runtime::{self, Incoming};
use crate::tui::searcher::Searcher;
use crate::tui::view::ViewState;
use crate::tui::watcher::Watching;
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
    runner: Runner,
    matcher: Matcher,
    searcher: Searcher,
    finder: Finder,
    replies: Receiver<Msg>,
    /// Where the worker's replies wait for the next turn (the message
    /// search's too, as when it was one of the worker's effects).
    reply_tx: Sender<Msg>,
    applied: runtime::Applied,
    /// What the UI wrote to the terminal besides drawing (OSC 52 copies),
    /// in order.
    pub written: Vec<String>,
    /// How many times the model asked the terminal to suspend (Ctrl-Z).
    pub suspended: u64,
    /// The programs the model asked to hand the terminal to, in order.
    pub ran: Vec<crate::tui::model::External>,
    /// The disk's watcher (a real thread: what it sees arrives with the
    /// replies, handled by [`Headless::settle`] and [`Headless::wait_until`]).
    watching: Watching,
    store: Arc<Store>,
    clock: fn() -> f64,
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
        let store = Arc::new(store);
        let searcher = Searcher::new(store.clone());
        let runner = Runner::new(store.clone(), clock);
        let mut ui = Headless {
            terminal: Terminal::new(TestBackend::new(width, height))
                .expect("a test backend never fails"),
            model: Model::new(settings, now),
            state: ViewState::new(Theme::plain()),
            incoming,
            sender,
            runner,
            matcher: Matcher::default(),
            searcher,
            finder: Finder::default(),
            replies,
            reply_tx,
            applied: runtime::Applied::default(),
            written: Vec::new(),
            suspended: 0,
            ran: Vec::new(),
            watching: Watching::default(),
            store,
            clock,
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

    /// Handles what arrives (the watcher's reports among it) until
    /// `done(model)` holds or `limit` passes; true if it held.
    pub fn wait_until(
        &mut self,
        limit: std::time::Duration,
        mut done: impl FnMut(&Model) -> bool,
    ) -> bool {
        let end = std::time::Instant::now() + limit;
        loop {
            self.settle();
            if done(&self.model) {
                return true;
            }
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            match self
                .replies
                .recv_timeout(left.min(std::time::Duration::from_millis(50)))
            {
                Ok(msg) => {
                    let _ = self.sender.send(Incoming::Msg(msg));
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return done(&self.model),
            }
        }
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
            let written = &mut self.written;
            let suspended = &mut self.suspended;
            let ran = &mut self.ran;
            runtime::apply(
                &self.model,
                &mut self.applied,
                &mut |_| {},
                &mut |text| written.push(text.to_string()),
                &mut |_| *suspended += 1,
                &mut |program, _| ran.push(program.clone()),
            );
            self.run_effects(effects);
        }
        let (model, state) = (&self.model, &mut self.state);
        let _ = self
            .terminal
            .draw(|frame| crate::tui::view::draw(frame, model, state));
    }

    fn run_effects(&mut self, effects: Vec<Effect>) {
        let sender = self.sender.clone();
        let mut send = |msg| sender.send(Incoming::Msg(msg)).is_ok();
        for effect in effects {
            match effect {
                Effect::Matcher(job) => latest::run_now(&mut self.matcher, job, &mut send),
                Effect::Search(job) => {
                    let replies = &self.reply_tx;
                    let mut send = |msg| replies.send(msg).is_ok();
                    latest::run_now(&mut self.searcher, job, &mut send)
                }
                Effect::Find(job) => latest::run_now(&mut self.finder, job, &mut send),
                Effect::Store { req, op } => {
                    let replies = &self.reply_tx;
                    self.runner
                        .perform(req, op, &|msg| replies.send(msg).is_ok());
                }
                Effect::ContinueFill { generation } => {
                    let _ = self.reply_tx.send(Msg::FillIndexed { generation });
                }
                Effect::FreeStats { stats } => drop(stats),
                Effect::Watch(options) => {
                    self.watching
                        .start(&self.store, options, self.reply_tx.clone(), self.clock);
                }
                Effect::AskHost {
                    req,
                    host,
                    deadline,
                } => {
                    let reply = crate::tui::ops::ask_host(&host, deadline);
                    let _ = self.reply_tx.send(Msg::reply(req, reply));
                }
                Effect::Pull(job) => {
                    let req = job.req;
                    let _ = self.reply_tx.send(Msg::reply(req, job.run(&self.store)));
                }
            }
        }
    }

    /// The screen drawn afresh on a new virtual terminal.
    fn fresh(&self) -> Terminal<TestBackend> {
        let area = self.terminal.backend().buffer().area;
        let mut fresh = Terminal::new(TestBackend::new(area.width, area.height))
            .expect("a test backend never fails");
        let mut state = self.state;
        let _ = fresh.draw(|frame| crate::tui::view::draw(frame, &self.model, &mut state));
        fresh
    }

    /// The screen with its styles: each row as text, then under it each run
    /// of cells in a style of its own (`  3-11 fg:Cyan +BOLD`), so a
    /// snapshot shows the colours a theme gives.
    pub fn styled_screen(&self) -> String {
        let text = self.screen();
        let fresh = self.fresh();
        let buffer = fresh.backend().buffer();
        let width = usize::from(buffer.area.width);
        let mut out = Vec::new();
        for (row, line) in buffer.content.chunks(width).zip(text.lines()) {
            out.push(line.to_string());
            let mut runs: Vec<(usize, usize, String)> = Vec::new();
            for (x, cell) in row.iter().enumerate() {
                let style = describe_style(cell);
                match runs.last_mut() {
                    Some((_, end, last)) if *last == style && *end == x => *end = x + 1,
                    _ => runs.push((x, x + 1, style)),
                }
            }
            for (start, end, style) in runs.into_iter().filter(|r| !r.2.is_empty()) {
                out.push(format!("  {start}-{} {style}", end - 1));
            }
        }
        out.join("\n")
    }

    /// The screen as text, one line per row, drawn afresh (so no cell is
    /// left over from an earlier frame) with wide characters counted once.
    pub fn screen(&self) -> String {
        let fresh = self.fresh();
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

/// A cell's colours and modifiers, empty for the terminal's defaults.
fn describe_style(cell: &ratatui::buffer::Cell) -> String {
    use ratatui::style::{Color, Modifier};
    let mut parts = Vec::new();
    if cell.fg != Color::Reset {
        parts.push(format!("fg:{:?}", cell.fg));
    }
    if cell.bg != Color::Reset {
        parts.push(format!("bg:{:?}", cell.bg));
    }
    if cell.modifier != Modifier::empty() {
        parts.push(format!("+{:?}", cell.modifier));
    }
    parts.join(" ")
}
