//! Reading another agent's JSON Lines files, carefully: opened without
//! following a link and without blocking (a FIFO planted in a session
//! folder never hangs a listing), regular files only, read up to a bound,
//! and split into lines that each remember where they are in the file, so a
//! message can be traced back to the exact bytes it came from (a fork copies
//! kept lines byte for byte). A line still being written (no newline yet,
//! in a file changed in the last minute), a line that is not UTF-8 or not
//! JSON is skipped and counted, never fatal. Lines may end in `\n` or
//! `\r\n`, mixed; a fork keeps each line's own ending.

use crate::store::error::{Result, StoreError};
use crate::store::fs::open;
use std::io::Read;
use std::path::Path;

/// The most of one file read fully (a larger one is read to this point and
/// the note says so): far above any session seen, low enough that a
/// runaway file cannot take the machine's memory.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Where one line sits in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LineSpan {
    /// 1-based line number.
    pub line: u32,
    /// Byte offset of its first byte.
    pub offset: u64,
    /// Its length in bytes, without the newline.
    pub len: u32,
}

/// What a reader skipped, counted by kind, for the note shown with a session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Lines that are not valid JSON (the first line number, then how many).
    pub bad_json: Vec<u32>,
    /// Lines that are not UTF-8 text.
    pub bad_utf8: Vec<u32>,
    /// A last line without its newline: still being written.
    pub partial_last: bool,
    /// The file was longer than [`MAX_FILE_BYTES`]; the rest was not read.
    pub truncated_at: Option<u64>,
    /// Line types this version does not know, with how many of each.
    pub unknown_types: Vec<(String, usize)>,
    /// Content blocks of types this version does not know.
    pub unknown_blocks: Vec<(String, usize)>,
    /// Anything else worth saying (a broken chain, a dangling rewind).
    pub other: Vec<String>,
}

impl Skipped {
    /// Counts a line of a type not known.
    pub fn unknown_type(&mut self, kind: &str) {
        bump(&mut self.unknown_types, kind);
    }

    /// Counts a content block of a type not known.
    pub fn unknown_block(&mut self, kind: &str) {
        bump(&mut self.unknown_blocks, kind);
    }

    /// Adds what `other` skipped (a subagent's file, say).
    pub fn absorb(&mut self, other: Skipped) {
        self.bad_json.extend(other.bad_json);
        self.bad_utf8.extend(other.bad_utf8);
        self.partial_last |= other.partial_last;
        self.truncated_at = self.truncated_at.or(other.truncated_at);
        for (k, n) in other.unknown_types {
            bump_by(&mut self.unknown_types, &k, n);
        }
        for (k, n) in other.unknown_blocks {
            bump_by(&mut self.unknown_blocks, &k, n);
        }
        self.other.extend(other.other);
    }

    /// One sentence per kind of thing skipped, for a person.
    pub fn sentences(&self) -> Vec<String> {
        let mut out = Vec::new();
        let lines = |v: &[u32]| {
            let shown: Vec<String> = v.iter().take(5).map(u32::to_string).collect();
            let more = if v.len() > 5 { ", …" } else { "" };
            format!(
                "{} (line {}{more})",
                plural(v.len(), "line"),
                shown.join(", ")
            )
        };
        if !self.bad_json.is_empty() {
            out.push(format!(
                "skipped {} that are not JSON",
                lines(&self.bad_json)
            ));
        }
        if !self.bad_utf8.is_empty() {
            out.push(format!(
                "skipped {} that are not UTF-8 text",
                lines(&self.bad_utf8)
            ));
        }
        if self.partial_last {
            out.push("the last line is still being written; it is left out".into());
        }
        if let Some(at) = self.truncated_at {
            out.push(format!(
                "the file is longer than {} MB; only its first {at} bytes were read",
                MAX_FILE_BYTES >> 20
            ));
        }
        if !self.unknown_types.is_empty() {
            out.push(format!(
                "skipped lines of types this version does not know: {}",
                counted(&self.unknown_types)
            ));
        }
        if !self.unknown_blocks.is_empty() {
            out.push(format!(
                "content of types this version does not know is shown by its type: {}",
                counted(&self.unknown_blocks)
            ));
        }
        out.extend(self.other.iter().cloned());
        out
    }
}

fn bump(list: &mut Vec<(String, usize)>, kind: &str) {
    bump_by(list, kind, 1);
}

