//! One realistic agent conversation as a peteos context dict: system prompt,
//! tool definitions, then user and assistant turns with thinking, tool calls
//! and results, code and now and then an image.

use crate::demo::corpus::{Corpus, IMAGE_PNG, Rng, SYSTEM_PROMPT};
use crate::store::format::{Assembler, ids};
use serde_json::{Map, Value, json};

const TOOLS: [(&str, &str); 4] = [
    (
        "bash",
        "Run a shell command in the workspace and return its output.",
    ),
    ("read_file", "Read a file of the workspace."),
    ("grep", "Search the workspace for a regular expression."),
    ("edit_file", "Replace a range of lines of a file."),
];

/// Builds the context `context_id` with about `messages` messages after the
/// two special ones, opening with `first_prompt`, timestamped from `start`.
pub fn build_context(
    rng: &mut Rng,
    corpus: &Corpus,
    context_id: &str,
    first_prompt: &str,
    messages: usize,
    start: f64,
) -> Map<String, Value> {
    let mut ctx = Assembler::with_default_anchors(Assembler::empty_header(context_id));
    let mut clock = start;
    let mut stamp = |rng: &mut Rng| {
        clock += 5.0 + rng.unit() * 90.0;
        ids::iso_timestamp(clock)
    };

    let system_id = rng.uuid().to_string();
    let mut system = Map::new();
    system.insert("_static_text".into(), json!(SYSTEM_PROMPT.trim()));
    system.insert("role".into(), json!("system"));
    system.insert("_type".into(), json!("SystemPromptMessage"));
    system.insert("id".into(), json!(system_id));
    system.insert("_hook_ids".into(), json!([]));
    system.insert("creation_timestamp".into(), json!(stamp(rng)));
    system.insert(
        "content".into(),
        json!([{"type": "text", "text": SYSTEM_PROMPT.trim()}]),
    );
    ctx.append(system, "system_prompt");

    let tools_id = rng.uuid().to_string();
    let definitions: Vec<Value> = TOOLS
        .iter()
        .map(|(name, description)| {
            json!({"type": "tool", "name": name, "description": description,
                   "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}}})
        })
        .collect();
    let mut tools = Map::new();
    tools.insert("role".into(), json!("tool"));
    tools.insert("_type".into(), json!("ToolDefinitionsMessage"));
    tools.insert("id".into(), json!(tools_id));
    tools.insert("_hook_ids".into(), json!([]));
    tools.insert("creation_timestamp".into(), json!(stamp(rng)));
    tools.insert("content".into(), Value::Array(definitions));
    ctx.append(tools, "tools");

    let header = ctx.header_mut();
    header.insert("system_prompt_message_id".into(), json!(system_id));
    header.insert("tool_definitions_message_id".into(), json!(tools_id));

    let mut written = 0;
    let mut prompt = first_prompt.to_string();
    while written < messages {
        let mut user = vec![json!({"type": "text", "text": prompt})];
        if rng.below(40) == 0 {
            user.push(image_part());
        }
        let at = stamp(rng);
        ctx.append(message(rng, "user", user, at), "messages");
        written += 1;
        // An assistant turn: maybe a few tool round trips, then an answer.
        let round_trips = rng.below(3);
        for _ in 0..round_trips {
            if written + 2 > messages {
                break;
            }
            let call_id = format!("call_{:012x}", rng.next_u64() >> 16);
            let (tool, _) = *rng.pick(&TOOLS);
            let mut parts = Vec::new();
            if rng.below(2) == 0 {
                parts.push(json!({"type": "thinking", "text": rng.pick(&corpus.thinking)}));
            }
            let arguments = json!({"arg": format!("src/{}", rng.below(40))}).to_string();
            parts.push(json!({"type": "tool_use", "call_id": call_id, "name": tool,
                              "arguments": arguments, "approval_status": "approved"}));
            let at = stamp(rng);
            ctx.append(message(rng, "assistant", parts, at), "messages");
            let result = json!({"type": "tool_result", "call_id": call_id,
                                "content": rng.pick(&corpus.tool_outputs), "execution_status": "executed"});
            let at = stamp(rng);
            ctx.append(message(rng, "tool", vec![result], at), "messages");
            written += 2;
        }
        if written < messages {
            let mut text = rng.pick(&corpus.replies).to_string();
            if rng.below(3) == 0 {
                text.push_str("\n\n");
                let code: &str = corpus.code[rng.below(corpus.code.len())];
                text.push_str(code);
            }
            let at = stamp(rng);
            let parts = vec![json!({"type": "text", "text": text})];
            ctx.append(message(rng, "assistant", parts, at), "messages");
            written += 1;
        }
        prompt = follow_up(rng, corpus);
    }
    ctx.finish()
}

fn follow_up(rng: &mut Rng, corpus: &Corpus) -> String {
    const FOLLOW_UPS: [&str; 8] = [
        "Looks good, go ahead.",
        "Can you add a test for that?",
        "Why did you choose that approach?",
        "That broke the build, please check.",
        "Also handle the empty case.",
        "Run the whole test suite.",
        "Great. Commit it with a clear message.",
        "Now the same for the admin pages.",
    ];
    if rng.below(4) == 0 {
        rng.pick(&corpus.prompts).to_string()
    } else {
        rng.pick(&FOLLOW_UPS).to_string()
    }
}

/// A message dict with peteos's key order (`Message.create` then `__init__`).
fn message(rng: &mut Rng, role: &str, content: Vec<Value>, created: String) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("role".into(), json!(role));
    m.insert("content".into(), Value::Array(content));
    m.insert("_type".into(), json!("Message"));
    m.insert("id".into(), json!(rng.uuid().to_string()));
    m.insert("_hook_ids".into(), json!([]));
    m.insert("creation_timestamp".into(), json!(created));
    m
}

fn image_part() -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64_encode(IMAGE_PNG)}})
}

/// Standard base64 with padding (the demo's only use; no crate needed).
pub fn base64_encode(bytes: &[u8]) -> String {
    const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(TABLE[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::Context;

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64_encode(b"Man"), "TWFu");
        assert_eq!(base64_encode(b"Ma"), "TWE=");
        assert_eq!(base64_encode(b"M"), "TQ==");
    }

    #[test]
    fn conversations_are_valid_peteos_contexts() {
        let corpus = Corpus::load();
        let raw = build_context(&mut Rng::new(7), &corpus, "ctx", "Fix it", 40, 1.8e9);
        let ctx = Context::from_raw(raw, std::path::Path::new("ctx.json")).unwrap();
        assert_eq!(ctx.len(), 42);
        assert_eq!(ctx.special_indices(), vec![0, 1]);
        let anchors = ctx.anchor_points().unwrap();
        assert_eq!(anchors.last().unwrap().1, 42);
        let seqs: Vec<i64> = ctx.messages().map(|m| m.sequence().unwrap()).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    }
}
