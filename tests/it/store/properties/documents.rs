//! Near-valid documents for the properties: the real keys of meta.json and
//! of a context, each right, missing or of a wrong type, among unknown
//! fields, with real message lists. Each document says what makes it
//! invalid, so a property can assert the outcome instead of discarding it.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// A meta.json dict and the keys that make it invalid (empty: valid).
#[derive(Clone, Debug)]
pub struct MetaDoc {
    pub raw: Map<String, Value>,
    pub bad: Vec<&'static str>,
}

/// A context dict, the ids of its messages, and the text the error must
/// hold when the document is invalid (None: valid).
#[derive(Clone, Debug)]
pub struct ContextDoc {
    pub raw: Map<String, Value>,
    pub ids: Vec<String>,
    pub bad: Option<String>,
}

/// What a generated field holds.
#[derive(Clone, Debug)]
enum Field {
    Missing,
    Valid(Value),
    Wrong(Value),
}

fn not_a_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        "\\PC{0,6}".prop_map(Value::String),
        Just(json!([1.5])),
        Just(json!({"t": 1})),
        // A number, but no time: 1e400 is kept exactly and is out of range.
        Just(serde_json::from_str("1e400").unwrap()),
    ]
}

fn not_a_string() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        Just(json!(["a"])),
        Just(json!({"a": "b"})),
    ]
}

fn time_field() -> impl Strategy<Value = Field> {
    prop_oneof![
        1 => Just(Field::Missing),
        4 => (-1e9f64..4e9).prop_map(|t| Field::Valid(json!(t))),
        1 => (0i64..4_000_000_000).prop_map(|t| Field::Valid(json!(t))),
        2 => not_a_number().prop_map(Field::Wrong),
    ]
}

fn string_field() -> impl Strategy<Value = Field> {
    prop_oneof![
        1 => Just(Field::Missing),
        4 => "\\PC{0,12}".prop_map(|s| Field::Valid(json!(s))),
        1 => not_a_string().prop_map(Field::Wrong),
    ]
}

/// Fields a newer writer (or a user) added, which must survive every write.
fn unknown_fields() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec(("x_[a-z]{1,6}", super::json_value()), 0..4)
}

/// meta.json: `last_used_at` a finite number (required), `created_at` one
/// if present, `id`, `name`, `user`, `first_prompt` strings if present.
pub fn meta() -> impl Strategy<Value = MetaDoc> {
    const KEYS: [&str; 6] = [
        "id",
        "name",
        "user",
        "first_prompt",
        "created_at",
        "last_used_at",
    ];
    let fields = (
        [
            string_field(),
            string_field(),
            string_field(),
            string_field(),
        ],
        [time_field(), time_field()],
    );
    (fields, unknown_fields(), any::<prop::sample::Index>()).prop_map(
        |((strings, times), unknown, at)| {
            let mut entries: Vec<(String, Value)> = Vec::new();
            let mut bad = Vec::new();
            for (key, field) in KEYS.iter().zip(strings.into_iter().chain(times)) {
                match field {
                    Field::Missing if *key == "last_used_at" => bad.push(*key),
                    Field::Missing => {}
                    Field::Valid(v) => entries.push((key.to_string(), v)),
                    Field::Wrong(v) => {
                        bad.push(*key);
                        entries.push((key.to_string(), v));
                    }
                }
            }
            let at = at.index(entries.len() + 1);
            entries.splice(at..at, unknown);
            MetaDoc {
                raw: entries.into_iter().collect(),
                bad,
            }
        },
    )
}

