//! Styles, in colours readable on a dark or a light background, or (with
//! NO_COLOR) with bold, dim and reverse only; and how the background is
//! told: the config, else `COLORFGBG`, else the terminal's answer to an
//! OSC 11 query (see `tui.rs`), else dark.

pub mod contrast;

use crate::render::transcript::{Class, Look};
use crate::store::TokenKind;
use ratatui::style::{Color, Modifier, Style};

/// The terminal's background, for colours that read on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Background {
    /// Light text on a dark background (most terminals).
    #[default]
    Dark,
    /// Dark text on a light background.
    Light,
}

impl Background {
    /// The background `COLORFGBG` (`"15;0"`: foreground 15, background 0)
    /// names, if it names one: colours 0-6 and 8 are dark, 7 and 9-15 light.
    pub fn from_colorfgbg(value: &str) -> Option<Background> {
        let bg: u8 = value.rsplit(';').next()?.trim().parse().ok()?;
        Some(match bg {
            0..=6 | 8 => Background::Dark,
            7 | 9..=15 => Background::Light,
            _ => return None,
        })
    }

    /// The background an OSC 11 answer (`ESC ] 11 ; rgb:RRRR/GGGG/BBBB`)
    /// describes: light when its luminance is more than half.
    pub fn from_osc11(answer: &str) -> Option<Background> {
        let rgb = answer.split("rgb:").nth(1)?;
        let mut channels = rgb.split(['/', '\x1b', '\x07']).take(3).map(|c| {
            let digits = c.get(..c.len().min(4))?;
            let value = u32::from_str_radix(digits, 16).ok()?;
            let max = (1u32 << (4 * digits.len())) - 1;
            Some(value as f64 / max as f64)
        });
        let (r, g, b) = (channels.next()??, channels.next()??, channels.next()??);
        let luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        Some(if luminance > 0.5 {
            Background::Light
        } else {
            Background::Dark
        })
    }

    /// Its name, as the config writes it.
    pub fn name(self) -> &'static str {
        match self {
            Background::Dark => "dark",
            Background::Light => "light",
        }
    }
}

impl std::str::FromStr for Background {
    type Err = String;
    fn from_str(s: &str) -> Result<Background, String> {
        match s {
            "dark" => Ok(Background::Dark),
            "light" => Ok(Background::Light),
            other => Err(format!("unknown theme {other:?}: light or dark")),
        }
    }
}

/// The styles the panes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Colours allowed (false when NO_COLOR is set).
    pub color: bool,
    /// The background the colours are chosen for.
    pub background: Background,
}

