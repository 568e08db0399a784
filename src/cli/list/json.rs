//! `list --json`'s rows written straight to bytes: the same bytes serde_json's
//! pretty printer writes with [`SafeJson`](crate::store::safe_text::SafeJson)'s
//! escapes (a test holds the two to that), at a fraction of its time. Made
//! generically, a listing of 10,000 sessions spent a third of its time on
//! its JSON: each key scanned for characters to escape, twice, and each
//! indent written two spaces at a time.

use super::ListItem;
use crate::store::safe_text::to_safe_json_line;
use crate::store::{ContextFigure, CostEstimate, Usage};
use serde::Serialize;

/// Spaces enough for the deepest row (an item, its objects, their arrays).
const SPACES: &[u8] = b"                ";

/// A row's key as it is written: the comma after the field before, the
/// key's line and indent (a row's fields are at depth 2), the key and
/// `": `, all one piece (`Pretty::first_key` leaves the comma out).
macro_rules! field {
    ($key:literal) => {
        concat!(",\n    \"", $key, "\": ").as_bytes()
    };
}

/// [`field!`] for a key of an object in a row (at depth 3).
macro_rules! inner {
    ($key:literal) => {
        concat!(",\n      \"", $key, "\": ").as_bytes()
    };
}

/// A pretty JSON value being written at a depth: objects' keys on lines of
/// their own, indented two spaces a level, `": "` after a key. Every
/// object written has keys (a row, its usage, cost and context).
struct Pretty<'o> {
    out: &'o mut Vec<u8>,
    depth: usize,
}

impl<'o> Pretty<'o> {
    fn at(out: &'o mut Vec<u8>, depth: usize) -> Pretty<'o> {
        Pretty { out, depth }
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        self.out.extend_from_slice(&SPACES[..2 * self.depth]);
    }

    fn open(&mut self) {
        self.out.push(b'{');
        self.depth += 1;
    }

    fn close(&mut self) {
        self.depth -= 1;
        self.newline();
        self.out.push(b'}');
    }

    /// A key made by [`field!`] or [`inner!`]: our own field names, plain
    /// ASCII with nothing to escape, written as they are.
    fn key(&mut self, key: &[u8]) {
        self.out.extend_from_slice(key);
    }

    /// The first key of an object (no comma before it).
    fn first_key(&mut self, key: &[u8]) {
        self.out.extend_from_slice(&key[1..]);
    }

    fn str(&mut self, text: &str) {
        // Printable ASCII but the quote and the backslash is written as it
        // is; anything else goes through serde_json and SafeJson. Looked at
        // without stopping early, which the compiler makes a vector loop.
        let plain = text.bytes().fold(true, |plain, b| {
            plain & (0x20..0x7f).contains(&b) & (b != b'"') & (b != b'\\')
        });
        if plain {
            self.out.push(b'"');
            self.out.extend_from_slice(text.as_bytes());
            self.out.push(b'"');
        } else {
            self.serde(text);
        }
    }

    fn u64(&mut self, n: u64) {
        self.out
            .extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
    }

    fn bool(&mut self, value: bool) {
        self.out.extend_from_slice(match value {
            true => b"true",
            false => b"false",
        });
    }

    fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    fn opt<T>(&mut self, value: Option<T>, write: impl FnOnce(&mut Self, T)) {
        match value {
            Some(value) => write(self, value),
            None => self.null(),
        }
    }

    /// A value with no layout of its own (a number, a string), written by
    /// serde_json itself: floats and escapes exactly as it writes them.
    fn serde<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Into a Vec, of a value with no map: it cannot fail.
        let _ = to_safe_json_line(&mut *self.out, value);
    }

    fn f64(&mut self, x: f64) {
        self.serde(&x);
    }

