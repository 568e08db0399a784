//! The message count of a context file without parsing all of it.
//!
//! peteos keeps `message_sequence` equal to the number of messages (its
//! `message_count` is that field) and writes it after the messages, near the
//! end of the file, next to `anchor_points`, whose last index is the count
//! too. Reading the tail and finding both agreeing is enough; anything else
//! falls back to a full parse.

use crate::store::error::{IoContext, Result};
use crate::store::format::Context;
use crate::store::fs::open;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the end of the file is read first.
const TAIL: u64 = 8 * 1024;

/// Number of messages in the context file at `path`.
pub fn message_count(path: &Path) -> Result<usize> {
    if let Some(n) = count_from_tail(path)? {
        return Ok(n);
    }
    Ok(Context::load(path)?.len())
}

/// The message count and the origin (parent) of the context at `path`, from
/// the tail when it is plain, else from a full parse.
pub fn context_summary(path: &Path) -> Result<(usize, Option<String>)> {
    if let Some((count, text)) = tail_facts(path)? {
        let origin = last_string_after(&text, "\"origin_context_id\":");
        let forked = text.contains("\"parent_mutation_counter\":");
        if origin.is_some() == forked {
            return Ok((count, origin));
        }
    }
    let ctx = Context::load(path)?;
    Ok((ctx.len(), ctx.origin_context_id().map(str::to_string)))
}

/// The string value after the last `key`, if it is a plain (unescaped) one.
fn last_string_after(text: &str, key: &str) -> Option<String> {
    let at = text.rfind(key)? + key.len();
    let rest = text[at..].trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    let value = &rest[..end];
    (!value.contains('\\')).then(|| value.to_string())
}

fn count_from_tail(path: &Path) -> Result<Option<usize>> {
    Ok(tail_facts(path)?.map(|(count, _)| count))
}

/// The message count, if the tail shows it plainly, and the tail's text.
fn tail_facts(path: &Path) -> Result<Option<(usize, String)>> {
    let mut file = open::regular(path)?;
    // Seeking from the end fails on a file shorter than the tail: read it all.
    if file.seek(SeekFrom::End(-(TAIL as i64))).is_err() {
        file.seek(SeekFrom::Start(0)).ctx("read", path)?;
    }
    let mut tail = vec![0u8; TAIL as usize];
    let mut len = 0;
    loop {
        let n = file.read(&mut tail[len..]).ctx("read", path)?;
        len += n;
        if n == 0 || len == tail.len() {
            break;
        }
    }
    tail.truncate(len);
    let Ok(text) = std::str::from_utf8(&tail)
        .or_else(|e| std::str::from_utf8(&tail[e.valid_up_to()..]).map_err(|_| ()))
    else {
        return Ok(None);
    };
    let sequence = last_integer_after(text, "\"message_sequence\":");
    let anchors_end = last_anchor_end(text);
    Ok(match (sequence, anchors_end) {
        (Some(a), Some(b)) if a == b => Some((a, text.to_string())),
        _ => None,
    })
}

/// The integer after the last `key` in `text` (a raw `"key"` cannot occur
/// inside a JSON string, where quotes are escaped).
fn last_integer_after(text: &str, key: &str) -> Option<usize> {
    let at = text.rfind(key)? + key.len();
    let digits: String = text[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The index of the last anchor point: `"anchor_points": [ ..., ["name", N] ]`.
fn last_anchor_end(text: &str) -> Option<usize> {
    let at = text.rfind("\"anchor_points\":")?;
    let list = &text[at..];
    let close = find_list_end(list)?;
    let inner = list[..close].trim_end().strip_suffix(']')?;
    let number: String = inner
        .trim_end()
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    number.parse().ok()
}

/// The position just past the `]` that closes the first `[` in `text`
/// (anchor names hold no brackets in practice; any doubt falls back).
fn find_list_end(text: &str) -> Option<usize> {
    let open = text.find('[')?;
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            '"' | '\\' if depth > 2 => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use serde_json::json;

    fn write(dir: &Path, v: serde_json::Value) -> std::path::PathBuf {
        let path = dir.join("c.json");
        std::fs::write(
            &path,
            crate::store::format::jsonfile::render(v.as_object().unwrap()),
        )
        .unwrap();
        path
    }

    #[test]
    fn tail_count_agrees_with_a_full_parse() {
        let dir = tempfile::tempdir().unwrap();
        let messages: Vec<_> = (0..500)
            .map(|i| json!({"id": i, "content": "x".repeat(50)}))
            .collect();
        let path = write(
            dir.path(),
            json!({"messages": messages, "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 500]], "message_sequence": 500}),
        );
        assert_eq!(count_from_tail(&path).unwrap(), Some(500));
        assert_eq!(message_count(&path).unwrap(), 500);
    }

    #[test]
    fn summary_reads_the_origin_from_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            json!({"messages": [{}, {}], "anchor_points": [["messages", 2]], "message_sequence": 2,
            "children": [], "origin_context_id": "parent-1", "parent_mutation_counter": 0}),
        );
        assert_eq!(
            context_summary(&path).unwrap(),
            (2, Some("parent-1".into()))
        );
        let path = write(
            dir.path(),
            json!({"messages": [{}], "anchor_points": [["messages", 1]], "message_sequence": 1}),
        );
        assert_eq!(context_summary(&path).unwrap(), (1, None));
    }

    #[test]
    fn disagreement_or_absence_falls_back_to_parsing() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            json!({"messages": [1, 2, 3], "anchor_points": [["messages", 2]], "message_sequence": 2}),
        );
        assert_eq!(count_from_tail(&path).unwrap(), Some(2));
        let path = write(
            dir.path(),
            json!({"messages": [{}, {}, {}], "anchor_points": [["messages", 3]], "message_sequence": 7}),
        );
        assert_eq!(count_from_tail(&path).unwrap(), None);
        assert_eq!(message_count(&path).unwrap(), 3);
        let path = write(dir.path(), json!({"messages": [{}]}));
        assert_eq!(message_count(&path).unwrap(), 1);
    }

    #[test]
    fn a_linked_context_file_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let real = write(
            dir.path(),
            json!({"messages": [{}], "anchor_points": [["messages", 1]], "message_sequence": 1}),
        );
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = message_count(&link).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert!(context_summary(&link).is_err());
    }
}
