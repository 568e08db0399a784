//! Markdown as lines of text for a terminal: headings, emphasis, lists,
//! links, block quotes, tables laid out as text, fenced code (highlighted
//! when asked). The text is independent of the screen's width: wrapping
//! comes later, and each line says what to draw before its first row and
//! before the rows it wraps to (a bullet, then its indent; a quote's bar).

use super::highlight;
use super::{Body, Class, Look};
use crate::render::wrap;
use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Code blocks longer than this are shown without colours: highlighting
/// them would cost more than a frame.
const HIGHLIGHT_BYTES: usize = 64 * 1024;

/// `source` rendered as markdown into `body`; code blocks highlighted when
/// `highlight` (the search only needs the text).
pub fn render(source: &str, highlight: bool, body: &mut Body) {
    let mut r = Renderer {
        body,
        containers: Vec::new(),
        line_open: false,
        looks: Vec::new(),
        blocks: 0,
        code: None,
        table: None,
        link: Vec::new(),
        highlight,
    };
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(source, options) {
        r.event(event);
    }
    r.end_line();
}

/// A container the current line sits in: a quote or a list item.
struct Container {
    /// Drawn before the item's first line (`• `, `3. `, `│ `).
    first: String,
    /// Drawn before its other lines and rows.
    rest: String,
    /// The first line was drawn.
    used: bool,
    /// A list (items are its children) rather than an item or a quote.
    list: Option<Option<u64>>,
    /// The list is tight: no blank line between its items' paragraphs.
    tight: bool,
}

/// A table being read: rows of cells of styled text.
struct Table {
    align: Vec<Alignment>,
    rows: Vec<Vec<String>>,
    header_rows: usize,
}

struct Renderer<'b> {
    body: &'b mut Body,
    containers: Vec<Container>,
    /// A line is being filled.
    line_open: bool,
    /// Inline looks in force (strong, emphasis, …), innermost last.
    looks: Vec<Look>,
    /// Blocks ended so far at the current depth: a blank line goes between.
    blocks: usize,
    /// The language and text of a code block being read.
    code: Option<(String, String)>,
    table: Option<Table>,
    /// Destinations of the links being read.
    link: Vec<String>,
    highlight: bool,
}

