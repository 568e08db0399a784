//! Edits by hand in the viewer. Space marks messages to drop (the other
//! halves of their tool pairs go with them); switched to clearing, marks
//! pick tool results to replace with placeholders, or a clear takes every
//! result over a size or older than some turns; `R` makes it resumable
//! (images named, big results cleared, optionally the last turns kept).
//! Each change re-plans at once on the counts and the edit facts the
//! viewer holds (pure, well under a millisecond); only Enter writes,
//! forking as a trim does.

use super::sizes;

mod apply;
mod resumable;

use crate::humanize;
use crate::store::{
    ClearedCounts, Context, EditFacts, Special, TokenKind, check_fork, plan_clear, plan_clear_at,
    plan_drop_at, plan_resumable,
};
use crate::tui::effect::Effect;
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{App, ClearBy, EditKind, EditState, ResumableBy, Viewer, ViewerMode};
use crate::tui::msg::Action;
use crate::tui::ops::{UiError, ViewerOp};
use crate::tui::update::Step;
pub use apply::{apply, on_edited, on_previewed};
pub use resumable::on_replaced;

/// Starts an edit of `kind` (or switches the one on screen to it).
pub fn begin(viewer: &mut Viewer, app: &mut App, kind: EditKind) -> Vec<Effect> {
    if let ViewerMode::Edit(state) = &mut viewer.mode {
        state.kind = kind;
        return replan(viewer, app);
    }
    let Some(loaded) = &viewer.loaded else {
        return Vec::new();
    };
    if let Err(e) = viewer.record.trimmable() {
        app.complain(e.to_string());
        return Vec::new();
    }
    if loaded.facts.is_none() {
        app.say("still reading the context; try again in a moment");
        return Vec::new();
    }
    viewer.mode = ViewerMode::Edit(Box::new(EditState::new(kind, app.big_message)));
    // What the status line said was about the panel before ("edit
    // cancelled" over a new one would be wrong).
    app.status = None;
    replan(viewer, app)
}

/// Keys while editing (the viewer handles copies).
pub fn on_action(viewer: &mut Viewer, app: &mut App, action: Action) -> Step {
    if viewer.edit().is_some_and(EditState::busy) {
        return Step::none();
    }
    match action {
        Action::Mark => return Step::effects(mark(viewer, app)),
        Action::MarkRange => return Step::effects(mark_range(viewer, app)),
        Action::Confirm => return apply::ask_or_apply(viewer, app),
        Action::Back => {
            viewer.mode = ViewerMode::Browse;
            app.say("edit cancelled: nothing was written");
            return Step::none();
        }
        Action::SortBySize => sizes::toggle_sort(viewer, app),
        Action::NextBig | Action::PrevBig => sizes::jump(viewer, app, action == Action::NextBig),
        Action::SetBigSize => sizes::ask_size(app),
        _ => {}
    }
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return Step::none();
    };
    let by_number = state.number().is_some();
    let changed = match action {
        Action::Up | Action::More if by_number => adjust(state, true),
        Action::Down | Action::Less if by_number => adjust(state, false),
        Action::StartDrop | Action::StartClear | Action::StartResumable => {
            let kind = match action {
                Action::StartDrop => EditKind::Drop,
                Action::StartClear => EditKind::Clear,
                _ => EditKind::Resumable,
            };
            let changed = state.kind != kind;
            state.kind = kind;
            state.typing = None;
            changed
        }
        Action::CycleClearChoice if state.kind == EditKind::Clear => {
            state.clear_by = state.clear_by.next();
            state.typing = None;
            true
        }
        Action::CycleClearChoice if state.kind == EditKind::Resumable => {
            state.resumable_by = match state.resumable_by {
                ResumableBy::ResultsOver => ResumableBy::KeepTurns,
                ResumableBy::KeepTurns => ResumableBy::ResultsOver,
            };
            state.typing = None;
            false
        }
        Action::CycleClearChoice => {
            app.say(format!(
                "{} switches to clearing tool results; then {} chooses which",
                keymap::key_for(Scope::Edit, Action::StartClear),
                keymap::key_for(Scope::Edit, Action::CycleClearChoice)
            ));
            false
        }
        Action::Backspace => match state.typing.as_mut() {
            Some(typing) => {
                typing.pop();
                let value = typing.parse().unwrap_or(0);
                state.set_number(value);
                true
            }
            None => false,
        },
        _ => {
            sizes::move_selection(viewer, action, app.page());
            false
        }
    };
    if changed {
        return Step::effects(replan(viewer, app));
    }
    Step::none()
}

/// Raises or lowers the number of a clear or a fix by size (by a
/// thousand tokens) or by turns (by one).
fn adjust(state: &mut EditState, up: bool) -> bool {
    let Some(value) = state.number() else {
        return false;
    };
    let step = state.step();
    let value = if up {
        value.saturating_add(step)
    } else {
        value.saturating_sub(step)
    };
    state.set_number(value);
    state.typing = None;
    true
}

