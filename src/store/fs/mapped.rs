//! The bytes of our own cache files, mapped from the page cache rather
//! than copied into new memory: the listing cache and the index's manifest
//! are a few megabytes each, read whole at every listing, and copying them
//! into fresh pages cost a listing of 10,000 sessions about 1,400 page
//! faults.

use crate::store::error::Result;
use std::path::Path;

/// A file's bytes: mapped, or read when it is empty.
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// The bytes of the regular file `path` (opened as
/// [`regular_at_most`](super::open::regular_at_most)), when it is not
/// larger than `limit`, mapped read-only.
///
/// Only for files that this program alone writes, in a folder only the
/// user may write, and only by renaming a finished file over them
/// (`fs::atomic`): a file mapped here is then never changed or cut short
/// while it is mapped (a file cut short under a mapping would stop the
/// process). The search index's own files in the same folder are mapped by
/// tantivy on the same terms.
pub fn map_own_at_most(path: &Path, limit: u64) -> Result<FileBytes> {
    use crate::store::error::IoContext;
    let (file, size) = super::open::regular_at_most(path, limit)?;
    if size == 0 {
        return Ok(FileBytes::Read(Vec::new()));
    }
    let len = usize::try_from(size).unwrap_or(usize::MAX);
    // SAFETY: the mapping is read-only and private, of a regular file
    // opened without a link; the file is replaced only by a rename (see
    // above), never written in place or truncated, so its bytes do not
    // change under the slice handed out. `populate` maps every page at
    // once (one call, no fault per page).
    let map =
        unsafe { memmap2::MmapOptions::new().len(len).populate().map(&file) }.ctx("map", path)?;
    Ok(FileBytes::Mapped(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_mapped_whole_and_an_empty_one_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.postcard");
        let bytes: Vec<u8> = (0..100_000u32).flat_map(u32::to_le_bytes).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mapped = map_own_at_most(&path, 1 << 20).unwrap();
        assert!(matches!(mapped, FileBytes::Mapped(_)));
        assert_eq!(&mapped[..], &bytes[..]);
        std::fs::write(&path, b"").unwrap();
        assert!(map_own_at_most(&path, 1 << 20).unwrap().is_empty());
    }

    /// A FIFO and the other non-regular files are refused by the same open
    /// as every read (`open::regular_at_most`, tested there).
    #[test]
    fn a_link_and_a_file_over_the_limit_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.postcard");
        std::fs::write(&path, vec![7u8; 4096]).unwrap();
        let err = map_own_at_most(&path, 4095).err().unwrap().to_string();
        assert!(err.contains("4096 bytes"), "{err}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(map_own_at_most(&link, 1 << 20).is_err());
    }
}
