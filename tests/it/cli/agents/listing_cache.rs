//! What a listing remembers of each Claude Code session file (kept in our
//! cache): a second listing answers as the first without opening the
//! files, and a file changed since, whatever its times say, is read again.

use super::*;
use serde_json::json;

/// The listing cache of `h`'s Claude Code folder (there is one once a
/// listing ran).
fn cache_file(h: &Home) -> PathBuf {
    let found: Vec<PathBuf> = walk(&h.cache)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "listing.postcard"))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].clone()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The file of Claude Code session `id` in `h`'s fixtures.
fn session_file(h: &Home, id: &str) -> PathBuf {
    h.home
        .join(".claude/projects")
        .read_dir()
        .unwrap()
        .flatten()
        .map(|d| d.path().join(format!("{id}.jsonl")))
        .find(|p| p.exists())
        .unwrap()
}

/// Appends a `custom-title` line naming session `id` `title` to `path`.
fn append_title(path: &Path, id: &str, title: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(
        file,
        "{}",
        json!({"type": "custom-title", "customTitle": title, "sessionId": id})
    )
    .unwrap();
}

/// The title `list` shows for session `id`.
fn title(h: &Home, id: &str) -> String {
    let list = h.json(&["--agent", "claude", "list", "--json"]);
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed"));
    row["title"].as_str().unwrap().to_string()
}

/// `path` dated an hour before now: settled, so its record is remembered.
fn settle(path: &Path) -> std::time::SystemTime {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    set_mtime(path, when);
    when
}

fn set_mtime(path: &Path, when: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// `from` replaced by `to` (as long) in the file at `path`, in place.
fn replace_in_place(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains(from), "{from} in {}", path.display());
    use std::io::{Seek, Write};
    let mut file = std::fs::File::options().write(true).open(path).unwrap();
    file.seek(std::io::SeekFrom::Start(0)).unwrap();
    file.write_all(text.replace(from, to).as_bytes()).unwrap();
}

#[test]
fn a_second_listing_answers_as_the_first_from_what_it_remembered() {
    let h = Home::new();
    let first = h.ok(&["list", "--json"]);
    let kept = std::fs::read(cache_file(&h)).unwrap();
    let second = h.ok(&["list", "--json"]);
    assert_eq!(first, second);
    // Nothing was learned: the cache was not written again.
    assert_eq!(std::fs::read(cache_file(&h)).unwrap(), kept);
}

#[test]
fn a_file_changed_in_place_with_its_times_put_back_is_read_again() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let path = session_file(&h, &id);
    append_title(&path, &id, "Cache AAAA");
    let when = settle(&path);
    assert_eq!(title(&h, &id), "Cache AAAA");

    // The listing takes the remembered record without opening the file:
    // what the cache says (changed here by hand) is what it shows.
    let cache = cache_file(&h);
    let bytes = std::fs::read(&cache).unwrap();
    let at = bytes
        .windows(10)
        .position(|w| w == b"Cache AAAA")
        .expect("the title is remembered");
    let mut planted = bytes.clone();
    planted[at..at + 10].copy_from_slice(b"Cache ZZZZ");
    std::fs::write(&cache, &planted).unwrap();
    assert_eq!(title(&h, &id), "Cache ZZZZ");

    // The same size, the same modification time to the nanosecond: the
    // change time moved, so the file is read again.
    replace_in_place(&path, "Cache AAAA", "Cache BBBB");
    set_mtime(&path, when);
    assert_eq!(title(&h, &id), "Cache BBBB");
}

#[test]
fn a_file_written_in_the_last_minute_is_read_at_every_listing() {
    let h = Home::new();
    let id = h.made.claude[1].clone();
    let path = session_file(&h, &id);
    append_title(&path, &id, "Busy CCCC");
    assert_eq!(title(&h, &id), "Busy CCCC");
    let bytes = std::fs::read(cache_file(&h)).unwrap();
    assert!(
        !bytes.windows(9).any(|w| w == b"Busy CCCC"),
        "a file written just now is not remembered"
    );
}

