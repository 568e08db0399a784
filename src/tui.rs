//! The terminal UI: an Elm-style app (model, msg, pure update, effects run
//! by a worker, view split by pane) drawn on the terminal device itself, so
//! stdout stays free for the resume result: `cd "$(loki-sessions)"` works.

mod ask;
pub(crate) mod effect;
mod external;
pub(crate) mod finder;
pub mod headless;
pub(crate) mod keymap;
pub(crate) mod latest;
pub mod live;
pub mod matcher;
mod memory;
pub mod model;
pub(crate) mod msg;
pub(crate) mod ops;
pub(crate) mod pool;
pub(crate) mod runtime;
pub(crate) mod searcher;
mod signals;
pub use crate::render::theme;
pub(crate) use crate::render::transcript;
pub(crate) mod update;
pub(crate) mod view;
pub(crate) mod watcher;
pub(crate) mod worker;

use crate::store::{Store, now_seconds};
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use model::{Exit, External, Model, Settings};
use msg::Msg;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use runtime::Incoming;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;
use view::ViewState;

/// How the UI ended, and the display settings to remember.
#[derive(Debug)]
pub struct Outcome {
    /// Resume, cancel or a signal.
    pub exit: Exit,
    /// What the transcript showed last (thinking, tools, markdown).
    pub display: transcript::Display,
}

/// Runs the UI over `store` until the user resumes a session or quits.
/// `background` is the config's theme; without it the terminal is asked.
/// `keys` are the config's own keys, in force on this thread from now on.
pub fn run(
    store: Store,
    settings: Settings,
    background: Option<theme::Background>,
    keys: Arc<keymap::CustomKeys>,
) -> io::Result<Outcome> {
    keymap::custom::install(keys);
    let tty = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let (tx, rx) = mpsc::channel::<Incoming>();
    let signals = signals::Forward::start(tx.clone())?;
    let mut terminal = enter(tty.try_clone()?)?;
    install_panic_restore(tty.try_clone()?);
    let background = background.or_else(|| {
        let from_env = std::env::var("COLORFGBG").ok();
        from_env
            .as_deref()
            .and_then(theme::Background::from_colorfgbg)
    });
    // A terminal that does not answer within 100 ms is taken as dark and legacy.
    let answers = ask::ask(
        tty.try_clone()?,
        background.is_none(),
        Duration::from_millis(100),
    );
    if answers.keyboard_protocol {
        execute!(
            terminal.backend_mut(),
            PushKeyboardEnhancementFlags(ESC_APART)
        )?;
        KEYBOARD_PROTOCOL.store(true, Ordering::SeqCst);
    }
    let background = background.or(answers.background);
    let theme = theme::Theme::from_env(background.unwrap_or_default());
    let out = tty.try_clone()?;
    let result = run_on(&mut terminal, out, store, settings, theme, tx, &rx);
    leave(terminal.backend_mut())?;
    signals.ui_ended();
    result
}

fn run_on(
    terminal: &mut Terminal<CrosstermBackend<BufWriter<File>>>,
    mut out: File,
    store: Store,
    settings: Settings,
    theme: theme::Theme,
    tx: mpsc::Sender<Incoming>,
    rx: &mpsc::Receiver<Incoming>,
) -> io::Result<Outcome> {
    let (msg_tx, msg_rx) = mpsc::channel();
    // Worker replies and terminal events share one queue into the loop.
    let forward = tx.clone();
    std::thread::spawn(move || {
        for msg in msg_rx {
            if forward.send(Incoming::Msg(msg)).is_err() {
                return;
            }
        }
    });
    let input = tx.clone();
    let reading = Arc::new(InputPause::default());
    let pause = reading.clone();
    std::thread::spawn(move || read_input(&input, &pause));
    // Token tables take a tenth of a second to build: start before they are needed.
    crate::store::prewarm(settings.encoding);
    transcript::prewarm();
    let worker = worker::Worker::new(Arc::new(store), msg_tx, now_seconds);
    let mut model = Model::new(settings, now_seconds());
    let mut state = ViewState::new(theme);
    let mut tty = out.try_clone()?;
    let mut handed = out.try_clone()?;
    // Written between frames, never while one is drawn. A write that fails
    // here fails the next draw too, which ends the loop with the error.
    let mut mouse = out.try_clone()?;
    let mut mouse_capture = |on: bool| {
        let _ = if on {
            execute!(mouse, EnableMouseCapture)
        } else {
            execute!(mouse, DisableMouseCapture)
        };
    };
    let mut write = |text: &str| {
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    };
    let mut suspend = |mouse: bool| {
        // Restored as the shell expects it, then stopped as Ctrl-Z stops a
        // program in cooked mode; `fg` continues here.
        let _ = leave(&mut CrosstermBackend::new(&mut tty));
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::TSTP);
        let _ = take_terminal(&mut tty, mouse);
    };
    let said = tx.clone();
    let mut external = |program: &External, mouse: bool| {
        reading.hold();
        let _ = leave(&mut CrosstermBackend::new(&mut handed));
        let outcome = external::run(program, theme, &handed);
        let _ = take_terminal(&mut handed, mouse);
        reading.release();
        let _ = said.send(Incoming::Msg(Msg::Ran(outcome)));
    };
    let mut host = runtime::Host {
        perform: &mut |e| worker.perform(e),
        clock: now_seconds,
        mouse_capture: &mut mouse_capture,
        write: &mut write,
        suspend: &mut suspend,
        external: &mut external,
    };
    runtime::run_loop(terminal, &mut model, &mut state, rx, &mut host)?;
    Ok(Outcome {
        exit: model.exit.unwrap_or(Exit::Cancel),
        display: model.app.settings.display,
    })
}

