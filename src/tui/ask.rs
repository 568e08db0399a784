//! What the UI asks the terminal once at the start: its background colour
//! (OSC 11) and whether it speaks the kitty keyboard protocol (`CSI ? u`).
//!
//! The protocol matters for Esc: a legacy terminal sends Esc as the lone
//! byte that also starts every escape sequence, so two Esc keys that arrive
//! in one read (`ESC ESC`) decode as one key. Under the protocol's first
//! level (disambiguate) Esc is `CSI 27 u`, and two are two.

use super::theme::Background;
use std::fs::File;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// The terminal's answers; a question it did not answer reads as `None` or
/// `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Answers {
    /// Its background, if asked and answered.
    pub background: Option<Background>,
    /// It answered the keyboard protocol's query, so it takes the flags.
    pub keyboard_protocol: bool,
}

/// Asks, then reads the answers up to the attributes' (DA1), which every
/// terminal gives and gives last: nothing is left behind for the keys.
/// Waits `wait` at most (a terminal that answers nothing, as a serial line).
pub(crate) fn ask(mut tty: File, background: bool, wait: Duration) -> Answers {
    let mut question = Vec::new();
    if background {
        question.extend_from_slice(b"\x1b]11;?\x1b\\");
    }
    question.extend_from_slice(b"\x1b[?u\x1b[c");
    if tty.write_all(&question).and_then(|()| tty.flush()).is_err() {
        return Answers::default();
    }
    let deadline = Instant::now() + wait;
    let mut answer = Vec::new();
    let mut buf = [0u8; 256];
    while !has_attributes(&answer) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let mut fds = [rustix::event::PollFd::new(
            &tty,
            rustix::event::PollFlags::IN,
        )];
        let timeout = rustix::event::Timespec::try_from(left.max(Duration::from_millis(1)))
            .unwrap_or(rustix::event::Timespec {
                tv_sec: 1,
                tv_nsec: 0,
            });
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(ready) if ready > 0 => {}
            _ => break,
        }
        match tty.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    parse(&answer)
}

/// Reads the answers out of what the terminal sent.
pub(crate) fn parse(answer: &[u8]) -> Answers {
    let text = String::from_utf8_lossy(answer);
    Answers {
        background: Background::from_osc11(&text),
        keyboard_protocol: private_csi(&text).any(|(_, end)| end == 'u'),
    }
}

/// The attributes' answer, `ESC [ ? … c`, has come.
fn has_attributes(answer: &[u8]) -> bool {
    private_csi(&String::from_utf8_lossy(answer)).any(|(_, end)| end == 'c')
}

/// Every complete `ESC [ ? params final` in `text`, as (params, final).
fn private_csi(text: &str) -> impl Iterator<Item = (&str, char)> {
    text.split("\x1b[?").skip(1).filter_map(|rest| {
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
        Some((&rest[..end], rest[end..].chars().next()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kitty_terminal_answers_the_flags_before_its_attributes() {
        let kitty = parse(b"\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?0u\x1b[?62;22c");
        assert_eq!(kitty.background, Some(Background::Dark));
        assert!(kitty.keyboard_protocol);
        assert!(has_attributes(b"\x1b[?0u\x1b[?62;22c"));
    }

    #[test]
    fn a_legacy_terminal_answers_only_its_attributes() {
        let legacy = parse(b"\x1b[?1;2c");
        assert_eq!(legacy, Answers::default());
        // The flags' answer alone is not the end: the attributes come after it.
        assert!(!has_attributes(b"\x1b[?1u"));
        assert!(!has_attributes(b"\x1b[?62;2"));
    }
}
