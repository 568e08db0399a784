//! A transcript as one self-contained HTML page to share: inline CSS, no
//! script, nothing fetched (a Content-Security-Policy that allows none),
//! readable in any browser. Message text is rendered from Markdown; tool
//! calls and results, and thinking, fold into `<details>`; media is named.
//!
//! Every piece of session text is hostile until escaped: raw HTML in the
//! Markdown is shown as text, a link is kept only for `http`, `https` and
//! `mailto` (anything else, `javascript:` among them, is shown as its
//! text), an image is named (never loaded), and controls a terminal would
//! act on are shown as visible escapes, as everywhere else.

use super::{TranscriptHeader, role_label};
use crate::humanize;
use crate::store::format::Context;
use crate::store::format::message::Part;
use crate::store::format::safe_text::safe_text;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;
use std::fmt::Write;

/// The page.
pub fn render(ctx: &Context, header: TranscriptHeader<'_>) -> String {
    let mut out = String::with_capacity(4096 + ctx.len() * 512);
    let title = esc(header.name);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"generator\" content=\"loki-sessions\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header>\n<h1>{title}</h1>\n\
         <p class=\"meta\">session <code>{}</code> · context <code>{}</code> · {}</p>\n",
        esc(header.session_id),
        esc(ctx.id()),
        humanize::plural(ctx.len() as u64, "message"),
    );
    if let Some(usage) = header.usage {
        let _ = writeln!(out, "<p class=\"usage\">{}</p>", esc(usage));
    }
    out.push_str("</header>\n<main>\n");
    for (i, m) in ctx.messages().enumerate() {
        let role = role_label(ctx, i, &m);
        let class: String = role
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let _ = write!(
            out,
            "<section class=\"message {class}\" id=\"m{}\">\n<h2>{} {} <span class=\"id\">{}</span></h2>\n",
            i + 1,
            esc(&humanize::message_number(i)),
            esc(&role),
            esc(m.id()),
        );
        let parts = m.parts();
        if parts.is_empty() {
            out.push_str("<p class=\"empty\">(no content)</p>\n");
        }
        let mut in_list = false;
        for part in &parts {
            let definition = matches!(part, Part::ToolDefinition { .. });
            if definition && !in_list {
                out.push_str("<ul class=\"tools\">\n");
            } else if !definition && in_list {
                out.push_str("</ul>\n");
            }
            in_list = definition;
            write_part(&mut out, part);
        }
        if in_list {
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn write_part(out: &mut String, part: &Part<'_>) {
    match part {
        Part::Text(t) => markdown(out, t),
        Part::Thinking(t) => {
            out.push_str("<details class=\"thinking\"><summary>Thinking</summary>\n<div>");
            markdown(out, t);
            out.push_str("</div></details>\n");
        }
        Part::Media {
            kind, media_type, ..
        } => {
            let _ = writeln!(
                out,
                "<p class=\"media\">[{}: {}]</p>",
                esc(kind),
                esc(media_type.unwrap_or("unknown type"))
            );
        }
        Part::ToolUse {
            call_id,
            name,
            arguments,
        } => {
            let _ = writeln!(
                out,
                "<details class=\"tool\"><summary>Tool call <code>{}</code> <span class=\"id\">{}</span></summary>\n<pre><code>{}</code></pre></details>",
                esc(name),
                esc(&call_text(*call_id)),
                esc(arguments)
            );
        }
        Part::ToolResult { call_id, content } => {
            let _ = writeln!(
                out,
                "<details class=\"tool\"><summary>Tool result <span class=\"id\">{}</span> · {}</summary>\n<pre><code>{}</code></pre></details>",
                esc(&call_text(*call_id)),
                humanize::plural(content.lines().count() as u64, "line"),
                esc(content)
            );
        }
        Part::ToolDefinition { name, description } => {
            let _ = writeln!(
                out,
                "<li><code>{}</code>: {}</li>",
                esc(name),
                esc(description)
            );
        }
        Part::Unknown(kind) => {
            let _ = writeln!(
                out,
                "<p class=\"unknown\">[unknown part: {}]</p>",
                esc(kind)
            );
        }
    }
}

fn call_text(call_id: Option<&Value>) -> String {
    match call_id {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => "no call id".into(),
        Some(other) => other.to_string(),
    }
}

/// `text` rendered from Markdown, made safe: raw HTML becomes text, a link
/// to anything but `http`, `https` or `mailto` becomes its text, an image
/// is named rather than loaded.
fn markdown(out: &mut String, text: &str) {
    let text = safe_text(text);
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    options.insert(Options::ENABLE_TASKLISTS);
    // Whether each open link was kept, so its end is kept or dropped too.
    let mut links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(&text, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let kept = allowed_url(&dest_url);
            links.push(kept);
            kept.then_some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        Event::End(TagEnd::Link) => match links.pop() {
            Some(true) => Some(Event::End(TagEnd::Link)),
            _ => None,
        },
        Event::Start(Tag::Image { .. }) => Some(Event::Text("[image: ".into())),
        Event::End(TagEnd::Image) => Some(Event::Text("]".into())),
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    out.push_str("<div class=\"text\">");
    out.push_str(&html);
    out.push_str("</div>\n");
}

/// True for a link a shared page may keep.
fn allowed_url(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
}

/// `text` escaped for HTML (text and attribute values alike), its
/// controls shown as visible escapes.
fn esc(text: &str) -> String {
    let text = safe_text(text);
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #ffffff; --dim: #5f6368; --line: #d0d7de;
  --user: #0b5cad; --assistant: #1a7f37; --tool: #8250df; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --dim: #9198a1;
  --line: #30363d; --user: #58a6ff; --assistant: #3fb950; --tool: #bc8cff; --code: #161b22; } }
body { margin: 0 auto; max-width: 52rem; padding: 1rem 1.25rem 4rem; font: 16px/1.55 system-ui,
  -apple-system, 'Segoe UI', sans-serif; color: var(--fg); background: var(--bg); }
header { border-bottom: 1px solid var(--line); margin-bottom: 1.5rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0; overflow-wrap: anywhere; }
.meta, .usage, .id { color: var(--dim); font-size: 0.875rem; }
.message { border-left: 3px solid var(--line); padding: 0.25rem 0 0.25rem 1rem; margin: 1.25rem 0; }
.message.user { border-color: var(--user); }
.message.assistant { border-color: var(--assistant); }
.message.tool { border-color: var(--tool); }
h2 { font-size: 0.95rem; margin: 0 0 0.5rem; text-transform: capitalize; }
h2 .id { text-transform: none; font-weight: normal; }
pre { background: var(--code); padding: 0.75rem; overflow-x: auto; border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
code { font: 0.875rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
details { margin: 0.5rem 0; }
summary { cursor: pointer; color: var(--dim); }
.thinking div { border-left: 2px solid var(--line); padding-left: 0.75rem; color: var(--dim); }
.media, .unknown, .empty { color: var(--dim); font-style: italic; }
table { border-collapse: collapse; } td, th { border: 1px solid var(--line); padding: 0.25rem 0.5rem; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn context(text: &str) -> Context {
        let raw = json!({"id": "ctx", "messages": [
            {"role": "user", "id": "m1", "content": [{"type": "text", "text": text}]},
            {"role": "assistant", "id": "m2", "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"cmd": "<b>ls</b>"}}]},
            {"role": "tool", "id": "m3", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "</pre><script>alert(1)</script>"}]},
        ]});
        Context::from_raw(
            raw.as_object().unwrap().clone(),
            std::path::Path::new("/s/ctx.json"),
        )
        .unwrap()
    }

    fn page(text: &str, name: &str) -> String {
        render(
            &context(text),
            TranscriptHeader {
                session_id: "s\"1",
                name,
                usage: Some("input 10 · ≈ $0.01 <est>"),
            },
        )
    }

    #[test]
    fn hostile_text_stays_text() {
        // Each in a paragraph of its own, so the Markdown parser sees the
        // links and the raw HTML as such.
        let hostile = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(2)>",
            "[click](javascript:alert(3)) [ok](https://example.com) [data](data:text/html,x)",
            "![pic](https://x/y.png)",
            "\"><svg onload=alert(4)> \u{1b}[31mred",
        ]
        .join("\n\n");
        let hostile = hostile.as_str();
        let html = page(hostile, "<b>title</b>\" onmouseover=\"x");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("<svg"), "{html}");
        assert!(!html.contains("href=\"javascript"), "{html}");
        assert!(!html.contains("href=\"data"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(!html.contains("onmouseover=\""), "{html}");
        assert!(!html.contains('\u{1b}'), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"https://example.com\">ok</a>"),
            "{html}"
        );
        assert!(html.contains("[image: pic]"), "{html}");
        assert!(html.contains("\\x1b"), "an escape shown, not sent");
        assert!(html.contains("&lt;est&gt;"), "the usage line escaped");
        assert!(html.contains("Content-Security-Policy"));
    }

    #[test]
    fn markdown_is_rendered_and_tools_fold() {
        let html = page(
            "Fixed **the bug** in `parse`:\n\n```rust\nfn f() {}\n```",
            "Fix",
        );
        assert!(html.contains("<strong>the bug</strong>"), "{html}");
        assert!(html.contains("<code>parse</code>"), "{html}");
        assert!(html.contains("<details class=\"tool\"><summary>Tool call <code>Bash</code>"));
        assert!(
            html.contains("&lt;/pre&gt;&lt;script&gt;"),
            "a result's text escaped"
        );
        assert!(html.starts_with("<!doctype html>"));
        assert!(html.contains("<title>Fix</title>"));
    }
}
