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
        rustix::fs::Mode::from_raw_mode(0o600),
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

#[test]
fn a_last_line_without_its_newline_is_whole_once_the_file_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, b"{\"a\":1}\r\n{\"b\":2}").unwrap();
    // Just written: still being written, left out and said.
    let fresh = read(&path).unwrap();
    assert_eq!(fresh.spans.len(), 1);
    assert!(fresh.skipped.partial_last);
    // Untouched for two minutes: read.
    let old = std::time::UNIX_EPOCH
        + std::time::Duration::from_secs_f64(crate::store::clock::now_seconds() - 120.0);
    std::fs::File::options()
        .append(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let quiet = read(&path).unwrap();
    assert!(!quiet.skipped.partial_last);
    assert_eq!(
        quiet.spans.last(),
        Some(&LineSpan {
            line: 2,
            offset: 9,
            len: 7
        })
    );
}

#[test]
fn each_line_keeps_its_ending_and_a_last_one_without_takes_the_files() {
    let bytes = b"{\"a\":1}\r\n{\"b\":2}\n{\"c\":3}";
    let (mut spans, _) = split_lines(bytes, 0, 1);
    spans.push(LineSpan {
        line: 3,
        offset: 17,
        len: 7,
    });
    let endings: Vec<&[u8]> = spans.iter().map(|s| ending(bytes, s)).collect();
    assert_eq!(endings, [&b"\r\n"[..], b"\n", b"\r\n"]);
    assert!(spans.iter().all(|s| in_place(bytes, s)));
    // A line that grew, or moved, is not where it was.
    assert!(!in_place(
        b"{\"a\":1}\r\n{\"b\":2}\n{\"c\":3}, 4",
        &spans[2]
    ));
    assert!(!in_place(b"x{\"a\":1}\r\n", &spans[0]));
    assert_eq!(style(b"{}\n{}\r\n"), b"\n");
    assert_eq!(style(b"{}"), b"\n");
}
