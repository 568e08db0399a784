//! Text from a file made safe for a terminal, and for JSON a script may
//! print to one.
//!
//! A title, a cwd or a message is chosen by whoever wrote the file; raw, an
//! `ESC ] 0 ;` renames the terminal, OSC 52 writes the clipboard, `ESC [ 2 J`
//! clears the screen, a C1 `\u{9b}` is a CSI on some terminals, and a bidi
//! override makes a line read backwards. Every such character is shown as a
//! visible escape (`\x1b`, `\u202e`) made of printable ASCII alone, so the
//! result is safe to cut anywhere and making it safe twice changes nothing.

use std::borrow::Cow;

/// True for the bidi embedding, override and isolate controls
/// (U+202A to U+202E, U+2066 to U+2069).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// True for a character a terminal may act on rather than show: C0
/// controls, DEL, C1 controls and the bidi controls.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// `text` safe for a terminal, keeping the tabs and newlines a layout of
/// several lines wants.
pub fn safe_text(text: &str) -> Cow<'_, str> {
    escape(text, |c| matches!(c, '\t' | '\n'))
}

/// `text` safe for one line of a terminal: tabs and newlines escaped too.
pub fn safe_line(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

fn escape(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) && !keep(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The visible escape of `c`: `\x1b` below U+0080, `\u009b` above.
fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write;
    let code = c as u32;
    let _ = if code < 0x80 {
        write!(out, "\\x{code:02x}")
    } else {
        write!(out, "\\u{code:04x}")
    };
}

/// A `serde_json` formatter that also writes C1 controls, DEL and the bidi
/// controls as `\u` escapes (serde_json escapes only C0): the JSON means
/// the same to a parser, and printed raw it moves no terminal.
pub struct SafeJson<F>(pub F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for SafeJson<F> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // Printable ASCII (most of what is written) holds nothing to escape:
        // written as it is, without looking at it a character at a time.
        if fragment.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return self.0.write_string_fragment(writer, fragment);
        }
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|&(_, c)| is_unsafe(c)) {
            self.0.write_string_fragment(writer, &rest[..at])?;
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[at + c.len_utf8()..];
        }
        self.0.write_string_fragment(writer, rest)
    }

    // The other methods are delegated so pretty output keeps its layout.
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// `value` as pretty JSON with [`SafeJson`]'s escapes.
pub fn to_safe_json_pretty<T: serde::Serialize + ?Sized>(
    writer: impl std::io::Write,
    value: &T,
) -> serde_json::Result<()> {
    let formatter = SafeJson(serde_json::ser::PrettyFormatter::new());
    value.serialize(&mut serde_json::Serializer::with_formatter(
        writer, formatter,
    ))
}

/// `value` as one line of JSON with [`SafeJson`]'s escapes.
pub fn to_safe_json_line<T: serde::Serialize + ?Sized>(
    writer: impl std::io::Write,
    value: &T,
) -> serde_json::Result<()> {
    let formatter = SafeJson(serde_json::ser::CompactFormatter);
    value.serialize(&mut serde_json::Serializer::with_formatter(
        writer, formatter,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYLOADS: [&str; 9] = [
        "\x1b]0;owned\x07\x1b[2J",
        "\x1b]52;c;aGk=\x07",
        "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
        "\u{9b}31m",
        "bell\x07",
        "over\rwrite",
        "back\x08space",
        "del\x7f",
        "evil\u{202e}txt.exe\u{2066}",
    ];

    #[test]
    fn no_payload_leaves_a_character_a_terminal_acts_on() {
        for p in PAYLOADS {
            let line = safe_line(p);
            assert!(!line.chars().any(is_unsafe), "{p:?} -> {line:?}");
            assert!(line.is_ascii() || !line.chars().any(is_unsafe));
            let both = format!("{p}\n\t{p}");
            let text = safe_text(&both);
            assert!(
                !text.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'),
                "{text:?}"
            );
        }
        assert_eq!(safe_line("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(safe_line("a\u{202e}b"), "a\\u202eb");
        assert_eq!(safe_line("a\u{9b}b"), "a\\u009bb");
        assert_eq!(safe_line("a\tb\nc"), "a\\x09b\\x0ac");
        assert_eq!(safe_text("a\tb\nc"), "a\tb\nc");
    }

    #[test]
    fn plain_text_is_borrowed_and_twice_is_once() {
        assert!(matches!(safe_line("plain 東京 ✓"), Cow::Borrowed(_)));
        for p in PAYLOADS {
            let once = safe_line(p).into_owned();
            assert_eq!(safe_line(&once), once);
        }
    }

    #[test]
    fn json_escapes_c1_del_and_bidi_and_still_means_the_same() {
        let value = serde_json::json!({"t": "a\u{9b}b\u{202e}c\x7f\x1b"});
        let mut out = Vec::new();
        to_safe_json_pretty(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.chars().any(|c| is_unsafe(c) && c != '\n'), "{text}");
        assert!(
            text.contains("\\u009b") && text.contains("\\u202e"),
            "{text}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
        let mut line = Vec::new();
        to_safe_json_line(&mut line, &value).unwrap();
        assert!(!line.contains(&b'\n'));
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&line).unwrap(),
            value
        );
    }
}
