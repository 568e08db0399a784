//! One line of a Claude Code session file, as much of it as loki-sessions
//! reads. Fields not named here (`toolUseResult`, `gitBranch`,
//! `userType`, …) are skipped without being built, which keeps a 100 MB
//! file fast to read; a line whose fields have unexpected types is read
//! again leniently, field by field, rather than lost.

use serde::Deserialize;
use serde_json::Value;

/// The line types this version knows (others are counted as skipped).
pub const KNOWN_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "attachment",
    "custom-title",
    "ai-title",
    "agent-name",
    "agent-setting",
    "permission-mode",
    "mode",
    "pr-link",
    "last-prompt",
    "bridge-session",
    "tag",
    // Claude Code 2.1: bookkeeping of the session, none of it a message.
    "relocated",
    "continued-in",
    "worktree-state",
    "agent-color",
    "atis-latch",
    "content-replacement",
    "cost-state",
];

/// The fields of a line that loki-sessions reads.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Line {
    /// The line's type (`user`, `assistant`, `system`, `summary`, …).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub uuid: Option<String>,
    pub parent_uuid: Option<String>,
    /// Set on a compaction boundary, whose `parentUuid` is null.
    pub logical_parent_uuid: Option<String>,
    pub is_sidechain: Option<bool>,
    pub is_meta: Option<bool>,
    pub is_compact_summary: Option<bool>,
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    /// System lines: `compact_boundary`, `local_command`, `api_error`, …
    pub subtype: Option<String>,
    /// System lines' text.
    pub content: Option<Value>,
    /// User and assistant lines: the API message.
    pub message: Option<Value>,
    pub request_id: Option<String>,
    /// `summary` lines.
    pub summary: Option<String>,
    pub leaf_uuid: Option<String>,
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub compact_metadata: Option<Value>,
    /// `microcompact_boundary` system lines (Claude Code 2.1).
    pub microcompact_metadata: Option<Value>,
    /// `relocated` lines: the folder the session belongs to now.
    pub relocated_cwd: Option<String>,
    /// `continued-in` lines: the session it goes on in.
    pub continued_in_session_id: Option<String>,
    /// `api_error` system lines.
    pub error: Option<Value>,
    /// `message.content` already made into the store's parts (by
    /// [`Line::with_parts`], on the thread that parsed the line).
    #[serde(skip)]
    pub parts: Option<Vec<Value>>,
    /// True when every block of the content was a tool result.
    #[serde(skip)]
    pub only_results: bool,
    /// Content block types the conversion did not know.
    #[serde(skip)]
    pub unknown_blocks: Vec<String>,
}

impl Line {
    /// Parses a line: fast when its fields have the expected types, field
    /// by field when not; None when it is not a JSON object at all.
    pub fn parse(bytes: &[u8]) -> Option<Line> {
        if let Ok(line) = serde_json::from_slice::<Line>(bytes) {
            return Some(line);
        }
        let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(bytes) else {
            return None;
        };
        let s = |k: &str| map.get(k).and_then(Value::as_str).map(str::to_string);
        let b = |k: &str| map.get(k).and_then(Value::as_bool);
        Some(Line {
            kind: s("type"),
            uuid: s("uuid"),
            parent_uuid: s("parentUuid"),
            logical_parent_uuid: s("logicalParentUuid"),
            is_sidechain: b("isSidechain"),
            is_meta: b("isMeta"),
            is_compact_summary: b("isCompactSummary"),
            session_id: s("sessionId"),
            agent_id: s("agentId"),
            cwd: s("cwd"),
            timestamp: s("timestamp"),
            subtype: s("subtype"),
            content: map.get("content").cloned(),
            message: map.get("message").filter(|m| m.is_object()).cloned(),
            request_id: s("requestId"),
            summary: s("summary"),
            leaf_uuid: s("leafUuid"),
            custom_title: s("customTitle"),
            ai_title: s("aiTitle"),
            compact_metadata: map.get("compactMetadata").cloned(),
            microcompact_metadata: map.get("microcompactMetadata").cloned(),
            relocated_cwd: s("relocatedCwd"),
            continued_in_session_id: s("continuedInSessionId"),
            error: map.get("error").cloned(),
            ..Line::default()
        })
    }

