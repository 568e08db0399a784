//! Where a JSON object's top-level values sit in its bytes, so a fork can
//! replace one value (a `sessionId`, a `parentUuid`) and keep every other
//! byte of the line as the agent wrote it: re-serializing would change
//! number spellings, escapes and spacing that no reader asked us to touch.

use std::ops::Range;

/// The byte range of the value of each top-level key of the object in
/// `line`, in order. None when `line` is not one JSON object (the caller
/// then keeps the line as it is).
pub fn top_level_values(line: &[u8]) -> Option<Vec<(String, Range<usize>)>> {
    let mut at = skip_ws(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_ws(line, at + 1);
    let mut out = Vec::new();
    if line.get(at) == Some(&b'}') {
        return (skip_ws(line, at + 1) == line.len()).then_some(out);
    }
    loop {
        let key_end = string_end(line, at)?;
        let key: String = serde_json::from_slice(&line[at..key_end]).ok()?;
        at = skip_ws(line, key_end);
        if line.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_ws(line, at + 1);
        let end = value_end(line, start)?;
        out.push((key, start..end));
        at = skip_ws(line, end);
        match line.get(at) {
            Some(b',') => at = skip_ws(line, at + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    (skip_ws(line, at + 1) == line.len()).then_some(out)
}

/// The top-level string value of `key`, if the line has one.
pub fn string_value(line: &[u8], fields: &[(String, Range<usize>)], key: &str) -> Option<String> {
    let (_, range) = fields.iter().find(|(k, _)| k == key)?;
    serde_json::from_slice::<String>(&line[range.clone()]).ok()
}

/// `line` with the values of the keys in `replace` swapped for the given
/// JSON texts, every other byte kept.
pub fn replace_values(
    line: &[u8],
    fields: &[(String, Range<usize>)],
    replace: &[(&str, String)],
) -> Vec<u8> {
    let mut spans: Vec<(Range<usize>, &str)> = fields
        .iter()
        .filter_map(|(k, r)| {
            let (_, text) = replace.iter().find(|(key, _)| key == k)?;
            Some((r.clone(), text.as_str()))
        })
        .collect();
    spans.sort_by_key(|(r, _)| r.start);
    let mut out = Vec::with_capacity(line.len() + 16);
    let mut from = 0;
    for (range, text) in spans {
        out.extend_from_slice(&line[from..range.start]);
        out.extend_from_slice(text.as_bytes());
        from = range.end;
    }
    out.extend_from_slice(&line[from..]);
    out
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while at < b.len() && matches!(b[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// The end (exclusive) of the string starting at `at`.
fn string_end(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    // Jumps from quote or backslash to the next: a line's bytes are mostly
    // long strings (tool output, file contents).
    let mut i = at + 1;
    while let Some(found) = memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]) {
        let j = i + found;
        if b[j] == b'"' {
            return Some(j + 1);
        }
        i = j + 2;
    }
    None
}

/// The end (exclusive) of the value starting at `at`: a string, an object
/// or array (nesting counted, strings skipped), or a bare word or number.
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    match b.get(at)? {
        b'"' => string_end(b, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let mut i = at;
            while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                i += 1;
            }
            (i > at).then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_at_the_top_level_only() {
        let line =
            br#"{"a": {"sessionId":"inner"}, "sessionId" : "s\"1", "n":1.50,"parentUuid":null}"#;
        let fields = top_level_values(line).unwrap();
        let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "sessionId", "n", "parentUuid"]);
        assert_eq!(string_value(line, &fields, "sessionId").unwrap(), "s\"1");
        let out = replace_values(
            line,
            &fields,
            &[
                ("sessionId", "\"new\"".into()),
                ("parentUuid", "\"p\"".into()),
            ],
        );
        assert_eq!(
            out,
            br#"{"a": {"sessionId":"inner"}, "sessionId" : "new", "n":1.50,"parentUuid":"p"}"#
        );
    }

    #[test]
    fn escapes_at_the_end_of_a_string_are_read_through() {
        let line = br#"{"k":"a\\","z":"\\\"q","n":2}"#;
        let fields = top_level_values(line).unwrap();
        assert_eq!(string_value(line, &fields, "k").unwrap(), "a\\");
        assert_eq!(string_value(line, &fields, "z").unwrap(), "\\\"q");
        assert_eq!(&line[fields[2].1.clone()], b"2");
    }

    #[test]
    fn what_is_not_one_object_is_refused() {
        for bad in [&b"[1]"[..], b"{\"a\":1", b"{\"a\":1} x", b"", b"{\"a\" 1}"] {
            assert!(top_level_values(bad).is_none(), "{:?}", bad);
        }
        assert_eq!(top_level_values(b"{ }").unwrap().len(), 0);
    }
}
