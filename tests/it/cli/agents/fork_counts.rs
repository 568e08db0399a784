//! A fork of another agent's session keeps its token counts for the next
//! one: a fork taking them reports what one counting afresh reports; a
//! count is taken only for the exact text it was made of (a message the
//! agent changed is counted again); a damaged count file is not used.

use super::Home;
use crate::common::{count_files, decided, plant_counts};
use serde_json::Value;
use std::path::Path;

/// `file` with every kept count raised by `by`: the counts a fork reports
/// then show whether they came from it.
fn plant(file: &Path, by: u64) -> usize {
    plant_counts(file, |_, count| count + by)
}

#[test]
fn a_fork_takes_kept_counts_only_for_the_exact_text_they_were_made_of() {
    let h = Home::new();
    let preview = |id: &str| {
        let out = h.run(&["trim", id, "--keep-messages", "1", "--dry-run", "--json"]);
        (
            out.status.code(),
            serde_json::from_slice::<Value>(&out.stdout).ok(),
        )
    };
    // A Claude Code session a window changes.
    let (id, first) = h
        .made
        .claude
        .iter()
        .find_map(|id| match preview(id) {
            (Some(0), Some(out)) => Some((id.clone(), out)),
            _ => None,
        })
        .expect("a Claude Code session with more than one message");
    let [file] = count_files(&h.cache)
        .try_into()
        .expect("the counts were kept");
    assert_eq!(decided(&preview(&id).1.unwrap()), decided(&first));

    // The kept counts are what a fork reports: planted ones show.
    let messages = plant(&file, 1000);
    let planted = preview(&id).1.unwrap();
    let before = first["tokens_before"].as_u64().unwrap();
    assert_eq!(
        planted["tokens_before"].as_u64().unwrap(),
        before + 1000 * messages as u64
    );
    // A fork written takes them as its preview did.
    let done = h.json(&["trim", &id, "--keep-messages", "1", "--json"]);
    assert_eq!(done["tokens_before"], planted["tokens_before"]);
    std::fs::remove_file(done["new_session_file"].as_str().unwrap()).unwrap();

    // The agent changed a message: that one is counted again, the others
    // still come from the file.
    let session = std::fs::read_dir(h.home.join(".claude/projects"))
        .unwrap()
        .flatten()
        .flat_map(|p| std::fs::read_dir(p.path()).unwrap().flatten())
        .map(|f| f.path())
        .find(|p| p.file_stem().is_some_and(|s| s.to_string_lossy() == id))
        .unwrap();
    let text = std::fs::read_to_string(&session).unwrap();
    let needle = "\"type\":\"text\",\"text\":\"";
    assert!(text.contains(needle), "a text block to change");
    let changed = text.replacen(
        needle,
        &format!("{needle}a longer text than before, one two three four five six seven. "),
        1,
    );
    std::fs::write(&session, changed).unwrap();
    let after_change = preview(&id).1.unwrap();
    std::fs::remove_file(&file).unwrap();
    let fresh = preview(&id).1.unwrap();
    let fresh_before = fresh["tokens_before"].as_u64().unwrap();
    assert!(fresh_before > before, "the change added tokens");
    assert_eq!(
        after_change["tokens_before"].as_u64().unwrap(),
        fresh_before + 1000 * (messages as u64 - 1),
        "only the changed message was counted again"
    );

    // A damaged file (one byte near its end flipped) is not used.
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() - 36;
    bytes[at] ^= 0x10;
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(decided(&preview(&id).1.unwrap()), decided(&fresh));
}
