//! SIGTERM, SIGHUP and SIGINT sent to the process (not typed: in raw mode
//! Ctrl-C is a key) end the UI through its loop, so the terminal is put
//! back (cooked mode, main screen, cursor) before the process exits with
//! 128 + the signal's number.

use crate::tui::msg::Msg;
use crate::tui::runtime::Incoming;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

/// Forwards signals to the UI's loop while it runs.
pub struct Forward {
    running: Arc<AtomicBool>,
}

impl Forward {
    /// Starts forwarding to `loop_tx`.
    pub fn start(loop_tx: Sender<Incoming>) -> io::Result<Forward> {
        let mut signals = Signals::new([SIGTERM, SIGHUP, SIGINT])?;
        let running = Arc::new(AtomicBool::new(true));
        let ui = running.clone();
        std::thread::spawn(move || {
            for signal in signals.forever() {
                let delivered = ui.load(Ordering::SeqCst)
                    && loop_tx.send(Incoming::Msg(Msg::Signal(signal))).is_ok();
                // After the UI (say, while a resume command runs in the
                // foreground), SIGINT is the child's to act on, as in a
                // shell; the others end us as they normally would.
                if !delivered && signal != SIGINT {
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                }
            }
        });
        Ok(Forward { running })
    }

    /// The terminal is restored: from now on signals act as they normally do.
    pub fn ui_ended(&self) {
        self.running.store(false, Ordering::SeqCst);
    }
}