/// A message as peteos writes it, of one of the content kinds (a plain
/// string for older files), maybe with an unknown field.
fn message(i: usize, kind: u8, text: String, unknown: Option<Value>) -> Value {
    let content = match kind {
        0 => json!([{"type": "text", "text": text}]),
        1 => json!([{"type": "thinking", "text": text}, {"type": "text", "text": "done"}]),
        2 => json!([{"type": "tool_use", "call_id": format!("c{i}"), "name": "run",
                     "arguments": {"cmd": text}, "approval_status": "approved"}]),
        3 => json!([{"type": "tool_result", "call_id": format!("c{}", i.saturating_sub(1)),
                     "content": text, "execution_status": "ok"}]),
        4 => json!([{"type": "image", "source": {"path": text}}]),
        _ => json!(text),
    };
    let role = ["user", "assistant", "assistant", "tool", "user", "user"][usize::from(kind)];
    let mut m = json!({"role": role, "id": format!("m{i}"), "_type": "Message",
        "content": content, "_hook_ids": [], "creation_timestamp": "2026-01-01T00:00:00",
        "_sequence_number": i + 3});
    if let Some(v) = unknown {
        m["x_note"] = v;
    }
    m
}

/// How a generated context is broken, if it is.
#[derive(Clone, Debug)]
enum Damage {
    None,
    /// No "messages" key: an empty context, which is valid.
    MessagesMissing,
    /// "messages" is not a list.
    MessagesNotAList(Value),
    /// One message (index taken modulo the count) is not an object.
    MessageNotAnObject(prop::sample::Index, Value),
}

fn damage() -> impl Strategy<Value = Damage> {
    let not_a_list = prop_oneof![
        Just(Value::Null),
        any::<i32>().prop_map(|n| json!(n)),
        "\\PC{0,6}".prop_map(Value::String),
        Just(json!({"0": {"role": "user"}})),
    ];
    let not_an_object = prop_oneof![
        Just(Value::Null),
        any::<i32>().prop_map(|n| json!(n)),
        "\\PC{0,6}".prop_map(Value::String),
        Just(json!([{"role": "user"}])),
    ];
    prop_oneof![
        3 => Just(Damage::None),
        1 => Just(Damage::MessagesMissing),
        1 => not_a_list.prop_map(Damage::MessagesNotAList),
        2 => (any::<prop::sample::Index>(), not_an_object)
            .prop_map(|(i, v)| Damage::MessageNotAnObject(i, v)),
    ]
}

/// A context of real messages with consistent anchors and counters, unknown
/// fields at both levels, and maybe one kind of damage.
pub fn context() -> impl Strategy<Value = ContextDoc> {
    let specs = prop::collection::vec(
        (0u8..6, "\\PC{0,30}", prop::option::of(super::json_value())),
        0..12,
    );
    (specs, unknown_fields(), damage()).prop_map(|(specs, unknown, damage)| {
        let n = specs.len();
        let mut messages: Vec<Value> = specs
            .into_iter()
            .enumerate()
            .map(|(i, (kind, text, extra))| message(i, kind, text, extra))
            .collect();
        let mut ids: Vec<String> = (0..n).map(|i| format!("m{i}")).collect();
        let mut bad = None;
        let messages_value = match damage {
            Damage::None => Some(Value::Array(messages)),
            Damage::MessagesMissing => {
                ids.clear();
                None
            }
            Damage::MessagesNotAList(v) => {
                bad = Some("\"messages\" is".to_string());
                Some(v)
            }
            Damage::MessageNotAnObject(at, v) if n > 0 => {
                let i = at.index(n);
                messages[i] = v;
                bad = Some(format!("message #{i} is"));
                Some(Value::Array(messages))
            }
            Damage::MessageNotAnObject(..) => Some(Value::Array(messages)),
        };
        let mut raw = Map::new();
        if let Some(v) = messages_value {
            raw.insert("messages".into(), v);
        }
        let rest = json!({"id": "ctx", "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", n]],
            "message_sequence": n + 3, "_mutation_counter": n + 3, "children": [],
            "system_prompt_message_id": null, "tool_definitions_message_id": null});
        raw.extend(rest.as_object().unwrap().clone());
        raw.extend(unknown);
        ContextDoc { raw, ids, bad }
    })
}
