//! Adjusting a trim in the viewer: every change re-plans at once (pure), the
//! dropped messages are dimmed, and only Enter writes the fork.

use crate::store::trim::{Expected, TrimRequest, plan_with_index};
use crate::tui::effect::Effect;
use crate::tui::model::{Model, TrimKind, TrimState, Viewer};
use crate::tui::msg::Action;
use crate::tui::update::{complain, move_cursor, page, say, viewer};

/// Starts (or switches) a trim measured by `action`'s kind.
pub fn start(model: &mut Model, action: Action) -> Vec<Effect> {
    let window = model.settings.window_tokens;
    let encoding = model.settings.encoding;
    let Some(v) = model.viewer.as_mut() else {
        return Vec::new();
    };
    let Some(loaded) = &v.loaded else {
        return Vec::new();
    };
    if let Some(error) = &v.record.error {
        let text = format!("this session is damaged, so it is left as it is: {error}");
        complain(model, text);
        return Vec::new();
    }
    let kind = if action == Action::TrimBudget {
        TrimKind::Budget
    } else {
        TrimKind::KeepLast
    };
    let non_special = (loaded.len() - loaded.window.specials().len()) as u64;
    let total: Option<u64> = v.complete_counts(encoding).map(|c| c.iter().sum());
    let value = match kind {
        TrimKind::KeepLast => non_special.min(20),
        TrimKind::Budget => match total {
            Some(t) if t > window => window,
            Some(t) => round_down(t * 3 / 4, 1000),
            None => window,
        },
    };
    v.trim = Some(TrimState {
        kind,
        value,
        typing: None,
        plan: None,
        applying: false,
    });
    replan(model);
    Vec::new()
}

fn round_down(n: u64, to: u64) -> u64 {
    if n > to { n - n % to } else { n }
}

/// Re-plans the trim on screen, if every count is known.
pub fn replan(model: &mut Model) {
    let encoding = model.settings.encoding;
    let Some(v) = model.viewer.as_mut() else {
        return;
    };
    let counts = v.complete_counts(encoding);
    let (Some(loaded), Some(trim)) = (&v.loaded, v.trim.as_mut()) else {
        return;
    };
    let Some(counts) = counts else {
        trim.plan = None;
        return;
    };
    match plan_with_index(&loaded.window, &counts, request(trim)) {
        Ok(plan) => trim.plan = Some(plan),
        Err(e) => {
            trim.plan = None;
            let text = e.to_string();
            complain(model, text);
        }
    }
}

fn request(trim: &TrimState) -> TrimRequest {
    match trim.kind {
        TrimKind::KeepLast => TrimRequest::KeepMessages(trim.value as usize),
        TrimKind::Budget => TrimRequest::MaxTokens(trim.value),
    }
}

/// A digit typed while trimming.
pub fn on_digit(model: &mut Model, c: char) -> Vec<Effect> {
    let Some(trim) = model.viewer.as_mut().and_then(|v| v.trim.as_mut()) else {
        return Vec::new();
    };
    let Some(digit) = c.to_digit(10) else {
        return Vec::new();
    };
    let typing = trim.typing.get_or_insert_with(String::new);
    if typing.len() < 12 {
        typing.push(char::from_digit(digit, 10).unwrap_or('0'));
    }
    trim.value = typing.parse().unwrap_or(0);
    replan(model);
    Vec::new()
}

/// Keys while trimming.
pub fn on_action(model: &mut Model, action: Action) -> Vec<Effect> {
    let page = page(model);
    let Some(v) = model.viewer.as_mut() else {
        return Vec::new();
    };
    let len = v.loaded.as_ref().map_or(0, |l| l.len());
    if matches!(action, Action::PageUp | Action::PageDown) {
        move_cursor(&mut v.selected, len, action, page);
        return Vec::new();
    }
    let Some(trim) = v.trim.as_mut() else {
        return Vec::new();
    };
    if trim.applying {
        return Vec::new();
    }
    let step = match trim.kind {
        TrimKind::KeepLast => 1,
        TrimKind::Budget => 1000,
    };
    match action {
        Action::More => {
            trim.value = trim.value.saturating_add(step);
            trim.typing = None;
        }
        Action::Less => {
            trim.value = trim
                .value
                .saturating_sub(step)
                .max(u64::from(trim.kind == TrimKind::KeepLast));
            trim.typing = None;
        }
        Action::Backspace => {
            if let Some(typing) = trim.typing.as_mut() {
                typing.pop();
                trim.value = typing.parse().unwrap_or(0);
            }
        }
        Action::TrimKeepLast | Action::TrimBudget => return start(model, action),
        Action::Back => {
            v.trim = None;
            return Vec::new();
        }
        Action::Confirm => return confirm(model),
        _ => return Vec::new(),
    }
    replan(model);
    Vec::new()
}

fn confirm(model: &mut Model) -> Vec<Effect> {
    let encoding = model.settings.encoding;
    let Some(v) = model.viewer.as_mut() else {
        return Vec::new();
    };
    let Some(effect) = apply_effect(v, encoding, model.requests.conversation + 1) else {
        let changed = v
            .trim
            .as_ref()
            .and_then(|t| t.plan.as_ref())
            .map(|p| p.changed);
        match changed {
            Some(false) => say(model, "nothing to trim: the context already fits"),
            _ => say(model, "still counting tokens; try again in a moment"),
        }
        return Vec::new();
    };
    model.requests.conversation += 1;
    vec![effect]
}

fn apply_effect(v: &mut Viewer, encoding: crate::store::Encoding, req: u64) -> Option<Effect> {
    let loaded = v.loaded.as_ref()?;
    let trim = v.trim.as_mut()?;
    if trim.kind == TrimKind::KeepLast && trim.value == 0 {
        return None;
    }
    if !trim.plan.as_ref()?.changed {
        return None;
    }
    trim.applying = true;
    Some(Effect::ApplyTrim {
        req,
        record: v.record.clone(),
        request: request(trim),
        encoding,
        expected: Expected {
            context_id: loaded.context.id().to_string(),
            mutation_counter: loaded.context.mutation_counter(),
        },
    })
}

/// The store answered a trim.
pub fn on_trimmed(
    model: &mut Model,
    req: u64,
    result: Result<Option<String>, String>,
) -> Vec<Effect> {
    if req != model.requests.conversation {
        return Vec::new();
    }
    match result {
        Ok(Some(id)) => {
            say(
                model,
                format!("trimmed: new active context {id}; press c to switch back"),
            );
            viewer::reload(model)
        }
        Ok(None) => {
            say(model, "nothing to trim: the context already fits");
            viewer::reload(model)
        }
        Err(e) => {
            if let Some(trim) = model.viewer.as_mut().and_then(|v| v.trim.as_mut()) {
                trim.applying = false;
            }
            complain(model, e);
            Vec::new()
        }
    }
}
