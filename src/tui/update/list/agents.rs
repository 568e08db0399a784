//! Showing one agent's sessions: F4 puts `@agent` at the start of the
//! query (the matcher keeps that agent's rows), the next agent each time,
//! then none.

use super::requery;
use crate::store::Agent;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, ListScreen, TextField};
use crate::tui::msg::Action;
use crate::tui::update::Step;

/// Puts the next agent listed in the query as `@agent` (after the last,
/// none: every agent again).
pub fn cycle(list: &mut ListScreen, app: &mut App) -> Step {
    let mut listed: Vec<Agent> = list.rows.iter().map(|r| r.record.agent).collect();
    listed.sort();
    listed.dedup();
    if listed.len() < 2 {
        if list.scanning {
            let key = keymap::key_for(Scope::List, Action::CycleAgent);
            app.say(format!(
                "the sessions are still being read: {key} once they are listed"
            ));
        } else {
            app.say("only one agent's sessions are listed");
        }
        return Step::none();
    }
    let query = list.query.value().to_string();
    let mut words: Vec<&str> = query.split(' ').filter(|w| !w.is_empty()).collect();
    let current = words
        .first()
        .and_then(|w| w.strip_prefix('@'))
        .and_then(|name| name.parse::<Agent>().ok());
    if current.is_some() {
        words.remove(0);
    }
    let next = match current {
        None => listed.first().copied(),
        Some(agent) => listed.iter().copied().find(|a| *a > agent),
    };
    let rest = words.join(" ");
    let text = match next {
        Some(agent) => {
            app.say(format!("{} sessions only", agent.display_name()));
            format!("@{agent} {rest}")
        }
        None => {
            app.say("every agent's sessions");
            rest
        }
    };
    list.query = TextField::new(&text, list.query.limit());
    list.to_top = true;
    Step::effects(requery(list, app))
}
