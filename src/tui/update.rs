//! The pure state machine: `update(&mut Model, Msg) -> Vec<Effect>`. No I/O
//! here; everything slow is an `Effect`, and its answer comes back as a `Msg`
//! tagged with the request number it answers (stale answers are dropped).

mod dialogs;
mod list;
mod purge;
mod trim;
mod viewer;

use crate::tui::effect::Effect;
use crate::tui::model::{Exit, Mode, Model, Overlay, Status};
use crate::tui::msg::{Action, Msg};

/// The effects to run when the UI starts.
pub fn init(model: &mut Model) -> Vec<Effect> {
    list::rescan(model)
}

/// Applies `msg` to `model` and returns the work it calls for.
pub fn update(model: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Action(Action::Quit) => {
            model.exit = Some(Exit::Cancel);
            Vec::new()
        }
        Msg::Tick(now) => {
            model.now = now;
            Vec::new()
        }
        Msg::Resize(width, height) => {
            model.screen = (width, height);
            Vec::new()
        }
        Msg::Action(action) => on_action(model, action),
        Msg::Type(c) => on_type(model, c),
        Msg::Scroll(lines) => {
            let action = if lines > 0 { Action::Down } else { Action::Up };
            let mut effects = Vec::new();
            for _ in 0..lines.unsigned_abs().min(50) {
                effects.extend(on_action(model, action));
            }
            effects
        }
        Msg::SessionsBatch { req, records } => list::on_batch(model, req, records),
        Msg::ScanDone { req, error } => list::on_scan_done(model, req, error),
        Msg::Filtered {
            req,
            query,
            rows,
            complete,
        } => list::on_filtered(model, req, query, rows, complete),
        Msg::Stats { req, stats } => list::on_stats(model, req, stats),
        Msg::PreviewLoaded { req, preview } => list::on_preview(model, req, preview),
        Msg::Created { result } => list::on_created(model, result),
        Msg::Renamed { result } => list::on_renamed(model, result),
        Msg::Resumed { result } => list::on_resumed(model, result),
        Msg::ConversationLoaded { req, result } => viewer::on_loaded(model, req, result),
        Msg::Counted {
            req,
            encoding,
            start,
            counts,
        } => viewer::on_counted(model, req, encoding, start, counts),
        Msg::CountFailed { req, error } => viewer::on_count_failed(model, req, error),
        Msg::Trimmed { req, result } => trim::on_trimmed(model, req, result),
        Msg::Switched { req, result } => viewer::on_switched(model, req, result),
        Msg::PurgeGathered { req, result } => purge::on_gathered(model, req, result),
        Msg::PurgeProgress { req, progress } => purge::on_progress(model, req, progress),
        Msg::PurgeDone { req, result } => purge::on_done(model, req, result),
    }
}

fn on_action(model: &mut Model, action: Action) -> Vec<Effect> {
    match &model.overlay {
        Some(Overlay::Help) => {
            if action == Action::Back {
                model.overlay = None;
            }
            return Vec::new();
        }
        Some(Overlay::Confirm(_)) => return dialogs::on_confirm_action(model, action),
        Some(Overlay::Input(_)) => return dialogs::on_input_action(model, action),
        None => {}
    }
    if action == Action::Help {
        model.overlay = Some(Overlay::Help);
        return Vec::new();
    }
    match model.mode {
        Mode::List => list::on_action(model, action),
        Mode::Viewer => viewer::on_action(model, action),
        Mode::Purge => purge::on_action(model, action),
    }
}

fn on_type(model: &mut Model, c: char) -> Vec<Effect> {
    if let Some(Overlay::Input(input)) = &mut model.overlay {
        input.text.push(c);
        return Vec::new();
    }
    match model.mode {
        Mode::List if model.overlay.is_none() => list::on_type(model, c),
        Mode::Viewer => trim::on_digit(model, c),
        _ => Vec::new(),
    }
}

/// Shows `text` in the status line.
pub(crate) fn say(model: &mut Model, text: impl Into<String>) {
    model.status = Some(Status {
        text: text.into(),
        is_error: false,
    });
}

/// Shows an error in the status line.
pub(crate) fn complain(model: &mut Model, text: impl Into<String>) {
    model.status = Some(Status {
        text: text.into(),
        is_error: true,
    });
}

/// Rows in one page of a list on the current screen.
pub(crate) fn page(model: &Model) -> usize {
    usize::from(model.screen.1.saturating_sub(12)).max(1)
}

/// Moves a cursor within `0..len` by an action; returns true if it was a move.
pub(crate) fn move_cursor(cursor: &mut usize, len: usize, action: Action, page: usize) -> bool {
    let last = len.saturating_sub(1);
    let next = match action {
        Action::Up => cursor.saturating_sub(1),
        Action::Down => (*cursor + 1).min(last),
        Action::PageUp => cursor.saturating_sub(page),
        Action::PageDown => (*cursor + page).min(last),
        Action::Home => 0,
        Action::End => last,
        _ => return false,
    };
    *cursor = next;
    true
}

#[cfg(test)]
mod tests;
