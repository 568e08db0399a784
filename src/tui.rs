//! The terminal UI: an Elm-style app (model, msg, pure update, effects run
//! by a worker, view split by pane) drawn on the terminal device itself, so
//! stdout stays free for the resume result: `cd "$(loki-sessions)"` works.

pub mod effect;
pub mod headless;
pub mod keymap;
pub mod live;
pub mod matcher;
pub mod model;
pub mod msg;
pub mod runtime;
pub mod searcher;
mod signals;
pub mod theme;
pub mod update;
pub mod view;
pub mod worker;
pub mod wrap;

use crate::store::{Store, now_seconds};
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use model::{Exit, Model, Settings};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use runtime::Incoming;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::mpsc;
use view::ViewState;

/// Runs the UI over `store` until the user resumes a session or quits.
pub fn run(store: Store, settings: Settings) -> io::Result<Exit> {
    let tty = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let (tx, rx) = mpsc::channel::<Incoming>();
    let signals = signals::Forward::start(tx.clone())?;
    let mut terminal = enter(tty.try_clone()?)?;
    install_panic_restore(tty.try_clone()?);
    let mouse = tty.try_clone()?;
    let result = run_on(&mut terminal, mouse, store, settings, tx, &rx);
    leave(terminal.backend_mut())?;
    signals.ui_ended();
    result
}

fn run_on(
    terminal: &mut Terminal<CrosstermBackend<File>>,
    mut mouse: File,
    store: Store,
    settings: Settings,
    tx: mpsc::Sender<Incoming>,
    rx: &mpsc::Receiver<Incoming>,
) -> io::Result<Exit> {
    let (msg_tx, msg_rx) = mpsc::channel();
    let (match_tx, match_rx) = mpsc::channel();
    // Worker replies and terminal events share one queue into the loop.
    let forward = tx.clone();
    std::thread::spawn(move || {
        for msg in msg_rx {
            if forward.send(Incoming::Msg(msg)).is_err() {
                return;
            }
        }
    });
    let matcher_replies = msg_tx.clone();
    std::thread::spawn(move || matcher::run(match_rx, matcher_replies));
    let input = tx.clone();
    std::thread::spawn(move || {
        while let Ok(event) = crossterm::event::read() {
            if input.send(Incoming::Event(event)).is_err() {
                return;
            }
        }
    });
    // Token tables take a tenth of a second to build: start before they are needed.
    crate::store::prewarm(settings.encoding);
    let worker = worker::Worker::new(Arc::new(store), msg_tx, match_tx, now_seconds);
    let mut model = Model::new(settings, now_seconds());
    let mut state = ViewState::new(theme::Theme::from_env());
    // Written between frames, never while one is drawn. A write that fails
    // here fails the next draw too, which ends the loop with the error.
    let mut mouse_capture = |on: bool| {
        let _ = if on {
            execute!(mouse, EnableMouseCapture)
        } else {
            execute!(mouse, DisableMouseCapture)
        };
    };
    let mut host = runtime::Host {
        perform: &mut |e| worker.perform(e),
        clock: now_seconds,
        mouse_capture: &mut mouse_capture,
    };
    runtime::run_loop(terminal, &mut model, &mut state, rx, &mut host)?;
    Ok(model.exit.unwrap_or(Exit::Cancel))
}

fn enter(mut tty: File) -> io::Result<Terminal<CrosstermBackend<File>>> {
    enable_raw_mode()?;
    // Bracketed paste: a paste arrives as one event of text, never as keys.
    execute!(
        tty,
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )?;
    Terminal::new(CrosstermBackend::new(tty))
}

fn leave(tty: &mut CrosstermBackend<File>) -> io::Result<()> {
    disable_raw_mode()?;
    execute!(
        tty,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    )?;
    tty.flush()
}

/// Restores the terminal before the panic report (installed after
/// color-eyre's hook, which then prints on a usable screen).
fn install_panic_restore(tty: File) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = disable_raw_mode();
        let mut out = &tty;
        let _ = execute!(
            out,
            DisableBracketedPaste,
            DisableMouseCapture,
            LeaveAlternateScreen,
            crossterm::cursor::Show
        );
        previous(info);
    }));
}
