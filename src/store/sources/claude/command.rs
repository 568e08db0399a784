//! Slash commands as Claude Code records them and as it shows them. A
//! command a person typed is a user line (in newer versions a `system`
//! line of subtype `local_command`) whose text wraps it in tags:
//! `<command-name>/init</command-name>`, `<command-message>init</command-message>`
//! (the name again, or a sentence about it) and `<command-args>…</command-args>`,
//! in an order that varies between versions; a local command's output is
//! `<local-command-stdout>…</local-command-stdout>` (or `-stderr`). Claude
//! Code shows the first as `/init args` and the second as its text; so do we.

/// How a command line reads: `/name args` for an invocation, the output
/// for a local command's output; None for any other text.
pub fn shown(text: &str) -> Option<String> {
    if let Some(command) = invocation(text) {
        return Some(command);
    }
    let trimmed = text.trim_start();
    for tag in ["local-command-stdout", "local-command-stderr"] {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        if let Some(out) = trimmed
            .strip_prefix(open.as_str())
            .and_then(|rest| rest.trim_end().strip_suffix(close.as_str()))
        {
            return Some(out.trim().to_string());
        }
    }
    None
}

/// `/name args` when `text` is a command a person typed, else None.
pub fn invocation(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('<') {
        return None;
    }
    let name = between(trimmed, "<command-name>", "</command-name>")?.trim();
    let name = name.strip_prefix('/').unwrap_or(name);
    let args = between(trimmed, "<command-args>", "</command-args>").map_or("", str::trim);
    Some(if args.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {args}")
    })
}

/// The text between the first `open` and the `close` after it.
fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_as_claude_code_shows_them() {
        let cases = [
            (
                "<command-name>/init</command-name>\n            <command-message>init</command-message>\n            <command-args></command-args>",
                Some("/init"),
            ),
            // An older order: the message first, a sentence.
            (
                "<command-message>review is reviewing…</command-message>\n<command-name>/review</command-name>\n<command-args>src/main.rs  </command-args>",
                Some("/review src/main.rs"),
            ),
            ("<command-name>model</command-name>", Some("/model")),
            (
                "<local-command-stdout>Set model to Opus</local-command-stdout>",
                Some("Set model to Opus"),
            ),
            (
                "<local-command-stderr>Unknown command</local-command-stderr>\n",
                Some("Unknown command"),
            ),
            ("fix the <b>bug</b>", None),
            ("<task-notification>done</task-notification>", None),
            ("<command-name>/x", None),
        ];
        for (text, want) in cases {
            assert_eq!(shown(text).as_deref(), want, "{text}");
        }
    }
}