#[test]
fn a_damaged_cache_is_replaced_and_a_link_in_a_sessions_place_is_never_taken_from_it() {
    let h = Home::new();
    let first = h.ok(&["--agent", "claude", "list", "--json"]);
    let cache = cache_file(&h);
    std::fs::write(&cache, b"not a cache").unwrap();
    assert_eq!(h.ok(&["--agent", "claude", "list", "--json"]), first);
    assert_ne!(
        std::fs::read(&cache).unwrap(),
        b"not a cache",
        "written anew"
    );

    // A session file replaced by a link to a copy of itself: the stamp
    // is the link's, and the link is refused as before.
    let id = h.made.claude[0].clone();
    let path = session_file(&h, &id);
    let copy = h.home.join("copy.jsonl");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&copy, &path).unwrap();
    let list = h.json(&["--agent", "claude", "list", "--json"]);
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id.as_str())
        .unwrap();
    assert!(row["error"].is_string(), "{row}");
}

#[test]
fn the_index_stats_of_a_file_changed_since_it_was_indexed_are_not_shown() {
    let h = Home::new();
    h.ok(&["--agent", "claude", "index"]);
    let rows = |h: &Home| -> Vec<Value> {
        h.json(&["--agent", "claude", "list", "--json"])
            .as_array()
            .unwrap()
            .clone()
    };
    let before = rows(&h);
    let id = h.made.claude[0].clone();
    let row = |rows: &[Value], id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    assert!(
        row(&before, &id)["tokens"].is_u64(),
        "{}",
        row(&before, &id)
    );
    // Listed twice: the second takes the listing's remembered records and
    // the stamps it saw for the index's check.
    assert_eq!(rows(&h), before);

    // One session changed after the index read it: its stats are not the
    // index's any more; the others' still are.
    let path = session_file(&h, &id);
    append_title(&path, &id, "Changed");
    settle(&path);
    let after = rows(&h);
    assert_eq!(row(&after, &id)["title"], "Changed");
    assert!(row(&after, &id)["tokens"].is_null(), "{}", row(&after, &id));
    let other = &h.made.claude[1];
    assert_eq!(row(&after, other)["tokens"], row(&before, other)["tokens"]);
    assert!(row(&after, other)["tokens"].is_u64());
}

/// A project folder as it was is not read again (its names are kept), but
/// a session file added to it, or taken from it, is seen at once.
#[test]
fn a_session_added_to_or_taken_from_a_remembered_folder_is_listed_so() {
    let h = Home::new();
    let id = h.made.claude[0].clone();
    let path = session_file(&h, &id);
    let project = path.parent().unwrap().to_path_buf();
    let ids = |h: &Home| -> Vec<String> {
        let list = h.json(&["--agent", "claude", "list", "--json"]);
        let mut ids: Vec<String> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let settle_folder = |dir: &Path| {
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::open(dir)
            .unwrap()
            .set_modified(when)
            .unwrap();
    };
    settle_folder(&project);
    let before = ids(&h);
    let name = project.file_name().unwrap().to_str().unwrap().to_string();
    let kept = std::fs::read(cache_file(&h)).unwrap();
    assert!(
        kept.windows(name.len()).any(|w| w == name.as_bytes()),
        "the folder is remembered"
    );
    assert_eq!(ids(&h), before);

    // A copy of the session under a new id, in the same folder.
    let new_id = "0f0e0d0c-0b0a-4909-8807-060504030201";
    let text = std::fs::read_to_string(&path).unwrap().replace(&id, new_id);
    std::fs::write(project.join(format!("{new_id}.jsonl")), text).unwrap();
    let added = ids(&h);
    assert!(added.iter().any(|i| i == new_id), "{added:?}");
    assert_eq!(added.len(), before.len() + 1);

    // The folder settled again with the copy in it, then the first file
    // taken away: it is gone from the list.
    settle_folder(&project);
    assert_eq!(ids(&h), added);
    std::fs::remove_file(&path).unwrap();
    let taken = ids(&h);
    assert!(!taken.contains(&id), "{taken:?}");
    assert_eq!(taken.len(), before.len());
}
