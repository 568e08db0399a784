//! The event loop: turns terminal events into `Msg`s through the keymap, runs
//! `update`, hands effects to the worker, and redraws. Generic over the
//! ratatui backend so tests and benchmarks drive the real loop headless.

use crate::tui::effect::Effect;
use crate::tui::keymap;
use crate::tui::model::{External, Model};
use crate::tui::msg::Msg;
use crate::tui::update;
use crate::tui::view::{self, ViewState};
use crossterm::event::{Event, MouseEventKind};
use ratatui::Terminal;
use ratatui::backend::Backend;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What reaches the loop: terminal events and worker replies.
#[derive(Debug)]
// A reply carries a session record once per action; boxing buys nothing.
#[allow(clippy::large_enum_variant)]
pub enum Incoming {
    /// A terminal event (keys are mapped with the model's current scope).
    Event(Event),
    /// A reply from a worker.
    Msg(Msg),
}

/// How long the loop waits before a clock tick.
const TICK: Duration = Duration::from_secs(1);
/// Longest stretch of message handling before a redraw.
const FRAME: Duration = Duration::from_millis(16);

/// What the loop needs from the terminal session it runs in.
pub struct Host<'a> {
    /// Starts an effect without blocking.
    pub perform: &'a mut dyn FnMut(Effect),
    /// Reads the time.
    pub clock: fn() -> f64,
    /// Turns the terminal's mouse capture on or off.
    pub mouse_capture: &'a mut dyn FnMut(bool),
    /// Writes bytes to the terminal between frames (an OSC 52 copy).
    pub write: &'a mut dyn FnMut(&str),
    /// Gives the terminal back, stops the process until it is continued,
    /// and takes the terminal again (with the mouse captured if true).
    pub suspend: &'a mut dyn FnMut(bool),
    /// Gives the terminal to a program (the pager, the editor) until it
    /// ends, and takes it again (with the mouse captured if true).
    pub external: &'a mut dyn FnMut(&External, bool),
}

/// What the terminal was last told, so each request of the model is
/// applied once.
#[derive(Clone, Copy, Debug)]
pub struct Applied {
    /// The mouse is captured.
    pub mouse_capture: bool,
    /// The tag of the last text put on the clipboard.
    pub clipboard: u64,
    /// Suspensions done.
    pub suspend: u64,
    /// The tag of the last program run.
    pub external: u64,
}

impl Default for Applied {
    /// The terminal as the UI starts it: the mouse captured, nothing copied.
    fn default() -> Self {
        Applied {
            mouse_capture: true,
            clipboard: 0,
            suspend: 0,
            external: 0,
        }
    }
}

/// Applies what the model asks of the terminal and has not been applied:
/// mouse capture, text for the clipboard (written as OSC 52), a
/// suspension and a program to run. True when the terminal was given away
/// (suspended, or to the program): the screen must then be drawn whole
/// again.
pub fn apply(
    model: &Model,
    applied: &mut Applied,
    mouse_capture: &mut dyn FnMut(bool),
    write: &mut dyn FnMut(&str),
    suspend: &mut dyn FnMut(bool),
    external: &mut dyn FnMut(&External, bool),
) -> bool {
    if model.app.mouse_capture != applied.mouse_capture {
        applied.mouse_capture = model.app.mouse_capture;
        mouse_capture(applied.mouse_capture);
    }
    if let Some((tag, text)) = &model.app.clipboard
        && *tag != applied.clipboard
    {
        applied.clipboard = *tag;
        write(&osc52(text));
    }
    if model.app.suspend != applied.suspend {
        applied.suspend = model.app.suspend;
        suspend(applied.mouse_capture);
        return true;
    }
    if let Some((tag, program)) = &model.app.external
        && *tag != applied.external
    {
        applied.external = *tag;
        external(program, applied.mouse_capture);
        return true;
    }
    false
}

