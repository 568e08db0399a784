//! A conversation as one document: each message a block of lines (its
//! parts rendered: markdown, thinking, tool calls and results, media),
//! laid out in rows of the screen's width only when it is needed. Pure
//! text work, shared by the viewer's transcript mode and by
//! `loki-sessions show --format transcript`, so both print the same thing.
//!
//! Each part has a *search text*: what the transcript shows of it in full
//! (markdown rendered, controls cleaned). A search finds positions in it,
//! so a match is found whether or not its part is folded on screen, and
//! unfolding the part shows it where it was found.

mod highlight;
mod markdown;
pub mod paint;
pub mod printed;
mod rows;

pub use highlight::{prewarm, prewarm_languages};
pub use rows::{Laid, Row};

use crate::humanize;
use crate::store::{Message, Part};
use std::ops::Range;

/// Lines of a tool call or result shown when tools are truncated.
pub const TRUNCATED_LINES: usize = 6;

/// Bytes of one part the transcript holds; `show --message` prints the rest.
pub const PART_LIMIT: usize = 256 * 1024;

/// How much the transcript shows; remembered between runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Display {
    /// The model's reasoning in full (else one line saying it is there).
    pub thinking: bool,
    /// How much of tool calls and results.
    pub tools: Tools,
    /// Text as written, markdown not rendered.
    pub raw: bool,
}

/// How much of tool calls and results the transcript shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tools {
    /// A line naming each, no body.
    Off,
    /// The first [`TRUNCATED_LINES`] lines and how many more there are.
    #[default]
    Truncated,
    /// Everything.
    Full,
}

impl Tools {
    /// The next setting: off, truncated, full, off…
    pub fn next(self) -> Tools {
        match self {
            Tools::Off => Tools::Truncated,
            Tools::Truncated => Tools::Full,
            Tools::Full => Tools::Off,
        }
    }

    /// Its name, as the config and `--tools` write it.
    pub fn name(self) -> &'static str {
        match self {
            Tools::Off => "off",
            Tools::Truncated => "truncated",
            Tools::Full => "full",
        }
    }
}

impl std::str::FromStr for Tools {
    type Err = String;
    fn from_str(s: &str) -> Result<Tools, String> {
        match s {
            "off" => Ok(Tools::Off),
            "truncated" => Ok(Tools::Truncated),
            "full" => Ok(Tools::Full),
            other => Err(format!(
                "unknown tools setting {other:?}: off, truncated or full"
            )),
        }
    }
}

/// What a stretch of text is; the theme gives each its colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Class {
    /// Plain text.
    #[default]
    Plain,
    /// A markdown heading.
    Heading,
    /// Inline code.
    Code,
    /// A fenced code block's text (no colour of its own).
    CodeBlock,
    /// A link's text.
    Link,
    /// Rules, table borders.
    Rule,
    /// Bullets and task boxes.
    Marker,
    /// The line naming a part (`thinking`, `tool call bash c1`).
    Label,
    /// The model's reasoning.
    Thinking,
    /// The body of a tool call or result.
    Tool,
    /// A placeholder for an image, audio, a pdf.
    Media,
    /// Something said about the text (`… 12 more lines`, a link's address).
    Note,
    /// Code: a comment.
    SynComment,
    /// Code: a string.
    SynString,
    /// Code: a number or a constant.
    SynConstant,
    /// Code: a keyword.
    SynKeyword,
    /// Code: a type.
    SynType,
    /// Code: a function's name.
    SynFunction,
}

/// A class with the emphasis markdown adds to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Look {
    /// What it is.
    pub class: Class,
    /// `**strong**`.
    pub bold: bool,
    /// `*emphasis*`.
    pub italic: bool,
    /// `~~struck~~`.
    pub strike: bool,
}

impl Look {
    /// A class with no emphasis.
    pub const fn of(class: Class) -> Look {
        Look {
            class,
            bold: false,
            italic: false,
            strike: false,
        }
    }
}

/// One line of a block (before wrapping).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Its bytes in the block's text.
    pub text: Range<usize>,
    /// Drawn before its first row (a bullet, a quote's bar, an indent).
    pub first: String,
    /// Drawn before the rows it wraps to.
    pub rest: String,
    /// Its look where no span says otherwise.
    pub look: Look,
    /// The part it shows, and where its text starts in that part's search text.
    pub source: Option<(usize, usize)>,
}

/// A stretch of a line's text with a look of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Bytes of the block's text.
    pub text: Range<usize>,
    /// Its look.
    pub look: Look,
}

