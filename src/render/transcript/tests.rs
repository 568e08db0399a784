use super::rows::HEADER;
use super::*;
use serde_json::{Value, json};

fn message(v: &Value) -> Message<'_> {
    Message::new(v.as_object().unwrap())
}

/// The block's lines as text, each after its first prefix.
fn lines(block: &Block) -> Vec<String> {
    block
        .body
        .lines
        .iter()
        .map(|l| format!("{}{}", l.first, &block.body.text[l.text.clone()]))
        .collect()
}

fn all_open(_: usize) -> bool {
    false
}

const MARKDOWN: &str = "# Title\n\nSome **bold** and *soft* text with `code` and a [link](https://example.com).\n\n- one\n- two\n  continued\n\n1. first\n2. second\n\n> quoted\n> lines\n\n| name | n |\n|------|--:|\n| a | 1 |\n| bb | 22 |\n\n```rust\nfn main() {}\n```";

#[test]
fn markdown_is_rendered_as_lines_with_prefixes_and_looks() {
    let v = json!({"role": "assistant", "content": [{"type": "text", "text": MARKDOWN}]});
    let block = block(&message(&v), Display::default(), &all_open, true);
    assert_eq!(
        lines(&block),
        [
            "# Title",
            "",
            "Some bold and soft text with code and a link (https://example.com).",
            "",
            "• one",
            "• two continued",
            "",
            "1. first",
            "2. second",
            "",
            "│ quoted lines",
            "",
            "name │  n",
            "─────┼───",
            "a    │  1",
            "bb   │ 22",
            "",
            "rust:",
            "  fn main() {}",
            "",
        ]
    );
    let looks: Vec<(String, Look)> = block
        .body
        .spans
        .iter()
        .map(|s| (block.body.text[s.text.clone()].to_string(), s.look))
        .collect();
    let look_of = |text: &str| looks.iter().find(|(t, _)| t == text).map(|(_, l)| *l);
    assert!(look_of("bold").unwrap().bold);
    assert!(look_of("soft").unwrap().italic);
    assert_eq!(look_of("code").unwrap().class, Class::Code);
    assert_eq!(look_of("link").unwrap().class, Class::Link);
    assert_eq!(look_of("fn").unwrap().class, Class::SynKeyword, "{looks:?}");
    assert_eq!(block.body.lines[0].look.class, Class::Heading);
}

#[test]
fn raw_mode_shows_the_text_as_written() {
    let v = json!({"content": [{"type": "text", "text": "# Title\n**bold**"}]});
    let display = Display {
        raw: true,
        ..Display::default()
    };
    let block = block(&message(&v), display, &all_open, true);
    assert_eq!(lines(&block), ["# Title", "**bold**", ""]);
}

fn tool_message() -> Value {
    let output: Vec<String> = (1..=20).map(|i| format!("out {i}")).collect();
    json!({"role": "assistant", "content": [
        {"type": "thinking", "text": "plan\nmore plan"},
        {"type": "tool_use", "call_id": "c1", "name": "bash", "arguments": "{\"cmd\": \"ls\"}"},
        {"type": "tool_result", "call_id": "c1", "content": output.join("\n")},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A".repeat(4000)}},
    ]})
}

#[test]
fn thinking_and_tools_fold_as_the_display_says() {
    let v = tool_message();
    let m = message(&v);
    let folded = block(&m, Display::default(), &all_open, true);
    assert_eq!(
        lines(&folded)[..5],
        [
            "thinking  2 lines hidden",
            "",
            "tool call bash c1",
            "{\"cmd\": \"ls\"}",
            ""
        ]
    );
    let text = lines(&folded).join("\n");
    assert!(text.contains("out 6\n… 14 more lines"), "{text}");
    assert!(!text.contains("out 7"));
    assert!(text.contains("[image: image/png, 2.9 KiB]"), "{text}");
    assert_eq!(
        folded.shown[0],
        Shown {
            bytes: 0,
            whole: false
        }
    );
    assert!(!folded.shown[2].whole);

    let off = Display {
        tools: Tools::Off,
        ..Display::default()
    };
    let text = lines(&block(&m, off, &all_open, true)).join("\n");
    assert!(text.contains("tool result c1  20 lines hidden"), "{text}");
    assert!(!text.contains("out 1"));

    let full = Display {
        thinking: true,
        tools: Tools::Full,
        raw: false,
    };
    let text = lines(&block(&m, full, &all_open, true)).join("\n");
    assert!(text.contains("thinking\nplan\nmore plan"), "{text}");
    assert!(text.contains("out 20"));

    // A part unfolded by a search shows whole whatever the display says.
    let open = |part: usize| part == 2;
    let text = lines(&block(&m, off, &open, true)).join("\n");
    assert!(
        text.contains("out 20") && !text.contains("plan\n"),
        "{text}"
    );
}

#[test]
fn search_texts_are_what_the_block_shows_of_each_part() {
    let v = json!({"content": [
        {"type": "text", "text": MARKDOWN},
        {"type": "thinking", "text": "a\tb"},
        {"type": "tool_result", "call_id": "c", "content": "x\ny"},
    ]});
    let m = message(&v);
    let texts = search_texts(&m, false);
    let full = Display {
        thinking: true,
        tools: Tools::Full,
        raw: false,
    };
    let block = block(&m, full, &all_open, false);
    for (part, text) in texts.iter().enumerate() {
        let shown: Vec<&str> = block
            .body
            .lines
            .iter()
            .filter(|l| l.source.is_some_and(|(p, _)| p == part))
            .map(|l| &block.body.text[l.text.clone()])
            .collect();
        assert_eq!(&shown.join("\n"), text, "part {part}");
        assert_eq!(block.shown[part].bytes, text.len());
    }
    assert_eq!(texts[1], "a    b");
    assert!(texts[0].contains("Some bold and soft text"));
}

#[test]
fn rows_wrap_after_prefixes_and_find_a_position() {
    let v = json!({"content": [{"type": "text", "text": "- alpha beta gamma delta epsilon zeta eta theta"}]});
    let block = block(&message(&v), Display::default(), &all_open, false);
    let laid = Laid::new(block, 20);
    let rows: Vec<String> = laid
        .rows
        .iter()
        .skip(1)
        .map(|r| {
            format!(
                "{}{}",
                laid.prefix(r),
                &laid.block.body.text[r.start as usize..r.end as usize]
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "• alpha beta gamma ",
            "  delta epsilon zeta ",
            "  eta theta",
            ""
        ]
    );
    assert_eq!(laid.rows[0], HEADER);
    let text = &search_texts(&message(&v), false)[0];
    let at = text.find("zeta").unwrap();
    assert_eq!(laid.row_of(0, at), Some(2));
    let eta = text.find("eta theta").unwrap();
    assert_eq!(laid.row_of(0, eta), Some(3));
    assert_eq!(laid.source(&laid.rows[3]), Some((0, eta)));
}

#[test]
fn facts_give_sequence_tokens_and_time() {
    let v = json!({"role": "user", "_sequence_number": 14,
        "creation_timestamp": "2026-11-29T12:03:45.123456+00:00", "content": "hi"});
    assert_eq!(
        facts(&message(&v), Some(1234)),
        "seq 14 · 1,234 tokens · 2026-11-29 12:03"
    );
    assert_eq!(facts(&message(&json!({})), None), "… tokens");
}