fn bump_by(list: &mut Vec<(String, usize)>, kind: &str, n: usize) {
    match list.iter_mut().find(|(k, _)| k == kind) {
        Some((_, count)) => *count += n,
        None => list.push((kind.to_string(), n)),
    }
}

fn counted(list: &[(String, usize)]) -> String {
    list.iter()
        .map(|(k, n)| format!("{k} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A file's bytes, read once, and its complete lines.
pub struct JsonlFile {
    /// The bytes read (up to [`MAX_FILE_BYTES`]).
    pub bytes: Vec<u8>,
    /// Each complete, non-blank line.
    pub spans: Vec<LineSpan>,
    /// What could not be read as lines.
    pub skipped: Skipped,
}

impl JsonlFile {
    /// The bytes of a line.
    pub fn line_bytes(&self, span: &LineSpan) -> &[u8] {
        let start = span.offset as usize;
        &self.bytes[start..start + span.len as usize]
    }
}

/// True for a compressed file (`*.zst`, zstd frames), read decoded.
pub fn is_compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// The first `max` bytes of `path` as its lines are: decoded when it is
/// compressed (`*.zst`), else as they are; and the file's metadata. Opened
/// as `fs::open::regular` opens (no link, no FIFO).
pub fn decoded(path: &Path, max: u64) -> Result<(Vec<u8>, std::fs::Metadata)> {
    let file = open::regular(path)?;
    let meta = file
        .metadata()
        .map_err(|e| StoreError::io("read", path, e))?;
    let mut bytes = Vec::new();
    let read = if is_compressed(path) {
        zstd::stream::read::Decoder::new(file)
            .and_then(|d| d.take(max).read_to_end(&mut bytes))
            .map_err(|e| StoreError::Damaged(format!("{}: not zstd data ({e})", path.display())))
    } else {
        bytes.reserve(meta.len().min(max) as usize);
        file.take(max)
            .read_to_end(&mut bytes)
            .map_err(|e| StoreError::io("read", path, e))
    };
    read?;
    Ok((bytes, meta))
}

/// Reads the whole of `path` (up to [`MAX_FILE_BYTES`], decoded if it is
/// compressed) and splits it into lines.
pub fn read(path: &Path) -> Result<JsonlFile> {
    let (mut bytes, meta) = decoded(path, MAX_FILE_BYTES + 1)?;
    let mut skipped = Skipped::default();
    if bytes.len() as u64 > MAX_FILE_BYTES {
        bytes.truncate(MAX_FILE_BYTES as usize);
        skipped.truncated_at = Some(MAX_FILE_BYTES);
    }
    let (mut spans, partial) = split_lines(&bytes, 0, 1);
    if partial && skipped.truncated_at.is_none() {
        // A last line without its newline is whole once nothing has
        // written to the file for a while (a writer that never ends its
        // last line, a file copied without it); before, it is being written.
        if is_quiet(&meta) {
            let line = 1 + memchr::memchr_iter(b'\n', &bytes).count() as u32;
            spans.push(tail_span(&bytes, 0, line));
        } else {
            skipped.partial_last = true;
        }
    }
    Ok(JsonlFile {
        bytes,
        spans,
        skipped,
    })
}

/// How long (seconds) a file goes unchanged before a last line without its
/// newline is taken as whole.
pub const QUIET_SECONDS: f64 = 60.0;

fn seconds(t: std::time::SystemTime) -> f64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// True when the file of `meta` has not changed for [`QUIET_SECONDS`]: a
/// last line without its newline is then whole, not being written. (The
/// wall clock is read here, not passed in: what counts is how long the
/// file has been still, whatever "now" a caller works with.)
pub fn is_quiet(meta: &std::fs::Metadata) -> bool {
    meta.modified()
        .is_ok_and(|t| crate::store::clock::now_seconds() - seconds(t) >= QUIET_SECONDS)
}

/// What ends the line at `span` in `bytes`: its own `\n` or `\r\n`; for a
/// last line without one, what ends the file's first line (its style).
pub fn ending(bytes: &[u8], span: &LineSpan) -> &'static [u8] {
    let end = (span.offset + u64::from(span.len)) as usize;
    match bytes.get(end..) {
        Some([b'\r', b'\n', ..]) => b"\r\n",
        Some([b'\n', ..]) => b"\n",
        _ => style(bytes),
    }
}

/// The line ending a file uses, by its first line: `\r\n` or `\n`.
pub fn style(bytes: &[u8]) -> &'static [u8] {
    match memchr::memchr(b'\n', bytes) {
        Some(at) if at > 0 && bytes[at - 1] == b'\r' => b"\r\n",
        _ => b"\n",
    }
}

/// True when `span` is still where it was read in `bytes` (read again):
/// a line start before it, its own ending after it, or the end of the file
/// for a last line taken without one.
pub fn in_place(bytes: &[u8], span: &LineSpan) -> bool {
    let end = (span.offset + u64::from(span.len)) as usize;
    let starts = span.offset == 0 || bytes.get(span.offset as usize - 1) == Some(&b'\n');
    let ends = matches!(
        bytes.get(end..),
        Some([] | [b'\n', ..] | [b'\r', b'\n', ..])
    );
    starts && ends
}

/// The span of what follows the last newline of `bytes` (which start at
/// `offset` in their file): a last line without its newline, line number
/// `line`. Only called when [`split_lines`] found one (not blank).
pub fn tail_span(bytes: &[u8], offset: u64, line: u32) -> LineSpan {
    let start = memchr::memrchr(b'\n', bytes).map_or(0, |at| at + 1);
    let mut stop = bytes.len();
    if stop > start && bytes[stop - 1] == b'\r' {
        stop -= 1;
    }
    LineSpan {
        line,
        offset: offset + start as u64,
        len: (stop - start) as u32,
    }
}

/// The complete lines of `bytes` (which start at `offset` in their file,
/// at line `first_line`), blank ones left out, and whether an unfinished
/// line follows the last newline.
pub fn split_lines(bytes: &[u8], offset: u64, first_line: u32) -> (Vec<LineSpan>, bool) {
    let mut spans = Vec::with_capacity(bytes.len() / 512 + 1);
    let mut start = 0usize;
    for (line, end) in (first_line..).zip(memchr::memchr_iter(b'\n', bytes)) {
        push_line(&mut spans, bytes, start, end, offset, line);
        start = end + 1;
    }
    let partial = bytes[start..].iter().any(|b| !b.is_ascii_whitespace());
    (spans, partial)
}

fn push_line(
    spans: &mut Vec<LineSpan>,
    bytes: &[u8],
    start: usize,
    end: usize,
    offset: u64,
    line: u32,
) {
    let mut stop = end;
    if stop > start && bytes[stop - 1] == b'\r' {
        stop -= 1;
    }
    if bytes[start..stop].iter().all(u8::is_ascii_whitespace) {
        return;
    }
    spans.push(LineSpan {
        line,
        offset: offset + start as u64,
        len: (stop - start) as u32,
    });
}

/// Parses one line into `T`, counting it as skipped when it is not UTF-8 or
/// not JSON of that shape.
pub fn parse_line<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    span: &LineSpan,
    skipped: &mut Skipped,
) -> Option<T> {
    if std::str::from_utf8(bytes).is_err() {
        skipped.bad_utf8.push(span.line);
        return None;
    }
    match serde_json::from_slice(bytes) {
        Ok(v) => Some(v),
        Err(_) => {
            skipped.bad_json.push(span.line);
            None
        }
    }
}

