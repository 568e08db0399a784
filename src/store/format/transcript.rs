//! A context as a transcript people read (Markdown or plain text: roles,
//! text, thinking, tool calls and results marked as such, media as
//! placeholders with their media type), as a page to share (HTML,
//! `html.rs`), or as JSON (the messages as stored).

mod html;

use crate::humanize;
use crate::store::format::Context;
use crate::store::format::message::{Message, Part, Special};
use serde_json::{Value, json};
use std::fmt::Write;

/// How a transcript is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TranscriptFormat {
    /// Markdown: a heading per message, code blocks for tool calls and results.
    Markdown,
    /// Plain text, as `show --full` prints messages.
    Text,
    /// `{session, name, context_id, messages}` with the messages as stored.
    Json,
    /// One self-contained HTML page to share (`html.rs`).
    Html,
}

impl TranscriptFormat {
    /// The format a file name asks for, by its extension (`.md`, `.txt`,
    /// `.json`), for the UI's export and `export -o FILE` alike.
    pub fn for_path(path: &std::path::Path) -> Option<TranscriptFormat> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "md" | "markdown" => Some(TranscriptFormat::Markdown),
            "txt" | "text" => Some(TranscriptFormat::Text),
            "json" => Some(TranscriptFormat::Json),
            "html" | "htm" => Some(TranscriptFormat::Html),
            _ => None,
        }
    }
}

/// Who the transcript is of.
#[derive(Clone, Copy, Debug)]
pub struct TranscriptHeader<'a> {
    /// The session id.
    pub session_id: &'a str,
    /// The session's name.
    pub name: &'a str,
    /// What the session spent, one line (the HTML page shows it on top).
    pub usage: Option<&'a str>,
}

/// The transcript of `ctx` in `format`, ending with a newline.
pub fn render(ctx: &Context, format: TranscriptFormat, header: TranscriptHeader<'_>) -> String {
    match format {
        TranscriptFormat::Markdown => markdown(ctx, header),
        TranscriptFormat::Text => text(ctx, header),
        TranscriptFormat::Html => html::render(ctx, header),
        TranscriptFormat::Json => {
            let doc = json!({
                "session": header.session_id,
                "name": header.name,
                "context_id": ctx.id(),
                "messages": ctx.message_values(),
            });
            let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
            out.push('\n');
            out
        }
    }
}

/// The heading of a message: its role, or what the special message is.
fn role_label(ctx: &Context, index: usize, message: &Message<'_>) -> String {
    match ctx.special_at(index) {
        Some(Special::SystemPrompt) => "system prompt".into(),
        Some(Special::ToolDefinitions) => "tool definitions".into(),
        None if message.role().is_empty() => "(no role)".into(),
        None => message.role().to_string(),
    }
}

fn text(ctx: &Context, header: TranscriptHeader<'_>) -> String {
    let mut out = format!(
        "{}\nsession {}  context {}  {}\n",
        header.name,
        header.session_id,
        ctx.id(),
        humanize::plural(ctx.len() as u64, "message")
    );
    for (i, m) in ctx.messages().enumerate() {
        let _ = write!(
            out,
            "\n── {} {}  {}\n",
            humanize::message_number(i),
            role_label(ctx, i, &m),
            m.id()
        );
        let body = m.readable();
        if !body.is_empty() {
            out.push_str(&body);
            out.push('\n');
        }
    }
    out
}

fn markdown(ctx: &Context, header: TranscriptHeader<'_>) -> String {
    let mut out = format!(
        "# {}\n\nSession `{}`, context `{}`, {}.\n",
        header.name,
        header.session_id,
        ctx.id(),
        humanize::plural(ctx.len() as u64, "message")
    );
    for (i, m) in ctx.messages().enumerate() {
        let _ = write!(
            out,
            "\n## {} {}\n",
            humanize::message_number(i),
            role_label(ctx, i, &m)
        );
        let parts = m.parts();
        if parts.is_empty() {
            out.push_str("\n*(no content)*\n");
        }
        for (j, part) in parts.iter().enumerate() {
            // Tool definitions in a row make one list.
            let listed = |p: &Part<'_>| matches!(p, Part::ToolDefinition { .. });
            if j == 0 || !(listed(part) && listed(&parts[j - 1])) {
                out.push('\n');
            }
            markdown_part(&mut out, part);
        }
    }
    out
}

