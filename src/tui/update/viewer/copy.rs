//! Copies from the viewer: the selected message's text, the session's id
//! or its path, put on the clipboard through the terminal (OSC 52).

use crate::humanize;
use crate::tui::model::{App, Viewer};
use crate::tui::msg::Action;

/// The most bytes put on the clipboard at once: terminals refuse (or
/// hang on) much longer OSC 52 sequences.
const CLIPBOARD_LIMIT: usize = 1_000_000;

/// Puts the selected message's text, the session's id or its path on the
/// clipboard (the runtime writes it to the terminal), saying what it was.
pub fn copy(viewer: &Viewer, app: &mut App, action: Action) {
    let (text, what) = match action {
        Action::CopyMessage => {
            let Some(message) = viewer
                .loaded
                .as_ref()
                .and_then(|l| l.context.message(viewer.selected))
            else {
                return;
            };
            let text = message.readable();
            let what = format!(
                "message {} ({})",
                humanize::message_number(viewer.selected),
                humanize::bytes(text.len() as u64)
            );
            (text, what)
        }
        Action::CopySessionId => (
            viewer.record.id.to_string(),
            format!("the session id {}", viewer.record.id),
        ),
        _ => {
            let path = viewer.record.path.display().to_string();
            let what = format!("the session path {path}");
            (path, what)
        }
    };
    if text.len() > CLIPBOARD_LIMIT {
        app.complain(format!(
            "not copied: {what} is more than a terminal's clipboard takes ({})",
            humanize::bytes(CLIPBOARD_LIMIT as u64)
        ));
        return;
    }
    app.copy(text);
    // The terminal may ignore OSC 52: say what was done, not what it did.
    app.say(format!("sent {what} to the terminal's clipboard (OSC 52)"));
}
