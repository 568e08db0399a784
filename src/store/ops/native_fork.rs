//! A change to a Loki or peteos session: planned on its active context,
//! then forked into place under the session's lock (the parent is
//! untouched but for its `children`; `activate` undoes the change).

use crate::store::error::Result;
use crate::store::format::clear;
use crate::store::format::tokens::Encoding;
use crate::store::format::{Context, Session, fork_with, ids, jsonfile};
use crate::store::ops::change::{self, Change, ChangeReport, Mode, Planned};
use crate::store::ops::count_cache::CountCache;
use crate::store::ops::counting::message_counts_kept;
use crate::store::ops::edit_plan::EditPlan;
use crate::store::ops::forking;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// Plans `change` on the active context of the conversation in `dir`
/// and, to write, forks it: re-read and planned under the lock on
/// `lock_dir` (the Loki session directory, or `dir` itself), refused if
/// it is not what the mode's `expected` describes. The cleared messages
/// get new ids and `cleared_from`. Counts `cache` kept are taken, new ones
/// kept in it.
pub fn change(
    dir: &Path,
    lock_dir: &Path,
    change: &Change,
    encoding: Encoding,
    cache: Option<&CountCache>,
    mode: Mode<'_>,
    now: f64,
) -> Result<ChangeReport> {
    let plan_on = |parent: &Context| {
        let counts = message_counts_kept(parent, encoding, cache)?;
        change::plan(parent, change, encoding, counts, false)
    };
    let fork_id = ids::dated_id(now);
    match mode {
        Mode::Preview => {
            let parent = forking::active(&Session::load(dir)?)?;
            let planned = plan_on(&parent)?;
            // The fork as the write would lay it out: ids and times of
            // the same lengths, so the same size.
            let bytes = if planned.plan.changed {
                let replaced = replaced_copies(&parent, &planned.plan);
                let at = ids::iso_timestamp(now);
                let fork = fork_with(&parent, &planned.plan.kept, &replaced, &fork_id, &at)?;
                Some((file_size(&parent), rendered_size(&fork)))
            } else {
                None
            };
            Ok(report(planned, parent, None, bytes))
        }
        Mode::Write { expected } => {
            let mut locked = forking::lock_active(dir, lock_dir, expected)?;
            let planned = plan_on(&locked.parent)?;
            let (child, bytes) = if planned.plan.changed {
                let before = file_size(&locked.parent);
                let replaced = replaced_copies(&locked.parent, &planned.plan);
                let child = locked.write_fork(&planned.plan.kept, &replaced, &fork_id, now)?;
                // Written under the lock just now: its size on disk, without
                // laying it out a second time.
                let after = file_size(&child);
                (Some(child), Some((before, after)))
            } else {
                (None, None)
            };
            Ok(report(planned, locked.parent, child, bytes))
        }
    }
}

fn report(
    planned: Planned,
    parent: Context,
    child: Option<Context>,
    bytes: Option<(u64, u64)>,
) -> ChangeReport {
    let Planned { plan, facts, notes } = planned;
    ChangeReport {
        plan,
        facts,
        notes,
        parent,
        child,
        fork: None,
        bytes,
    }
}

/// The size of a context's file as written.
fn rendered_size(ctx: &Context) -> u64 {
    jsonfile::render(ctx.raw_dict()).len() as u64
}

/// The new copies of the messages whose results (or media) the plan
/// replaces, each with a new id naming the original in `cleared_from`.
fn replaced_copies(parent: &Context, plan: &EditPlan) -> HashMap<usize, Map<String, Value>> {
    plan.cleared
        .iter()
        .filter_map(|c| {
            let message = parent.message(c.index)?;
            let copy = clear::cleared_message(&message, &c.results, &c.media, &ids::message_id());
            Some((c.index, copy))
        })
        .collect()
}