fn markdown_part(out: &mut String, part: &Part<'_>) {
    match part {
        Part::Text(t) => {
            out.push_str(t);
            out.push('\n');
        }
        Part::Thinking(t) => {
            out.push_str("**Thinking**\n\n");
            for line in t.lines() {
                out.push('>');
                if !line.is_empty() {
                    out.push(' ');
                    out.push_str(line);
                }
                out.push('\n');
            }
        }
        Part::Media {
            kind, media_type, ..
        } => {
            let _ = writeln!(out, "*[{kind}: {}]*", media_type.unwrap_or("unknown type"));
        }
        Part::ToolUse {
            call_id,
            name,
            arguments,
        } => {
            let _ = writeln!(out, "**Tool call** `{name}` ({})\n", call_text(*call_id));
            fenced(out, "json", arguments);
        }
        Part::ToolResult { call_id, content } => {
            let _ = writeln!(out, "**Tool result** ({})\n", call_text(*call_id));
            fenced(out, "", content);
        }
        Part::ToolDefinition { name, description } => {
            let _ = writeln!(out, "- **Tool** `{name}`: {description}");
        }
        Part::Unknown(kind) => {
            let _ = writeln!(out, "*[unknown part: {kind}]*");
        }
    }
}

fn call_text(call_id: Option<&Value>) -> String {
    match call_id {
        Some(Value::String(s)) => format!("`{s}`"),
        None | Some(Value::Null) => "no call id".into(),
        Some(other) => format!("`{other}`"),
    }
}

/// A code block whose fence is longer than any run of backticks inside.
fn fenced(out: &mut String, lang: &str, body: &str) {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let _ = writeln!(out, "{fence}{lang}");
    out.push_str(body);
    if !body.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "{fence}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn ctx() -> Context {
        let v = json!({"id": "c1", "system_prompt_message_id": "s", "messages": [
            {"id": "s", "_type": "SystemPromptMessage", "role": "system",
             "content": [{"type": "text", "text": "Be brief."}]},
            {"id": "u", "role": "user", "content": [
                {"type": "text", "text": "Look"},
                {"type": "image", "source": {"type": "base64", "data": "AAAA", "media_type": "image/png"}}]},
            {"id": "a", "role": "assistant", "content": [
                {"type": "thinking", "text": "first\n\nsecond"},
                {"type": "tool_use", "call_id": "k", "name": "bash", "arguments": "{\"cmd\": \"ls\"}"}]},
            {"id": "t", "role": "tool", "content": [
                {"type": "tool_result", "call_id": "k", "content": "a ``` fence"}]},
            {"id": "e", "role": "assistant", "content": []},
            {"id": "d", "role": "tool", "content": [
                {"type": "tool", "name": "bash", "description": "run", "parameters": {}},
                {"type": "tool", "name": "ls", "description": "list", "parameters": {}}]}
        ]});
        Context::from_raw(v.as_object().unwrap().clone(), Path::new("c1.json")).unwrap()
    }

    const HEADER: TranscriptHeader<'static> = TranscriptHeader {
        session_id: "s1",
        name: "look-at-this",
        usage: None,
    };

    #[test]
    fn markdown_marks_every_kind_of_part() {
        let md = render(&ctx(), TranscriptFormat::Markdown, HEADER);
        assert!(md.starts_with("# look-at-this\n\nSession `s1`, context `c1`, 6 messages.\n"));
        for want in [
            "## #1 system prompt\n\nBe brief.\n",
            "## #2 user\n\nLook\n\n*[image: image/png]*\n",
            "- **Tool** `bash`: run\n- **Tool** `ls`: list\n",
            "**Thinking**\n\n> first\n>\n> second\n",
            "**Tool call** `bash` (`k`)\n\n```json\n{\"cmd\": \"ls\"}\n```\n",
            "**Tool result** (`k`)\n\n````\na ``` fence\n````\n",
            "## #5 assistant\n\n*(no content)*\n",
        ] {
            assert!(md.contains(want), "missing {want:?} in\n{md}");
        }
        assert!(!md.contains("AAAA"), "media data is not copied");
    }

    #[test]
    fn text_and_json_transcripts() {
        let txt = render(&ctx(), TranscriptFormat::Text, HEADER);
        assert!(txt.contains("── #3 assistant  a\n[thinking]\nfirst\n\nsecond\n\n[tool call bash k]\n{\"cmd\": \"ls\"}\n"), "{txt}");
        assert!(txt.contains("[image: image/png]"));
        let doc: Value =
            serde_json::from_str(&render(&ctx(), TranscriptFormat::Json, HEADER)).unwrap();
        assert_eq!(doc["context_id"], "c1");
        assert_eq!(doc["messages"], ctx().raw_dict()["messages"]);
    }
}
