//! Colours for fenced code: syntect's grammars (Sublime Text's, built in),
//! read by a theme of our own that gives each kind of token a class, not a
//! colour: the UI's theme picks the colours (light or dark background, or
//! none with NO_COLOR).

use super::Class;
use std::ops::Range;
use std::str::FromStr;
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Color, ScopeSelectors, StyleModifier, Theme, ThemeItem};
use syntect::parsing::SyntaxSet;

/// The classes a token can have, in the order the theme numbers them.
const CLASSES: [(&str, Class); 7] = [
    ("comment", Class::SynComment),
    ("string, constant.character", Class::SynString),
    ("constant.numeric, constant.language", Class::SynConstant),
    ("keyword, storage", Class::SynKeyword),
    (
        "entity.name.type, support.type, support.class",
        Class::SynType,
    ),
    (
        "entity.name.function, support.function, variable.function",
        Class::SynFunction,
    ),
    ("entity.name.tag, meta.tag", Class::SynKeyword),
];

struct Grammars {
    syntaxes: SyntaxSet,
    theme: Theme,
}

fn grammars() -> &'static Grammars {
    static GRAMMARS: OnceLock<Grammars> = OnceLock::new();
    GRAMMARS.get_or_init(|| {
        let scopes = CLASSES
            .iter()
            .enumerate()
            .filter_map(|(i, (selector, _))| {
                Some(ThemeItem {
                    scope: ScopeSelectors::from_str(selector).ok()?,
                    style: StyleModifier {
                        foreground: Some(Color {
                            r: i as u8 + 1,
                            g: 0,
                            b: 0,
                            a: 255,
                        }),
                        background: None,
                        font_style: None,
                    },
                })
            })
            .collect();
        Grammars {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme: Theme {
                scopes,
                ..Theme::default()
            },
        }
    })
}

/// Languages agents write most, made ready when a conversation is first read.
const COMMON: [&str; 12] = [
    "rust", "python", "sh", "js", "json", "yaml", "sql", "go", "c", "java", "diff", "html",
];

/// Loads the grammars on a background thread at a low priority (a few
/// megabytes); their patterns are compiled later, by
/// [`prewarm_languages`], when a conversation is first read.
pub fn prewarm() {
    low_priority_thread(|| {
        grammars();
    });
}

/// Runs each common language once on a background thread at a low
/// priority, once per run: a grammar compiles its patterns the first time
/// it is used (long enough to drop a frame), which would otherwise fall on the
/// first frame that shows such a code block. Not at start-up: compiled,
/// the twelve hold memory a person who only lists and resumes
/// sessions never needs; a conversation's read (its file parsed, its
/// tokens counted) covers the time it takes.
pub fn prewarm_languages() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        low_priority_thread(|| {
            for lang in COMMON {
                let _ = lines(lang, "x = 1 # (\"a\") {}\n");
            }
        });
    });
}

fn low_priority_thread(work: impl FnOnce() + Send + 'static) {
    std::thread::spawn(|| {
        crate::priority::nice_10();
        work();
    });
}

/// The grammar's name for a fence's language where the built-in set knows
/// it by another (TypeScript is read as JavaScript, a shell session as sh).
fn alias(lang: &str) -> &str {
    match lang {
        "ts" | "typescript" | "tsx" | "jsx" | "javascript" => "js",
        "shell" | "console" | "zsh" | "bash" => "sh",
        "py" => "python",
        "yml" => "yaml",
        other => other,
    }
}

/// The classes of one line's stretches, as byte ranges of the line.
pub type LineClasses = Vec<(Range<usize>, Class)>;

/// The classes of each line of `code` in the language `lang` (a fence's
/// info word: `rust`, `py`, `sh`, …), as byte ranges of the line; `None`
/// when the language is not known.
pub fn lines(lang: &str, code: &str) -> Option<Vec<LineClasses>> {
    if lang.is_empty() {
        return None;
    }
    let g = grammars();
    let lang = alias(lang);
    let syntax = g
        .syntaxes
        .find_syntax_by_token(lang)
        .or_else(|| g.syntaxes.find_syntax_by_extension(lang))?;
    let mut highlighter = HighlightLines::new(syntax, &g.theme);
    let mut out = Vec::new();
    for line in code.split('\n') {
        let with_newline = format!("{line}\n");
        let pieces = highlighter
            .highlight_line(&with_newline, &g.syntaxes)
            .ok()?;
        let mut at = 0;
        let mut row = Vec::new();
        for (style, text) in pieces {
            let end = (at + text.len()).min(line.len());
            let class = match style.foreground.r {
                0 => Class::CodeBlock,
                n => CLASSES
                    .get(usize::from(n) - 1)
                    .map_or(Class::CodeBlock, |c| c.1),
            };
            if at < end {
                row.push((at..end, class));
            }
            at += text.len();
        }
        out.push(row);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_keywords_strings_and_comments_get_classes() {
        let lines = lines("rust", "let s = \"hi\"; // note").unwrap();
        let line = "let s = \"hi\"; // note";
        let class_of = |word: &str| {
            let at = line.find(word).unwrap();
            lines[0]
                .iter()
                .find(|(r, _)| r.contains(&at))
                .map(|(_, c)| *c)
                .unwrap()
        };
        assert_eq!(class_of("let"), Class::SynKeyword);
        assert_eq!(class_of("hi"), Class::SynString);
        assert_eq!(class_of("note"), Class::SynComment);
        assert!(super::lines("no-such-language", "x").is_none());
    }
}
