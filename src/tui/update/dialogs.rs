//! Keys inside yes/no questions and text fields. The answer goes back to
//! the router, which hands it to the screen that asked.

use crate::tui::model::{App, ConfirmAction, InputPurpose, Overlay};
use crate::tui::msg::Action;
use tui_input::InputRequest;

/// Keys while a question is open: only `y` says yes. Returns what was
/// confirmed, if it was.
pub fn on_confirm_action(app: &mut App, action: Action) -> Option<ConfirmAction> {
    let Some(Overlay::Confirm(confirm)) = app.overlay.take() else {
        return None;
    };
    match action {
        Action::Yes => Some(confirm.action),
        Action::No => None,
        _ => {
            // Any other key leaves the question open.
            app.overlay = Some(Overlay::Confirm(confirm));
            None
        }
    }
}

/// A character typed into the open text field.
pub fn on_input_type(app: &mut App, c: char) {
    if let Some(Overlay::Input(input)) = &mut app.overlay
        && !input.text.edit(InputRequest::InsertChar(c))
    {
        let limit = input.text.limit();
        app.complain(format!("this field holds at most {limit} characters"));
    }
}

/// Text pasted into the open text field.
pub fn on_input_paste(app: &mut App, text: &str) {
    if let Some(Overlay::Input(input)) = &mut app.overlay
        && input.text.paste(text).cut
    {
        let limit = input.text.limit();
        app.complain(format!(
            "this field holds at most {limit} characters; the rest of the paste was left out"
        ));
    }
}

/// Keys while a text field is open. Returns the finished line and what it
/// is for, once Enter accepts it.
pub fn on_input_action(app: &mut App, action: Action) -> Option<(InputPurpose, String)> {
    let Some(Overlay::Input(mut input)) = app.overlay.take() else {
        return None;
    };
    match action {
        Action::Back => None,
        Action::Edit(request) => {
            input.text.edit(request);
            app.overlay = Some(Overlay::Input(input));
            None
        }
        Action::Confirm => {
            let text = input.text.value().trim().to_string();
            if matches!(input.purpose, InputPurpose::Rename { .. }) && text.is_empty() {
                app.complain("a name cannot be empty");
                app.overlay = Some(Overlay::Input(input));
                return None;
            }
            Some((input.purpose, text))
        }
        _ => {
            app.overlay = Some(Overlay::Input(input));
            None
        }
    }
}
