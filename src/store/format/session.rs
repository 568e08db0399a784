//! A peteos session directory: `session.json` plus one file per context.

use crate::store::error::{Result, StoreError};
use crate::store::format::{Assembler, Context, ids};
use crate::store::format::{jsonfile, shape_check};
use crate::store::fs::names::check_component;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// File name of the session dict inside a session directory.
pub const SESSION_FILE: &str = "session.json";

/// A peteos `Session`: its dict (source of truth) and its directory.
#[derive(Clone, Debug)]
pub struct Session {
    raw: Map<String, Value>,
    dir: PathBuf,
}

impl Session {
    /// Reads `dir/session.json`. Reading never writes.
    pub fn load(dir: &Path) -> Result<Session> {
        let path = dir.join(SESSION_FILE);
        let raw = jsonfile::read_object(&path)?;
        for key in ["uuid", "active_context_id"] {
            if let Some(v) = raw.get(key).filter(|v| !v.is_string() && !v.is_null()) {
                return Err(StoreError::shape(
                    &path,
                    format!("{key:?} is {}, not a string", jsonfile::kind_of(v)),
                ));
            }
        }
        Ok(Session {
            raw,
            dir: dir.to_path_buf(),
        })
    }

    /// A new session in `dir` (which must exist) with one empty context, as
    /// `Session.create()` makes it; nothing is written until [`Session::save`].
    pub fn create(dir: &Path, uuid: &str, now: f64) -> (Session, Context) {
        let context_id = ids::dated_id(now);
        let context_raw =
            Assembler::with_default_anchors(Assembler::empty_header(&context_id)).finish();
        let session_raw = json!({
            "uuid": uuid,
            "active_context_id": context_id,
            "auto_approve_tools": [],
            "state_data": {},
            "is_active": false,
        });
        let as_map = |v: Value| match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let context_path = dir.join(format!("{context_id}.json"));
        let context = Context::from_raw(context_raw, &context_path)
            .expect("a fresh context has the right shape");
        let session = Session {
            raw: as_map(session_raw),
            dir: dir.to_path_buf(),
        };
        (session, context)
    }

    /// Writes `session.json` atomically (the caller holds the session lock).
    pub fn save(&self) -> Result<()> {
        jsonfile::write_object(&self.session_path(), &self.raw)
    }

    /// The session directory.
    pub fn session_dir(&self) -> &Path {
        &self.dir
    }

    /// Path of `session.json`.
    pub fn session_path(&self) -> PathBuf {
        self.dir.join(SESSION_FILE)
    }

    /// The raw dict.
    pub fn raw_dict(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// The session uuid (falls back to the directory name).
    pub fn uuid(&self) -> String {
        match self.raw.get("uuid").and_then(Value::as_str) {
            Some(u) => u.to_string(),
            None => self
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// The id of the active context, if set.
    pub fn active_context_id(&self) -> Option<&str> {
        self.raw
            .get("active_context_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// Tools the session runs without asking.
    pub fn auto_approve_tools(&self) -> Vec<&str> {
        match self.raw.get("auto_approve_tools") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// True when a running agent owns the session (`is_active`).
    pub fn is_active(&self) -> bool {
        // peteos reads it with bool(), so any truthy value counts.
        match self.raw.get("is_active") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => false,
            Some(Value::Number(n)) => n.as_f64() != Some(0.0),
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(o)) => !o.is_empty(),
            Some(Value::Bool(true)) => true,
        }
    }

    /// Path of the file of context `id` (the id must be a plain file name).
    pub fn context_path(&self, id: &str) -> Result<PathBuf> {
        check_component(id, "context id").map_err(|why| {
            StoreError::shape(
                &self.session_path(),
                format!("bad context id {id:?}: {why}"),
            )
        })?;
        Ok(self.dir.join(format!("{id}.json")))
    }

    /// Loads the active context; `Ok(None)` when the session has none.
    pub fn active_context(&self) -> Result<Option<Context>> {
        match self.active_context_id() {
            None => Ok(None),
            Some(id) => Context::load(&self.context_path(id)?).map(Some),
        }
    }

    /// Checks that the active context would load (`active_context`'s
    /// answer, and its error), without keeping what it holds.
    pub fn check_active_context(&self) -> Result<()> {
        let Some(id) = self.active_context_id() else {
            return Ok(());
        };
        let path = self.context_path(id)?;
        let bytes = jsonfile::read_no_follow(&path)?;
        if shape_check::context_loads(&bytes) {
            return Ok(());
        }
        Context::from_raw(jsonfile::parse_object(&path, &bytes)?, &path).map(|_| ())
    }

    /// Loads context `id` of this session.
    pub fn load_context(&self, id: &str) -> Result<Context> {
        Context::load(&self.context_path(id)?)
    }

    /// Points `active_context_id` at `context` (saved by [`Session::save`]).
    pub fn set_active_context(&mut self, context_id: &str) {
        self.raw.insert(
            "active_context_id".into(),
            Value::String(context_id.to_string()),
        );
    }

    /// Ids of every context file in the directory, sorted.
    pub fn context_ids(&self) -> Result<Vec<String>> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|e| StoreError::io("list contexts in", &self.dir, e))?;
        let mut ids: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.') && n != SESSION_FILE)
            .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
            .collect();
        ids.sort();
        Ok(ids)
    }
}