/// Lines being written: a block, or one part's search text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Body {
    /// Every line's text, a line break between lines.
    pub text: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// Looks of stretches of lines, in order.
    pub spans: Vec<Span>,
    /// The part being written: its index and where its text starts.
    part: Option<(usize, usize)>,
}

impl Body {
    /// Starts a line drawn after `first` (then `rest` on the rows it wraps to).
    pub fn start_line(&mut self, first: String, rest: String, look: Look) {
        if !self.lines.is_empty() {
            self.text.push('\n');
        }
        let at = self.text.len();
        self.lines.push(Line {
            text: at..at,
            first,
            rest,
            look,
            source: self.part.map(|(part, start)| (part, at - start)),
        });
    }

    /// Adds `text` (one line's worth, no line break) to the current line.
    pub fn push(&mut self, text: &str, look: Look) {
        if self.lines.is_empty() {
            self.start_line(String::new(), String::new(), Look::default());
        }
        let start = self.text.len();
        push_clean(&mut self.text, text);
        let end = self.text.len();
        if let Some(line) = self.lines.last_mut() {
            line.text.end = end;
            if look != line.look && end > start {
                self.spans.push(Span {
                    text: start..end,
                    look,
                });
            }
        }
    }

    /// A line of its own.
    fn line(&mut self, text: &str, look: Look) {
        self.start_line(String::new(), String::new(), look);
        self.push(text, look);
    }
}

/// Adds `text` with tabs as four spaces, carriage returns and newlines
/// dropped (a line's text) and every other character a terminal would act
/// on (escapes, C1, bidi controls) as its visible escape (`\x1b`).
pub fn push_clean(out: &mut String, text: &str) {
    use crate::store::safe_text::{is_unsafe, safe_line};
    if !text.chars().any(is_unsafe) {
        out.push_str(text);
        return;
    }
    for (at, c) in text.char_indices() {
        match c {
            '\t' => out.push_str("    "),
            '\r' | '\n' => {}
            c if is_unsafe(c) => out.push_str(&safe_line(&text[at..at + c.len_utf8()])),
            c => out.push(c),
        }
    }
}

/// A part's text up to [`PART_LIMIT`], and how many bytes were left out.
fn limited(text: &str) -> (&str, usize) {
    if text.len() <= PART_LIMIT {
        return (text, 0);
    }
    let mut at = PART_LIMIT;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    (&text[..at], text.len() - at)
}

/// What a part is, for folding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fold {
    /// Always shown.
    Never,
    /// Shown with thinking.
    Thinking,
    /// Shown with tools.
    Tool,
}

/// A part's label line (none for text), body, class and fold.
fn describe<'a>(part: &Part<'a>) -> (Option<String>, &'a str, Class, Fold) {
    match *part {
        Part::Text(text) => (None, text, Class::Plain, Fold::Never),
        Part::Thinking(text) => (
            Some("thinking".into()),
            text,
            Class::Thinking,
            Fold::Thinking,
        ),
        Part::ToolUse {
            name, arguments, ..
        } => (
            Some(label(part, &format!("tool call {name}"))),
            arguments,
            Class::Tool,
            Fold::Tool,
        ),
        Part::ToolResult { content, .. } => (
            Some(label(part, "tool result")),
            content,
            Class::Tool,
            Fold::Tool,
        ),
        Part::ToolDefinition { name, description } => (
            Some(format!("tool {name}")),
            description,
            Class::Tool,
            Fold::Tool,
        ),
        Part::Media {
            kind,
            media_type,
            bytes,
        } => {
            let mut text = format!("[{kind}");
            if let Some(mt) = media_type {
                text.push_str(&format!(": {mt}"));
            }
            if let Some(bytes) = bytes {
                text.push_str(&format!(", {}", humanize::bytes(bytes)));
            }
            text.push(']');
            (Some(text), "", Class::Media, Fold::Never)
        }
        Part::Unknown(_) => (Some(part.summary()), "", Class::Note, Fold::Never),
    }
}

/// `tool call bash c1`: the part's own summary without its text.
fn label(part: &Part, fallback: &str) -> String {
    let summary = part.shortened(0).summary();
    let inner = summary
        .trim_end()
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'));
    inner.map_or_else(|| fallback.to_string(), str::to_string)
}

/// The search text of each part of `message`: what the transcript shows of
/// it unfolded (markdown rendered unless `raw`), one string per part.
pub fn search_texts(message: &Message, raw: bool) -> Vec<String> {
    message
        .parts()
        .iter()
        .map(|part| {
            let (_, body, class, _) = describe(part);
            let mut out = Body::default();
            render_body(&mut out, body, class, raw, false);
            out.text
        })
        .collect()
}

