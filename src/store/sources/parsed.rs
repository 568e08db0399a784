//! A JSON Lines file read and parsed on every core: the file is cut into
//! as many pieces as there are workers, each cut just after a newline; each
//! worker reads its piece (`pread`, never through a link, regular files
//! only, as `fs::open::regular` opens them) and parses its lines; the
//! lines come back in file order with their true numbers. A 100 MB session
//! opens in a fraction of the time one thread takes.

use crate::store::error::{Result, StoreError};
use crate::store::fs::open;
use crate::store::sources::jsonl::{self, LineSpan, MAX_FILE_BYTES, Skipped};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Below this a file is read by one thread: cutting it costs more than it saves.
const PARALLEL_FROM: u64 = 4 << 20;

/// Every line that parsed, with where it is, and what was skipped.
pub struct ParsedLines<T> {
    /// `(where the line is, what it says)`, in file order.
    pub lines: Vec<(LineSpan, T)>,
    /// Lines that did not parse, and a cut last line.
    pub skipped: Skipped,
}

/// One piece's work.
struct Piece<T> {
    lines: Vec<(LineSpan, T)>,
    bad_json: Vec<u32>,
    bad_utf8: Vec<u32>,
    newlines: u32,
    partial: bool,
}

/// Reads `path` (up to [`MAX_FILE_BYTES`]) and parses each line with
/// `parse` (None: not a line of this format), on every core.
pub fn read_parsed<T: Send>(
    path: &Path,
    parse: impl Fn(&[u8]) -> Option<T> + Sync,
) -> Result<ParsedLines<T>> {
    if jsonl::is_compressed(path) {
        return read_decoded(path, parse);
    }
    let file = open::regular(path)?;
    let meta = file
        .metadata()
        .map_err(|e| StoreError::io("read", path, e))?;
    let size = meta.len();
    // A last line without its newline is read when the file is quiet.
    let whole_tail = jsonl::is_quiet(&meta) && size <= MAX_FILE_BYTES;
    let mut skipped = Skipped::default();
    let end = if size > MAX_FILE_BYTES {
        skipped.truncated_at = Some(MAX_FILE_BYTES);
        MAX_FILE_BYTES
    } else {
        size
    };
    let workers = if end >= PARALLEL_FROM {
        crate::store::parallel::workers()
    } else {
        1
    };
    let cuts = cut_points(&file, end, workers).map_err(|e| StoreError::io("read", path, e))?;
    let ranges: Vec<(u64, u64)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    let last = ranges.len().saturating_sub(1);
    let pieces: Vec<std::io::Result<Piece<T>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .iter()
            .enumerate()
            .map(|(i, &(from, to))| {
                let (file, parse) = (&file, &parse);
                scope.spawn(move || piece(file, from, to, i == last, whole_tail, parse))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let parsed = pieces
        .iter()
        .map(|p| p.as_ref().map_or(0, |p| p.lines.len()))
        .sum();
    let mut lines = Vec::with_capacity(parsed);
    let mut before = 0u32;
    for p in pieces {
        let p = p.map_err(|e| StoreError::io("read", path, e))?;
        lines.extend(p.lines.into_iter().map(|(mut span, v)| {
            span.line += before;
            (span, v)
        }));
        skipped
            .bad_json
            .extend(p.bad_json.iter().map(|l| l + before));
        skipped
            .bad_utf8
            .extend(p.bad_utf8.iter().map(|l| l + before));
        skipped.partial_last |= p.partial && skipped.truncated_at.is_none();
        before += p.newlines;
    }
    Ok(ParsedLines { lines, skipped })
}

/// [`read_parsed`] of a compressed file: decoded, then parsed by one thread
/// (archived rollouts, cold and small).
fn read_decoded<T>(path: &Path, parse: impl Fn(&[u8]) -> Option<T>) -> Result<ParsedLines<T>> {
    let file = jsonl::read(path)?;
    let mut skipped = file.skipped.clone();
    let mut lines = Vec::with_capacity(file.spans.len());
    for span in &file.spans {
        let bytes = file.line_bytes(span);
        match parse(bytes) {
            Some(v) => lines.push((*span, v)),
            None if std::str::from_utf8(bytes).is_err() => skipped.bad_utf8.push(span.line),
            None => skipped.bad_json.push(span.line),
        }
    }
    Ok(ParsedLines { lines, skipped })
}

/// Where each piece starts (the first at 0, each other just after a
/// newline), and `end`.
fn cut_points(file: &std::fs::File, end: u64, pieces: usize) -> std::io::Result<Vec<u64>> {
    let mut cuts = vec![0u64];
    let mut probe = vec![0u8; 64 * 1024];
    for i in 1..pieces {
        let mut at = (end / pieces as u64 * i as u64).max(*cuts.last().unwrap_or(&0));
        loop {
            if at >= end {
                break;
            }
            let n = file.read_at(&mut probe, at)?;
            if n == 0 {
                at = end;
                break;
            }
            match memchr::memchr(b'\n', &probe[..n]) {
                Some(k) => {
                    at += k as u64 + 1;
                    break;
                }
                None => at += n as u64,
            }
        }
        if at < end && at > *cuts.last().unwrap_or(&0) {
            cuts.push(at);
        }
    }
    cuts.push(end);
    Ok(cuts)
}

/// Reads `[from, to)` and parses its lines, numbered from 1 in the piece;
/// the file's `last` piece takes a line without its newline at its end
/// when `whole_tail`. The piece is read a block at a time into one buffer
/// (grown only for a longer line): the block is still in the processor's
/// cache while its lines are parsed, and no buffer the size of the piece
/// is faulted in, filled and freed.
fn piece<T>(
    file: &std::fs::File,
    from: u64,
    to: u64,
    last: bool,
    whole_tail: bool,
    parse: &impl Fn(&[u8]) -> Option<T>,
) -> std::io::Result<Piece<T>> {
    let mut out = Piece {
        lines: Vec::new(),
        bad_json: Vec::new(),
        bad_utf8: Vec::new(),
        newlines: 0,
        partial: false,
    };
    let mut buf = vec![0u8; BLOCK.min((to - from) as usize)];
    // `buf[..filled]` holds the file's bytes from `buf_at`; `next` is the
    // next offset to read.
    let (mut filled, mut buf_at, mut next) = (0usize, from, from);
    loop {
        if filled == buf.len() {
            // A line longer than the buffer: room for more of it.
            buf.resize(buf.len() * 2, 0);
        }
        let want = (buf.len() - filled).min((to - next) as usize);
        let got = read_at_full(file, &mut buf[filled..filled + want], next)?;
        filled += got;
        next += got as u64;
        let done = got == 0 || next >= to;
        // The complete lines read so far (all of them at the end).
        let upto = memchr::memrchr(b'\n', &buf[..filled]).map_or(0, |at| at + 1);
        if upto > 0 {
            let lines = &buf[..upto];
            let (spans, _) = jsonl::split_lines(lines, buf_at, out.newlines + 1);
            out.newlines += memchr::memchr_iter(b'\n', lines).count() as u32;
            parse_spans(&mut out, lines, buf_at, spans, parse);
            buf.copy_within(upto..filled, 0);
            filled -= upto;
            buf_at += upto as u64;
        }
        if done {
            break;
        }
    }
    let rest = &buf[..filled];
    let partial = rest.iter().any(|b| !b.is_ascii_whitespace());
    if last && partial && whole_tail {
        let span = jsonl::tail_span(rest, buf_at, out.newlines + 1);
        parse_spans(&mut out, rest, buf_at, vec![span], parse);
    } else {
        out.partial = last && partial;
    }
    Ok(out)
}

/// Bytes a piece is read by at a time.
const BLOCK: usize = 1 << 20;

/// Parses the lines `spans` of `bytes` (which start at `offset` in the
/// file) into `out`.
fn parse_spans<T>(
    out: &mut Piece<T>,
    bytes: &[u8],
    offset: u64,
    spans: Vec<LineSpan>,
    parse: &impl Fn(&[u8]) -> Option<T>,
) {
    out.lines.reserve(spans.len());
    for span in spans {
        let start = (span.offset - offset) as usize;
        let line = &bytes[start..start + span.len as usize];
        match parse(line) {
            Some(v) => out.lines.push((span, v)),
            None if std::str::from_utf8(line).is_err() => out.bad_utf8.push(span.line),
            None => out.bad_json.push(span.line),
        }
    }
}

/// Reads into all of `buf` from `at`, short only at the end of the file.
fn read_at_full(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_come_back_in_order_with_their_true_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        let mut text = String::new();
        for i in 0..200_000 {
            if i == 150_000 {
                text.push_str("not json\n\n");
            }
            text.push_str(&format!(
                "{{\"n\":{i},\"pad\":\"{}\"}}\n",
                "x".repeat(i % 40)
            ));
        }
        text.push_str("{\"n\":");
        std::fs::write(&path, &text).unwrap();
        let parsed = read_parsed(&path, |l| {
            serde_json::from_slice::<serde_json::Value>(l).ok()
        })
        .unwrap();
        assert_eq!(parsed.lines.len(), 200_000);
        for (i, (span, v)) in parsed.lines.iter().enumerate() {
            assert_eq!(v["n"], i as u64);
            let expected = if i < 150_000 { i + 1 } else { i + 3 };
            assert_eq!(span.line as usize, expected);
            assert_eq!(
                &text.as_bytes()[span.offset as usize..][..span.len as usize][..5],
                b"{\"n\":"
            );
        }
        assert_eq!(parsed.skipped.bad_json, vec![150_001]);
        assert!(parsed.skipped.partial_last);
    }

    /// Lines longer than a block, CRLF and LF mixed, blank lines, a last
    /// line without its newline in a quiet file: every line where the
    /// one-thread reader (`jsonl::read`) finds it.
    #[test]
    fn blocks_and_pieces_find_the_lines_the_plain_reader_finds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mixed.jsonl");
        let mut text = String::new();
        for i in 0..60_000 {
            let pad = if i % 20_000 == 7 {
                "y".repeat(BLOCK * 5 / 2)
            } else {
                "x".repeat(i % 90)
            };
            let end = if i % 3 == 0 { "\r\n" } else { "\n" };
            text.push_str(&format!("{{\"n\":{i},\"pad\":\"{pad}\"}}{end}"));
            if i % 1000 == 0 {
                text.push_str("  \n");
            }
        }
        text.push_str("{\"n\":\"last\"}");
        std::fs::write(&path, &text).unwrap();
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let parsed = read_parsed(&path, |l| {
            serde_json::from_slice::<serde_json::Value>(l).ok()
        })
        .unwrap();
        let plain = jsonl::read(&path).unwrap();
        let spans: Vec<LineSpan> = parsed.lines.iter().map(|(s, _)| *s).collect();
        assert_eq!(spans, plain.spans);
        assert_eq!(parsed.lines.len(), 60_001);
        assert_eq!(parsed.lines[60_000].1["n"], "last");
        assert!(!parsed.skipped.partial_last);
        assert!(parsed.skipped.bad_json.is_empty());
    }
}