/// The escape sequence that asks the terminal to put `text` on the
/// clipboard (OSC 52, `c`: the clipboard; base64; ended by BEL). It works
/// over ssh; tmux passes it on with `set-clipboard on`.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(DIGITS[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Runs until the model asks to exit or the channel closes.
/// What the model asks of the terminal (`App::mouse_capture`,
/// `App::clipboard`) is applied after each burst, before the redraw; the
/// terminal starts with the mouse captured.
pub fn run_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    model: &mut Model,
    state: &mut ViewState,
    incoming: &Receiver<Incoming>,
    host: &mut Host,
) -> Result<(), B::Error> {
    start(terminal, model, state, host.perform)?;
    let mut applied = Applied::default();
    loop {
        let first = match incoming.recv_timeout(TICK) {
            Ok(item) => item,
            Err(RecvTimeoutError::Timeout) => {
                let now = (host.clock)();
                // Nothing on screen moves faster than a minute ("5 minutes
                // ago"): a tick within the minute changes no cell, and an
                // idle UI draws no frame for it.
                if same_minute(model.app.now, now) {
                    dispatch(model, Msg::Tick(now), host.perform);
                    continue;
                }
                Incoming::Msg(Msg::Tick(now))
            }
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        };
        if !handle_burst(model, first, incoming, host.perform) {
            return Ok(());
        }
        if apply(
            model,
            &mut applied,
            host.mouse_capture,
            host.write,
            host.suspend,
            host.external,
        ) {
            // The screen came back empty: a frame of blanks makes the next
            // frame draw every cell (`Terminal::clear` would ask the
            // terminal where its cursor is, an answer the input thread eats).
            terminal.draw(|frame| frame.render_widget(ratatui::widgets::Clear, frame.area()))?;
        }
        terminal.draw(|frame| view::draw(frame, model, state))?;
    }
}

/// True when `a` and `b` (seconds since the epoch) fall in the same minute.
fn same_minute(a: f64, b: f64) -> bool {
    (a / 60.0).floor() == (b / 60.0).floor()
}

/// Sizes the model to the terminal, runs the start-up effects, draws once.
pub fn start<B: Backend>(
    terminal: &mut Terminal<B>,
    model: &mut Model,
    state: &mut ViewState,
    perform: &mut dyn FnMut(Effect),
) -> Result<(), B::Error> {
    if let Ok(size) = terminal.size() {
        update::update(model, Msg::Resize(size.width, size.height));
    }
    for effect in update::init(model) {
        perform(effect);
    }
    terminal.draw(|frame| view::draw(frame, model, state))?;
    Ok(())
}

/// Handles `first` and everything already queued behind it (up to a frame's
/// worth), so a burst of worker replies costs one redraw, not hundreds.
/// Returns false when the loop should end.
pub fn handle_burst(
    model: &mut Model,
    first: Incoming,
    incoming: &Receiver<Incoming>,
    perform: &mut dyn FnMut(Effect),
) -> bool {
    let started = Instant::now();
    let mut next = Some(first);
    while let Some(item) = next.take() {
        match item {
            Incoming::Event(event) => handle_event(model, event, perform),
            Incoming::Msg(msg) => dispatch(model, msg, perform),
        }
        if model.exit.is_some() {
            return false;
        }
        if started.elapsed() < FRAME {
            next = incoming.try_recv().ok();
        }
    }
    true
}

fn handle_event(model: &mut Model, event: Event, perform: &mut dyn FnMut(Effect)) {
    let msg = match event {
        Event::Key(key) => keymap::to_msg(model, key),
        Event::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollDown => Some(Msg::Scroll(3)),
            MouseEventKind::ScrollUp => Some(Msg::Scroll(-3)),
            _ => None,
        },
        Event::Resize(width, height) => Some(Msg::Resize(width, height)),
        // A paste is text, never keys: one message, however long.
        Event::Paste(text) => Some(Msg::Paste(text)),
        _ => None,
    };
    if let Some(msg) = msg {
        dispatch(model, msg, perform);
    }
}

fn dispatch(model: &mut Model, msg: Msg, perform: &mut dyn FnMut(Effect)) {
    for effect in update::update(model, msg) {
        perform(effect);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_base64_of_the_text() {
        assert_eq!(osc52(""), "\x1b]52;c;\x07");
        assert_eq!(osc52("f"), "\x1b]52;c;Zg==\x07");
        assert_eq!(osc52("fo"), "\x1b]52;c;Zm8=\x07");
        assert_eq!(osc52("foobar"), "\x1b]52;c;Zm9vYmFy\x07");
        assert_eq!(osc52("é東"), "\x1b]52;c;w6nmnbE=\x07");
    }
}
