//! A context: one fork of the conversation, stored as `<context_id>.json`.

use crate::store::error::{Result, StoreError};
use crate::store::format::jsonfile;
use crate::store::format::message::{Message, Special, integer};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A context dict with its messages; the dict is the source of truth.
#[derive(Clone, Debug)]
pub struct Context {
    raw: Map<String, Value>,
    path: PathBuf,
}

impl Context {
    /// Reads and checks a context file.
    pub fn load(path: &Path) -> Result<Context> {
        let raw = jsonfile::read_object(path)?;
        Context::from_raw(raw, path)
    }

    /// Wraps a parsed dict that came from `path`, checking its shape.
    pub fn from_raw(raw: Map<String, Value>, path: &Path) -> Result<Context> {
        match raw.get("messages") {
            None => {}
            Some(Value::Array(items)) => {
                if let Some(i) = items.iter().position(|m| !m.is_object()) {
                    return Err(StoreError::shape(
                        path,
                        format!(
                            "message #{i} is {}, not an object",
                            jsonfile::kind_of(&items[i])
                        ),
                    ));
                }
            }
            Some(other) => {
                return Err(StoreError::shape(
                    path,
                    format!("\"messages\" is {}, not a list", jsonfile::kind_of(other)),
                ));
            }
        }
        Ok(Context {
            raw,
            path: path.to_path_buf(),
        })
    }

    /// The file this context was read from (or will be written to).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The raw dict.
    pub fn raw_dict(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// Mutable access to the raw dict (for forks and `children`).
    pub fn raw_dict_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.raw
    }

    /// Consumes the context, returning its dict.
    pub fn into_raw(self) -> Map<String, Value> {
        self.raw
    }

    /// The context id (`id`, empty if missing).
    pub fn id(&self) -> &str {
        self.raw.get("id").and_then(Value::as_str).unwrap_or("")
    }

    /// The message dicts in display order.
    pub fn message_values(&self) -> &[Value] {
        match self.raw.get("messages") {
            Some(Value::Array(items)) => items,
            _ => &[],
        }
    }

    /// The messages in display order.
    pub fn messages(&self) -> impl ExactSizeIterator<Item = Message<'_>> + '_ {
        self.message_values()
            .iter()
            .map(|v| Message::new(v.as_object().expect("checked in from_raw")))
    }

    /// The message at `index`.
    pub fn message(&self, index: usize) -> Option<Message<'_>> {
        self.message_values()
            .get(index)
            .and_then(Value::as_object)
            .map(Message::new)
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.message_values().len()
    }

    /// True when the context holds no message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `_mutation_counter` (0 when missing, as peteos defaults it).
    pub fn mutation_counter(&self) -> i64 {
        self.raw
            .get("_mutation_counter")
            .and_then(integer)
            .unwrap_or(0)
    }

    /// Ids of contexts forked from this one.
    pub fn children(&self) -> Vec<&str> {
        match self.raw.get("children") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The context this one was forked from, if any.
    pub fn origin_context_id(&self) -> Option<&str> {
        self.raw.get("origin_context_id").and_then(Value::as_str)
    }

    /// Index of the system prompt: id = `system_prompt_message_id`, at index 0,
    /// of type `SystemPromptMessage` (peteos checks all three).
    pub fn system_prompt_index(&self) -> Option<usize> {
        let id = self.special_id("system_prompt_message_id")?;
        let first = self.message(0)?;
        (first.id() == id && first.type_name() == "SystemPromptMessage").then_some(0)
    }

    /// Index of the tool definitions: within the first two messages, by id and type.
    pub fn tool_definitions_index(&self) -> Option<usize> {
        let id = self.special_id("tool_definitions_message_id")?;
        let index = self.messages().take(2).position(|m| m.id() == id)?;
        let msg = self.message(index)?;
        (msg.type_name() == "ToolDefinitionsMessage").then_some(index)
    }

    /// The special role of the message at `index`, if any.
    pub fn special_at(&self, index: usize) -> Option<Special> {
        if self.system_prompt_index() == Some(index) {
            Some(Special::SystemPrompt)
        } else if self.tool_definitions_index() == Some(index) {
            Some(Special::ToolDefinitions)
        } else {
            None
        }
    }

    /// Indices of the special messages (system prompt, tool definitions).
    pub fn special_indices(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .system_prompt_index()
            .into_iter()
            .chain(self.tool_definitions_index())
            .collect();
        out.dedup();
        out
    }

    fn special_id(&self, key: &str) -> Option<&str> {
        match self.raw.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Some(s),
            _ => None,
        }
    }

    /// The anchor points as `(name, end index)`, checked for shape.
    pub fn anchor_points(&self) -> Result<Vec<(String, usize)>> {
        let Some(value) = self.raw.get("anchor_points") else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = value else {
            return Err(StoreError::shape(
                &self.path,
                "\"anchor_points\" is not a list",
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let pair = item.as_array().filter(|p| p.len() == 2);
                let name = pair.and_then(|p| p[0].as_str());
                let index = pair.and_then(|p| p[1].as_u64());
                match (name, index) {
                    (Some(n), Some(x)) => Ok((n.to_string(), x as usize)),
                    _ => Err(StoreError::shape(
                        &self.path,
                        format!("anchor point #{i} is not a [name, index] pair: {item}"),
                    )),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx(v: Value) -> Result<Context> {
        let Value::Object(m) = v else { unreachable!() };
        Context::from_raw(m, Path::new("c.json"))
    }

    #[test]
    fn specials_need_id_position_and_type() {
        let c = ctx(json!({
            "messages": [
                {"id": "s", "_type": "SystemPromptMessage", "role": "system"},
                {"id": "t", "_type": "ToolDefinitionsMessage", "role": "tool"},
                {"id": "u", "role": "user"}
            ],
            "system_prompt_message_id": "s", "tool_definitions_message_id": "t"
        }))
        .unwrap();
        assert_eq!(c.special_indices(), vec![0, 1]);
        let wrong_type = ctx(json!({
            "messages": [{"id": "s", "role": "system"}], "system_prompt_message_id": "s"
        }))
        .unwrap();
        assert_eq!(wrong_type.special_indices(), Vec::<usize>::new());
    }

    #[test]
    fn bad_shapes_name_the_file() {
        let err = ctx(json!({"messages": {"a": 1}})).unwrap_err().to_string();
        assert!(
            err.contains("c.json") && err.contains("not a list"),
            "{err}"
        );
        let err = ctx(json!({"messages": [1]})).unwrap_err().to_string();
        assert!(err.contains("message #0"), "{err}");
        let c = ctx(json!({"anchor_points": [["a", -1]]})).unwrap();
        assert!(c.anchor_points().is_err());
    }
}