/// A digit typed: the number of a clear by size or by turns.
pub fn on_digit(viewer: &mut Viewer, app: &mut App, c: char) -> Vec<Effect> {
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return Vec::new();
    };
    if state.busy() {
        return Vec::new();
    }
    let (Some(digit), Some(_)) = (c.to_digit(10), state.number()) else {
        return Vec::new();
    };
    let typing = state.typing.get_or_insert_with(String::new);
    if typing.len() < 12 {
        typing.push(char::from_digit(digit, 10).unwrap_or('0'));
    }
    let value = typing.parse().unwrap_or(0);
    state.set_number(value);
    replan(viewer, app)
}

/// Text pasted: a number sets the number of a clear by size or by turns.
pub fn on_paste(viewer: &mut Viewer, app: &mut App, text: &str) -> Vec<Effect> {
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return Vec::new();
    };
    if state.busy() {
        return Vec::new();
    }
    let (Some(value), Some(_)) = (sizes::parse_number(text), state.number()) else {
        return Vec::new();
    };
    state.set_number(value);
    state.typing = Some(value.to_string());
    replan(viewer, app)
}

/// Space: marks the selected message (or unmarks it) and moves down. From
/// the table it starts a drop first.
pub fn mark(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    let mut effects = Vec::new();
    if viewer.edit().is_none() {
        effects = begin(viewer, app, EditKind::Drop);
    }
    let Some(facts) = facts_of(viewer) else {
        return effects;
    };
    let selected = viewer.selected;
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return effects;
    };
    if state.kind == EditKind::Resumable {
        app.say(format!(
            "the fix picks what it replaces; {} drops marked messages instead",
            keymap::key_for(Scope::Edit, Action::StartDrop)
        ));
        return effects;
    }
    if !state.by_marks() {
        // A mark means the person picks results one by one now.
        state.clear_by = ClearBy::Marked;
        state.typing = None;
    }
    if state.marks_mut().remove(&selected) {
        state.last_mark = None;
    } else {
        if let Err(why) = markable(&facts, state.kind, selected) {
            app.complain(why);
            return effects;
        }
        state.marks_mut().insert(selected);
        state.last_mark = Some(selected);
    }
    sizes::move_selection(viewer, Action::Down, 1);
    effects.extend(replan(viewer, app));
    effects
}

/// Marks every message from the last mark to the cursor, in the table's
/// order; messages that cannot be marked are left out, and counted.
pub fn mark_range(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    let mut effects = Vec::new();
    if viewer.edit().is_none() {
        effects = begin(viewer, app, EditKind::Drop);
    }
    let Some(facts) = facts_of(viewer) else {
        return effects;
    };
    let Some(last) = viewer.edit().map(|e| e.last_mark) else {
        return effects;
    };
    let here = viewer.row_of(viewer.selected);
    let from = last.map_or(here, |m| viewer.row_of(m));
    let rows = from.min(here)..=from.max(here);
    let messages: Vec<usize> = rows.map(|r| viewer.message_at(r)).collect();
    let selected = viewer.selected;
    let ViewerMode::Edit(state) = &mut viewer.mode else {
        return effects;
    };
    if state.kind == EditKind::Resumable {
        return effects;
    }
    if !state.by_marks() {
        state.clear_by = ClearBy::Marked;
        state.typing = None;
    }
    let (mut marked, mut refused) = (0u64, Vec::new());
    for i in messages {
        match markable(&facts, state.kind, i) {
            Ok(()) => marked += u64::from(state.marks_mut().insert(i)),
            Err(why) => refused.push(why),
        }
    }
    state.last_mark = Some(selected);
    let mut said = format!("marked {} more", humanize::plural(marked, "message"));
    match refused.as_slice() {
        [] => {}
        [why] => said.push_str(&format!("; left out {why}")),
        many => said.push_str(&format!(
            "; left out {} that cannot be {}",
            many.len(),
            verb(state.kind)
        )),
    }
    if last.is_none() {
        said.push_str(&format!(
            " (move, then {} marks up to there)",
            keymap::key_for(Scope::Edit, Action::MarkRange)
        ));
    }
    app.say(said);
    effects.extend(replan(viewer, app));
    effects
}

fn verb(kind: EditKind) -> &'static str {
    match kind {
        EditKind::Drop => "dropped",
        EditKind::Clear => "cleared",
        EditKind::Resumable => "replaced",
    }
}