/// The size of the context's file (0 if it cannot be told).
fn file_size(ctx: &Context) -> u64 {
    std::fs::symlink_metadata(ctx.path()).map_or(0, |m| m.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::tokens::Encoding;
    use crate::store::ops::contexts::activate;
    use crate::store::ops::counting::message_counts;
    use crate::store::ops::edit_plan::ClearChoice;
    use crate::store::ops::forking::Expected;
    use serde_json::json;

    /// A session whose active context holds a prompt, a call, its long
    /// result and an answer.
    fn session() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let messages = json!([
            {"role": "user", "id": "u", "_sequence_number": 3,
             "content": [{"type": "text", "text": "list the files"}]},
            {"role": "assistant", "id": "a", "_sequence_number": 4,
             "content": [{"type": "tool_use", "call_id": "k", "name": "bash", "arguments": "{}"}]},
            {"role": "tool", "id": "t", "_sequence_number": 5, "token_count": 7, "x_kept": true,
             "content": [{"type": "tool_result", "call_id": "k", "content": "file ".repeat(500),
                          "execution_status": "executed"}]},
            {"role": "assistant", "id": "b", "_sequence_number": 6,
             "content": [{"type": "text", "text": "done"}]}
        ]);
        let context = json!({"messages": messages, "id": "c1", "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", 4]],
            "message_sequence": 4, "_mutation_counter": 7, "children": []});
        let write = |name: &str, v: &Value| {
            std::fs::write(dir.path().join(name), serde_json::to_vec(v).unwrap()).unwrap()
        };
        write("c1.json", &context);
        write(
            "session.json",
            &json!({"uuid": "s", "active_context_id": "c1"}),
        );
        dir
    }

    #[test]
    fn a_clear_forks_a_copy_naming_the_original_and_activate_undoes_it() {
        let dir = session();
        let parent_before = std::fs::read(dir.path().join("c1.json")).unwrap();
        let request = Change::Clear(ClearChoice::Messages(vec!["t".into()]));
        let outcome = change(
            dir.path(),
            dir.path(),
            &request,
            Encoding::O200kBase,
            None,
            Mode::Write { expected: None },
            1.8e9,
        )
        .unwrap();
        let child = outcome.child.as_ref().unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some(child.id()));
        let copied = child.message(2).unwrap();
        assert_ne!(copied.id(), "t", "a cleared message gets a new id");
        assert_eq!(copied.raw()[clear::CLEARED_FROM], "t");
        assert_eq!(copied.raw()["x_kept"], true, "other fields survive");
        assert!(
            copied.cached_token_count().is_none(),
            "the old count is gone"
        );
        let part = &copied.raw()["content"][0];
        assert_eq!(part["call_id"], "k");
        assert_eq!(part["execution_status"], "executed");
        let stated = outcome.plan.cleared[0].results[0].1;
        assert_eq!(part["content"], clear::placeholder(stated).as_str());
        // The plan's count of the copy is what the counter says of it.
        let recounted = message_counts(child, Encoding::O200kBase).unwrap();
        assert_eq!(recounted.iter().sum::<u64>(), outcome.plan.tokens_after);
        assert_eq!(outcome.cleared()[0].new_id.as_deref(), Some(copied.id()));
        // The parent gained its child and nothing else; activate undoes.
        let mut before: Value = serde_json::from_slice(&parent_before).unwrap();
        before["children"] = json!([child.id()]);
        let after: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("c1.json")).unwrap()).unwrap();
        assert_eq!(after, before);
        activate(dir.path(), dir.path(), "c1").unwrap();
        assert_eq!(
            Session::load(dir.path()).unwrap().active_context_id(),
            Some("c1")
        );
    }

    #[test]
    fn a_drop_forks_without_the_pair_and_a_changed_context_is_refused() {
        let dir = session();
        let request = Change::Drop {
            messages: vec!["t".into()],
            with_pairs: true,
        };
        let stale = Expected {
            context_id: "c1".into(),
            mutation_counter: 6,
        };
        let err = change(
            dir.path(),
            dir.path(),
            &request,
            Encoding::Cl100kBase,
            None,
            Mode::Write {
                expected: Some(&stale),
            },
            1.8e9,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("changed since the preview"),
            "{err}"
        );
        let preview = change(
            dir.path(),
            dir.path(),
            &request,
            Encoding::Cl100kBase,
            None,
            Mode::Preview,
            1.8e9,
        )
        .unwrap();
        assert!(preview.child.is_none(), "a preview writes nothing");
        let fresh = Expected {
            context_id: "c1".into(),
            mutation_counter: 7,
        };
        let outcome = change(
            dir.path(),
            dir.path(),
            &request,
            Encoding::Cl100kBase,
            None,
            Mode::Write {
                expected: Some(&fresh),
            },
            1.8e9,
        )
        .unwrap();
        assert_eq!(outcome.dropped_ids(), ["a", "t"]);
        let child = outcome.child.clone().unwrap();
        // The sizes a preview says are the ones the write gives, and the
        // fork's is its file's.
        let written = std::fs::metadata(child.path()).unwrap().len();
        assert_eq!(outcome.bytes.map(|b| b.1), Some(written));
        assert_eq!(preview.bytes, outcome.bytes);
        let kept: Vec<&str> = child.messages().map(|m| m.id()).collect();
        assert_eq!(kept, ["u", "b"]);
        assert_eq!(child.raw_dict()["origin_context_id"], "c1");
    }
}

