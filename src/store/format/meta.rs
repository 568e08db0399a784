//! `meta.json`: a Loki session's id, name, user, first prompt and times.

use crate::store::error::{Result, StoreError};
use crate::store::format::jsonfile;
use serde_json::{Map, Number, Value};
use std::path::{Path, PathBuf};

/// A session's meta.json dict; unknown fields are kept as they are.
#[derive(Clone, Debug)]
pub struct Meta {
    raw: Map<String, Value>,
    path: PathBuf,
}

impl Meta {
    /// Reads and checks `path`: it must be an object with a numeric `last_used_at`.
    pub fn load(path: &Path) -> Result<Meta> {
        let raw = jsonfile::read_object(path)?;
        Meta::from_raw(raw, path)
    }

    /// Checks a parsed dict that came from `path`.
    pub fn from_raw(raw: Map<String, Value>, path: &Path) -> Result<Meta> {
        for key in ["created_at", "last_used_at"] {
            match raw.get(key) {
                Some(v) if finite_number(v).is_some() => {}
                Some(v) if v.is_number() => {
                    return Err(StoreError::shape(
                        path,
                        format!("{key:?} is {v}, out of range for a time in seconds"),
                    ));
                }
                Some(v) => {
                    return Err(StoreError::shape(
                        path,
                        format!("{key:?} is {}, not a time in seconds", jsonfile::kind_of(v)),
                    ));
                }
                None if key == "last_used_at" => {
                    return Err(StoreError::shape(path, "\"last_used_at\" is missing"));
                }
                None => {}
            }
        }
        for key in ["id", "name", "user", "first_prompt"] {
            if let Some(v) = raw.get(key).filter(|v| !v.is_string()) {
                return Err(StoreError::shape(
                    path,
                    format!("{key:?} is {}, not a string", jsonfile::kind_of(v)),
                ));
            }
        }
        Ok(Meta {
            raw,
            path: path.to_path_buf(),
        })
    }

    /// A new meta dict in the order Loki writes its fields.
    pub fn new(
        path: &Path,
        id: &str,
        name: &str,
        user: &str,
        first_prompt: &str,
        now: f64,
    ) -> Meta {
        let mut raw = Map::new();
        raw.insert("id".into(), id.into());
        raw.insert("name".into(), name.into());
        raw.insert("user".into(), user.into());
        raw.insert("first_prompt".into(), first_prompt.into());
        raw.insert("created_at".into(), seconds(now));
        raw.insert("last_used_at".into(), seconds(now));
        Meta {
            raw,
            path: path.to_path_buf(),
        }
    }

    /// Writes the dict back atomically (the caller holds the session lock).
    pub fn save(&self) -> Result<()> {
        jsonfile::write_object(&self.path, &self.raw)
    }

    /// The file this meta lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The raw dict.
    pub fn raw_dict(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// `id` as recorded (the directory name is the authority).
    pub fn id(&self) -> Option<&str> {
        self.str_field("id")
    }

    /// The session's name (slug of the first prompt).
    pub fn name(&self) -> Option<&str> {
        self.str_field("name")
    }

    /// The user recorded in the meta.
    pub fn user(&self) -> Option<&str> {
        self.str_field("user")
    }

    /// The prompt that started the session.
    pub fn first_prompt(&self) -> &str {
        self.str_field("first_prompt").unwrap_or("")
    }

    /// Creation time in seconds since the epoch (falls back to last use).
    pub fn created_at(&self) -> f64 {
        self.raw
            .get("created_at")
            .and_then(finite_number)
            .unwrap_or_else(|| self.last_used_at())
    }

    /// Last use in seconds since the epoch.
    pub fn last_used_at(&self) -> f64 {
        self.raw
            .get("last_used_at")
            .and_then(finite_number)
            .unwrap_or(0.0)
    }

    /// Sets `last_used_at = now`.
    pub fn touch(&mut self, now: f64) {
        self.raw.insert("last_used_at".into(), seconds(now));
    }

    /// Sets the name.
    pub fn set_name(&mut self, name: &str) {
        self.raw.insert("name".into(), name.into());
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }
}

/// A time as a JSON float, like Python's `time.time()`.
pub fn seconds(now: f64) -> Value {
    Number::from_f64(now).map_or(Value::Null, Value::Number)
}

fn finite_number(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: Value) -> Result<Meta> {
        Meta::from_raw(v.as_object().unwrap().clone(), Path::new("/s/meta.json"))
    }

    #[test]
    fn required_fields_are_checked() {
        assert!(meta(json!({"last_used_at": 1.5})).is_ok());
        for bad in [
            json!({}),
            json!({"last_used_at": "yesterday"}),
            json!({"last_used_at": 1, "created_at": []}),
            json!({"last_used_at": 1, "name": 3}),
        ] {
            let err = meta(bad).unwrap_err().to_string();
            assert!(err.contains("/s/meta.json"), "{err}");
        }
    }

    #[test]
    fn touch_keeps_unknown_fields_and_order() {
        let mut m = meta(json!({"zeta": [1], "last_used_at": 1, "id": "a"})).unwrap();
        m.touch(2.5);
        let keys: Vec<_> = m.raw_dict().keys().cloned().collect();
        assert_eq!(keys, ["zeta", "last_used_at", "id"]);
        assert_eq!(m.last_used_at(), 2.5);
    }
}