    fn strings(&mut self, items: &[String]) {
        if items.is_empty() {
            self.out.extend_from_slice(b"[]");
            return;
        }
        self.out.push(b'[');
        self.depth += 1;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.newline();
            self.str(item);
        }
        self.depth -= 1;
        self.newline();
        self.out.push(b']');
    }

    fn usage(&mut self, u: &Usage) {
        self.open();
        self.first_key(inner!("input"));
        self.u64(u.input);
        for (key, n) in [
            (inner!("output"), u.output),
            (inner!("cache_read"), u.cache_read),
            (inner!("cache_write"), u.cache_write),
            (inner!("cache_write_1h"), u.cache_write_1h),
            (inner!("thoughts"), u.thoughts),
        ] {
            self.key(key);
            self.u64(n);
        }
        self.close();
    }

    fn cost(&mut self, c: &CostEstimate) {
        self.open();
        self.first_key(inner!("usd"));
        self.opt(c.usd, Self::f64);
        self.key(inner!("prices_of"));
        self.str(&c.prices_of);
        self.key(inner!("unpriced_models"));
        self.strings(&c.unpriced_models);
        self.close();
    }

    fn context(&mut self, c: &ContextFigure) {
        self.open();
        self.first_key(inner!("tokens"));
        self.u64(c.tokens);
        self.key(inner!("recorded"));
        self.opt(c.recorded, Self::u64);
        self.key(inner!("recorded_at"));
        self.opt(c.recorded_at, Self::f64);
        self.key(inner!("estimated_after"));
        self.u64(c.estimated_after);
        self.key(inner!("window"));
        self.u64(c.window);
        self.key(inner!("fraction"));
        self.f64(c.fraction);
        self.key(inner!("source"));
        self.str(c.source);
        self.close();
    }
}

