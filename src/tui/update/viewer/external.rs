//! `o` and `O`: the transcript in `$PAGER`, the session's file in
//! `$EDITOR`, the terminal handed over and taken back by the runtime.

use crate::tui::model::{App, External, Viewer};
use crate::tui::msg::Action;

/// Asks the runtime to run the pager or the editor on the open session.
pub fn open(viewer: &Viewer, app: &mut App, action: Action) {
    let Some(loaded) = &viewer.loaded else {
        app.complain("the session is still being read");
        return;
    };
    let external = if action == Action::OpenInPager {
        let counts = viewer
            .counts
            .get(&app.settings.encoding)
            .map(|c| c.iter().map(|n| n.unwrap_or(0)).collect())
            .unwrap_or_default();
        External::Pager {
            context: loaded.context.clone(),
            counts,
            display: app.settings.display,
        }
    } else {
        // The file the conversation was read from: a Loki context file,
        // another agent's session file.
        let read_from = loaded.context.path();
        let path = if read_from.is_file() {
            read_from.to_path_buf()
        } else {
            viewer.record.path.clone()
        };
        External::Editor { path }
    };
    let tag = app.request();
    app.external = Some((tag, external));
}