/// The first `max` bytes of `path` and its size, for a listing.
pub fn head(path: &Path, max: usize) -> Result<(Vec<u8>, u64, std::fs::Metadata)> {
    let mut file = open::regular(path)?;
    let meta = file
        .metadata()
        .map_err(|e| StoreError::io("read", path, e))?;
    let mut bytes = vec![0u8; max.min(meta.len() as usize)];
    let n = read_full(&mut file, &mut bytes).map_err(|e| StoreError::io("read", path, e))?;
    bytes.truncate(n);
    Ok((bytes, meta.len(), meta))
}

/// Reads `path`'s first `head_max` and last `tail_max` bytes with one open
/// (the tail is empty when the head reached the end already): an open, an
/// `fstat`, two `pread`s, a close.
pub fn head_and_tail(path: &Path, head_max: usize, tail_max: usize) -> Result<HeadTail> {
    if is_compressed(path) {
        return decoded_ends(path, head_max, tail_max);
    }
    head_and_tail_in(None, path, head_max, tail_max)
}

/// [`head_and_tail`] of a compressed file: decoded whole (a frame is read
/// from its start), then its two ends taken.
fn decoded_ends(path: &Path, head_max: usize, tail_max: usize) -> Result<HeadTail> {
    let (mut bytes, meta) = decoded(path, MAX_FILE_BYTES)?;
    let size = bytes.len() as u64;
    let head_len = head_max.min(bytes.len());
    let tail_start = size.saturating_sub(tail_max as u64).max(head_len as u64);
    let tail = bytes.split_off(tail_start as usize);
    bytes.truncate(head_len);
    let mtime = meta.modified().map_or(0.0, seconds);
    Ok(HeadTail {
        head: bytes,
        tail,
        tail_start,
        size,
        mtime,
        stat: None,
    })
}

