//! Building a forked context exactly as peteos's `Context._fork` does.

use crate::store::error::{Result, StoreError};
use crate::store::peteos::Context;
use crate::store::peteos::ids;
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// Builds the child context keeping the parent's messages at `kept` (display
/// order, specials included). The parent is not changed; the caller records
/// the child in the parent's `children` and makes it active.
///
/// `new_id` is the child's context id; `now_iso` fills `creation_timestamp`
/// for messages that lack one, as peteos's `Message.__init__` does.
pub fn fork(parent: &Context, kept: &[usize], new_id: &str, now_iso: &str) -> Result<Context> {
    let anchors = parent.anchor_points()?;
    let specials = parent.special_indices();
    let kept_set: HashSet<usize> = kept.iter().copied().chain(specials.iter().copied()).collect();

    let mut homes = vec![None; parent.len()];
    let mut wanted: HashSet<&str> = ["system_prompt", "tools", "messages"].into();
    for &index in &kept_set {
        let home = anchors
            .iter()
            .find(|(_, end)| *end > index)
            .map(|(name, _)| name.as_str())
            .ok_or_else(|| {
                StoreError::shape(
                    parent.path(),
                    format!(
                        "message #{index} lies beyond every anchor point (anchors end at {})",
                        anchors.last().map_or(0, |(_, end)| *end)
                    ),
                )
            })?;
        homes[index] = Some(home);
        wanted.insert(home);
    }

    let mut child = ChildBuilder::new(parent, new_id);
    for (name, _) in anchors.iter().filter(|(name, _)| wanted.contains(name.as_str())) {
        child.add_anchor(name, parent)?;
    }
    for (index, message) in parent.message_values().iter().enumerate() {
        if let Some(home) = homes[index] {
            child.append(message, home, now_iso);
        }
    }
    Context::from_raw(child.finish(), &parent.path().with_file_name(format!("{new_id}.json")))
}

/// The child dict under construction, mirroring peteos's add_anchor/append.
struct ChildBuilder {
    raw: Map<String, Value>,
    messages: Vec<Value>,
    anchors: Vec<(String, usize)>,
    mutation_counter: i64,
    message_sequence: i64,
}

impl ChildBuilder {
    fn new(parent: &Context, new_id: &str) -> Self {
        let parent_raw = parent.raw_dict();
        let special_id = |index: Option<usize>| match index.and_then(|i| parent.message(i)) {
            Some(m) => Value::String(m.id().to_string()),
            None => Value::Null,
        };
        // Key order follows peteos: __init__'s setdefaults, then the fork fields.
        let mut raw = Map::new();
        raw.insert("messages".into(), json!([]));
        raw.insert("id".into(), json!(new_id));
        raw.insert(
            "content_map".into(),
            parent_raw.get("content_map").cloned().unwrap_or_else(|| json!({})),
        );
        raw.insert("anchor_points".into(), json!([]));
        raw.insert("message_sequence".into(), json!(0));
        raw.insert("_mutation_counter".into(), json!(0));
        raw.insert("children".into(), json!([]));
        raw.insert("origin_context_id".into(), json!(parent.id()));
        raw.insert("parent_mutation_counter".into(), json!(0));
        raw.insert(
            "system_prompt_message_id".into(),
            special_id(parent.system_prompt_index()),
        );
        raw.insert(
            "tool_definitions_message_id".into(),
            special_id(parent.tool_definitions_index()),
        );
        ChildBuilder {
            raw,
            messages: Vec::new(),
            anchors: Vec::new(),
            mutation_counter: 0,
            message_sequence: 0,
        }
    }

    /// All new anchors sit at index 0, so each one goes after the existing ones.
    fn add_anchor(&mut self, name: &str, parent: &Context) -> Result<()> {
        if self.anchors.iter().any(|(n, _)| n == name) {
            return Err(StoreError::shape(
                parent.path(),
                format!("anchor point {name:?} appears twice"),
            ));
        }
        self.anchors.push((name.to_string(), 0));
        self.mutation_counter += 1;
        Ok(())
    }

