//! The panel of an edit by hand, under the viewer's table: what is picked,
//! what the edit would do (tokens before and after), what it does to the
//! selected message and why, and that nothing is written before Enter.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{EditPlan, placeholder};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{ClearBy, EditKind, EditState, ResumableBy, Viewer};
use crate::tui::msg::Action;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Rows the panel takes.
pub const HEIGHT: u16 = 3;

/// Draws the panel of `edit` into `area`.
pub fn draw(frame: &mut Frame, viewer: &Viewer, edit: &EditState, area: Rect, theme: Theme) {
    let (title, what) = choice(edit);
    let typing = if edit.typing.is_some() {
        " (typing)"
    } else {
        ""
    };
    let (result, result_style) = match (&edit.plan, &edit.problem) {
        _ if edit.applying => ("writing the fork…".to_string(), theme.dim()),
        _ if edit.measuring => ("laying the fork out…".to_string(), theme.dim()),
        (Some(plan), _) => (outcome(edit.kind, plan), theme.key()),
        (None, Some(problem)) => (problem.clone(), theme.error()),
        (None, None) if edit.kind == EditKind::Clear => (
            "counting tokens and the cleared copies…".into(),
            theme.dim(),
        ),
        (None, None) if edit.kind == EditKind::Resumable => {
            ("counting tokens and the fixed copies…".into(), theme.dim())
        }
        (None, None) => ("counting tokens…".into(), theme.dim()),
    };
    let lines = vec![
        Line::from(vec![
            Span::styled(title, theme.title()),
            Span::styled(what, theme.key()),
            Span::styled(typing, theme.dim()),
            Span::raw("   "),
            Span::styled(result, result_style),
        ]),
        about_selected(viewer, edit, theme),
        Line::styled(undo_note(viewer), theme.dim()),
    ];
    frame.render_widget(Paragraph::new(lines), area);
}

/// What the panel says of undoing: a Loki context is forked (the contexts
/// screen makes the old one active again); another agent's session is
/// copied into a new session, and the original is not touched.
fn undo_note(viewer: &Viewer) -> String {
    let confirm = keymap::key_for(Scope::Edit, Action::Confirm);
    if viewer.record.agent.is_external() {
        return format!(
            "Nothing changes until {confirm}: a new session beside the original, which stays as it is (delete the copy to undo)."
        );
    }
    format!(
        "Nothing changes until {confirm}: a new fork, the old context stays ({} undoes).",
        keymap::key_for(Scope::Viewer, Action::Contexts)
    )
}

/// The panel's title and what the edit picks.
fn choice(edit: &EditState) -> (&'static str, String) {
    let marked = edit.marks().len() as u64;
    match (edit.kind, edit.clear_by) {
        (EditKind::Resumable, _) => ("Resumable: ", fix_choice(edit)),
        (EditKind::Drop, _) => ("Drop: ", format!("{} marked", humanize::count(marked))),
        (EditKind::Clear, ClearBy::Marked) => (
            "Clear: ",
            format!("the results of {} marked", humanize::count(marked)),
        ),
        (EditKind::Clear, ClearBy::Over) => (
            "Clear: ",
            format!("results over {}", humanize::plural(edit.over, "token")),
        ),
        (EditKind::Clear, ClearBy::OlderThanTurns) if edit.turns == 0 => {
            ("Clear: ", "every result (0 turns kept)".into())
        }
        (EditKind::Clear, ClearBy::OlderThanTurns) => (
            "Clear: ",
            format!(
                "results before the last {}",
                humanize::plural(edit.turns, "turn")
            ),
        ),
    }
}

/// What the fix for resuming does, the number the arrows change in brackets.
fn fix_choice(edit: &EditState) -> String {
    let over = format!("results > {}", humanize::plural(edit.results_over, "token"));
    let turns = match edit.keep_turns {
        0 => "all turns".to_string(),
        k => format!("last {}", humanize::plural(k, "turn")),
    };
    let (over, turns) = match edit.resumable_by {
        ResumableBy::ResultsOver => (format!("[{over}]"), turns),
        ResumableBy::KeepTurns => (over, format!("[{turns}]")),
    };
    format!("media, {over}, {turns}")
}

