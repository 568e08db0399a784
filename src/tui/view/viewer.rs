//! The context viewer: gauge, where the tokens go, messages with token
//! counts and running total, the trim or the edit being prepared, and the
//! selected message in full.

use crate::humanize;
use crate::render::theme::Theme;
use crate::render::wrap;
use crate::store::{Encoding, match_ranges};
use crate::tui::keymap::{self, Scope};
use crate::tui::model::{Model, TrimKind, Viewer, ViewerMode};
use crate::tui::msg::Action;
use crate::tui::view::{ViewState, breakdown, contexts, diff, edit, message, messages, transcript};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, LineGauge, Paragraph, Wrap};

/// Characters of each part shown in the detail pane: pages of text, and a
/// huge paste still draws within a frame (`loki-sessions show` has it all).
const DETAIL_CHARS: usize = 20_000;

/// Draws the viewer.
pub fn draw(frame: &mut Frame, model: &Model, state: &mut ViewState, area: Rect, theme: Theme) {
    let Some(viewer) = model.viewer() else {
        return;
    };
    if let Some(view) = viewer.message() {
        message::draw(frame, model, viewer, view, area, theme);
        return;
    }
    if let Some(view) = viewer.transcript() {
        transcript::draw(frame, model, viewer, view, area, theme);
        return;
    }
    let panel_height = match (viewer.trim(), viewer.edit()) {
        (Some(t), _) => 2 + t.warnings().len().min(2) as u16,
        (None, Some(_)) => edit::HEIGHT,
        (None, None) => 0,
    };
    let detail_height = (area.height / 3).clamp(5, 14);
    let [header, gauge, kinds, table_area, panel_area, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(4),
        Constraint::Length(panel_height),
        Constraint::Length(detail_height),
    ])
    .areas(area);
    let encoding = model.app.settings.encoding;
    let counts = viewer.counts.get(&encoding);
    let counted = counts.map_or(0, |c| c.iter().filter(|x| x.is_some()).count());
    let total: u64 = counts.map_or(0, |c| c.iter().flatten().sum());
    let len = viewer.loaded.as_ref().map_or(0, |l| l.len());

    let title = heading(viewer, len, encoding, usize::from(header.width), theme);
    frame.render_widget(Paragraph::new(title), header);
    draw_gauge(frame, model, gauge, total, counted, len, theme);
    let bar = breakdown::bar_line(viewer.breakdown.as_ref(), usize::from(kinds.width), theme);
    frame.render_widget(Paragraph::new(bar), kinds);

    if let Some(error) = &viewer.error {
        let text = Paragraph::new(vec![Line::styled(error.to_string(), theme.error())])
            .wrap(Wrap { trim: true });
        frame.render_widget(text, table_area);
        return;
    }
    messages::draw(frame, model, viewer, state, table_area, theme);
    if let Some(trim) = viewer.trim() {
        let external = viewer.record.agent.is_external();
        draw_trim(frame, trim, len, external, panel_area, theme);
    }
    if let Some(state) = viewer.edit() {
        edit::draw(frame, viewer, state, panel_area, theme);
    }
    draw_detail(frame, viewer, detail, theme);
    match &viewer.mode {
        ViewerMode::Contexts(view) => match &view.diff {
            Some(d) => diff::draw(frame, d, area, theme),
            None => contexts::draw(frame, view, area, theme),
        },
        ViewerMode::Breakdown => {
            let not_in_file = viewer.loaded.as_ref().and_then(|l| {
                let r = l.recorded.as_ref()?;
                let counts = viewer.complete_counts(encoding)?;
                let before: u64 = counts.iter().take(r.messages_seen).sum();
                Some(r.tokens.saturating_sub(before))
            });
            breakdown::draw_panel(
                frame,
                viewer.breakdown.as_ref(),
                not_in_file,
                encoding,
                area,
                theme,
            );
        }
        _ => {}
    }
}

