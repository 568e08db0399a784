//! Building a forked context exactly as peteos's `Context._fork` does.

use crate::humanize;
use crate::store::error::{Result, StoreError};
use crate::store::format::Context;
use crate::store::format::assemble::Assembler;
use crate::store::format::ids;
use crate::store::format::jsonfile;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Builds the child context keeping the parent's messages at `kept` (display
/// order, specials included). The parent is not changed; the caller records
/// the child in the parent's `children` and makes it active.
///
/// `new_id` is the child's context id; `now_iso` fills `creation_timestamp`
/// for messages that lack one, as peteos's `Message.__init__` does.
pub fn fork(parent: &Context, kept: &[usize], new_id: &str, now_iso: &str) -> Result<Context> {
    fork_with(parent, kept, &HashMap::new(), new_id, now_iso)
}

/// [`fork`] with some kept messages replaced: `replaced[index]` is copied
/// into the child instead of the parent's message `index` (a cleared tool
/// result). The parent is not changed.
pub fn fork_with(
    parent: &Context,
    kept: &[usize],
    replaced: &HashMap<usize, Map<String, Value>>,
    new_id: &str,
    now_iso: &str,
) -> Result<Context> {
    let layout = layout(parent, kept)?;
    let mut child = Assembler::new(child_header(parent, new_id));
    for &at in &layout.child_anchors {
        // Each name once: `layout` refused duplicates.
        child.add_anchor(&layout.anchors[at].0);
    }
    for (index, message) in parent.message_values().iter().enumerate() {
        if let Some(home) = layout.homes[index] {
            let mut copy = match replaced.get(&index) {
                Some(replacement) => replacement.clone(),
                None => message.as_object().cloned().unwrap_or_default(),
            };
            apply_message_defaults(&mut copy, now_iso);
            child.append(copy, &layout.anchors[home].0);
        }
    }
    Context::from_raw(
        child.finish(),
        &parent.path().with_file_name(format!("{new_id}.json")),
    )
}

/// Checks that `parent` can be forked keeping `kept`, without building the
/// fork: what a preview runs so that a dry run refuses what the write would.
pub fn check_fork(parent: &Context, kept: &[usize]) -> Result<()> {
    layout(parent, kept)?;
    children_of(parent).map(|_| ())
}

/// The parent's `children` list (absent: none yet), or why it is not one.
pub fn children_of(parent: &Context) -> Result<Option<&Vec<Value>>> {
    match parent.raw_dict().get("children") {
        None => Ok(None),
        Some(Value::Array(children)) => Ok(Some(children)),
        Some(other) => Err(StoreError::shape(
            parent.path(),
            format!("\"children\" is {}, not a list", jsonfile::kind_of(other)),
        )),
    }
}

/// How a fork of a parent is laid out: the parent's anchors, the ones the
/// child gets (in the parent's order) and each kept message's home anchor.
struct Layout {
    anchors: Vec<(String, usize)>,
    /// Indices into `anchors`.
    child_anchors: Vec<usize>,
    /// By parent message index: its home (an index into `anchors`), for the
    /// messages the child keeps (`kept` plus the specials).
    homes: Vec<Option<usize>>,
}

