//! Reading and writing the store's JSON files.
//!
//! Files are parsed into `serde_json::Value` with key order preserved, so the
//! dict stays the source of truth and unknown fields survive a rewrite.

use crate::store::error::{IoContext, Result, StoreError};
use crate::store::format::pyjson::{self, PyJsonStyle};
use crate::store::fs::atomic;
use crate::store::fs::open;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

/// Reads `path` as a JSON object; errors name the file and the problem.
pub fn read_object(path: &Path) -> Result<Map<String, Value>> {
    let bytes = read_no_follow(path)?;
    parse_object(path, &bytes)
}

/// Reads a file, refusing to follow a symlink in its last component: a
/// session file that points elsewhere is reported, not read.
pub fn read_no_follow(path: &Path) -> Result<Vec<u8>> {
    let mut file = open::regular(path)?;
    read_all(&mut file).ctx("read", path)
}

/// [`read_no_follow`] for a file that cannot be larger than `limit` bytes
/// when it is ours (the search index's): a bigger one is refused before a
/// byte of it is read.
pub fn read_no_follow_at_most(path: &Path, limit: u64) -> Result<Vec<u8>> {
    open::read_at_most(path, limit)
}

/// Reads a regular file to its end with as few system calls as possible:
/// a short read means the end was reached, so a small file costs one read
/// (listing 100,000 sessions reads a few small files each).
fn read_all(file: &mut std::fs::File) -> std::io::Result<Vec<u8>> {
    // As large as the file is now, and one more byte to see its end: a
    // buffer doubled from small would hold up to twice the file, and
    // three times while it is copied (a 300 MB context read at 900 MB).
    let size = file.metadata().map_or(0, |m| m.len()) as usize;
    let mut bytes = vec![0u8; (size + 1).max(16 * 1024)];
    let mut len = 0;
    loop {
        let n = match file.read(&mut bytes[len..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        len += n;
        if n == 0 || len < bytes.len() {
            bytes.truncate(len);
            return Ok(bytes);
        }
        bytes.resize(bytes.len() * 2, 0);
    }
}

/// Parses bytes that came from `path` as a JSON object.
pub fn parse_object(path: &Path, bytes: &[u8]) -> Result<Map<String, Value>> {
    match parse_value(path, bytes)? {
        Value::Object(map) => Ok(map),
        other => Err(StoreError::shape(
            path,
            format!("expected a JSON object, found {}", kind_of(&other)),
        )),
    }
}

/// Parses bytes that came from `path` as any JSON value.
pub fn parse_value(path: &Path, bytes: &[u8]) -> Result<Value> {
    // peteos reads with json5, which takes a leading BOM as whitespace; so do we.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| StoreError::Parse {
        path: path.to_path_buf(),
        message: format!("not UTF-8 text ({e})"),
    })?;
    if text.trim().is_empty() {
        return Err(StoreError::Parse {
            path: path.to_path_buf(),
            message: "the file is empty".into(),
        });
    }
    serde_json::from_str(text).map_err(|e| StoreError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Writes `map` to `path` atomically, laid out as peteos's `json.dump(indent=2)`.
pub fn write_object(path: &Path, map: &Map<String, Value>) -> Result<()> {
    atomic::write_atomic(path, render(map).as_bytes())
}

/// Creates `path` (which must not exist) holding `map`, atomically.
pub fn create_object(path: &Path, map: &Map<String, Value>) -> Result<()> {
    atomic::create_new_atomic(path, render(map).as_bytes())
}

/// The bytes [`write_object`] would write.
pub fn render(map: &Map<String, Value>) -> String {
    pyjson::dumps_object(map, PyJsonStyle::FILE)
}

/// A short name for the JSON type of `value`, for error messages.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_matches_full_dump() {
        let v: Value =
            serde_json::from_str(r#"{"b": [1, {"x": null}], "a": "é", "e": {}}"#).unwrap();
        let Value::Object(map) = &v else {
            unreachable!()
        };
        assert_eq!(render(map), pyjson::dumps(&v, PyJsonStyle::FILE));
    }

    #[test]
    fn errors_name_the_file() {
        let p = Path::new("/x/meta.json");
        for bad in [&b""[..], b"{", b"[1]", b"\xff\xfe", b"  \n"] {
            let err = parse_object(p, bad).unwrap_err().to_string();
            assert!(err.contains("/x/meta.json"), "{err}");
        }
        assert!(parse_object(p, b"\xEF\xBB\xBF{\"a\": 1}").is_ok());
    }

    #[test]
    fn key_order_and_duplicates_follow_python() {
        let p = Path::new("f");
        let map = parse_object(p, br#"{"z": 1, "a": 2, "z": 3}"#).unwrap();
        let keys: Vec<_> = map.keys().cloned().collect();
        assert_eq!(keys, ["z", "a"]);
        assert_eq!(map["z"], 3);
    }
}
