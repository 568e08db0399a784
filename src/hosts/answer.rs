//! A host's answer, checked like any file before anything of it is shown
//! or passed on: the version of the program there, JSON of the expected
//! shape (an array of objects whose ids are ids, whose text is text and
//! whose times are numbers), every string made safe for a terminal. A
//! wrong answer is refused whole, naming the host.

use crate::store::SessionId;
use crate::store::safe_text::safe_text;
use serde_json::{Map, Value};

/// The version this program is.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Refuses a host whose program is another major or minor version than
/// this one (its JSON may differ), or that did not say its version.
pub fn check_version(line: &str) -> Result<(), String> {
    let theirs = line
        .strip_prefix("loki-sessions ")
        .ok_or_else(|| format!("answered {line:?} where its version was expected (refused)"))?;
    let ours: Vec<&str> = VERSION.split('.').take(2).collect();
    let same = theirs.trim().split('.').take(2).eq(ours.iter().copied());
    if same {
        Ok(())
    } else {
        Err(format!(
            "runs loki-sessions {theirs}, this is {VERSION}: install the same version there"
        ))
    }
}

/// What a field of a row must be.
#[derive(Clone, Copy)]
pub enum Kind {
    /// A session id (checked as ids from files are).
    Id,
    /// Text (made safe for a terminal).
    Text,
    /// A number (seconds since the epoch, a count).
    Number,
}

/// The fields of a `list --json` row that are read here; every other
/// field is passed on, its strings made safe.
pub const LIST_ROW: &[(&str, Kind)] = &[
    ("id", Kind::Id),
    ("agent", Kind::Text),
    ("name", Kind::Text),
    ("last_used_at", Kind::Number),
];

/// The same for a `search --json` hit.
pub const SEARCH_HIT: &[(&str, Kind)] = &[
    ("session_id", Kind::Id),
    ("session_name", Kind::Text),
    ("role", Kind::Text),
    ("snippet", Kind::Text),
];

/// `bytes` as an array of objects each holding `fields` of their kinds,
/// every string in them made safe; else why not.
pub fn rows(bytes: &[u8], fields: &[(&str, Kind)]) -> Result<Vec<Map<String, Value>>, String> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("answered something that is not JSON ({e})"))?;
    let Value::Array(items) = value else {
        return Err("answered JSON that is not a list".into());
    };
    items
        .into_iter()
        .enumerate()
        .map(|(n, item)| {
            let Value::Object(mut row) = made_safe(item) else {
                return Err(format!("answered a row #{} that is not an object", n + 1));
            };
            for (field, kind) in fields {
                let value = row.get(*field).unwrap_or(&Value::Null);
                let fits = match kind {
                    Kind::Id => value
                        .as_str()
                        .is_some_and(|id| SessionId::check(id).is_ok()),
                    Kind::Text => value.is_string(),
                    Kind::Number => value.as_f64().is_some_and(f64::is_finite),
                };
                if !fits {
                    return Err(format!(
                        "answered a row #{} whose {field} is not what it should be",
                        n + 1
                    ));
                }
            }
            row.remove("host");
            Ok(row)
        })
        .collect()
}

/// `value` with every string (keys too) made safe for a terminal; a
/// string that is safe already is kept as it came (no copy: a list of
/// every session is mostly such strings).
pub fn made_safe(mut value: Value) -> Value {
    make_safe(&mut value);
    value
}

fn make_safe(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(safe) = safe_text(s) {
                *s = safe;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(make_safe),
        Value::Object(map) => {
            if map
                .keys()
                .any(|k| matches!(safe_text(k), std::borrow::Cow::Owned(_)))
            {
                *map = std::mem::take(map)
                    .into_iter()
                    .map(|(k, v)| (safe_text(&k).into_owned(), v))
                    .collect();
            }
            map.values_mut().for_each(make_safe);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_version_or_none_is_refused() {
        assert!(check_version(&format!("loki-sessions {VERSION}")).is_ok());
        assert!(
            check_version("loki-sessions 99.0.0")
                .unwrap_err()
                .contains("same version")
        );
        assert!(check_version("bash: hello").is_err());
    }

    #[test]
    fn wrong_shapes_are_refused_and_strings_made_safe() {
        let good = br#"[{"id":"0a8f5c1e-1111-4222-8333-944445555666","agent":"claude","name":"fix \u001b]0;owned\u0007","last_used_at":1.5,"extra":{"k":"\u009b2J"}}]"#;
        let rows = rows(good, LIST_ROW).unwrap();
        assert_eq!(rows[0]["name"], "fix \\x1b]0;owned\\x07");
        assert_eq!(
            rows[0]["extra"]["k"],
            "\\u{9b}2J".replace("\\u{9b}", &safe_text("\u{9b}"))
        );
        for bad in [
            &b"{}"[..],
            b"not json",
            br#"[1]"#,
            br#"[{"id":"../../etc","agent":"claude","name":"x","last_used_at":1}]"#,
            br#"[{"id":"abc","agent":"claude","name":7,"last_used_at":1}]"#,
            br#"[{"id":"abc","agent":"claude","name":"x","last_used_at":"soon"}]"#,
        ] {
            assert!(
                super::rows(bad, LIST_ROW).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