/// A part's body into `out`: markdown for text unless `raw`, else lines.
fn render_body(out: &mut Body, body: &str, class: Class, raw: bool, highlight: bool) {
    let (body, _) = limited(body);
    if class == Class::Plain && !raw {
        markdown::render(body, highlight, out);
        return;
    }
    for line in body.split('\n') {
        out.line(line, Look::of(class));
    }
}

/// Which parts of a message are unfolded against the display settings
/// (a search went to a match in them).
pub type Unfolded<'a> = &'a dyn Fn(usize) -> bool;

/// How much of a part a block shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    /// Bytes of the part's search text on screen (from its start).
    pub bytes: usize,
    /// The whole text is on screen.
    pub whole: bool,
}

/// One message as lines: each part (labelled unless it is text), blank
/// lines between parts and after the last, and how much of each part shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The lines.
    pub body: Body,
    /// How much of each part is shown, by part index.
    pub shown: Vec<Shown>,
}

/// `message` as the transcript shows it with `display`, parts for which
/// `unfolded` holds shown in full.
pub fn block(message: &Message, display: Display, unfolded: Unfolded, highlight: bool) -> Block {
    let mut out = Body::default();
    let mut shown = Vec::new();
    for (i, part) in message.parts().iter().enumerate() {
        let (label, body, class, fold) = describe(part);
        if !out.lines.is_empty() {
            out.line("", Look::default());
        }
        let full = unfolded(i)
            || match fold {
                Fold::Never => true,
                Fold::Thinking => display.thinking,
                Fold::Tool => display.tools == Tools::Full,
            };
        let folded = !full
            && match fold {
                Fold::Thinking => true,
                Fold::Tool => display.tools == Tools::Off,
                Fold::Never => false,
            };
        let lines = body.lines().count();
        if let Some(label) = &label {
            out.line(label, Look::of(Class::Label));
            if folded && lines > 0 {
                out.push(
                    &format!("  {} hidden", humanize::plural(lines as u64, "line")),
                    Look::of(Class::Note),
                );
            }
        }
        if folded || body.is_empty() {
            shown.push(Shown {
                bytes: 0,
                whole: body.is_empty(),
            });
            continue;
        }
        let first_line = out.lines.len();
        let start = if out.lines.is_empty() {
            0
        } else {
            out.text.len() + 1
        };
        out.part = Some((i, start));
        render_body(&mut out, body, class, display.raw, highlight);
        out.part = None;
        let written = out.lines.len() - first_line;
        if !full && written > TRUNCATED_LINES {
            let keep = first_line + TRUNCATED_LINES;
            let end = out.lines[keep - 1].text.end;
            out.lines.truncate(keep);
            out.text.truncate(end);
            out.spans.retain(|s| s.text.end <= end);
            shown.push(Shown {
                bytes: end - start,
                whole: false,
            });
            let more = written - TRUNCATED_LINES;
            out.line(
                &format!(
                    "… {} more line{}",
                    humanize::count(more as u64),
                    if more == 1 { "" } else { "s" }
                ),
                Look::of(Class::Note),
            );
        } else {
            shown.push(Shown {
                bytes: out.text.len() - start,
                whole: true,
            });
        }
        let (_, left_out) = limited(body);
        if left_out > 0 {
            out.line(
                &format!(
                    "[cut here: {} more; `loki-sessions show SESSION --message {}` prints all of it]",
                    humanize::bytes(left_out as u64),
                    message.id()
                ),
                Look::of(Class::Note),
            );
        }
    }
    out.line("", Look::default());
    Block { body: out, shown }
}

/// A place the transcript's find matched: where in which part's search
/// text (a message search's answer is a `store::Hit`, a session's message).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TextMatch {
    /// The message's index in the context.
    pub message: usize,
    /// The part's index in the message.
    pub part: usize,
    /// Its first byte in the part's search text.
    pub start: usize,
    /// The byte after it.
    pub end: usize,
}

/// The facts a message's header gives after its role: `seq 14 · 1,234
/// tokens · 2026-11-29 12:03` (`… tokens` until counted).
pub fn facts(message: &Message, tokens: Option<u64>) -> String {
    let mut text = String::new();
    if let Some(seq) = message.sequence() {
        text.push_str(&format!("seq {seq} · "));
    }
    match tokens {
        Some(n) => text.push_str(&humanize::plural(n, "token")),
        None => text.push_str("… tokens"),
    }
    if let Some(at) = message.created() {
        let at = at.get(..16).unwrap_or(at).replacen('T', " ", 1);
        text.push_str(&format!(" · {at}"));
    }
    text
}

#[cfg(test)]
mod tests;
