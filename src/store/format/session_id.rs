//! A session's id as a file says it, checked once where a reader makes it.
//!
//! Ids come from files other programs write (a Claude Code file name, a
//! Codex `payload.id`, a Gemini `sessionId`), and they end up in paths (a
//! side folder, a lookup) and in argvs (`claude --resume ID`). A
//! [`SessionId`] can only be made by [`SessionId::check`], so holding one
//! means it is one plain, printable file name that no program takes for an
//! option. A file whose id fails the check is listed as damaged under a
//! stand-in id ([`SessionId::stand_in`]) that names nothing of the file.

use serde::Serialize;
use std::fmt;
use std::ops::Deref;

/// The most bytes an id may have: one file name on every common filesystem.
pub const MAX_ID_BYTES: usize = 255;

/// A checked session id: not empty, at most 255 bytes, no `/`, `\`, NUL or
/// other control or bidi character, not `.` or `..`, not starting with `-`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct SessionId(String);

impl SessionId {
    /// `raw` as an id, or why it cannot be one (worded for a person).
    pub fn check(raw: &str) -> Result<SessionId, String> {
        refusal(raw).map_or_else(|| Ok(SessionId(raw.to_string())), Err)
    }

    /// The id a damaged file is listed under when its own id was refused:
    /// `refused-` and 16 hex digits of a hash of the file's path, stable
    /// from one listing to the next, so `show` and `delete --damaged` can
    /// name it.
    pub fn stand_in(path: &std::path::Path) -> SessionId {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(path.as_os_str().as_encoded_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        SessionId(format!("refused-{hex}"))
    }

    /// True when `id` has the form of a [`SessionId::stand_in`].
    pub fn is_stand_in(id: &str) -> bool {
        id.strip_prefix("refused-")
            .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
    }

    /// The id of the file `path` whose reader found `raw`: `raw` when
    /// the check takes it, else the file's stand-in (the record a reader
    /// makes of it is damaged, with the reason).
    pub fn of_file(raw: &str, path: &std::path::Path) -> SessionId {
        SessionId::check(raw).unwrap_or_else(|_| SessionId::stand_in(path))
    }

    /// An id this program made (a uuid, a dated id): checked all the same,
    /// so a mistake here fails loudly rather than making a bad path.
    pub fn ours(made: String) -> SessionId {
        match refusal(&made) {
            None => SessionId(made),
            Some(why) => panic!("an id made here is refused ({why}): {made:?}"),
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why `raw` cannot be a session id, if it cannot.
fn refusal(raw: &str) -> Option<String> {
    if raw.is_empty() {
        return Some("the id is empty".into());
    }
    if raw.len() > MAX_ID_BYTES {
        return Some(format!(
            "the id is {} bytes long (at most {MAX_ID_BYTES})",
            raw.len()
        ));
    }
    if raw == "." || raw == ".." {
        return Some(format!("the id is {raw:?}, a folder's own name"));
    }
    if raw.starts_with('-') {
        return Some("the id starts with '-', which a program takes for an option".into());
    }
    if let Some(c) = raw.chars().find(|c| matches!(c, '/' | '\\')) {
        return Some(format!("the id holds {c:?}, which would make it a path"));
    }
    if let Some(c) = raw
        .chars()
        .find(|&c| c.is_control() || crate::store::format::safe_text::is_bidi_control(c))
    {
        return Some(format!(
            "the id holds the control character U+{:04X}",
            c as u32
        ));
    }
    None
}

impl Deref for SessionId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SessionId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl AsRef<std::path::Path> for SessionId {
    fn as_ref(&self) -> &std::path::Path {
        std::path::Path::new(&self.0)
    }
}

impl AsRef<std::ffi::OsStr> for SessionId {
    fn as_ref(&self) -> &std::ffi::OsStr {
        std::ffi::OsStr::new(&self.0)
    }
}

impl std::borrow::Borrow<str> for SessionId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for SessionId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for SessionId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for SessionId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<SessionId> for str {
    fn eq(&self, other: &SessionId) -> bool {
        self == other.0
    }
}

impl PartialEq<SessionId> for &str {
    fn eq(&self, other: &SessionId) -> bool {
        *self == other.0
    }
}

impl PartialEq<SessionId> for String {
    fn eq(&self, other: &SessionId) -> bool {
        *self == other.0
    }
}

impl From<SessionId> for String {
    fn from(id: SessionId) -> String {
        id.0
    }
}

/// Unit tests write ids as literals; a bad one fails the test at once.
#[cfg(test)]
impl From<&str> for SessionId {
    fn from(raw: &str) -> SessionId {
        SessionId::check(raw).expect("a test's id is a good id")
    }
}

impl<'de> serde::Deserialize<'de> for SessionId {
    /// An id read back from a file of ours (a trash entry) is checked again.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SessionId, D::Error> {
        let raw = String::deserialize(d)?;
        SessionId::check(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_crafted_file_tries_is_refused() {
        for bad in [
            "",
            ".",
            "..",
            "../../p",
            "/tmp/x/victim",
            "a/b",
            "a\\b",
            "-y",
            "--dangerously-skip-permissions",
            "a\0b",
            "a\nb",
            "a\x1b]0;x\x07",
            "a\u{9b}b",
            "a\u{7f}",
            "a\u{202e}b",
            "a\u{2066}",
        ] {
            assert!(SessionId::check(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(SessionId::check(&"a".repeat(256)).is_err());
        assert!(SessionId::check(&"a".repeat(255)).is_ok());
    }

    #[test]
    fn every_id_an_agent_writes_is_taken() {
        for good in [
            "0b8f2c1e-4a6d-4e0e-9f3a-2f8f6f1d2a10",
            "20261128-da8c0e2f-1b9a-4c6e-8a0b-1d2e3f4a5b6c",
            "rollout-2026-01-01T00-00-00-abc",
            "session-2026-11-01T10-00-a1b2c3d4",
            "..x",
            "a-",
            "名前",
        ] {
            assert_eq!(SessionId::check(good).unwrap(), good);
        }
    }

    #[test]
    fn a_stand_in_is_itself_a_good_id_and_stable() {
        let path = std::path::Path::new("/x/--evil.jsonl");
        let one = SessionId::stand_in(path);
        assert!(SessionId::check(&one).is_ok());
        assert!(SessionId::is_stand_in(&one));
        assert!(!SessionId::is_stand_in("refused-x"));
        assert_eq!(one, SessionId::stand_in(path));
        assert_ne!(one, SessionId::stand_in(std::path::Path::new("/x/other")));
    }

    #[test]
    fn an_id_read_back_is_checked_again() {
        assert!(serde_json::from_str::<SessionId>("\"../x\"").is_err());
        assert_eq!(serde_json::from_str::<SessionId>("\"abc\"").unwrap(), "abc");
    }
}
