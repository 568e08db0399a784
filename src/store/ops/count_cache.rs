//! Token counts once made, kept for the next run: a file per session of
//! the counts of its active context's messages, each under a 128-bit key
//! made of the encoding and the exact text the counter encodes (so a
//! changed message has another key and is counted again, never given an
//! old count). The file is one of our sealed side files (`fs/sealed.rs`):
//! one that is truncated, altered or of another encoding is not used (the
//! messages are counted again, and the file rewritten). Where the file lives (beside
//! the search index, in the user's cache) is the door's choice.

use crate::store::error::Result;
use crate::store::format::tokens::Encoding;
use crate::store::fs::sealed;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;

/// What a message's count is filed under.
pub type CountKey = [u8; 16];

/// The first bytes of a count file (its format: a new one is a new magic).
const MAGIC: &[u8; 8] = b"LSTOKC2\n";
/// No count file is bigger (about 3 million messages); a bigger one is not read.
pub const LIMIT: u64 = 64 << 20;

/// The key of `text` counted in `encoding`.
pub fn key(encoding: Encoding, text: &str) -> CountKey {
    let mut hash = Sha256::new();
    hash.update(encoding.name().as_bytes());
    hash.update([0]);
    hash.update(text.as_bytes());
    let digest = hash.finalize();
    let mut key = [0; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// One session's count file.
#[derive(Clone, Debug)]
pub struct CountCache {
    path: PathBuf,
}

impl CountCache {
    /// The count file at `path` (which need not exist yet; its folder must
    /// be a private one the caller made safe).
    pub fn at(path: PathBuf) -> CountCache {
        CountCache { path }
    }

    /// Where the file is.
    #[cfg(test)]
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The counts the file holds for `encoding`: none when it is missing,
    /// damaged, of another encoding or of another format.
    pub fn load(&self, encoding: Encoding) -> HashMap<CountKey, u64> {
        sealed::read::<Counts>(&self.path, MAGIC, LIMIT)
            .filter(|c| c.encoding == encoding.name())
            .map(|c| c.entries.into_iter().collect())
            .unwrap_or_default()
    }

    /// Replaces the file with `entries`, atomically.
    pub fn save(&self, encoding: Encoding, entries: &[(CountKey, u64)]) -> Result<()> {
        let counts = Counts {
            encoding: encoding.name().to_string(),
            entries: entries.to_vec(),
        };
        sealed::write(&self.path, MAGIC, &counts)
    }
}

/// What a count file holds: the encoding its counts are in, and each
/// message's count by its key.
#[derive(serde::Serialize, serde::Deserialize)]
struct Counts {
    encoding: String,
    entries: Vec<(CountKey, u64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::{Context, tokens};
    use crate::store::ops::counting::{message_counts, message_counts_kept};
    use std::path::Path;

    #[test]
    fn round_trip_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CountCache::at(dir.path().join("counts"));
        assert!(cache.load(Encoding::Cl100kBase).is_empty(), "missing");
        let a = key(Encoding::Cl100kBase, "user: hello");
        let b = key(Encoding::Cl100kBase, "user: hello!");
        assert_ne!(a, b);
        assert_ne!(a, key(Encoding::O200kBase, "user: hello"));
        cache.save(Encoding::Cl100kBase, &[(a, 3), (b, 4)]).unwrap();
        let loaded = cache.load(Encoding::Cl100kBase);
        assert_eq!((loaded.get(&a), loaded.get(&b)), (Some(&3), Some(&4)));
        assert!(
            cache.load(Encoding::O200kBase).is_empty(),
            "another encoding"
        );
        // Any byte changed, or the file cut short, and nothing is used.
        let good = std::fs::read(cache.path()).unwrap();
        for at in [0, 9, 20, good.len() - 40, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 1;
            std::fs::write(cache.path(), &bad).unwrap();
            assert!(cache.load(Encoding::Cl100kBase).is_empty(), "byte {at}");
        }
        std::fs::write(cache.path(), &good[..good.len() - 5]).unwrap();
        assert!(cache.load(Encoding::Cl100kBase).is_empty(), "truncated");
    }

    /// A context of `texts` as user messages.
    fn context(texts: &[&str]) -> Context {
        let messages: Vec<serde_json::Value> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| serde_json::json!({"role": "user", "id": format!("m{i}"), "content": t}))
            .collect();
        let raw = serde_json::json!({"id": "c", "messages": messages});
        let serde_json::Value::Object(raw) = raw else {
            unreachable!()
        };
        Context::from_raw(raw, Path::new("c.json")).unwrap()
    }

    #[test]
    fn counts_kept_are_used_and_never_wrong() {
        let enc = Encoding::Cl100kBase;
        let dir = tempfile::tempdir().unwrap();
        let cache = CountCache::at(dir.path().join("counts"));
        let texts = [
            "hello there",
            "a longer message with more words in it",
            "ok",
        ];
        let ctx = context(&texts);
        let truth = message_counts(&ctx, enc).unwrap();
        // Missing: counted, and kept.
        assert_eq!(message_counts_kept(&ctx, enc, Some(&cache)).unwrap(), truth);
        assert_eq!(cache.load(enc).len(), 3);
        // Kept counts are what is used: a planted one shows (so the next
        // checks could fail).
        let first = ctx.message(0).unwrap();
        let planted = key(enc, &tokens::message_text(&first));
        let mut entries: Vec<(CountKey, u64)> = cache.load(enc).into_iter().collect();
        entries.iter_mut().find(|(k, _)| *k == planted).unwrap().1 = 999;
        cache.save(enc, &entries).unwrap();
        assert_eq!(
            message_counts_kept(&ctx, enc, Some(&cache)).unwrap()[0],
            999
        );
        // Stale: the message changed, so its key did; counted afresh.
        let changed = context(&["hello there, and more", texts[1], texts[2]]);
        let truth_changed = message_counts(&changed, enc).unwrap();
        assert_ne!(truth_changed[0], truth[0]);
        assert_eq!(
            message_counts_kept(&changed, enc, Some(&cache)).unwrap(),
            truth_changed
        );
        // Corrupt: a byte of a count flipped; the file is not used.
        cache.save(enc, &entries).unwrap();
        let mut bytes = std::fs::read(cache.path()).unwrap();
        let at = bytes.len() - 32 - 2;
        bytes[at] ^= 0x40;
        std::fs::write(cache.path(), &bytes).unwrap();
        assert_eq!(message_counts_kept(&ctx, enc, Some(&cache)).unwrap(), truth);
        assert_eq!(cache.load(enc).get(&planted), Some(&truth[0]), "rewritten");
        // Missing again (removed): counted, kept again.
        std::fs::remove_file(cache.path()).unwrap();
        assert_eq!(message_counts_kept(&ctx, enc, Some(&cache)).unwrap(), truth);
        assert!(cache.path().is_file());
    }
}