/// The session's name, its context, how many messages and the encoding:
/// the count and the encoding always show; a narrow screen shortens the
/// context id, then cuts the name.
fn heading(
    viewer: &Viewer,
    len: usize,
    encoding: Encoding,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    let messages = format!("   {}", humanize::plural(len as u64, "message"));
    let facts = format!("{messages}   {encoding}");
    let id = viewer.loaded.as_ref().map_or("…", |l| l.context.id());
    let r = &viewer.record;
    let title;
    let name = if let Some(side) = &viewer.side {
        // A side conversation read in the session's place: whose it is.
        title = format!(
            "{} (read only) of {}",
            crate::store::safe_text::safe_line(side),
            r.shown_name()
        );
        &title
    } else if r.agent.is_external() {
        title = format!(
            "{}{} · {}",
            r.agent.display_name(),
            // Its agent deleted it: what is read is our archived copy.
            if r.archived { " (archived)" } else { "" },
            r.title.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        &title
    } else {
        &r.name
    };
    // Another agent's session: what it spent instead of the context id
    // (which is its own id).
    if let Some((usage, cost)) = viewer.loaded.as_ref().and_then(|l| l.usage.as_deref()) {
        // Narrower, the figures shorten, then the encoding goes, before
        // the name is cut below NAME_AT_LEAST.
        const NAME_AT_LEAST: usize = 24;
        let (long, short) = (
            usage_text(usage, cost.as_ref(), false),
            usage_text(usage, cost.as_ref(), true),
        );
        let choices = [
            (long, facts.clone()),
            (short.clone(), facts),
            (short, messages.replacen("   ", "  ", 1)),
        ];
        let fits = |(spent, facts): &(String, String)| {
            wrap::columns(spent) + wrap::columns(facts) + wrap::columns(name).min(NAME_AT_LEAST)
                <= width
        };
        let last = choices[2].clone();
        let (spent, facts) = choices.into_iter().find(fits).unwrap_or(last);
        let room = width.saturating_sub(wrap::columns(&facts));
        // The name keeps up to half the room; what was spent takes the rest.
        let name_room = wrap::columns(name)
            .min(room / 2)
            .max(room.saturating_sub(wrap::columns(&spent)));
        let spent = humanize::truncate(&spent, room.saturating_sub(name_room));
        let name = humanize::truncate(name, room.saturating_sub(wrap::columns(&spent)));
        return Line::from(vec![
            Span::styled(name, theme.title()),
            Span::styled(spent + &facts, theme.dim()),
        ]);
    }
    let room = width.saturating_sub(wrap::columns(&facts));
    // The id takes what the name leaves, and at least its date and first
    // eight digits; then the name is cut (or, very narrow, the id goes).
    const PREFIX: &str = "   context ";
    let id_room = room.saturating_sub(wrap::columns(name) + PREFIX.len());
    let mut context = if id_room >= short_id(id).len() {
        format!("{PREFIX}{}", humanize::truncate(id, id_room))
    } else {
        format!("{PREFIX}{}", short_id(id))
    };
    if room.saturating_sub(wrap::columns(&context)) < 12 {
        context.clear();
    }
    let name = humanize::truncate(name, room.saturating_sub(wrap::columns(&context)));
    Line::from(vec![
        Span::styled(name, theme.title()),
        Span::styled(context + &facts, theme.dim()),
    ])
}

/// `   ≈$0.05 · spent: in 1,234 · out 4,210 · cache 124,000 read, 9,600 written`,
/// the cost first so a narrow header never cuts it off; `short`:
/// `  ≈$0.05 · in 1.2k · out 4.2k · cache 124k read, 9.6k written`, a cache
/// figure of nothing left out.
fn usage_text(
    u: &crate::store::Usage,
    cost: Option<&crate::store::CostEstimate>,
    short: bool,
) -> String {
    let cost = cost.map_or(String::new(), |c| format!(" {} ·", humanize::cost(c)));
    if !short {
        return format!(
            "  {cost} spent: in {} · out {} · cache {} read, {} written",
            humanize::count(u.input),
            humanize::count(u.output),
            humanize::count(u.cache_read),
            humanize::count(u.cache_write)
        );
    }
    let n = humanize::short_count;
    let cache = match (u.cache_read, u.cache_write) {
        (0, 0) => String::new(),
        (read, 0) => format!(" · cache {} read", n(read)),
        (0, written) => format!(" · cache {} written", n(written)),
        (read, written) => format!(" · cache {} read, {} written", n(read), n(written)),
    };
    format!(" {cost} in {} · out {}{cache}", n(u.input), n(u.output))
}

fn draw_gauge(
    frame: &mut Frame,
    model: &Model,
    area: Rect,
    total: u64,
    counted: usize,
    len: usize,
    theme: Theme,
) {
    let configured = model
        .viewer()
        .map_or(model.app.settings.window_tokens, |v| {
            model.app.settings.window_for(&v.record)
        })
        .max(1);
    // As the agent's API saw it, where the agent records it: its figure at
    // the last request, and what came after counted here.
    let encoding = model.app.settings.encoding;
    let recorded = model.viewer().and_then(|v| {
        let counts = v.complete_counts(encoding)?;
        let r = v.loaded.as_ref()?.recorded.clone()?;
        Some(crate::store::with_counted_after(r, &counts))
    });
    let figure = crate::store::ContextFigure::of(Some(total), recorded.as_ref(), configured);
    let window = figure.as_ref().map_or(configured, |f| f.window);
    // An edit on screen shows what the context would hold after it.
    let after = model
        .viewer()
        .and_then(|v| v.edit())
        .and_then(|e| e.plan.as_ref())
        .filter(|p| p.changed)
        .map(|p| p.tokens_after);
    // A total of what is counted so far would read as the context's size:
    // until every message is counted, the gauge shows the counting instead.
    let (ratio, label, style) = if counted < len {
        (
            counted as f64 / len as f64,
            format!(
                "counting… {} of {} messages",
                humanize::count(counted as u64),
                humanize::count(len as u64)
            ),
            theme.dim(),
        )
    } else {
        let api = figure
            .as_ref()
            .filter(|f| f.is_recorded() && after.is_none());
        let shown = api.map_or(after.unwrap_or(total), |f| f.tokens);
        let alarm = crate::tui::model::fill_alarm(shown, window);
        let style = match alarm {
            Some(true) => theme.error(),
            Some(false) => theme.warn(),
            None => theme.key(),
        };
        let figure = match (after, api) {
            (Some(after), _) => format!("{} → {}", humanize::count(total), humanize::count(after)),
            // The API's own figure first: the counts below are cl100k's.
            (None, Some(f)) if f.estimated_after > 0 => format!(
                "≈{} (API {} + ≈{} since)",
                humanize::count(f.tokens),
                humanize::count(f.recorded.unwrap_or(0)),
                humanize::count(f.estimated_after)
            ),
            (None, Some(f)) => format!("{} (as the API saw it)", humanize::count(f.tokens)),
            (None, None) => humanize::count(total),
        };
        (
            (shown as f64 / window as f64).min(1.0),
            format!(
                "{figure} / {} tokens ({:.0}% of the window){}",
                humanize::count(window),
                100.0 * shown as f64 / window as f64,
                match alarm {
                    Some(true) if shown >= window => " — over the window",
                    Some(true) => " — nearly full",
                    Some(false) => " — filling up",
                    None => "",
                }
            ),
            style,
        )
    };
    let gauge = LineGauge::default()
        .ratio(ratio)
        .label(label)
        .filled_style(style);
    frame.render_widget(gauge, area);
}

fn draw_trim(
    frame: &mut Frame,
    trim: &crate::tui::model::TrimState,
    len: usize,
    external: bool,
    area: Rect,
    theme: Theme,
) {
    let what = match (trim.kind, trim.value) {
        (TrimKind::KeepLast, 1) => "keep the last message".to_string(),
        (TrimKind::KeepLast, n) => format!("keep the last {} messages", humanize::count(n)),
        (TrimKind::Budget, n) => format!("fit in {}", humanize::plural(n, "token")),
    };
    let typing = if trim.typing.is_some() {
        " (typing)"
    } else {
        ""
    };
    let result = match &trim.plan {
        None if trim.applying => "writing the fork…".to_string(),
        None => "counting tokens…".to_string(),
        Some(plan) if !plan.changed => "nothing to drop: the context already fits".to_string(),
        Some(plan) => format!(
            "→ {} of {}, {} → {}, {} dropped (dimmed)",
            humanize::count(plan.kept.len() as u64),
            humanize::plural(len as u64, "message"),
            humanize::count(plan.tokens_before),
            humanize::plural(plan.tokens_after, "token"),
            humanize::count(plan.dropped.len() as u64)
        ),
    };
    let lines = vec![
        Line::from(vec![
            Span::styled("Trim: ", theme.title()),
            Span::styled(what, theme.key()),
            Span::styled(typing, theme.dim()),
            Span::raw("   "),
            Span::raw(result),
        ]),
        Line::styled(
            if external {
                format!(
                    "Nothing changes until {}; then a new session beside it holds the rest (the original is never changed).",
                    keymap::key_for(Scope::Trim, Action::Confirm),
                )
            } else {
                format!(
                    "Nothing changes until {}; the current context stays on disk ({} switches back).",
                    keymap::key_for(Scope::Trim, Action::Confirm),
                    keymap::key_for(Scope::Viewer, Action::Contexts)
                )
            },
            theme.dim(),
        ),
    ];
    let mut lines = lines;
    for warning in trim.warnings().into_iter().take(2) {
        lines.insert(1, Line::styled(format!("Note: {warning}"), theme.error()));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

fn draw_detail(frame: &mut Frame, viewer: &Viewer, area: Rect, theme: Theme) {
    let Some(message) = viewer
        .loaded
        .as_ref()
        .and_then(|l| l.context.message(viewer.selected))
    else {
        return;
    };
    let title = format!(
        " {} {} {} ",
        humanize::message_number(viewer.selected),
        message.role(),
        message.id()
    );
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Line::styled(title, theme.title()));
    let readable = message.readable_limited(DETAIL_CHARS);
    let body = match &viewer.find {
        Some(query) => marked_lines(&readable, &match_ranges(&readable, query), theme),
        None => Text::raw(readable),
    };
    let text = Paragraph::new(body)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((viewer.detail_scroll, 0));
    frame.render_widget(text, area);
}

/// `text` as lines, the byte ranges `marks` in the match style.
pub(super) fn marked_lines(text: &str, marks: &[(usize, usize)], theme: Theme) -> Text<'static> {
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        let end = start + line.len();
        let mut spans = Vec::new();
        let mut at = start;
        for &(from, to) in marks.iter().filter(|(f, t)| *f >= start && *t <= end) {
            if from < at {
                continue;
            }
            spans.push(Span::raw(text[at..from].to_string()));
            spans.push(Span::styled(text[from..to].to_string(), theme.matched()));
            at = to;
        }
        spans.push(Span::raw(text[at..end].to_string()));
        lines.push(Line::from(spans));
        start = end + 1;
    }
    Text::from(lines)
}

fn short_id(id: &str) -> &str {
    id.get(..17).unwrap_or(id)
}
