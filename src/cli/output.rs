//! Writing results to stdout and progress to stderr. Text goes out made
//! safe for a terminal (`safe_text`: escapes and controls from a file shown
//! as `\x1b`, never acted on), JSON with C1 and bidi controls escaped too.

use crate::cli::CliError;
use crate::store::safe_text::{safe_text, to_safe_json_line, to_safe_json_pretty};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Prints `value` as pretty JSON and a newline.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    // Stdout is line-buffered; a big listing would cost a write per line.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    to_safe_json_pretty(&mut out, value).map_err(|e| CliError::from(std::io::Error::from(e)))?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Items of an array made before they are written (about a megabyte of a
/// listing's JSON): the buffers they are made in are kept for the next
/// block, so the fewer a block holds the fewer new pages the array costs
/// (blocks of 4096 rows cost a listing of 10k sessions about 500
/// page faults more).
const BLOCK: usize = 1024;
/// Below this a block of items is made in one piece.
const SPLIT_FROM: usize = 256;

/// Appends the `k`-th item of an array as it stands in the array printed
/// pretty, after its indent (`list`'s rows are written by hand:
/// `cli::list::json`; the tests' `pretty_item` writes any value).
pub trait WriteItem: Fn(&mut Vec<u8>, usize) -> serde_json::Result<()> + Sync {}
impl<F: Fn(&mut Vec<u8>, usize) -> serde_json::Result<()> + Sync> WriteItem for F {}

/// Prints an array of `len` items (`write_item` appends the k-th) as
/// [`print_json`] prints it, byte for byte, a part of the array made on
/// each core: a listing of 10,000 sessions spends much of its time making
/// its JSON. A pretty array is `[`, then each item after a newline and two
/// spaces (a comma between), then a newline and `]`. The items are made a
/// block at a time, written, then the next: the whole array held at once
/// was 60 MB more at the peak of a listing of 100k sessions.
pub fn print_json_array(len: usize, write_item: impl WriteItem) -> Result<(), CliError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    write_json_array(&mut out, len, &write_item, cores)?;
    out.flush()?;
    Ok(())
}

/// [`print_json_array`] into `out`, made on `cores`.
fn write_json_array(
    out: &mut impl Write,
    len: usize,
    write_item: &impl WriteItem,
    cores: usize,
) -> Result<(), CliError> {
    out.write_all(b"[")?;
    // One buffer per part, kept from block to block: fresh ones were
    // megabytes of new pages to fault in for every block.
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); cores.max(1)];
    for from in (0..len).step_by(BLOCK) {
        let block = from..(from + BLOCK).min(len);
        for made in json_parts(block, write_item, &mut buffers) {
            made.map_err(|e| CliError::from(std::io::Error::from(e)))?;
        }
        for part in &buffers {
            out.write_all(part)?;
        }
    }
    out.write_all(if len > 0 { b"\n]" } else { b"]" })?;
    writeln!(out)?;
    Ok(())
}