/// Whether the input thread may read the terminal: not while a program
/// the terminal is handed to reads it (the keys are the program's).
#[derive(Default)]
struct InputPause {
    /// Asked to stop reading.
    held: AtomicBool,
    /// The input thread has stopped reading (set by it alone).
    idle: AtomicBool,
}

impl InputPause {
    /// Stops the input thread reading and waits until it has (it looks
    /// every 250 ms; a second at most).
    fn hold(&self) {
        self.held.store(true, Ordering::SeqCst);
        let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while !self.idle.load(Ordering::SeqCst) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Lets it read again.
    fn release(&self) {
        // Cleared here, before the thread can read: a later hold never
        // takes an old "idle" for a new one.
        self.idle.store(false, Ordering::SeqCst);
        self.held.store(false, Ordering::SeqCst);
    }
}

/// Reads the terminal's events into the loop's queue, in turns short
/// enough to stop reading soon when `pause` says so (a program handed the
/// terminal waits a turn at most) and long enough to cost nothing idle.
fn read_input(input: &mpsc::Sender<Incoming>, pause: &InputPause) {
    let turn = std::time::Duration::from_millis(250);
    loop {
        if pause.held.load(Ordering::SeqCst) {
            pause.idle.store(true, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        }
        match crossterm::event::poll(turn) {
            Ok(false) => continue,
            Ok(true) => {}
            Err(_) => return,
        }
        let Ok(event) = crossterm::event::read() else {
            return;
        };
        if input.send(Incoming::Event(event)).is_err() {
            return;
        }
    }
}

/// The terminal the frames are drawn on: buffered, so a frame is one
/// write (ratatui flushes after each), not one per escape sequence.
fn enter(mut tty: File) -> io::Result<Terminal<CrosstermBackend<BufWriter<File>>>> {
    take_terminal(&mut tty, true)?;
    Terminal::new(CrosstermBackend::new(BufWriter::new(tty)))
}

/// The kitty keyboard protocol's first level: Esc and the keys that
/// legacy terminals send as escape sequences come as sequences of their
/// own, so two Esc keys in one read are two (see `ask`).
const ESC_APART: KeyboardEnhancementFlags = KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES;

/// The protocol's flags are pushed: leaving (at the end, on Ctrl-Z, in a
/// panic) pops them, and coming back from Ctrl-Z pushes them again. The
/// terminal is one per process, so is this.
static KEYBOARD_PROTOCOL: AtomicBool = AtomicBool::new(false);

/// Raw mode, the alternate screen, bracketed paste (a paste arrives as one
/// event of text, never as keys), the keyboard protocol if the terminal
/// took it before and, if `mouse`, mouse capture.
fn take_terminal(tty: &mut File, mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    execute!(tty, EnterAlternateScreen, EnableBracketedPaste)?;
    if KEYBOARD_PROTOCOL.load(Ordering::SeqCst) {
        execute!(tty, PushKeyboardEnhancementFlags(ESC_APART))?;
    }
    if mouse {
        execute!(tty, EnableMouseCapture)?;
    }
    Ok(())
}

fn leave<W: Write>(tty: &mut CrosstermBackend<W>) -> io::Result<()> {
    disable_raw_mode()?;
    if KEYBOARD_PROTOCOL.load(Ordering::SeqCst) {
        execute!(tty, PopKeyboardEnhancementFlags)?;
    }
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
        if KEYBOARD_PROTOCOL.load(Ordering::SeqCst) {
            let _ = execute!(out, PopKeyboardEnhancementFlags);
        }
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