/// `+2 with their tool pairs, −48,166 tokens` (the gauge above shows the
/// totals before and after).
fn outcome(kind: EditKind, plan: &EditPlan) -> String {
    let saved = plan.tokens_before.saturating_sub(plan.tokens_after);
    let figures = format!("−{}", humanize::plural(saved, "token"));
    match kind {
        EditKind::Drop if plan.partners.is_empty() => figures,
        EditKind::Drop => format!(
            "+{} with their tool pairs, {figures}",
            humanize::count(plan.partners.len() as u64)
        ),
        EditKind::Clear => format!(
            "{} to placeholders, {figures}",
            humanize::plural(plan.cleared.len() as u64, "message")
        ),
        EditKind::Resumable if !plan.changed => "nothing to do".into(),
        EditKind::Resumable => {
            let media: usize = plan.cleared.iter().map(|c| c.media.len()).sum();
            let results: usize = plan.cleared.iter().map(|c| c.results.len()).sum();
            let mut said = Vec::new();
            if media > 0 {
                said.push(format!("{} media", humanize::count(media as u64)));
            }
            if results > 0 {
                said.push(humanize::plural(results as u64, "result"));
            }
            if !plan.dropped.is_empty() {
                said.push(format!(
                    "{} dropped",
                    humanize::count(plan.dropped.len() as u64)
                ));
            }
            said.push(figures);
            said.join(", ")
        }
    }
}

/// What the edit does to the selected message, and why; else what the
/// keys do.
fn about_selected(viewer: &Viewer, edit: &EditState, theme: Theme) -> Line<'static> {
    let i = viewer.selected;
    let n = humanize::message_number(i);
    if let Some(plan) = &edit.plan {
        if let Some(pair) = plan.partners.iter().find(|p| p.index == i) {
            let call = pair.call_id.as_deref().unwrap_or("(no id)");
            let why = if pair.is_result {
                format!(
                    "it holds the result of call {call}, made by {}",
                    humanize::message_number(pair.partner_of)
                )
            } else {
                format!(
                    "it holds call {call}, whose result {} holds",
                    humanize::message_number(pair.partner_of)
                )
            };
            return Line::styled(format!("{n} goes too: {why}"), theme.dim());
        }
        if let Some(cleared) = plan.cleared.iter().find(|c| c.index == i) {
            let mut shown: Vec<String> = cleared
                .results
                .iter()
                .map(|(_, tokens)| placeholder(*tokens))
                .collect();
            if !cleared.media.is_empty() {
                shown.push(format!(
                    "{} named by type and size",
                    humanize::media(cleared.media.len() as u64)
                ));
            }
            return Line::styled(
                format!(
                    "{n} becomes {} ({} → {} tokens)",
                    shown.join(" "),
                    humanize::count(cleared.tokens_before),
                    humanize::count(cleared.tokens_after)
                ),
                theme.dim(),
            );
        }
        if plan.unchanged.contains(&i) {
            return Line::styled(
                format!("{n} stays as it is: its placeholder would not save tokens"),
                theme.dim(),
            );
        }
    }
    let mark = keymap::key_for(Scope::Edit, Action::Mark);
    if edit.by_marks() && edit.marks().contains(&i) {
        return Line::styled(format!("{n} is marked ({mark} unmarks it)"), theme.dim());
    }
    let hint = match (edit.kind, edit.clear_by) {
        (EditKind::Resumable, _) => format!(
            "↑ ↓ or digits: the number in brackets; {}: the other; {}: bytes, then asks",
            keymap::key_for(Scope::Edit, Action::CycleClearChoice),
            keymap::key_for(Scope::Edit, Action::Confirm)
        ),
        (EditKind::Drop, _) => format!(
            "{mark} marks, {} marks a range, {} clears tool results instead",
            keymap::key_for(Scope::Edit, Action::MarkRange),
            keymap::key_for(Scope::Edit, Action::StartClear)
        ),
        (EditKind::Clear, ClearBy::Marked) => format!(
            "{mark} marks a tool result, {} chooses by size or by turns",
            keymap::key_for(Scope::Edit, Action::CycleClearChoice)
        ),
        (EditKind::Clear, _) => format!(
            "↑ ↓ or digits set the number; {} chooses another way",
            keymap::key_for(Scope::Edit, Action::CycleClearChoice)
        ),
    };
    Line::styled(hint, theme.dim())
}
