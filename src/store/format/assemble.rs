//! Building a context dict the way peteos's `add_anchor` and `append` do, so
//! forks and newly written conversations have exactly peteos's layout.

use serde_json::{Map, Value, json};

/// A context dict under construction.
#[derive(Debug)]
pub struct Assembler {
    raw: Map<String, Value>,
    messages: Vec<Value>,
    anchors: Vec<(String, usize)>,
    mutation_counter: i64,
    message_sequence: i64,
}

impl Assembler {
    /// The fields `Context.__init__` sets on an empty dict, in its order.
    pub fn empty_header(id: &str) -> Map<String, Value> {
        let mut raw = Map::new();
        raw.insert("messages".into(), json!([]));
        raw.insert("id".into(), json!(id));
        raw.insert("content_map".into(), json!({}));
        raw.insert("anchor_points".into(), json!([]));
        raw.insert("message_sequence".into(), json!(0));
        raw.insert("_mutation_counter".into(), json!(0));
        raw.insert("children".into(), json!([]));
        raw
    }

    /// Starts from `header` (its messages, anchors and counters are replaced).
    pub fn new(header: Map<String, Value>) -> Self {
        Assembler {
            raw: header,
            messages: Vec::new(),
            anchors: Vec::new(),
            mutation_counter: 0,
            message_sequence: 0,
        }
    }

    /// `Context.create()`: the three default anchors at 0.
    pub fn with_default_anchors(header: Map<String, Value>) -> Self {
        let mut a = Assembler::new(header);
        for name in ["system_prompt", "tools", "messages"] {
            a.add_anchor(name);
        }
        a
    }

    /// Adds anchor `name` at index 0 after the existing ones (all new anchors
    /// of a fork sit at 0); false if the name is taken.
    pub fn add_anchor(&mut self, name: &str) -> bool {
        if self.anchors.iter().any(|(n, _)| n == name) {
            return false;
        }
        self.anchors.push((name.to_string(), 0));
        self.mutation_counter += 1;
        true
    }

    /// Inserts at the anchor's end position, stamps `_sequence_number` and
    /// shifts that anchor and every later one in the list by one.
    pub fn append(&mut self, mut message: Map<String, Value>, anchor: &str) {
        let Some(list_index) = self.anchors.iter().position(|(n, _)| n == anchor) else {
            return;
        };
        let at = self.anchors[list_index].1.min(self.messages.len());
        message.insert("_sequence_number".into(), json!(self.mutation_counter));
        self.messages.insert(at, Value::Object(message));
        self.message_sequence += 1;
        self.mutation_counter += 1;
        for entry in &mut self.anchors[list_index..] {
            entry.1 += 1;
        }
    }

    /// Mutable access to the header (to set special message ids).
    pub fn header_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.raw
    }

    /// The finished dict.
    pub fn finish(mut self) -> Map<String, Value> {
        let anchors: Vec<Value> = self.anchors.iter().map(|(n, i)| json!([n, i])).collect();
        self.raw
            .insert("messages".into(), Value::Array(self.messages));
        self.raw
            .insert("anchor_points".into(), Value::Array(anchors));
        self.raw
            .insert("message_sequence".into(), json!(self.message_sequence));
        self.raw
            .insert("_mutation_counter".into(), json!(self.mutation_counter));
        self.raw
    }
}