impl ListItem<'_> {
    /// Appends the row as an item of a pretty array (at depth 1), as
    /// serde_json writes it; a path that is not UTF-8 is serde_json's error.
    pub(super) fn write_pretty(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let Some(path) = self.path.to_str() else {
            return Err(serde::ser::Error::custom(
                "path contains invalid UTF-8 characters",
            ));
        };
        let mut p = Pretty::at(out, 1);
        p.open();
        p.first_key(field!("agent"));
        p.str(self.agent.name());
        p.key(field!("id"));
        p.str(self.id);
        p.key(field!("name"));
        p.str(self.name);
        p.key(field!("title"));
        p.str(self.title);
        p.key(field!("cwd"));
        p.opt(self.cwd, Pretty::str);
        p.key(field!("user"));
        p.str(self.user);
        p.key(field!("first_prompt"));
        p.str(self.first_prompt);
        p.key(field!("created_at"));
        p.f64(self.created_at);
        p.key(field!("last_used_at"));
        p.f64(self.last_used_at);
        p.key(field!("path"));
        p.str(path);
        p.key(field!("bytes"));
        p.u64(self.bytes);
        p.key(field!("messages"));
        p.opt(self.messages, |p, n| p.u64(n as u64));
        if let Some(tokens) = self.tokens {
            p.key(field!("tokens"));
            p.u64(tokens);
        }
        p.key(field!("is_active"));
        p.bool(self.is_active);
        p.key(field!("error"));
        p.opt(self.error, Pretty::str);
        p.key(field!("usage"));
        p.opt(self.usage.as_ref(), Pretty::usage);
        if let Some(cost) = self.cost_estimate {
            p.key(field!("cost_estimate"));
            p.cost(cost);
        }
        if let Some(context) = &self.context {
            p.key(field!("context"));
            p.context(context);
        }
        p.key(field!("agent_deletes_at"));
        p.opt(self.agent_deletes_at, Pretty::f64);
        if self.archived {
            p.key(field!("archived"));
            p.bool(true);
        }
        p.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::output::pretty_item;
    use crate::store::Agent;
    use proptest::prelude::*;
    use std::path::Path;

    /// Text a session's files may hold: quotes, backslashes, C0 and C1
    /// controls, DEL, bidi controls, and more than one byte a character.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                4 => prop::char::range(' ', '~'),
                1 => prop::sample::select(vec![
                    '"', '\\', '\n', '\t', '\x1b', '\x07', '\x7f', '\u{9b}', '\u{202e}',
                    '\u{2066}', 'é', '漢', '🦀', '\u{0}',
                ]),
            ],
            0..12,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// Numbers a file may hold, integer or not, tiny, huge or not a number.
    fn float() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            (0u64..2_000_000_000).prop_map(|s| s as f64 / 1000.0),
            prop::sample::select(vec![0.0, -0.0, 1e21, 1e-7, f64::NAN, f64::INFINITY]),
        ]
    }

    #[derive(Debug, Clone)]
    struct Row {
        agent: Agent,
        strings: [String; 7],
        cwd: Option<String>,
        error: Option<String>,
        floats: [f64; 2],
        numbers: (u64, Option<usize>, Option<u64>),
        is_active: bool,
        usage: Option<Usage>,
        cost: Option<CostEstimate>,
        context: Option<ContextFigure>,
        deletes_at: Option<f64>,
        archived: bool,
    }

    fn usage() -> impl Strategy<Value = Usage> {
        any::<[u64; 6]>().prop_map(|n| Usage {
            input: n[0],
            output: n[1],
            cache_read: n[2],
            cache_write: n[3],
            cache_write_1h: n[4],
            thoughts: n[5],
        })
    }

    fn cost() -> impl Strategy<Value = CostEstimate> {
        (
            prop::option::of(float()),
            text(),
            prop::collection::vec(text(), 0..3),
        )
            .prop_map(|(usd, prices_of, unpriced_models)| CostEstimate {
                usd,
                prices_of,
                unpriced_models,
            })
    }

    fn context() -> impl Strategy<Value = ContextFigure> {
        (
            any::<(u64, Option<u64>, u64, u64)>(),
            prop::option::of(float()),
            float(),
            any::<bool>(),
        )
            .prop_map(
                |((tokens, recorded, estimated_after, window), recorded_at, fraction, ours)| {
                    ContextFigure {
                        tokens,
                        recorded,
                        recorded_at,
                        estimated_after,
                        window,
                        fraction,
                        source: if ours { "recorded" } else { "counted" },
                    }
                },
            )
    }

    fn row() -> impl Strategy<Value = Row> {
        (
            (
                prop::sample::select(Agent::ALL.to_vec()),
                prop::array::uniform7(text()),
                prop::option::of(text()),
                prop::option::of(text()),
                prop::array::uniform2(float()),
                any::<(u64, Option<usize>, Option<u64>)>(),
            ),
            (
                any::<bool>(),
                prop::option::of(usage()),
                prop::option::of(cost()),
                prop::option::of(context()),
                prop::option::of(float()),
                any::<bool>(),
            ),
        )
            .prop_map(
                |(
                    (agent, strings, cwd, error, floats, numbers),
                    (is_active, usage, cost, context, deletes_at, archived),
                )| Row {
                    agent,
                    strings,
                    cwd,
                    error,
                    floats,
                    numbers,
                    is_active,
                    usage,
                    cost,
                    context,
                    deletes_at,
                    archived,
                },
            )
    }

    impl Row {
        fn item(&self) -> ListItem<'_> {
            let [id, name, title, user, first_prompt, path, _] = &self.strings;
            ListItem {
                agent: self.agent,
                id,
                name,
                title,
                cwd: self.cwd.as_deref(),
                user,
                first_prompt,
                created_at: self.floats[0],
                last_used_at: self.floats[1],
                path: Path::new(path),
                bytes: self.numbers.0,
                messages: self.numbers.1,
                tokens: self.numbers.2,
                is_active: self.is_active,
                error: self.error.as_deref(),
                usage: self.usage,
                cost_estimate: self.cost.as_ref(),
                context: self.context.clone(),
                agent_deletes_at: self.deletes_at,
                archived: self.archived,
            }
        }
    }

    proptest! {
        /// Each row written by hand is byte for byte the row serde_json
        /// writes pretty with SafeJson's escapes: every field, present or
        /// not, and strings and numbers of every kind.
        #[test]
        fn a_row_written_by_hand_is_the_row_serde_writes(rows in prop::collection::vec(row(), 1..4)) {
            for row in &rows {
                let item = row.item();
                let (mut by_hand, mut by_serde) = (Vec::new(), Vec::new());
                item.write_pretty(&mut by_hand).unwrap();
                pretty_item(&mut by_serde, &item).unwrap();
                prop_assert_eq!(
                    String::from_utf8_lossy(&by_hand),
                    String::from_utf8_lossy(&by_serde)
                );
            }
        }
    }

    /// A path that is not UTF-8 fails as serde_json fails it.
    #[test]
    fn a_path_not_utf8_is_refused_as_serde_refuses_it() {
        use std::os::unix::ffi::OsStrExt;
        let path = Path::new(std::ffi::OsStr::from_bytes(b"/s/\xff.jsonl"));
        let row = Row {
            agent: Agent::Claude,
            strings: Default::default(),
            cwd: None,
            error: None,
            floats: [0.0; 2],
            numbers: (0, None, None),
            is_active: false,
            usage: None,
            cost: None,
            context: None,
            deletes_at: None,
            archived: false,
        };
        let item = ListItem { path, ..row.item() };
        let by_hand = item.write_pretty(&mut Vec::new()).unwrap_err();
        let by_serde = pretty_item(&mut Vec::new(), &item).unwrap_err();
        assert_eq!(by_hand.to_string(), by_serde.to_string());
    }
}
