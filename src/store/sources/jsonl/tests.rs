//! The JSONL reader on small files: spans, cut lines, links, bounds.

use super::*;

#[test]
fn lines_know_where_they_are_and_a_cut_last_line_is_noted() {
    let bytes = b"{\"a\":1}\n\n  \n{\"b\":2}\r\n{\"c\":";
    let (spans, partial) = split_lines(bytes, 0, 1);
    assert!(partial);
    assert_eq!(
        spans,
        vec![
            LineSpan {
                line: 1,
                offset: 0,
                len: 7
            },
            LineSpan {
                line: 4,
                offset: 12,
                len: 7
            },
        ]
    );
    let (_, partial) = split_lines(b"{}\n", 0, 1);
    assert!(!partial);
}

#[test]
fn bad_lines_are_counted_not_fatal() {
    let mut skipped = Skipped::default();
    let span = LineSpan {
        line: 3,
        offset: 0,
        len: 0,
    };
    assert!(parse_line::<serde_json::Value>(b"{nope", &span, &mut skipped).is_none());
    assert!(parse_line::<serde_json::Value>(b"\"\xff\"", &span, &mut skipped).is_none());
    assert_eq!((skipped.bad_json, skipped.bad_utf8), (vec![3], vec![3]));
}

#[test]
fn fifos_and_links_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.jsonl");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert!(matches!(read(&fifo), Err(StoreError::Unsafe { .. })));
    let link = dir.path().join("l.jsonl");
    std::os::unix::fs::symlink("/etc/hostname", &link).unwrap();
    assert!(matches!(read(&link), Err(StoreError::Unsafe { .. })));
}

#[test]
fn head_and_tail_give_whole_lines_from_both_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let body: String = (0..100).map(|i| format!("{{\"n\":{i}}}\n")).collect();
    std::fs::write(&path, &body).unwrap();
    let ends = head_and_tail(&path, 30, 30).unwrap();
    let head = ends.head_lines();
    assert_eq!(head[0], b"{\"n\":0}");
    assert!(head.iter().all(|l| l.ends_with(b"}")));
    let tail = ends.tail_lines_rev();
    assert_eq!(tail[0], b"{\"n\":99}");
    assert!(tail.iter().all(|l| l.starts_with(b"{")));
    let small = head_and_tail(&path, 1 << 20, 4096).unwrap();
    assert!(small.head_is_whole());
    assert_eq!(small.tail_lines_rev().len(), 100);
}
