//! `name_from_prompt`: a short slug that names a session after its first prompt.

/// Most words a name keeps.
const MAX_WORDS: usize = 6;
/// Most characters a name keeps (whole words only, unless one word is longer).
const MAX_CHARS: usize = 48;
/// The name of a session whose prompt has no letters or digits.
pub const UNTITLED: &str = "untitled";

/// Lower-case words of letters and digits (any script) joined by hyphens:
/// `"Fix the  login bug!"` → `"fix-the-login-bug"`; no words → `"untitled"`.
pub fn name_from_prompt(prompt: &str) -> String {
    let mut name = String::new();
    let words = prompt
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS);
    for word in words {
        let word = word.to_lowercase();
        let extra = word.chars().count() + usize::from(!name.is_empty());
        if name.chars().count() + extra > MAX_CHARS {
            if name.is_empty() {
                name = word.chars().take(MAX_CHARS).collect();
            }
            break;
        }
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(&word);
    }
    if name.is_empty() {
        UNTITLED.to_string()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(name_from_prompt("Fix the  login bug!"), "fix-the-login-bug");
        assert_eq!(
            name_from_prompt("Résumé für Ärzte: 東京 データ"),
            "résumé-für-ärzte-東京-データ"
        );
        assert_eq!(name_from_prompt("   "), "untitled");
        assert_eq!(name_from_prompt("!!! ???"), "untitled");
        assert_eq!(
            name_from_prompt("one two three four five six seven eight"),
            "one-two-three-four-five-six"
        );
        let long = "x".repeat(100);
        assert_eq!(name_from_prompt(&long).len(), MAX_CHARS);
        assert!(
            name_from_prompt("a/b/../c")
                .chars()
                .all(|c| c != '/' && c != '.')
        );
    }
}