#[cfg(test)]
mod window_tests {
    use super::*;
    use crate::store::ops::contexts::activate;
    use crate::store::ops::window_plan::Window;
    use serde_json::{Value, json};

    /// A session in a temp dir whose active context has `messages` user
    /// messages and `children` as given.
    fn session(messages: usize, children: Value) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let list: Vec<Value> = (0..messages)
            .map(|i| {
                json!({"role": "user", "id": format!("m{i}"), "_sequence_number": 3 + i,
                "content": [{"type": "text", "text": format!("hello {i}")}]})
            })
            .collect();
        let context = json!({"messages": list, "id": "c1", "content_map": {},
            "anchor_points": [["system_prompt", 0], ["tools", 0], ["messages", messages]],
            "message_sequence": messages, "_mutation_counter": 3 + messages, "children": children});
        let write = |name: &str, v: &Value| {
            std::fs::write(dir.path().join(name), serde_json::to_vec(v).unwrap()).unwrap()
        };
        write("c1.json", &context);
        write(
            "session.json",
            &json!({"uuid": "s", "active_context_id": "c1"}),
        );
        dir
    }

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_bad_children_field_refuses_the_trim_before_anything_is_written() {
        let dir = session(4, json!("not a list"));
        let before = files(dir.path());
        let err = change(
            dir.path(),
            dir.path(),
            &Change::Window(Window::KeepMessages(1)),
            Encoding::Cl100kBase,
            None,
            Mode::Write { expected: None },
            1.8e9,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("c1.json") && err.contains("children"), "{err}");
        assert_eq!(files(dir.path()), before, "no orphan context file");
    }

    #[test]
    fn a_trim_forks_and_switching_back_undoes_it() {
        let dir = session(4, json!([]));
        let parent_before = std::fs::read(dir.path().join("c1.json")).unwrap();
        let outcome = change(
            dir.path(),
            dir.path(),
            &Change::Window(Window::KeepMessages(1)),
            Encoding::Cl100kBase,
            None,
            Mode::Write { expected: None },
            1.8e9,
        )
        .unwrap();
        let child = outcome.child.unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some(child.id()));
        activate(dir.path(), dir.path(), "c1").unwrap();
        let session = Session::load(dir.path()).unwrap();
        assert_eq!(session.active_context_id(), Some("c1"), "undone on disk");
        let parent = session.active_context().unwrap().unwrap();
        assert_eq!(parent.children(), vec![child.id()]);
        let mut before: Value = serde_json::from_slice(&parent_before).unwrap();
        let mut after = Value::Object(parent.into_raw());
        before["children"] = json!([]);
        after["children"] = json!([]);
        assert_eq!(
            before, after,
            "the parent changed only by gaining its child"
        );
        assert!(activate(dir.path(), dir.path(), "missing").is_err());
        assert_eq!(
            Session::load(dir.path()).unwrap().active_context_id(),
            Some("c1"),
            "never pointed at a context that cannot be read"
        );
    }
}
