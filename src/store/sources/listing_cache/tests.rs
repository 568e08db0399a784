use super::*;
use std::path::PathBuf;

fn record(title: &str) -> SessionRecord {
    SessionRecord {
        name: title.to_lowercase(),
        title: title.to_string(),
        first_prompt: format!("{title} please"),
        cwd: Some("/work/p".into()),
        created_at: 10.0,
        last_used_at: 20.0,
        ..SessionRecord::default()
    }
}

/// A file written `age` seconds before `now`, and its stat.
fn file(dir: &Path, name: &str, age: f64, now: f64) -> (PathBuf, rustix::fs::Stat) {
    let path = dir.join(name);
    std::fs::write(&path, name.as_bytes()).unwrap();
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(now - age);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    let st = rustix::fs::lstat(&path).unwrap();
    (path, st)
}

const NOW: f64 = 2_000_000_000.0;

#[test]
fn a_settled_file_is_recalled_as_it_was_read_and_a_changed_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (path, st) = file(dir.path(), "a.jsonl", 3600.0, NOW);
    let first = ListingCache::from_bytes(None, dir.path(), 7);
    assert_eq!(first.recall(&path, &st), None);
    first.remember(&path, &st, &record("Hello"), NOW);
    let bytes = first.to_save().expect("it learned a record");

    let second = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
    let recalled = second.recall(&path, &st).expect("known as it is");
    assert_eq!(
        recalled.into_record(SessionRecord::default()).title,
        "Hello"
    );
    // Nothing new was learned and nothing went: the cache is not written.
    assert_eq!(second.to_save(), None);

    // One more byte: the stamp differs, the file is read again.
    std::fs::write(&path, b"a.jsonl!").unwrap();
    let st = rustix::fs::lstat(&path).unwrap();
    assert_eq!(second.recall(&path, &st), None);
}

#[test]
fn a_file_written_in_the_last_minute_or_damaged_is_not_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let (fresh, st) = file(dir.path(), "fresh.jsonl", 5.0, NOW);
    let (bad, bad_st) = file(dir.path(), "bad.jsonl", 3600.0, NOW);
    let cache = ListingCache::from_bytes(None, dir.path(), 7);
    cache.remember(&fresh, &st, &record("Busy"), NOW);
    let damaged = SessionRecord {
        error: Some("no line is a Claude Code line".into()),
        ..record("Bad")
    };
    cache.remember(&bad, &bad_st, &damaged, NOW);
    assert_eq!(cache.to_save(), None, "nothing to keep");
}

#[test]
fn another_build_folder_or_a_broken_file_is_an_empty_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (path, st) = file(dir.path(), "a.jsonl", 3600.0, NOW);
    let cache = ListingCache::from_bytes(None, dir.path(), 7);
    cache.remember(&path, &st, &record("Hello"), NOW);
    let bytes = cache.to_save().unwrap();
    let other_rules = ListingCache::from_bytes(Some(&bytes), dir.path(), 8);
    assert_eq!(other_rules.recall(&path, &st), None);
    let other_root = ListingCache::from_bytes(Some(&bytes), Path::new("/elsewhere"), 7);
    assert_eq!(other_root.recall(&path, &st), None);
    let cut = ListingCache::from_bytes(Some(&bytes[..bytes.len() / 2]), dir.path(), 7);
    assert_eq!(cut.recall(&path, &st), None);
    assert!(!ListingCache::off().is_on());
}