fn layout(parent: &Context, kept: &[usize]) -> Result<Layout> {
    let anchors = parent.anchor_points()?;
    let specials = parent.special_indices();
    let mut homes = vec![None; parent.len()];
    // By anchor: whether the child gets it (the three peteos always makes,
    // and every kept message's home).
    let mut wanted: Vec<bool> = (anchors.iter())
        .map(|(name, _)| matches!(name.as_str(), "system_prompt" | "tools" | "messages"))
        .collect();
    for &index in kept.iter().chain(specials.iter()) {
        let home = anchors
            .iter()
            .position(|(_, end)| *end > index)
            .ok_or_else(|| {
                StoreError::shape(
                    parent.path(),
                    format!(
                        "message {} lies beyond every anchor point (they end at message {})",
                        humanize::message_number(index),
                        humanize::message_number(
                            anchors.last().map_or(0, |(_, end)| *end).saturating_sub(1)
                        )
                    ),
                )
            })?;
        homes[index] = Some(home);
        wanted[home] = true;
    }
    // By name, as peteos adds them: a name given twice is refused below.
    let names: Vec<&str> = (anchors.iter().zip(&wanted))
        .filter(|(_, wanted)| **wanted)
        .map(|((name, _), _)| name.as_str())
        .collect();
    let mut child_anchors: Vec<usize> = Vec::new();
    for (at, (name, _)) in anchors.iter().enumerate() {
        if !names.contains(&name.as_str()) {
            continue;
        }
        if child_anchors.iter().any(|&seen| anchors[seen].0 == *name) {
            return Err(StoreError::shape(
                parent.path(),
                format!("anchor point {name:?} appears twice"),
            ));
        }
        child_anchors.push(at);
    }
    Ok(Layout {
        anchors,
        child_anchors,
        homes,
    })
}

/// The fork's header fields, in the key order peteos's `Context.__init__`
/// and `_fork` give them.
fn child_header(parent: &Context, new_id: &str) -> Map<String, Value> {
    let special_id = |index: Option<usize>| match index.and_then(|i| parent.message(i)) {
        Some(m) => Value::String(m.id().to_string()),
        None => Value::Null,
    };
    let mut raw = Assembler::empty_header(new_id);
    raw.insert(
        "content_map".into(),
        parent
            .raw_dict()
            .get("content_map")
            .cloned()
            .unwrap_or_else(|| json!({})),
    );
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
    raw
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
        let parent =
            Context::from_raw(v.as_object().unwrap().clone(), Path::new("/d/parent.json")).unwrap();
        let child = fork(&parent, &[0, 2], "kid", "2026-01-01T00:00:00").unwrap();
        let raw = child.raw_dict();
        assert_eq!(child.path(), Path::new("/d/kid.json"));
        assert_eq!(
            raw["anchor_points"],
            json!([["system_prompt", 1], ["tools", 1], ["messages", 2]])
        );
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
    fn the_check_refuses_what_the_fork_refuses_and_nothing_else() {
        let context = |extra: Value| {
            let mut v = json!({"messages": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
                "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 2]]});
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            Context::from_raw(v.as_object().unwrap().clone(), Path::new("p.json")).unwrap()
        };
        let short = context(json!({}));
        for kept in [vec![0, 1], vec![1], vec![0, 2], vec![2]] {
            let forked = fork(&short, &kept, "kid", "t").map(|_| ());
            let checked = check_fork(&short, &kept);
            assert_eq!(
                forked.map_err(|e| e.to_string()),
                checked.map_err(|e| e.to_string()),
                "{kept:?}"
            );
        }
        assert!(check_fork(&short, &[0, 1]).is_ok(), "c is not kept");
        let twice = context(json!({"anchor_points": [["messages", 1], ["messages", 3]]}));
        let err = check_fork(&twice, &[0]).unwrap_err().to_string();
        assert!(err.contains("appears twice"), "{err}");
        let bad_children = context(json!({"anchor_points": [["messages", 3]], "children": "x"}));
        let err = check_fork(&bad_children, &[0]).unwrap_err().to_string();
        assert!(err.contains("p.json") && err.contains("children"), "{err}");
    }

    #[test]
    fn out_of_range_anchors_are_an_error() {
        let v = json!({"messages": [{"id": "a"}, {"id": "b"}], "anchor_points": [["messages", 1]]});
        let parent =
            Context::from_raw(v.as_object().unwrap().clone(), Path::new("p.json")).unwrap();
        let err = fork(&parent, &[1], "kid", "t").unwrap_err().to_string();
        assert!(
            err.contains("p.json") && err.contains("beyond every anchor"),
            "{err}"
        );
    }
}
