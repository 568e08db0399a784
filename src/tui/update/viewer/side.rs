//! A side conversation of the session read in its place: a search hit in a
//! subagent's thread (or an older fork of a Loki session) opens that
//! conversation, read only, with the message selected. What would change
//! the session (a trim, marks, clears, switching contexts) is refused with
//! where to do it; reading, copying, the transcript and an export of it
//! work as for the session's own.

use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, SIDE_READ_ONLY, Viewer};
use crate::tui::msg::Action;
use crate::tui::ops::ViewerOp;

/// Reads the side conversation `context` of the open session instead.
pub fn open(viewer: &mut Viewer, app: &mut App, context: String) -> Vec<Effect> {
    viewer.side = Some(context.clone());
    viewer.loaded = None;
    viewer.waiting = app.request();
    app.say(format!(
        "a side conversation of this session ({}), read only; {} goes back",
        crate::store::safe_text::safe_line(&context),
        keymap::key_for(Scope::Viewer, Action::Back)
    ));
    vec![Effect::store(
        viewer.waiting,
        ViewerOp::LoadConversation {
            record: viewer.record.clone(),
            context: Some(context),
        },
    )]
}

/// True (and said) for a key that would change the session: a side
/// conversation is only read here.
pub fn refuses(app: &mut App, action: Action) -> bool {
    let changes = SIDE_READ_ONLY.contains(&action);
    if changes {
        app.complain(format!(
            "a side conversation is read only here: {} goes back, and the session itself is trimmed from its own row",
            keymap::key_for(Scope::Viewer, Action::Back)
        ));
    }
    changes
}
