//! Text on the selected row stays readable: every cell drawn on the
//! selection's background gets at least [`MIN_CONTRAST`] against it (the
//! WCAG ratio of relative luminances), else the selection's own text
//! colour, and never the DIM attribute (which halves the contrast a
//! terminal gives). The sixteen ANSI colours are taken as xterm draws them
//! by default; the others are exact.

use super::{Background, Theme};
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// WCAG's ratio for normal text (AA).
pub const MIN_CONTRAST: f64 = 4.5;

/// xterm's default RGB of the sixteen ANSI colours.
const ANSI: [(u8, u8, u8); 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

/// The RGB a colour is drawn in; `Reset` is the terminal's default text
/// (light on a dark background, dark on a light one).
pub fn rgb(color: Color, background: Background) -> (u8, u8, u8) {
    let ansi = |n: usize| ANSI[n];
    match color {
        Color::Reset => match background {
            Background::Dark => ansi(7),
            Background::Light => ansi(0),
        },
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(n) => indexed(n),
    }
}

/// The xterm 256-colour palette: the sixteen, a 6x6x6 cube, 24 grays.
fn indexed(n: u8) -> (u8, u8, u8) {
    match n {
        0..=15 => ANSI[usize::from(n)],
        16..=231 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let i = n - 16;
            (level(i / 36), level(i / 6 % 6), level(i % 6))
        }
        _ => {
            let v = 8 + 10 * (n - 232);
            (v, v, v)
        }
    }
}

fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
    let channel = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
}

/// The contrast ratio of `fg` on `bg` (1 to 21).
pub fn ratio(fg: Color, bg: Color, background: Background) -> f64 {
    let (a, b) = (
        luminance(rgb(fg, background)),
        luminance(rgb(bg, background)),
    );
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

/// Makes every cell on the selection's background readable (see the
/// module's header).
pub fn keep_selection_readable(buffer: &mut Buffer, theme: Theme) {
    let selection = theme.selected();
    let (Some(bg), Some(text)) = (selection.bg, selection.fg) else {
        return; // no colours: the selection is reversed video
    };
    for cell in buffer.content.iter_mut().filter(|c| c.bg == bg) {
        cell.modifier.remove(Modifier::DIM);
        if ratio(cell.fg, bg, theme.background) < MIN_CONTRAST {
            cell.fg = text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_wcags() {
        let dark = Background::Dark;
        assert!((ratio(Color::White, Color::Black, dark) - 21.0).abs() < 1e-9);
        assert!((ratio(Color::Black, Color::Black, dark) - 1.0).abs() < 1e-9);
        // The cube and the grays as xterm has them.
        assert_eq!(rgb(Color::Indexed(196), dark), (0xff, 0x00, 0x00));
        assert_eq!(rgb(Color::Indexed(238), dark), (0x44, 0x44, 0x44));
    }

    #[test]
    fn the_selections_own_text_is_well_above_the_minimum_in_both_themes() {
        for theme in [Theme::dark(), Theme::light()] {
            let s = theme.selected();
            let r = ratio(s.fg.unwrap(), s.bg.unwrap(), theme.background);
            assert!(r >= 7.0, "{theme:?}: {r}");
        }
    }
}