impl Theme {
    /// Colour unless the NO_COLOR convention asks for none.
    pub fn from_env(background: Background) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme {
            color: !no_color,
            background,
        }
    }

    /// No colours: bold, dim, italic and reverse only.
    pub const fn plain() -> Self {
        Theme {
            color: false,
            background: Background::Dark,
        }
    }

    /// Colours for a dark background.
    pub const fn dark() -> Self {
        Theme {
            color: true,
            background: Background::Dark,
        }
    }

    /// Colours for a light background.
    pub const fn light() -> Self {
        Theme {
            color: true,
            background: Background::Light,
        }
    }

    fn light_bg(self) -> bool {
        self.background == Background::Light
    }

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// `dark` on a dark background, `light` on a light one.
    fn pick(self, dark: Color, light: Color) -> Style {
        self.fg(if self.light_bg() { light } else { dark })
    }

    /// Titles and headers.
    pub fn title(self) -> Style {
        self.pick(Color::Cyan, Color::Blue)
            .add_modifier(Modifier::BOLD)
    }
    /// The selected row: a background of its own and a text colour well
    /// above 4.5:1 on it, which any text drawn there too low gets instead
    /// (`contrast::keep_selection_readable`). Dark: the 256-colour gray
    /// 238 (#444444, the same in every terminal; ANSI dark gray is #7f7f7f
    /// in xterm, where even white reached only 4:1).
    pub fn selected(self) -> Style {
        match (self.color, self.light_bg()) {
            (false, _) => Style::new().add_modifier(Modifier::REVERSED),
            (true, false) => Style::new()
                .bg(Color::Indexed(238))
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
            (true, true) => Style::new()
                .bg(Color::Rgb(0xd0, 0xd8, 0xe8))
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD),
        }
    }
    /// Less important text (and messages a trim would drop).
    pub fn dim(self) -> Style {
        // Faint gray (7) on a dark background: dark gray vanished on the
        // selected row, whose background is dark gray. ANSI gray is near
        // white on most light schemes: dark gray there.
        self.pick(Color::Gray, Color::DarkGray)
            .add_modifier(Modifier::DIM)
    }
    /// Errors and damaged sessions.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// Characters the query matched.
    pub fn matched(self) -> Style {
        let style = if self.color && self.light_bg() {
            Style::new()
                .bg(Color::Rgb(0xff, 0xe0, 0x80))
                .fg(Color::Black)
        } else {
            self.fg(Color::Yellow)
        };
        style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    /// Keys in the footer and help.
    pub fn key(self) -> Style {
        self.pick(Color::Green, Color::Rgb(0x00, 0x70, 0x00))
            .add_modifier(Modifier::BOLD)
    }
    /// System prompt / tool definitions markers.
    pub fn special(self) -> Style {
        self.fg(Color::Magenta)
    }
    /// A role name.
    pub fn role(self, role: &str) -> Style {
        match role {
            "user" => self.pick(Color::Green, Color::Rgb(0x00, 0x70, 0x00)),
            "assistant" => self.pick(Color::Blue, Color::Blue),
            "tool" => self.pick(Color::Yellow, Color::Rgb(0x90, 0x60, 0x00)),
            "system" => self.fg(Color::Magenta),
            _ => Style::new(),
        }
    }
    /// Sessions a purge would remove.
    pub fn remove(self) -> Style {
        self.fg(Color::Red)
    }
    /// A context filling up (past 80% of its window).
    pub fn warn(self) -> Style {
        self.pick(Color::Yellow, Color::Rgb(0x90, 0x60, 0x00))
            .add_modifier(Modifier::BOLD)
    }
    /// Sessions spared against the policy.
    pub fn spared(self) -> Style {
        self.pick(Color::Yellow, Color::Rgb(0x90, 0x60, 0x00))
    }

    /// The colour of a kind of tokens in the breakdown's bars (None with
    /// NO_COLOR): light colours on a dark background, dark ones on a light.
    pub fn kind_color(self, kind: TokenKind) -> Option<Color> {
        if !self.color {
            return None;
        }
        let (dark, light) = match kind {
            TokenKind::SystemPrompt => (Color::LightMagenta, Color::Magenta),
            TokenKind::ToolDefinitions => (Color::Magenta, Color::Rgb(0x80, 0x30, 0x80)),
            TokenKind::UserText => (Color::LightGreen, Color::Rgb(0x00, 0x70, 0x00)),
            TokenKind::AssistantText => (Color::LightBlue, Color::Blue),
            TokenKind::Thinking => (Color::Gray, Color::DarkGray),
            TokenKind::ToolCalls => (Color::LightYellow, Color::Rgb(0x90, 0x60, 0x00)),
            TokenKind::ToolResults => (Color::LightRed, Color::Red),
            TokenKind::Media => (Color::LightCyan, Color::Rgb(0x00, 0x60, 0x80)),
            TokenKind::Other => (Color::White, Color::Black),
        };
        Some(if self.light_bg() { light } else { dark })
    }

    /// A segment of the breakdown's one-line bar: the kind's colour behind
    /// its label; with NO_COLOR every other segment reversed, so each
    /// stands apart from its neighbours.
    pub fn kind_segment(self, kind: TokenKind, nth: usize) -> Style {
        match self.kind_color(kind) {
            Some(bg) => {
                let fg = if self.light_bg() {
                    Color::White
                } else {
                    Color::Black
                };
                Style::new().bg(bg).fg(fg)
            }
            None if nth.is_multiple_of(2) => Style::new().add_modifier(Modifier::REVERSED),
            None => Style::new().add_modifier(Modifier::BOLD),
        }
    }

    /// A message marked for an edit by hand (its glyph).
    pub fn marked(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// A stretch of transcript text.
    pub fn look(self, look: Look) -> Style {
        let light = self.light_bg();
        let colour = |dark: Color, on_light: Color| self.fg(if light { on_light } else { dark });
        let mut style = match look.class {
            Class::Plain | Class::CodeBlock => Style::new(),
            Class::Heading => colour(Color::Cyan, Color::Blue).add_modifier(Modifier::BOLD),
            Class::Code => colour(Color::LightYellow, Color::Rgb(0x80, 0x30, 0x00)),
            Class::Link => colour(Color::LightBlue, Color::Blue).add_modifier(Modifier::UNDERLINED),
            Class::Rule | Class::Marker => self.dim().remove_modifier(Modifier::DIM),
            Class::Label => self.special().add_modifier(Modifier::BOLD),
            Class::Thinking => self.dim().add_modifier(Modifier::ITALIC),
            Class::Tool => colour(Color::Gray, Color::DarkGray),
            Class::Media => self.special(),
            Class::Note => self.dim(),
            Class::SynComment => self.fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
            Class::SynString => colour(Color::Green, Color::Rgb(0x00, 0x70, 0x00)),
            Class::SynConstant => colour(Color::LightMagenta, Color::Magenta),
            Class::SynKeyword => colour(Color::LightRed, Color::Rgb(0xa0, 0x00, 0x50)),
            Class::SynType => colour(Color::LightCyan, Color::Rgb(0x00, 0x60, 0x80)),
            Class::SynFunction => colour(Color::LightBlue, Color::Blue),
        };
        if look.bold {
            style = style.add_modifier(Modifier::BOLD);
        }
        if look.italic {
            style = style.add_modifier(Modifier::ITALIC);
        }
        if look.strike {
            style = style.add_modifier(Modifier::CROSSED_OUT);
        }
        style
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backgrounds_are_told_from_colorfgbg_and_osc11() {
        assert_eq!(Background::from_colorfgbg("15;0"), Some(Background::Dark));
        assert_eq!(Background::from_colorfgbg("0;15"), Some(Background::Light));
        assert_eq!(
            Background::from_colorfgbg("0;default;15"),
            Some(Background::Light)
        );
        assert_eq!(Background::from_colorfgbg("junk"), None);
        let light = "\x1b]11;rgb:ffff/ffff/dddd\x1b\\";
        let dark = "\x1b]11;rgb:1e1e/1e1e/2e2e\x07";
        assert_eq!(Background::from_osc11(light), Some(Background::Light));
        assert_eq!(Background::from_osc11(dark), Some(Background::Dark));
        assert_eq!(
            Background::from_osc11("\x1b]11;rgb:ff/ff/ff\x07"),
            Some(Background::Light)
        );
        assert_eq!(Background::from_osc11("nothing"), None);
    }

    #[test]
    fn no_color_means_no_colour_in_any_style() {
        let plain = Theme::plain();
        for style in [
            plain.title(),
            plain.key(),
            plain.matched(),
            plain.role("user"),
        ] {
            assert_eq!((style.fg, style.bg), (None, None));
        }
        let look = Look::of(Class::SynKeyword);
        assert_eq!(plain.look(look).fg, None);
        assert_ne!(Theme::dark().look(look).fg, Theme::light().look(look).fg);
    }
}
