//! JSON text exactly as Python's `json.dumps` writes it.
//!
//! Two uses need Python's bytes, not serde_json's: token counts are taken over
//! `json.dumps(content, ensure_ascii=False)` (peteos), and files we rewrite
//! should look like the ones peteos and Loki write (`indent=2`, ASCII escapes),
//! so a diff of a trimmed session shows only what changed.

use serde_json::{Map, Number, Value};
use std::fmt::Write;

/// How to lay out the text; the fields mirror `json.dumps` arguments.
#[derive(Clone, Copy, Debug)]
pub struct PyJsonStyle {
    /// `indent=`: `None` writes one line with `", "` and `": "` separators.
    pub indent: Option<usize>,
    /// `ensure_ascii=`: escape every non-ASCII character as `\uXXXX`.
    pub ensure_ascii: bool,
}

impl PyJsonStyle {
    /// `json.dumps(x, ensure_ascii=False)`: the text peteos counts tokens over.
    pub const TOKEN_TEXT: PyJsonStyle = PyJsonStyle {
        indent: None,
        ensure_ascii: false,
    };
    /// `json.dump(x, f, indent=2)`: how peteos saves session and context files.
    pub const FILE: PyJsonStyle = PyJsonStyle {
        indent: Some(2),
        ensure_ascii: true,
    };
}

/// Serialises `value` as Python's json module would with `style`.
pub fn dumps(value: &Value, style: PyJsonStyle) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, 0);
    out
}

/// Serialises a JSON object without wrapping it in a `Value` first.
pub fn dumps_object(map: &Map<String, Value>, style: PyJsonStyle) -> String {
    let mut out = String::new();
    write_object(&mut out, map, style, 0);
    out
}

/// Appends `value` to `out`; exposed so callers can build larger texts without copies.
pub fn write_value(out: &mut String, value: &Value, style: PyJsonStyle, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n, style),
        Value::String(s) => write_string(out, s, style.ensure_ascii),
        Value::Array(items) => write_array(out, items, style, depth),
        Value::Object(map) => write_object(out, map, style, depth),
    }
}

fn write_array(out: &mut String, items: &[Value], style: PyJsonStyle, depth: usize) {
    if items.is_empty() {
        out.push_str("[]");
        return;
    }
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        separator(out, i == 0, style, depth + 1);
        write_value(out, item, style, depth + 1);
    }
    closing(out, style, depth);
    out.push(']');
}

fn write_object(out: &mut String, map: &Map<String, Value>, style: PyJsonStyle, depth: usize) {
    if map.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push('{');
    for (i, (key, item)) in map.iter().enumerate() {
        separator(out, i == 0, style, depth + 1);
        write_string(out, key, style.ensure_ascii);
        out.push_str(": ");
        write_value(out, item, style, depth + 1);
    }
    closing(out, style, depth);
    out.push('}');
}

/// Python uses `", "` without indent and `","` plus a newline with it.
fn separator(out: &mut String, first: bool, style: PyJsonStyle, depth: usize) {
    match style.indent {
        None if !first => out.push_str(", "),
        None => {}
        Some(width) => {
            if !first {
                out.push(',');
            }
            out.push('\n');
            push_spaces(out, width * depth);
        }
    }
}

fn closing(out: &mut String, style: PyJsonStyle, depth: usize) {
    if let Some(width) = style.indent {
        out.push('\n');
        push_spaces(out, width * depth);
    }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// The length in bytes of `dumps(value, PyJsonStyle::TOKEN_TEXT)`, without
/// building the text (what the token breakdown weighs parts by).
pub fn token_text_len(value: &Value) -> usize {
    match value {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => {
            let mut text = String::new();
            write_number(&mut text, n, PyJsonStyle::TOKEN_TEXT);
            text.len()
        }
        Value::String(s) => string_len(s),
        // "[" items joined by ", " "]"
        Value::Array(items) => {
            2 + items.iter().map(token_text_len).sum::<usize>() + 2 * items.len().saturating_sub(1)
        }
        // "{" "key": value joined by ", " "}"
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| string_len(k) + 2 + token_text_len(v))
                .sum::<usize>()
                + 2 * map.len().saturating_sub(1)
        }
    }
}