/// [`head_and_tail`], the file opened relative to its open folder `dir`.
pub fn head_and_tail_in(
    dir: Option<&rustix::fd::OwnedFd>,
    path: &Path,
    head_max: usize,
    tail_max: usize,
) -> Result<HeadTail> {
    let (file, st) = open::regular_in(dir, path)?;
    let size = st.st_size.max(0) as u64;
    // Read straight into the buffers' room: nothing zeroed first.
    let read_at = |want: usize, at: u64| -> Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(want);
        while buf.len() < want {
            let at = at + buf.len() as u64;
            match rustix::io::pread(&file, rustix::buffer::spare_capacity(&mut buf), at) {
                Ok(0) => break,
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(StoreError::io("read", path, e.into())),
            }
        }
        buf.truncate(want);
        Ok(buf)
    };
    let head = read_at(head_max.min(size as usize), 0)?;
    let tail_start = size.saturating_sub(tail_max as u64).max(head.len() as u64);
    let tail = read_at((size - tail_start.min(size)) as usize, tail_start)?;
    Ok(HeadTail {
        head,
        tail,
        tail_start,
        size,
        mtime: st.st_mtime as f64 + st.st_mtime_nsec as f64 / 1e9,
        stat: Some(st),
    })
}

/// The two ends of a file.
pub struct HeadTail {
    /// Its first bytes.
    pub head: Vec<u8>,
    /// Its last bytes (not overlapping the head).
    pub tail: Vec<u8>,
    /// Where the tail starts in the file.
    pub tail_start: u64,
    /// Its size when opened.
    pub size: u64,
    /// Its modification time, seconds since the epoch.
    pub mtime: f64,
    /// What its open descriptor said before it was read (None for a
    /// compressed file, whose ends are of what it decodes to).
    pub stat: Option<rustix::fs::Stat>,
}

impl HeadTail {
    /// True when the head holds the whole file.
    pub fn head_is_whole(&self) -> bool {
        self.head.len() as u64 == self.size
    }

    /// The complete lines of the head (a cut last line left out).
    pub fn head_lines(&self) -> Vec<&[u8]> {
        let whole = self.head_is_whole();
        complete_lines(&self.head, whole)
    }

    /// The complete lines of the tail, last first (a cut first line left
    /// out unless the tail starts right after the head).
    pub fn tail_lines_rev(&self) -> Vec<&[u8]> {
        if self.tail.is_empty() {
            let mut lines = self.head_lines();
            lines.reverse();
            return lines;
        }
        let starts_clean = self.tail_start == self.head.len() as u64
            && self.head.last().is_none_or(|b| *b == b'\n');
        let body = if starts_clean {
            &self.tail[..]
        } else {
            match memchr::memchr(b'\n', &self.tail) {
                Some(i) => &self.tail[i + 1..],
                None => &[],
            }
        };
        let mut lines = complete_lines(body, true);
        lines.reverse();
        lines
    }
}

/// The non-blank lines of `bytes`; the last one only if `last_is_complete`
/// or it ends with a newline.
fn complete_lines(bytes: &[u8], last_is_complete: bool) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        let line = trim_cr(&bytes[start..end]);
        if !line.iter().all(u8::is_ascii_whitespace) {
            out.push(line);
        }
        start = end + 1;
    }
    if last_is_complete && start < bytes.len() {
        let line = trim_cr(&bytes[start..]);
        if !line.iter().all(u8::is_ascii_whitespace) {
            out.push(line);
        }
    }
    out
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

pub mod fields;

#[cfg(test)]
mod tests;