    /// [`Line::parse`], with the content of a user or assistant line made
    /// into parts at once: done where the line is parsed, so a large file's
    /// conversion runs on every core as its parsing does.
    pub fn parse_with_parts(bytes: &[u8]) -> Option<Line> {
        let mut line = Line::parse(bytes)?;
        line.with_parts();
        Some(line)
    }

    /// Moves `message.content` into [`Line::parts`].
    pub fn with_parts(&mut self) {
        if !matches!(self.kind(), "user" | "assistant") || self.parts.is_some() {
            return;
        }
        let content = self
            .message
            .as_mut()
            .and_then(|m| m.get_mut("content"))
            .map(Value::take)
            .unwrap_or(Value::Null);
        self.only_results = super::blocks::only_tool_results(&content);
        let mut skipped = crate::store::sources::jsonl::Skipped::default();
        self.parts = Some(super::blocks::parts(content, &mut skipped));
        self.unknown_blocks = skipped.unknown_blocks.into_iter().map(|(k, _)| k).collect();
    }

    /// The line type, empty when missing.
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// True for a line of a subagent's side conversation.
    pub fn sidechain(&self) -> bool {
        self.is_sidechain == Some(true)
    }

    /// True for the lines that make up the conversation's chain.
    pub fn is_message(&self) -> bool {
        matches!(self.kind(), "user" | "assistant" | "system")
    }

    /// The API message's field `key`.
    pub fn message_field(&self, key: &str) -> Option<&Value> {
        self.message.as_ref()?.get(key)
    }

    /// `message.id` (one API message streamed over several lines shares it).
    pub fn message_id(&self) -> Option<&str> {
        self.message_field("id")?.as_str()
    }

    /// `message.model`.
    pub fn model(&self) -> Option<&str> {
        self.message_field("model")?.as_str()
    }

    /// The text a person typed, if this is a user line holding some: string
    /// content, or its text blocks; a meta line (an injected caveat) and a
    /// command wrapper (`<command-name>…`) are not typed text.
    #[cfg(test)]
    pub fn prompt_text(&self) -> Option<String> {
        self.user_text().filter(|t| !t.starts_with('<'))
    }

    /// The trimmed text of a user line that is neither meta nor a compact
    /// summary, tags and all (a slash command's among them); None when
    /// it holds none.
    pub fn user_text(&self) -> Option<String> {
        if self.kind() != "user"
            || self.is_meta == Some(true)
            || self.is_compact_summary == Some(true)
        {
            return None;
        }
        let text = match self.message_field("content")? {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => return None,
        };
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_of_another_type_does_not_lose_the_line() {
        let line = Line::parse(br#"{"type":"user","uuid":7,"parentUuid":null,"message":{"role":"user","content":"hi"}}"#)
            .unwrap();
        assert_eq!(line.kind(), "user");
        assert_eq!(line.uuid, None);
        assert_eq!(line.prompt_text().as_deref(), Some("hi"));
        assert!(Line::parse(b"[1,2]").is_none());
        assert!(Line::parse(b"{oops").is_none());
    }

    #[test]
    fn prompts_skip_meta_lines_and_command_wrappers() {
        let meta = Line::parse(br#"{"type":"user","isMeta":true,"message":{"content":"Caveat"}}"#)
            .unwrap();
        assert_eq!(meta.prompt_text(), None);
        let cmd = Line::parse(
            br#"{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}"#,
        )
        .unwrap();
        assert_eq!(cmd.prompt_text(), None);
        let blocks = Line::parse(br#"{"type":"user","message":{"content":[{"type":"text","text":"fix it"},{"type":"image"}]}}"#).unwrap();
        assert_eq!(blocks.prompt_text().as_deref(), Some("fix it"));
    }
}