/// Bytes of `s` as a JSON string with `ensure_ascii=False`: quotes, plus one
/// byte for each two-character escape and five for each `\u00XX`.
fn string_len(s: &str) -> usize {
    // Each byte weighed without a branch and summed in 16 bits, a block at
    // a time (at most 5 a byte: a block's sum fits), so that the compiler
    // makes it a vector loop eight bytes wide: the viewer weighs every
    // part of a 100 MB session.
    const BLOCK: usize = 4096;
    let weigh = |b: u8| -> u16 {
        let control = u16::from(b < 0x20);
        let short =
            u16::from((b == b'\n') | (b == b'\r') | (b == b'\t') | (b == 0x08) | (b == 0x0c));
        let quote = u16::from((b == b'"') | (b == b'\\'));
        control * 5 - short * 4 + quote
    };
    let extra: usize = s
        .as_bytes()
        .chunks(BLOCK)
        .map(|block| usize::from(block.iter().map(|&b| weigh(b)).sum::<u16>()))
        .sum();
    s.len() + 2 + extra
}

/// Bytes at the start of `bytes` that [`write_string`] writes as they are,
/// looked at a block at a time (each block without a branch, a vector loop).
fn plain_prefix(bytes: &[u8], ensure_ascii: bool) -> usize {
    const BLOCK: usize = 32;
    let escaped = |b: u8| (b < 0x20) | (b == b'"') | (b == b'\\') | (ensure_ascii & (b >= 0x7f));
    let mut plain = 0;
    for block in bytes.chunks(BLOCK) {
        if block.iter().fold(false, |any, &b| any | escaped(b)) {
            return plain
                + block
                    .iter()
                    .position(|&b| escaped(b))
                    .unwrap_or(block.len());
        }
        plain += block.len();
    }
    plain
}

/// Python's string escaping: `\"`, `\\`, the five short escapes, `\u00XX` for
/// other control characters, and with `ensure_ascii` every character outside
/// printable ASCII (DEL included) as `\uXXXX`, astral ones as surrogate pairs.
pub fn write_string(out: &mut String, s: &str, ensure_ascii: bool) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut at = 0;
    while at < s.len() {
        // What needs no escape goes out in one piece.
        let plain = plain_prefix(&bytes[at..], ensure_ascii);
        out.push_str(&s[at..at + plain]);
        at += plain;
        // The character there needs one (a byte of it did, and the string
        // is valid UTF-8, so a character starts there).
        let Some(c) = s[at..].chars().next() else {
            break;
        };
        at += c.len_utf8();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// Numbers as Python prints the int or float that `json.loads` made of them.
fn write_number(out: &mut String, n: &Number, style: PyJsonStyle) {
    // With serde_json's arbitrary_precision the number keeps its source text,
    // so integers of any size survive, as they do in Python.
    let text = n.to_string();
    if is_integer_literal(&text) {
        if text == "-0" {
            out.push('0');
        } else {
            out.push_str(&text);
        }
        return;
    }
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => out.push_str(&python_float_repr(x)),
        // Python would read these as inf and write `Infinity`. For token text we
        // do the same; files keep the source text so they stay valid JSON.
        Ok(x) if style.indent.is_none() => {
            out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" })
        }
        _ => out.push_str(&text),
    }
}

fn is_integer_literal(text: &str) -> bool {
    !text.contains(['.', 'e', 'E'])
}

