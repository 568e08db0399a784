//! Our own side files (caches kept beside the search index): one checked
//! format for all of them. A file is an 8-byte magic naming its format,
//! its contents in postcard, and the SHA-256 of both. A file that is
//! missing, larger than its limit, a link, of another format, altered or
//! cut short reads as nothing: a cache is then made again, never trusted.

use crate::store::error::Result;
use crate::store::fs::{atomic, open};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::path::Path;

/// Bytes of the SHA-256 at the end.
const SUM: usize = 32;

/// Writes `value` to `path` in the format `magic` names, atomically.
pub fn write<T: Serialize>(path: &Path, magic: &[u8; 8], value: &T) -> Result<()> {
    atomic::write_atomic(path, &sealed(magic, value))
}

/// The value in `path`, if it is a whole file of the format `magic` names
/// and at most `limit` bytes.
pub fn read<T: DeserializeOwned>(path: &Path, magic: &[u8; 8], limit: u64) -> Option<T> {
    let bytes = open::read_at_most(path, limit).ok()?;
    opened(magic, &bytes)
}

/// The bytes of a file holding `value`.
fn sealed<T: Serialize>(magic: &[u8; 8], value: &T) -> Vec<u8> {
    let mut out = magic.to_vec();
    // Into a Vec, of plain data: postcard cannot fail there.
    out.extend(postcard::to_stdvec(value).unwrap_or_default());
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    out
}

/// The value in `bytes`, if every check holds.
fn opened<T: DeserializeOwned>(magic: &[u8; 8], bytes: &[u8]) -> Option<T> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(SUM)?)?;
    if Sha256::digest(body).as_slice() != sum {
        return None;
    }
    let contents = body.strip_prefix(magic.as_slice())?;
    let (value, rest) = postcard::take_from_bytes(contents).ok()?;
    rest.is_empty().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: &[u8; 8] = b"LSTEST1\n";

    #[test]
    fn a_file_reads_back_only_whole_and_of_its_own_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("side");
        let value = vec![("a".to_string(), 1_u32), ("b".to_string(), 2)];
        assert_eq!(read::<Vec<(String, u32)>>(&path, MAGIC, 1 << 20), None);
        write(&path, MAGIC, &value).unwrap();
        assert_eq!(read(&path, MAGIC, 1 << 20), Some(value.clone()));
        assert_eq!(
            read::<Vec<(String, u32)>>(&path, b"LSOTHER\n", 1 << 20),
            None
        );
        assert_eq!(read::<Vec<(String, u32)>>(&path, MAGIC, 8), None, "limit");
        let good = std::fs::read(&path).unwrap();
        for at in 0..good.len() {
            let mut bad = good.clone();
            bad[at] ^= 1;
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(
                read::<Vec<(String, u32)>>(&path, MAGIC, 1 << 20),
                None,
                "{at}"
            );
        }
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert_eq!(read::<Vec<(String, u32)>>(&path, MAGIC, 1 << 20), None);
        let link = dir.path().join("link");
        std::fs::write(&path, &good).unwrap();
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert_eq!(read::<Vec<(String, u32)>>(&link, MAGIC, 1 << 20), None);
    }
}
