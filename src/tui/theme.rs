//! Styles, in colour or (with NO_COLOR) with bold, dim and reverse only.

use ratatui::style::{Color, Modifier, Style};

/// The styles the panes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Colours allowed (false when NO_COLOR is set).
    pub color: bool,
}

impl Theme {
    /// Colour unless the NO_COLOR convention asks for none.
    pub fn from_env() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme { color: !no_color }
    }

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// Titles and headers.
    pub fn title(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    /// The selected row.
    pub fn selected(self) -> Style {
        if self.color {
            Style::new()
                .bg(Color::DarkGray)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }
    /// Less important text (and messages a trim would drop).
    pub fn dim(self) -> Style {
        self.fg(Color::DarkGray).add_modifier(Modifier::DIM)
    }
    /// Errors and damaged sessions.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// Characters the query matched.
    pub fn matched(self) -> Style {
        self.fg(Color::Yellow)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    /// Keys in the footer and help.
    pub fn key(self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }
    /// System prompt / tool definitions markers.
    pub fn special(self) -> Style {
        self.fg(Color::Magenta)
    }
    /// A role name.
    pub fn role(self, role: &str) -> Style {
        match role {
            "user" => self.fg(Color::Green),
            "assistant" => self.fg(Color::Blue),
            "tool" => self.fg(Color::Yellow),
            "system" => self.fg(Color::Magenta),
            _ => Style::new(),
        }
    }
    /// Sessions a purge would remove.
    pub fn remove(self) -> Style {
        self.fg(Color::Red)
    }
    /// Sessions spared against the policy.
    pub fn spared(self) -> Style {
        self.fg(Color::Yellow)
    }
}