/// `repr(float)`: the shortest digits that round-trip, in fixed notation when
/// the decimal exponent is in [-4, 16), otherwise as `d.ddde+XX`.
pub fn python_float_repr(x: f64) -> String {
    // Rust's `{:e}` gives the same shortest round-trip digits as Python's repr.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if x.is_sign_negative() { "-" } else { "" };
    // decpt: where the decimal point goes relative to the digit string.
    let decpt = exponent + 1;
    let body = if decpt <= -4 || decpt > 16 {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{first}{frac}e{exp_sign}{:02}", exponent.abs())
    } else if decpt <= 0 {
        format!("0.{}{digits}", "0".repeat(decpt.unsigned_abs() as usize))
    } else {
        let decpt = decpt as usize;
        if decpt < digits.len() {
            format!("{}.{}", &digits[..decpt], &digits[decpt..])
        } else {
            format!("{digits}{}.0", "0".repeat(decpt - digits.len()))
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Python's escaping a character at a time: what [`write_string`]
    /// and [`string_len`] were before they looked at blocks of bytes.
    fn escaped_a_character_at_a_time(s: &str, ensure_ascii: bool) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\u{0}'..='\u{1f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                '\u{7f}'.. if ensure_ascii => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                _ => out.push(c),
            }
        }
        out.push('"');
        out
    }

    use proptest::prelude::*;

    proptest! {
        /// Strings of every kind of character, longer than a block or not,
        /// escape as they did a character at a time, and weigh what the
        /// escaped text is long.
        #[test]
        fn strings_escape_as_a_character_at_a_time(
            chars in prop::collection::vec(
                prop_oneof![
                    prop::char::range('\u{0}', '\u{7f}'),
                    prop::char::range('\u{80}', '\u{7ff}'),
                    any::<char>(),
                    Just('"'),
                    Just('\\'),
                ],
                0..100,
            ),
            ensure_ascii in any::<bool>(),
            // Repeated: past the blocks the bytes are looked at in.
            times in prop_oneof![Just(1usize), 1usize..300],
        ) {
            let s: String = chars.into_iter().collect::<String>().repeat(times);
            let mut written = String::new();
            write_string(&mut written, &s, ensure_ascii);
            prop_assert_eq!(&written, &escaped_a_character_at_a_time(&s, ensure_ascii));
            prop_assert_eq!(string_len(&s), escaped_a_character_at_a_time(&s, false).len());
        }
    }

    #[test]
    fn floats_match_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (123456789.125, "123456789.125"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.2345e-7, "1.2345e-07"),
            (1e100, "1e+100"),
            (1732867200.123456, "1732867200.123456"),
            (-2.5, "-2.5"),
            (5e-324, "5e-324"),
        ];
        for (x, want) in cases {
            assert_eq!(python_float_repr(x), want, "repr of {x}");
        }
    }

    #[test]
    fn token_text_style_matches_python() {
        let v: Value = serde_json::from_str(
            r#"[{"type": "text", "text": "caf\u00e9 \"q\" \\ \n\t\u0001\u007f 🚀"}, {"n": 1.50, "i": -0, "e": 1E400, "z": {}, "l": []}]"#,
        )
        .unwrap();
        assert_eq!(
            dumps(&v, PyJsonStyle::TOKEN_TEXT),
            "[{\"type\": \"text\", \"text\": \"café \\\"q\\\" \\\\ \\n\\t\\u0001\u{7f} 🚀\"}, {\"n\": 1.5, \"i\": 0, \"e\": Infinity, \"z\": {}, \"l\": []}]"
        );
    }

    #[test]
    fn token_text_len_is_the_length_of_the_text() {
        let v: Value = serde_json::from_str(
            r#"[{"type": "text", "text": "caf\u00e9 \"q\" \\ \n\t\u0001\u007f 🚀\b\f\r"}, {"n": 1.50, "i": -0, "e": 1E400, "z": {}, "l": [], "t": true, "f": false, "x": null}]"#,
        )
        .unwrap();
        assert_eq!(token_text_len(&v), dumps(&v, PyJsonStyle::TOKEN_TEXT).len());
        for v in [
            json!([]),
            json!({}),
            json!(""),
            json!([1, 2]),
            json!({"a": {"b": [null]}}),
        ] {
            assert_eq!(
                token_text_len(&v),
                dumps(&v, PyJsonStyle::TOKEN_TEXT).len(),
                "{v}"
            );
        }
    }

    #[test]
    fn file_style_indents_and_escapes_like_json_dump() {
        let v = json!({"a": [1, {"b": "é🚀\u{7f}"}], "c": {}, "big": 123456789012345678901234567890u128.to_string()});
        let mut v = v;
        v["n"] = serde_json::from_str("123456789012345678901234567890").unwrap();
        assert_eq!(
            dumps(&v, PyJsonStyle::FILE),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"\\u00e9\\ud83d\\ude80\\u007f\"\n    }\n  ],\n  \"c\": {},\n  \"big\": \"123456789012345678901234567890\",\n  \"n\": 123456789012345678901234567890\n}"
        );
    }
}