/// The items `block` into `buffers` (emptied first), each item after its
/// comma (but the array's first), newline and indent: a share of them in
/// each buffer, each made on a core of its own (all in the first below
/// [`SPLIT_FROM`] items).
fn json_parts(
    block: std::ops::Range<usize>,
    write_item: &impl WriteItem,
    buffers: &mut [Vec<u8>],
) -> Vec<serde_json::Result<()>> {
    let parts = if block.len() < SPLIT_FROM {
        1
    } else {
        buffers.len()
    };
    let per = block.len().div_ceil(parts.max(1)).max(1);
    let ranges = block
        .clone()
        .step_by(per)
        .map(|from| from..(from + per).min(block.end));
    for bytes in buffers.iter_mut() {
        bytes.clear();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = buffers
            .iter_mut()
            .zip(ranges)
            .map(|(bytes, range)| {
                scope.spawn(move || {
                    for k in range {
                        bytes.extend_from_slice(if k == 0 { b"\n  " } else { b",\n  " });
                        write_item(bytes, k)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Appends `value` as an item of a pretty array (see [`WriteItem`]), by
/// serde_json: the array of it alone, its `[`, first indent and `]` left
/// out. The tests' reference for items written by hand.
#[cfg(test)]
pub(crate) fn pretty_item<S: Serialize>(out: &mut Vec<u8>, value: &S) -> serde_json::Result<()> {
    let mut array = Vec::new();
    to_safe_json_pretty(&mut array, std::slice::from_ref(value))?;
    let item = array
        .strip_prefix(b"[\n  ")
        .and_then(|a| a.strip_suffix(b"\n]"))
        .unwrap_or_default();
    out.extend_from_slice(item);
    Ok(())
}

/// Writes `value` as one line of JSON to `out` (a line of `watch --json`).
pub fn write_json_line<T: Serialize + ?Sized>(
    out: &mut impl Write,
    value: &T,
) -> Result<(), CliError> {
    to_safe_json_line(&mut *out, value).map_err(|e| CliError::from(std::io::Error::from(e)))?;
    writeln!(out)?;
    Ok(())
}

/// Prints text lines (each gets a newline), made safe for a terminal.
pub fn print_lines<I: IntoIterator<Item = String>>(lines: I) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in lines {
        writeln!(out, "{}", safe_text(&line))?;
    }
    out.flush()?;
    Ok(())
}

/// Prints lines laid out by us with escapes of our own (a transcript's
/// colours), whose text from files was made safe when it was laid out.
pub fn print_rendered_lines<I: IntoIterator<Item = String>>(lines: I) -> Result<(), CliError> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in lines {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

/// Prints `text` as it is laid out (an export), made safe for a terminal.
pub fn print_text(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(safe_text(text).as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes a line to stderr made safe for a terminal: what `eprintln!`
/// would, for messages that hold ids, titles or paths from files.
pub fn eprint_safe(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", safe_text(text));
}

/// `eprintln!` whose text is made safe for a terminal ([`eprint_safe`]).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::cli::output::eprint_safe(&format!($($arg)*))
    };
}

/// A progress line on stderr, drawn only when stderr is a terminal.
pub struct Progress {
    label: &'static str,
    enabled: bool,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A progress line titled `label`.
    pub fn new(label: &'static str) -> Self {
        Progress {
            label,
            enabled: std::io::stderr().is_terminal(),
            last_draw: None,
        }
    }

    /// Shows `done` of `total`, at most ten times a second.
    pub fn update(&mut self, done: usize, total: usize) {
        if !self.enabled {
            return;
        }
        let due = self
            .last_draw
            .is_none_or(|t| t.elapsed() >= Duration::from_millis(100));
        if due || done == total {
            eprint!("\r\x1b[2K{} {done}/{total}", self.label);
            self.last_draw = Some(Instant::now());
        }
    }

    /// Clears the line.
    pub fn finish(&mut self) {
        if self.enabled && self.last_draw.is_some() {
            eprint!("\r\x1b[2K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The array made in blocks and parts is, byte for byte, the array
    /// made whole: empty, under one part, across parts and blocks.
    #[test]
    fn an_array_made_in_parts_is_the_array_made_whole() {
        let item = |k: usize| serde_json::json!({"k": k, "name": format!("row {k}\u{202e}"), "on": k.is_multiple_of(3), "in": {"list": [k, {}], "empty": []}});
        let write_item = |out: &mut Vec<u8>, k: usize| pretty_item(out, &item(k));
        for len in [0, 1, 1023, 1024, 4096, 4097, 9001] {
            let items: Vec<serde_json::Value> = (0..len).map(item).collect();
            let mut whole = Vec::new();
            to_safe_json_pretty(&mut whole, &items).unwrap();
            whole.push(b'\n');
            for cores in [1, 2, 3] {
                let mut made = Vec::new();
                write_json_array(&mut made, len, &write_item, cores).unwrap();
                assert!(made == whole, "{len} items on {cores} cores");
            }
        }
    }
}
