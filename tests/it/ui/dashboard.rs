//! The usage dashboard on the fixtures of every agent: the period's cost
//! by day, the month so far, projects, models and agents, at 80x24 and
//! 160x45 (F10 from the list; `]` for 90 days; Esc back).

use super::agents::{check, open, store};
use crossterm::event::{KeyCode, KeyModifiers};

#[test]
fn the_dashboard_shows_what_the_agents_spent() {
    let dir = store();
    for (width, height) in [(80, 24), (160, 45)] {
        let mut ui = open(&dir, width, height);
        ui.press(KeyCode::F(10), KeyModifiers::NONE);
        let screen = ui.screen();
        assert!(screen.contains("Usage: the last 30 days"), "{screen}");
        assert!(
            screen.contains("Projects") && screen.contains("Models"),
            "{screen}"
        );
        check(&format!("dashboard_{width}x{height}"), &ui, &dir);
        ui.press(KeyCode::Char(']'), KeyModifiers::NONE);
        let screen = ui.screen();
        assert!(screen.contains("Usage: the last 90 days"), "{screen}");
        // The fixtures hold a model no list prices: named, never $0.
        assert!(screen.contains("no price for acme-coder-7"), "{screen}");
        ui.press(KeyCode::Esc, KeyModifiers::NONE);
        assert!(ui.screen().contains("Sessions"), "back to the list");
    }
}
