//! Yes/no questions and text fields.

use crate::tui::effect::Effect;
use crate::tui::model::{ConfirmAction, InputPurpose, Model, Overlay};
use crate::tui::msg::Action;
use crate::tui::update::{complain, purge};

/// Keys while a question is open: only `y` says yes.
pub fn on_confirm_action(model: &mut Model, action: Action) -> Vec<Effect> {
    let Some(Overlay::Confirm(confirm)) = model.overlay.take() else {
        return Vec::new();
    };
    match action {
        Action::Yes => match confirm.action {
            ConfirmAction::Purge => purge::apply(model),
            ConfirmAction::Delete { id } => purge::delete_one(model, &id),
        },
        Action::No => Vec::new(),
        _ => {
            // Any other key leaves the question open.
            model.overlay = Some(Overlay::Confirm(confirm));
            Vec::new()
        }
    }
}

/// Keys while a text field is open.
pub fn on_input_action(model: &mut Model, action: Action) -> Vec<Effect> {
    let Some(Overlay::Input(mut input)) = model.overlay.take() else {
        return Vec::new();
    };
    match action {
        Action::Back => Vec::new(),
        Action::Backspace => {
            input.text.pop();
            model.overlay = Some(Overlay::Input(input));
            Vec::new()
        }
        Action::Confirm => {
            let text = input.text.trim().to_string();
            match input.purpose {
                InputPurpose::NewSession => vec![Effect::CreateSession { prompt: text }],
                InputPurpose::Rename { .. } if text.is_empty() => {
                    complain(model, "a name cannot be empty");
                    model.overlay = Some(Overlay::Input(input));
                    Vec::new()
                }
                InputPurpose::Rename { id } => vec![Effect::RenameSession { id, name: text }],
            }
        }
        _ => {
            model.overlay = Some(Overlay::Input(input));
            Vec::new()
        }
    }
}