/// Why message `i` cannot be marked for an edit of `kind`, if it cannot.
fn markable(facts: &EditFacts, kind: EditKind, i: usize) -> Result<(), String> {
    let n = humanize::message_number(i);
    let what = match facts.special(i) {
        Some(Special::SystemPrompt) => Some("the system prompt"),
        Some(Special::ToolDefinitions) => Some("the tool definitions"),
        None => None,
    };
    if let Some(what) = what {
        return Err(format!(
            "{n}: {what}, which every context keeps, cannot be {}",
            verb(kind)
        ));
    }
    if kind == EditKind::Drop || !facts.clearable(i).is_empty() {
        return Ok(());
    }
    let has_results = facts
        .shape(i)
        .parts
        .iter()
        .any(|p| p.kind == TokenKind::ToolResults);
    Err(if has_results {
        format!("{n}: its tool results are cleared already")
    } else {
        format!("{n} holds no tool result to clear (only tool results can be cleared)")
    })
}

fn facts_of(viewer: &Viewer) -> Option<std::sync::Arc<EditFacts>> {
    viewer.loaded.as_ref()?.facts.clone()
}

/// Plans the edit on screen again from the counts of the current
/// encoding, and asks for the cleared (or replaced) counts a clear or a
/// fix needs (once for each).
pub fn replan(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    let encoding = app.settings.encoding;
    let mut effects = ask_cleared(viewer, app);
    effects.extend(resumable::ask_replaced(viewer, app));
    let counts = viewer.complete_counts(encoding);
    let cleared = match viewer.edit() {
        Some(e) if e.kind == EditKind::Resumable => {
            viewer.replaced.get(&(encoding, e.results_over)).cloned()
        }
        _ => viewer.cleared.get(&encoding).cloned(),
    };
    let (Some(facts), Some(loaded)) = (facts_of(viewer), viewer.loaded.as_ref()) else {
        return effects;
    };
    let context = loaded.context.clone();
    if let ViewerMode::Edit(state) = &mut viewer.mode {
        plan(
            state,
            &context,
            &facts,
            counts.as_deref(),
            cleared.as_deref(),
        );
    }
    effects
}

/// The plan of `state`, or why there is none (counts still coming, or an
/// edit the planner refuses).
fn plan(
    state: &mut EditState,
    context: &Context,
    facts: &EditFacts,
    counts: Option<&[u64]>,
    cleared: Option<&ClearedCounts>,
) {
    state.problem = None;
    state.plan = None;
    let Some(counts) = counts else {
        return;
    };
    let marks: Vec<usize> = state.marks().iter().copied().collect();
    let planned = match (state.kind, cleared, state.clear_choice()) {
        (EditKind::Drop, _, _) => plan_drop_at(facts, counts, &marks, true),
        (EditKind::Clear | EditKind::Resumable, None, _) => return,
        (EditKind::Resumable, Some(replaced), _) => {
            plan_resumable(facts, counts, replaced, &state.fix())
        }
        (EditKind::Clear, Some(cleared), None) => plan_clear_at(facts, counts, cleared, &marks),
        (EditKind::Clear, Some(cleared), Some(choice)) => {
            plan_clear(facts, counts, cleared, &choice)
        }
    };
    // Refused here, as the write would refuse it, not after Enter.
    let planned = planned.and_then(|plan| {
        if plan.changed {
            check_fork(context, &plan.kept)?;
        }
        Ok(plan)
    });
    match planned {
        Ok(plan) => state.plan = Some(plan),
        Err(e) => state.problem = Some(e.reason_first()),
    }
}

/// Asks for every clearable message's count once cleared, when a clear is
/// on screen, the counts are complete and nobody asked for them yet.
fn ask_cleared(viewer: &mut Viewer, app: &mut App) -> Vec<Effect> {
    let encoding = app.settings.encoding;
    let clearing = viewer.edit().is_some_and(|e| e.kind == EditKind::Clear);
    let asked = viewer.pending.cleared.is_some_and(|(_, e)| e == encoding);
    if !clearing || asked || viewer.cleared.contains_key(&encoding) {
        return Vec::new();
    }
    let Some(counts) = viewer.complete_counts(encoding) else {
        return Vec::new();
    };
    let Some(loaded) = &viewer.loaded else {
        return Vec::new();
    };
    let Some(facts) = loaded.facts.clone() else {
        return Vec::new();
    };
    let req = app.request();
    viewer.pending.cleared = Some((req, encoding));
    vec![Effect::store(
        req,
        ViewerOp::CountCleared {
            context: loaded.context.clone(),
            facts,
            counts,
            encoding,
        },
    )]
}

/// The cleared counts arrived: kept for the context, and the clear planned.
pub fn on_cleared(
    viewer: &mut Viewer,
    app: &mut App,
    req: u64,
    encoding: crate::store::Encoding,
    result: Result<ClearedCounts, UiError>,
) -> Vec<Effect> {
    if viewer.pending.cleared != Some((req, encoding)) {
        return Vec::new();
    }
    viewer.pending.cleared = None;
    match result {
        Ok(counts) => {
            viewer.cleared.insert(encoding, std::sync::Arc::new(counts));
            replan(viewer, app)
        }
        Err(e) => {
            app.complain(format!("cannot count the cleared tool results: {e}"));
            Vec::new()
        }
    }
}