impl Renderer<'_> {
    fn look(&self) -> Look {
        self.looks.last().copied().unwrap_or_default()
    }

    fn prefixes(&mut self) -> (String, String) {
        let mut first = String::new();
        let mut rest = String::new();
        for c in self.containers.iter_mut().filter(|c| c.list.is_none()) {
            if c.used {
                first.push_str(&c.rest);
            } else {
                first.push_str(&c.first);
                c.used = true;
            }
            rest.push_str(&c.rest);
        }
        (first, rest)
    }

    fn open_line(&mut self, look: Look) {
        if !self.line_open {
            let (first, rest) = self.prefixes();
            self.body.start_line(first, rest, look);
            self.line_open = true;
        }
    }

    fn end_line(&mut self) {
        self.line_open = false;
    }

    /// A blank line between two blocks (none inside a tight list).
    fn separate(&mut self) {
        self.end_line();
        let tight = self.containers.iter().rev().find(|c| c.list.is_some());
        if self.blocks > 0 && !tight.is_some_and(|c| c.tight) {
            self.open_line(Look::default());
            self.end_line();
        }
    }

    fn push(&mut self, text: &str, look: Look) {
        if let Some(table) = &mut self.table {
            if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                cell.push_str(text);
            }
            return;
        }
        for (i, piece) in text.split('\n').enumerate() {
            if i > 0 {
                self.end_line();
            }
            self.open_line(Look::default());
            self.body.push(piece, look);
        }
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if let Some((_, code)) = &mut self.code {
                    code.push_str(&text);
                } else {
                    self.push(&text, self.look());
                }
            }
            Event::Code(text) => {
                let look = Look {
                    class: Class::Code,
                    ..self.look()
                };
                self.push(&text, look);
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => self.push(&text, self.look()),
            Event::Html(text) | Event::InlineHtml(text) => {
                self.push(text.trim_end_matches('\n'), self.look())
            }
            Event::FootnoteReference(name) => self.push(&format!("[^{name}]"), self.look()),
            Event::SoftBreak => self.push(" ", self.look()),
            Event::HardBreak => {
                self.end_line();
            }
            Event::Rule => {
                self.separate();
                self.push("────────────────────", Look::of(Class::Rule));
                self.end_line();
                self.blocks += 1;
            }
            Event::TaskListMarker(done) => {
                self.push(if done { "[x] " } else { "[ ] " }, Look::of(Class::Marker))
            }
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => self.separate(),
            Tag::Heading { level, .. } => {
                self.separate();
                let hashes = match level {
                    HeadingLevel::H1 => 1,
                    HeadingLevel::H2 => 2,
                    HeadingLevel::H3 => 3,
                    HeadingLevel::H4 => 4,
                    HeadingLevel::H5 => 5,
                    HeadingLevel::H6 => 6,
                };
                let look = Look::of(Class::Heading);
                self.open_line(look);
                self.body.push(&format!("{} ", "#".repeat(hashes)), look);
                self.looks.push(look);
            }
            Tag::BlockQuote(_) => {
                self.separate();
                self.containers.push(Container {
                    first: "│ ".into(),
                    rest: "│ ".into(),
                    used: false,
                    list: None,
                    tight: false,
                });
                self.blocks = 0;
            }
            Tag::CodeBlock(kind) => {
                self.separate();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.separate();
                self.containers.push(Container {
                    first: String::new(),
                    rest: String::new(),
                    used: true,
                    list: Some(start),
                    tight: true,
                });
                self.blocks = 0;
            }
            Tag::Item => {
                self.end_line();
                let bullet = match self.containers.last_mut().and_then(|c| c.list.as_mut()) {
                    Some(Some(n)) => {
                        let bullet = format!("{n}. ");
                        *n += 1;
                        bullet
                    }
                    _ => "• ".to_string(),
                };
                let rest = " ".repeat(wrap::columns(&bullet));
                self.containers.push(Container {
                    first: bullet,
                    rest,
                    used: false,
                    list: None,
                    tight: true,
                });
                self.blocks = 0;
            }
            Tag::Table(align) => {
                self.separate();
                self.table = Some(Table {
                    align,
                    rows: Vec::new(),
                    header_rows: 0,
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(String::new());
                }
            }
            Tag::Emphasis => self.looks.push(Look {
                italic: true,
                ..self.look()
            }),
            Tag::Strong => self.looks.push(Look {
                bold: true,
                ..self.look()
            }),
            Tag::Strikethrough => self.looks.push(Look {
                strike: true,
                ..self.look()
            }),
            Tag::Link { dest_url, .. } => {
                self.link.push(dest_url.to_string());
                self.looks.push(Look {
                    class: Class::Link,
                    ..self.look()
                });
            }
            Tag::Image { dest_url, .. } => {
                self.link.push(dest_url.to_string());
                self.push("[image: ", Look::of(Class::Media));
                self.looks.push(Look::of(Class::Media));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.end_line();
                self.blocks += 1;
            }
            TagEnd::Heading(_) => {
                self.looks.pop();
                self.end_line();
                self.blocks += 1;
            }
            TagEnd::BlockQuote(_) | TagEnd::Item => {
                self.end_line();
                self.containers.pop();
                self.blocks = 1;
            }
            TagEnd::List(_) => {
                self.end_line();
                self.containers.pop();
                self.blocks = 1;
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.code_block(&lang, &code);
                }
                self.blocks += 1;
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.table_lines(&table);
                }
                self.blocks += 1;
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.header_rows = t.rows.len();
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.looks.pop();
            }
            TagEnd::Link => {
                self.looks.pop();
                if let Some(url) = self.link.pop().filter(|u| !u.is_empty()) {
                    self.push(&format!(" ({url})"), Look::of(Class::Note));
                }
            }
            TagEnd::Image => {
                self.looks.pop();
                let url = self.link.pop().unwrap_or_default();
                self.push(&format!(" {url}]"), Look::of(Class::Media));
            }
            _ => {}
        }
    }

    /// A fenced block: its language on a line of its own, then its lines
    /// indented, coloured by the highlighter when it knows the language.
    fn code_block(&mut self, lang: &str, code: &str) {
        let code = code.strip_suffix('\n').unwrap_or(code);
        let base = Look::of(Class::CodeBlock);
        if !lang.is_empty() {
            self.open_line(Look::of(Class::Note));
            self.body.push(&format!("{lang}:"), Look::of(Class::Note));
            self.end_line();
        }
        let colours = (self.highlight && code.len() <= HIGHLIGHT_BYTES)
            .then(|| highlight::lines(lang, code))
            .flatten();
        for (i, line) in code.split('\n').enumerate() {
            self.containers.push(Container {
                first: "  ".into(),
                rest: "  ".into(),
                used: false,
                list: None,
                tight: true,
            });
            self.open_line(base);
            self.containers.pop();
            match colours.as_ref().and_then(|c| c.get(i)) {
                Some(pieces) => {
                    for (range, class) in pieces {
                        if let Some(text) = line.get(range.clone()) {
                            self.body.push(text, Look::of(*class));
                        }
                    }
                }
                None => self.body.push(line, base),
            }
            self.end_line();
        }
    }

    /// A table as text: columns padded to their widest cell, `│` between.
    fn table_lines(&mut self, table: &Table) {
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0; columns];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(wrap::columns(cell.trim()));
            }
        }
        let border = Look::of(Class::Rule);
        for (r, row) in table.rows.iter().enumerate() {
            let look = if r < table.header_rows {
                Look {
                    bold: true,
                    ..Look::default()
                }
            } else {
                Look::default()
            };
            self.open_line(look);
            for (i, width) in widths.iter().enumerate() {
                if i > 0 {
                    self.body.push(" │ ", border);
                }
                let cell = row.get(i).map_or("", |c| c.trim());
                let pad = width.saturating_sub(wrap::columns(cell));
                let (left, right) = match table.align.get(i) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                self.body.push(&" ".repeat(left), look);
                self.body.push(cell, look);
                self.body.push(&" ".repeat(right), look);
            }
            self.end_line();
            if r + 1 == table.header_rows {
                self.open_line(border);
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.body.push(&rule.join("─┼─"), border);
                self.end_line();
            }
        }
    }
}
