//! A block laid out in rows of a width: a header row, then each line
//! wrapped by display width after its prefix.

use super::{Block, Line};
use crate::render::wrap;

/// One row on screen: a stretch of one line of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// The line (or [`HEADER`]'s).
    pub line: u32,
    /// Its bytes in the block's text.
    pub start: u32,
    /// Where it ends.
    pub end: u32,
}

/// The message's header row.
pub const HEADER: Row = Row {
    line: u32::MAX,
    start: 0,
    end: 0,
};

/// Narrowest room left for text after a prefix: a deep list still wraps
/// words, not letters.
const MIN_TEXT: usize = 16;

/// A block and its rows at a width.
#[derive(Clone, Debug, PartialEq)]
pub struct Laid {
    /// The lines.
    pub block: Block,
    /// Its rows: the header, then the lines'.
    pub rows: Vec<Row>,
    /// The width the rows were made for.
    pub width: usize,
}

impl Laid {
    /// `block` wrapped at `width` columns.
    pub fn new(block: Block, width: usize) -> Laid {
        let mut rows = vec![HEADER];
        let mut starts = Vec::new();
        for (i, line) in block.body.lines.iter().enumerate() {
            let text = &block.body.text[line.text.clone()];
            let prefix = wrap::columns(&line.first).max(wrap::columns(&line.rest));
            let room = width.saturating_sub(prefix).max(MIN_TEXT);
            starts.clear();
            wrap::row_starts(text, room, line.text.start, &mut starts);
            let ends = starts.iter().skip(1).copied().chain([line.text.end]);
            for (start, end) in starts.iter().zip(ends) {
                rows.push(Row {
                    line: i as u32,
                    start: *start as u32,
                    end: end as u32,
                });
            }
        }
        Laid { block, rows, width }
    }

    /// Rows, the header's included.
    pub fn height(&self) -> usize {
        self.rows.len()
    }

    /// The line of a row (none for the header).
    pub fn line(&self, row: &Row) -> Option<&Line> {
        self.block.body.lines.get(row.line as usize)
    }

    /// The prefix drawn before `row`: its line's first one on its first row.
    pub fn prefix(&self, row: &Row) -> &str {
        match self.line(row) {
            Some(line) if line.text.start == row.start as usize => &line.first,
            Some(line) => &line.rest,
            None => "",
        }
    }

    /// The row showing byte `at` of part `part`'s search text, if shown.
    pub fn row_of(&self, part: usize, at: usize) -> Option<usize> {
        let (index, line) = self
            .block
            .body
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.source.is_some_and(|(p, _)| p == part))
            .take_while(|(_, l)| l.source.is_some_and(|(_, o)| o <= at))
            .last()?;
        let (_, offset) = line.source?;
        let byte = line.text.start + (at - offset).min(line.text.len());
        let first = self.rows.iter().position(|r| r.line == index as u32)?;
        let within = self.rows[first..]
            .iter()
            .take_while(|r| r.line == index as u32 && r.start as usize <= byte)
            .count();
        Some(first + within.saturating_sub(1))
    }

    /// Where row `row`'s text sits in its part's search text, if it shows a part.
    pub fn source(&self, row: &Row) -> Option<(usize, usize)> {
        let line = self.line(row)?;
        let (part, offset) = line.source?;
        Some((part, offset + row.start as usize - line.text.start))
    }
}
