//! The context viewer: messages with live token counts, encodings, forks.

use crate::store::tokens::Encoding;
use crate::tui::effect::Effect;
use crate::tui::model::{Loaded, Mode, Model};
use crate::tui::msg::Action;
use crate::tui::update::{complain, list, move_cursor, page, say, trim};

/// The conversation arrived.
pub fn on_loaded(model: &mut Model, req: u64, result: Result<Loaded, String>) -> Vec<Effect> {
    let encoding = model.settings.encoding;
    let Some(viewer) = model
        .viewer
        .as_mut()
        .filter(|_| req == model.requests.conversation)
    else {
        return Vec::new();
    };
    match result {
        Ok(loaded) => {
            let len = loaded.len();
            viewer.selected = len.saturating_sub(1);
            viewer.detail_scroll = 0;
            viewer.counts.clear();
            viewer.counts.insert(encoding, vec![None; len]);
            viewer.contexts_cursor = None;
            viewer.error = None;
            let context = loaded.context.clone();
            viewer.loaded = Some(loaded);
            vec![Effect::CountTokens {
                req,
                context,
                encoding,
            }]
        }
        Err(e) => {
            viewer.error = Some(e);
            Vec::new()
        }
    }
}

/// Some token counts arrived.
pub fn on_counted(
    model: &mut Model,
    req: u64,
    encoding: Encoding,
    start: usize,
    counts: Vec<u64>,
) -> Vec<Effect> {
    let Some(viewer) = model
        .viewer
        .as_mut()
        .filter(|_| req == model.requests.conversation)
    else {
        return Vec::new();
    };
    let Some(slots) = viewer.counts.get_mut(&encoding) else {
        return Vec::new();
    };
    for (slot, count) in slots.iter_mut().skip(start).zip(counts) {
        *slot = Some(count);
    }
    if encoding == model.settings.encoding {
        trim::replan(model);
    }
    Vec::new()
}

/// Counting failed.
pub fn on_count_failed(model: &mut Model, req: u64, error: String) -> Vec<Effect> {
    if req == model.requests.conversation {
        complain(model, error);
    }
    Vec::new()
}

/// Keys of the viewer (and of its contexts list).
pub fn on_action(model: &mut Model, action: Action) -> Vec<Effect> {
    if model.viewer.as_ref().is_some_and(|v| v.trim.is_some()) {
        return trim::on_action(model, action);
    }
    if model
        .viewer
        .as_ref()
        .is_some_and(|v| v.contexts_cursor.is_some())
    {
        return on_contexts_action(model, action);
    }
    let page = page(model);
    let Some(viewer) = model.viewer.as_mut() else {
        return Vec::new();
    };
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());
    if move_cursor(&mut viewer.selected, len, action, page) {
        viewer.detail_scroll = 0;
        return Vec::new();
    }
    match action {
        Action::DetailDown => viewer.detail_scroll = viewer.detail_scroll.saturating_add(3),
        Action::DetailUp => viewer.detail_scroll = viewer.detail_scroll.saturating_sub(3),
        Action::Back => {
            model.mode = Mode::List;
            model.viewer = None;
            return list::after_move(model);
        }
        Action::Resume => {
            let record = viewer.record.clone();
            return vec![Effect::Resume { record }];
        }
        Action::ToggleEncoding => return toggle_encoding(model),
        Action::TrimKeepLast | Action::TrimBudget => return trim::start(model, action),
        Action::Contexts => {
            let Some(loaded) = &viewer.loaded else {
                return Vec::new();
            };
            let active = loaded.context.id();
            viewer.contexts_cursor = Some(
                loaded
                    .contexts
                    .iter()
                    .position(|c| c.id == active)
                    .unwrap_or(0),
            );
        }
        _ => {}
    }
    Vec::new()
}

fn toggle_encoding(model: &mut Model) -> Vec<Effect> {
    model.settings.encoding = model.settings.encoding.next();
    let encoding = model.settings.encoding;
    say(model, format!("token counts now in {encoding}"));
    let req = model.requests.conversation;
    let Some(viewer) = model.viewer.as_mut() else {
        return Vec::new();
    };
    let Some(loaded) = &viewer.loaded else {
        return Vec::new();
    };
    let context = loaded.context.clone();
    let len = loaded.len();
    let mut effects = Vec::new();
    // Counts of the other encoding stay cached: toggling back is instant.
    if let std::collections::hash_map::Entry::Vacant(slot) = viewer.counts.entry(encoding) {
        slot.insert(vec![None; len]);
        effects.push(Effect::CountTokens {
            req,
            context,
            encoding,
        });
    }
    trim::replan(model);
    effects
}

fn on_contexts_action(model: &mut Model, action: Action) -> Vec<Effect> {
    let Some(viewer) = model.viewer.as_mut() else {
        return Vec::new();
    };
    let Some(loaded) = &viewer.loaded else {
        return Vec::new();
    };
    let len = loaded.contexts.len();
    let Some(cursor) = viewer.contexts_cursor.as_mut() else {
        return Vec::new();
    };
    if move_cursor(cursor, len, action, 10) {
        return Vec::new();
    }
    match action {
        Action::Back => viewer.contexts_cursor = None,
        Action::Confirm => {
            let chosen = &loaded.contexts[*cursor];
            if chosen.id == loaded.context.id() {
                viewer.contexts_cursor = None;
                return Vec::new();
            }
            if let Some(error) = &chosen.error {
                let text = format!("cannot switch to {}: {error}", chosen.id);
                complain(model, text);
                return Vec::new();
            }
            let context_id = chosen.id.clone();
            let record = viewer.record.clone();
            model.requests.conversation += 1;
            return vec![Effect::SwitchContext {
                req: model.requests.conversation,
                record,
                context_id,
            }];
        }
        _ => {}
    }
    Vec::new()
}

/// The active context was switched: read the session again.
pub fn on_switched(model: &mut Model, req: u64, result: Result<String, String>) -> Vec<Effect> {
    if req != model.requests.conversation {
        return Vec::new();
    }
    match result {
        Ok(id) => {
            say(model, format!("active context is now {id}"));
            reload(model)
        }
        Err(e) => {
            complain(model, e);
            Vec::new()
        }
    }
}

/// Loads the open session's conversation again.
pub fn reload(model: &mut Model) -> Vec<Effect> {
    let Some(viewer) = model.viewer.as_mut() else {
        return Vec::new();
    };
    viewer.trim = None;
    viewer.contexts_cursor = None;
    let record = viewer.record.clone();
    model.requests.conversation += 1;
    vec![Effect::LoadConversation {
        req: model.requests.conversation,
        record,
    }]
}
