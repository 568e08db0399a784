//! Text laid out in rows of a width in terminal columns (wide characters
//! count two), word by word, as byte offsets into the text. The message view
//! keeps only where each row starts and draws only the rows on screen; the
//! dialogs and the preview wrap their short texts with [`lines`].

use unicode_width::UnicodeWidthChar;

/// Appends to `rows` where each row of `line` starts when wrapped at `width`
/// columns, as byte offsets plus `base`; `line` holds no line break and
/// gives at least one row. Rows break after a space where one fits, inside
/// a word only when a word is wider than the row; spaces where a row breaks
/// stay at its end (they take no room a reader sees).
pub fn row_starts(line: &str, width: usize, base: usize, rows: &mut Vec<usize>) {
    let width = width.max(1);
    rows.push(base);
    // No character is wider than its UTF-8 bytes: a short line is one row.
    if line.len() <= width {
        return;
    }
    let (mut row, mut column, mut after_space) = (0, 0, None::<usize>);
    for (i, c) in line.char_indices() {
        if c == ' ' {
            after_space = Some(i + 1);
            if column < width {
                column += 1;
            }
            continue;
        }
        let w = c.width().unwrap_or(0);
        while column + w > width && i > row {
            let at = after_space.filter(|&s| s > row && s <= i).unwrap_or(i);
            rows.push(base + at);
            row = at;
            after_space = None;
            column = columns(&line[at..i]);
        }
        column += w;
    }
}

/// `text` wrapped at `width` columns, line breaks kept: one string per row.
pub fn lines(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut starts = Vec::new();
        row_starts(line, width, 0, &mut starts);
        let ends = starts.iter().skip(1).copied().chain([line.len()]);
        for (start, end) in starts.iter().zip(ends) {
            out.push(line[*start..end].trim_end_matches(' ').to_string());
        }
    }
    out
}

/// Columns `text` takes.
pub fn columns(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(line: &str, width: usize) -> Vec<&str> {
        let mut starts = Vec::new();
        row_starts(line, width, 0, &mut starts);
        let ends = starts.iter().skip(1).copied().chain([line.len()]);
        starts.iter().zip(ends).map(|(s, e)| &line[*s..e]).collect()
    }

    #[test]
    fn words_wrap_at_spaces_and_long_words_are_cut() {
        assert_eq!(rows("", 10), [""]);
        assert_eq!(rows("short", 10), ["short"]);
        assert_eq!(rows("the quick brown fox", 10), ["the quick ", "brown fox"]);
        assert_eq!(rows("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(rows("abcde fgh", 5), ["abcde ", "fgh"], "a space hangs");
        assert_eq!(rows("ab  cdefgh", 4), ["ab  ", "cdef", "gh"]);
    }

    #[test]
    fn wide_characters_take_two_columns() {
        // Six ideographs are twelve columns.
        assert_eq!(rows("東京オフィス", 5), ["東京", "オフ", "ィス"]);
        assert_eq!(rows("a東京", 4), ["a東", "京"]);
        assert_eq!(
            rows("東", 1),
            ["東"],
            "a character wider than the row has it alone"
        );
        for row in rows("請求書 テンプレート の 東京オフィス 向け", 7) {
            assert!(columns(row.trim_end()) <= 7, "{row:?}");
        }
    }

    #[test]
    fn lines_keep_line_breaks() {
        assert_eq!(
            lines("one two\n\nthree", 4),
            ["one", "two", "", "thre", "e"]
        );
    }
}
