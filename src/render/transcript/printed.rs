//! The transcript as lines of text: the viewer's blocks, rows and styles,
//! with SGR escapes for its styles (or none), for `show --format
//! transcript` and for the viewer's `o` (the transcript in `$PAGER`).

use crate::render::theme::Theme;
use crate::render::transcript::{self, Display, Laid, paint};
use crate::store::{Context, Special};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

/// The transcript's lines at `width`, with escapes in `theme` (none without).
pub fn render(
    context: &Context,
    counts: &[u64],
    display: Display,
    width: usize,
    theme: Option<Theme>,
) -> Vec<String> {
    let mut out = Vec::new();
    let closed = |_: usize| false;
    for (i, message) in context.messages().enumerate() {
        let block = transcript::block(&message, display, &closed, theme.is_some());
        let laid = Laid::new(block, width);
        let facts = transcript::facts(&message, counts.get(i).copied());
        let label = match context.special_at(i) {
            Some(Special::SystemPrompt) => "system prompt",
            Some(Special::ToolDefinitions) => "tool definitions",
            None => message.role(),
        };
        let heading = paint::Heading {
            index: i,
            label,
            role: message.role(),
            facts: &facts,
            selected: false,
        };
        for row in &laid.rows {
            let line = paint::row_line(
                &laid,
                row,
                heading,
                paint::Marks::default(),
                theme.unwrap_or(Theme::plain()),
                width,
            );
            out.push(match theme {
                Some(_) => ansi(&line),
                None => plain(&line),
            });
        }
    }
    out
}

fn plain(line: &Line) -> String {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    text.trim_end().to_string()
}

/// A line with SGR escapes for its styles.
fn ansi(line: &Line) -> String {
    let mut out = String::new();
    for span in &line.spans {
        let style = line.style.patch(span.style);
        let sgr = sgr(style);
        if sgr.is_empty() {
            out.push_str(&span.content);
        } else {
            out.push_str(&format!("\x1b[{sgr}m{}\x1b[0m", span.content));
        }
    }
    out.trim_end().to_string()
}

/// The SGR parameters of a style (`1;34`).
fn sgr(style: Style) -> String {
    let mut codes: Vec<String> = Vec::new();
    let m = style.add_modifier;
    for (flag, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::REVERSED, "7"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if m.contains(flag) {
            codes.push(code.into());
        }
    }
    if let Some(fg) = style.fg.and_then(|c| colour(c, false)) {
        codes.push(fg);
    }
    if let Some(bg) = style.bg.and_then(|c| colour(c, true)) {
        codes.push(bg);
    }
    codes.join(";")
}

fn colour(c: Color, background: bool) -> Option<String> {
    let base = if background { 40 } else { 30 };
    let bright = if background { 100 } else { 90 };
    Some(match c {
        Color::Reset => return None,
        Color::Black => format!("{}", base),
        Color::Red => format!("{}", base + 1),
        Color::Green => format!("{}", base + 2),
        Color::Yellow => format!("{}", base + 3),
        Color::Blue => format!("{}", base + 4),
        Color::Magenta => format!("{}", base + 5),
        Color::Cyan => format!("{}", base + 6),
        Color::Gray => format!("{}", base + 7),
        Color::DarkGray => format!("{}", bright),
        Color::LightRed => format!("{}", bright + 1),
        Color::LightGreen => format!("{}", bright + 2),
        Color::LightYellow => format!("{}", bright + 3),
        Color::LightBlue => format!("{}", bright + 4),
        Color::LightMagenta => format!("{}", bright + 5),
        Color::LightCyan => format!("{}", bright + 6),
        Color::White => format!("{}", bright + 7),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
        Color::Indexed(i) => format!("{};5;{i}", base + 8),
    })
}

/// Pages `lines` through `$PAGER` (`less` when unset; `LESS` set to
/// `less_flags` unless the person set it), writing to `terminal` when
/// given (else to our stdout). False when there is no pager to run (the
/// caller prints instead).
pub fn page(
    lines: &[String],
    less_flags: &str,
    terminal: Option<&std::fs::File>,
) -> std::io::Result<bool> {
    use std::io::Write;
    let pager = std::env::var("PAGER").unwrap_or_else(|_| "less".into());
    let words = shlex::split(&pager).unwrap_or_default();
    let Some((program, args)) = words.split_first() else {
        return Ok(false);
    };
    let mut command = std::process::Command::new(program);
    command.args(args).stdin(std::process::Stdio::piped());
    if let Some(tty) = terminal {
        command.stdout(tty.try_clone()?).stderr(tty.try_clone()?);
    }
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", less_flags);
    }
    let Ok(mut child) = command.spawn() else {
        return Ok(false);
    };
    if let Some(stdin) = child.stdin.take() {
        let mut stdin = std::io::BufWriter::new(stdin);
        for line in lines {
            // The person may quit the pager before the end: not an error.
            if writeln!(stdin, "{line}").is_err() {
                break;
            }
        }
        let _ = stdin.flush();
    }
    child.wait()?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::text::Span;

    #[test]
    fn styles_become_sgr_escapes() {
        let line = Line::from(vec![
            Span::raw("a "),
            Span::styled(
                "b",
                Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
            ),
            Span::styled("c", Style::new().fg(Color::Rgb(1, 2, 3))),
        ]);
        assert_eq!(ansi(&line), "a \x1b[1;34mb\x1b[0m\x1b[38;2;1;2;3mc\x1b[0m");
        assert_eq!(plain(&line), "a bc");
    }
}