#[test]
fn a_few_changes_are_read_again_and_many_make_a_new_cache_without_the_gone() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(PathBuf, rustix::fs::Stat)> = (0..40)
        .map(|i| file(dir.path(), &format!("{i}.jsonl"), 3600.0, NOW))
        .collect();
    let cache = ListingCache::from_bytes(None, dir.path(), 7);
    for (path, st) in &files {
        cache.remember(path, st, &record("A"), NOW);
    }
    let bytes = cache.to_save().expect("a first listing's is written");

    // One file went: the cache stays as it is.
    let next = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
    for (path, st) in &files[1..] {
        assert!(next.recall(path, st).is_some());
    }
    assert_eq!(next.to_save(), None);

    // Twenty went: the cache is written anew, without them.
    let next = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
    for (path, st) in &files[20..] {
        assert!(next.recall(path, st).is_some());
    }
    let saved = next.to_save().expect("many went");
    let after = ListingCache::from_bytes(Some(&saved), dir.path(), 7);
    assert!(after.recall(&files[30].0, &files[30].1).is_some());
    assert_eq!(after.recall(&files[0].0, &files[0].1), None);
}

#[test]
fn a_link_is_never_recalled() {
    let dir = tempfile::tempdir().unwrap();
    let (path, st) = file(dir.path(), "a.jsonl", 3600.0, NOW);
    let cache = ListingCache::from_bytes(None, dir.path(), 7);
    cache.remember(&path, &st, &record("A"), NOW);
    let bytes = cache.to_save().unwrap();
    let link = dir.path().join("l.jsonl");
    std::os::unix::fs::symlink(&path, &link).unwrap();
    let link_st = rustix::fs::lstat(&link).unwrap();
    let next = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
    assert_eq!(next.recall(&link, &link_st), None);
}

/// A folder dated `age` seconds before `now`, and its stat.
fn folder(dir: &Path, name: &str, age: f64, now: f64) -> (PathBuf, rustix::fs::Stat) {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).unwrap();
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(now - age);
    std::fs::File::open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    let st = rustix::fs::lstat(&path).unwrap();
    (path, st)
}

#[test]
fn a_settled_folder_is_recalled_as_it_was_read_and_a_changed_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let (project, st) = folder(dir.path(), "p", 3600.0, NOW);
    let first = ListingCache::from_bytes(None, dir.path(), 7);
    assert!(first.recall_folder(&project, &st).is_none());
    let entries = [("a.jsonl", true), ("b c.jsonl", false)];
    first.remember_folder(&project, &st, &entries, NOW);
    let bytes = first.to_save().expect("it learned a folder");

    let second = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
    let recalled: Vec<(&str, bool)> = second
        .recall_folder(&project, &st)
        .expect("known as it is")
        .collect();
    assert_eq!(recalled, entries);
    assert_eq!(second.to_save(), None);

    // A name added: the folder's times move, it is read again.
    std::fs::write(project.join("new.jsonl"), b"{}").unwrap();
    let st = rustix::fs::lstat(&project).unwrap();
    assert!(second.recall_folder(&project, &st).is_none());
    // Its times put back: the change time still moved (a clock tick
    // later: a change in the same tick as the first could keep it).
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (_, st) = folder(dir.path(), "p", 3600.0, NOW);
    assert!(second.recall_folder(&project, &st).is_none());
    // A file is never taken for the folder.
    let (file, file_st) = file(dir.path(), "f", 3600.0, NOW);
    assert!(second.recall_folder(&file, &file_st).is_none());
}

#[test]
fn a_folder_changed_in_the_last_minute_or_with_odd_names_is_not_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let (busy, busy_st) = folder(dir.path(), "busy", 5.0, NOW);
    let (odd, odd_st) = folder(dir.path(), "odd", 3600.0, NOW);
    let cache = ListingCache::from_bytes(None, dir.path(), 7);
    cache.remember_folder(&busy, &busy_st, &[("a.jsonl", false)], NOW);
    cache.remember_folder(&odd, &odd_st, &[("a/b.jsonl", false)], NOW);
    cache.remember_folder(&odd, &odd_st, &[("", false)], NOW);
    assert_eq!(cache.to_save(), None, "nothing to keep");
    // An empty folder is kept as empty.
    cache.remember_folder(&odd, &odd_st, &[], NOW);
    let bytes = cache.to_save().unwrap();
    let next = ListingCache::from_bytes(Some(&bytes), dir.path(), 7);
    assert_eq!(next.recall_folder(&odd, &odd_st).unwrap().count(), 0);
}