    /// Inserts at the home anchor's end position and shifts that anchor and
    /// every later one in the list by one, as peteos's `append` does.
    fn append(&mut self, message: &Value, home: &str, now_iso: &str) {
        let Some(list_index) = self.anchors.iter().position(|(n, _)| n == home) else {
            return; // every home anchor was added above
        };
        let at = self.anchors[list_index].1.min(self.messages.len());
        let mut copy = message.as_object().cloned().unwrap_or_default();
        apply_message_defaults(&mut copy, now_iso);
        copy.insert("_sequence_number".into(), json!(self.mutation_counter));
        self.messages.insert(at, Value::Object(copy));
        self.message_sequence += 1;
        self.mutation_counter += 1;
        for anchor in &mut self.anchors[list_index..] {
            anchor.1 += 1;
        }
    }

    fn finish(mut self) -> Map<String, Value> {
        let anchors: Vec<Value> = self.anchors.iter().map(|(n, i)| json!([n, i])).collect();
        self.raw.insert("messages".into(), Value::Array(self.messages));
        self.raw.insert("anchor_points".into(), Value::Array(anchors));
        self.raw
            .insert("message_sequence".into(), json!(self.message_sequence));
        self.raw
            .insert("_mutation_counter".into(), json!(self.mutation_counter));
        self.raw
    }
}

/// peteos's `Message.__init__` fills these when a message is copied into a fork.
fn apply_message_defaults(message: &mut Map<String, Value>, now_iso: &str) {
    if !message.contains_key("_type") {
        message.insert("_type".into(), json!("Message"));
    }
    if !message.contains_key("id") {
        message.insert("id".into(), json!(ids::message_id()));
    }
    if !message.contains_key("_hook_ids") {
        message.insert("_hook_ids".into(), json!([]));
    }
    if !message.contains_key("creation_timestamp") {
        message.insert("creation_timestamp".into(), json!(now_iso));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn fork_renumbers_and_keeps_anchor_layout() {
        let v = json!({
            "messages": [
                {"id": "s", "_type": "SystemPromptMessage", "role": "system", "_sequence_number": 3, "x": 1},
                {"id": "a", "role": "user", "_sequence_number": 5},
                {"id": "b", "role": "assistant", "_sequence_number": 6}
            ],
            "id": "parent", "content_map": {"h": "t"},
            "anchor_points": [["system_prompt", 1], ["tools", 1], ["messages", 3]],
            "message_sequence": 3, "_mutation_counter": 7, "children": [],
            "system_prompt_message_id": "s"
        });
        let parent = Context::from_raw(v.as_object().unwrap().clone(), Path::new("/d/parent.json")).unwrap();
        let child = fork(&parent, &[0, 2], "kid", "2026-01-01T00:00:00").unwrap();
        let raw = child.raw_dict();
        assert_eq!(child.path(), Path::new("/d/kid.json"));
        assert_eq!(raw["anchor_points"], json!([["system_prompt", 1], ["tools", 1], ["messages", 2]]));
        assert_eq!(raw["_mutation_counter"], json!(5));
        assert_eq!(raw["message_sequence"], json!(2));
        assert_eq!(raw["origin_context_id"], json!("parent"));
        assert_eq!(raw["content_map"], json!({"h": "t"}));
        assert_eq!(raw["tool_definitions_message_id"], Value::Null);
        let ids: Vec<_> = child.messages().map(|m| (m.id(), m.sequence())).collect();
        assert_eq!(ids, vec![("s", Some(3)), ("b", Some(4))]);
        assert_eq!(raw["messages"][0]["x"], json!(1), "unknown fields survive");
        assert_eq!(parent.raw_dict()["children"], json!([]), "parent untouched");
    }

    #[test]
    fn out_of_range_anchors_are_an_error() {
        let v = json!({"messages": [{"id": "a"}, {"id": "b"}], "anchor_points": [["messages", 1]]});
        let parent = Context::from_raw(v.as_object().unwrap().clone(), Path::new("p.json")).unwrap();
        let err = fork(&parent, &[1], "kid", "t").unwrap_err().to_string();
        assert!(err.contains("p.json") && err.contains("beyond every anchor"), "{err}");
    }
}
