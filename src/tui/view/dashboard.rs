//! The usage dashboard: the period's cost per day as a bar chart, the
//! month so far, and what went to each project, model and agent.

use crate::humanize;
use crate::render::theme::Theme;
use crate::store::{ReportRow, UsageReport};
use crate::tui::model::{DashboardView, Model};
use crate::tui::ops::DashboardReports;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Cell, Paragraph, Row, Table};

/// Draws the dashboard over `area`.
pub fn draw(frame: &mut Frame, model: &Model, area: Rect, theme: Theme) {
    let Some(dashboard) = model.dashboard() else {
        return;
    };
    let block = Block::bordered().title(Line::styled(
        format!(" Usage: the last {} days ", dashboard.days),
        theme.title(),
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(reports) = &dashboard.reports else {
        let text = match &dashboard.error {
            Some(e) => Line::styled(e.to_string(), theme.error()),
            None => Line::styled("adding up what the agents spent…", theme.dim()),
        };
        frame.render_widget(Paragraph::new(text), inner);
        return;
    };
    let chart_height = (inner.height / 2).clamp(5, 16);
    let [summary, chart, tables] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(chart_height),
        Constraint::Min(3),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(summary_lines(dashboard, reports, theme)),
        summary,
    );
    draw_chart(frame, reports, chart, theme);
    let [projects, models, agents] = Layout::horizontal([
        Constraint::Percentage(38),
        Constraint::Percentage(36),
        Constraint::Min(22),
    ])
    .areas(tables);
    draw_table(frame, "Projects", &reports.projects, projects, theme);
    draw_table(frame, "Models", &reports.models, models, theme);
    draw_table(frame, "Agents", &reports.agents, agents, theme);
}

/// The period's and the month's totals, and what has no price.
fn summary_lines(
    dashboard: &DashboardView,
    reports: &DashboardReports,
    theme: Theme,
) -> Vec<Line<'static>> {
    let total = &reports.days.totals;
    let month = &reports.month.totals;
    let month_name = reports
        .calendar
        .last()
        .and_then(|d| d.get(..7))
        .unwrap_or("");
    if total.usage.total() == 0 {
        return vec![Line::styled(
            "Nothing recorded as spent in this period (Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code and OpenCode record it).",
            theme.dim(),
        )];
    }
    let mut lines = vec![
        Line::from(vec![
            Span::styled(cost(total), theme.key()),
            Span::raw(format!(
                " in {} days · {} tokens · {}",
                dashboard.days,
                humanize::count(total.usage.total()),
                humanize::plural(total.sessions as u64, "session"),
            )),
        ]),
        Line::from(vec![
            Span::styled(cost(month), theme.key()),
            Span::raw(format!(" this month ({month_name}) so far")),
            Span::styled(
                format!(" · estimates at the prices of {}", reports.days.prices_of),
                theme.dim(),
            ),
        ]),
    ];
    if !total.unpriced_models.is_empty() {
        lines.push(Line::styled(
            format!(
                "? no price for {} (their tokens are not in the cost)",
                total.unpriced_models.join(", ")
            ),
            theme.warn(),
        ));
    }
    lines
}

/// The cost of each day of the period (tokens, where nothing is priced),
/// as many of the latest days as the width holds.
fn draw_chart(frame: &mut Frame, reports: &DashboardReports, area: Rect, theme: Theme) {
    let priced = reports.days.rows.iter().any(|r| r.cost_usd.is_some());
    let title = if priced {
        " Cost per day ($) "
    } else {
        " Tokens per day "
    };
    let value = |day: &str| {
        let row = reports.days.rows.iter().find(|r| r.key == day);
        row.map_or(0, |r| {
            if priced {
                (r.cost_usd.unwrap_or(0.0) * 100.0).round() as u64
            } else {
                r.usage.total()
            }
        })
    };
    let block = Block::bordered().title(Line::styled(title, theme.title()));
    let width = usize::from(block.inner(area).width);
    let days = &reports.calendar;
    let (bar_width, gap) = match width / days.len().max(1) {
        0 | 1 => (1, 0),
        2 => (2, 0),
        w => (w as u16 - 1, 1),
    };
    let fits = width / usize::from(bar_width + gap).max(1);
    let shown = &days[days.len().saturating_sub(fits)..];
    // A label is the day of the month; where bars touch, every fifth day's.
    let every = if bar_width + gap >= 3 { 1 } else { 5 };
    let bars: Vec<Bar> = shown
        .iter()
        .enumerate()
        .map(|(n, day)| {
            let v = value(day);
            let from_end = shown.len() - 1 - n;
            let label = if bar_width >= 2 && from_end.is_multiple_of(every) {
                day.get(8..).unwrap_or("")
            } else {
                ""
            };
            Bar::default()
                .value(v)
                .text_value(String::new())
                .label(Line::from(label.to_string()))
                .style(theme.key())
        })
        .collect();
    let chart = BarChart::default()
        .block(block)
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_width)
        .bar_gap(gap);
    frame.render_widget(chart, area);
}

/// Columns of a table's cost (`$123.45+?`).
const COST_WIDTH: usize = 8;

/// One table: its rows with their cost and a bar of it.
fn draw_table(frame: &mut Frame, title: &str, report: &UsageReport, area: Rect, theme: Theme) {
    let most = report
        .rows
        .iter()
        .map(|r| r.cost_usd.unwrap_or(0.0))
        .fold(0.0, f64::max);
    let inner_width = usize::from(area.width.saturating_sub(2));
    let bar_width = (inner_width / 5).max(1);
    let name_width = inner_width
        .saturating_sub(COST_WIDTH + bar_width + 2)
        .max(6);
    let rows: Vec<Row> = report
        .rows
        .iter()
        .map(|r| {
            let bar = if most > 0.0 {
                "█".repeat(((r.cost_usd.unwrap_or(0.0) / most) * bar_width as f64).round() as usize)
            } else {
                String::new()
            };
            Row::new([
                Cell::from(humanize::truncate(&name(r), name_width)),
                Cell::from(Line::from(cost(r)).right_aligned()),
                Cell::from(Span::styled(bar, theme.key())),
            ])
        })
        .collect();
    let table = Table::new(
        rows,
        [
            Constraint::Length(name_width as u16),
            Constraint::Length(COST_WIDTH as u16),
            Constraint::Length(bar_width as u16),
        ],
    )
    .block(Block::bordered().title(Line::styled(format!(" {title} "), theme.title())))
    .style(Style::new());
    frame.render_widget(table, area);
}

/// A row's name: a project by its last folder names.
fn name(r: &ReportRow) -> String {
    if r.key.starts_with('/') {
        let parts: Vec<&str> = r.key.rsplit('/').take(2).collect();
        return parts.into_iter().rev().collect::<Vec<_>>().join("/");
    }
    r.key.clone()
}

/// A row's cost (`?` for what no price covers; nothing spent is $0).
fn cost(r: &ReportRow) -> String {
    if r.cost_usd.is_none() && r.usage.total() == 0 {
        return "$0.00".into();
    }
    humanize::dollars(r.cost_usd, !r.unpriced_models.is_empty())
}
