//! The one way a file the store reads is opened: never through a symbolic
//! link, never waiting (`O_NONBLOCK`: opening a FIFO for reading would wait
//! for a writer that may never come), and anything but a regular file (a
//! FIFO, a device, a socket, a directory) refused before a byte of it is
//! read, with what it is in the message.

use crate::store::error::{Result, StoreError};
use rustix::fd::OwnedFd;
use rustix::fs::{FileType, Mode, OFlags, Stat};
use std::path::Path;

/// `path` opened for reading, if it is a regular file reached without a
/// link.
pub fn regular(path: &Path) -> Result<std::fs::File> {
    regular_in(None, path).map(|(file, _)| file)
}

/// The bytes of the regular file `path` (opened as [`regular`]), when it
/// is not larger than `limit`: a bigger one is refused before a byte of
/// it is read (our own files, which can never be that large).
pub fn read_at_most(path: &Path, limit: u64) -> Result<Vec<u8>> {
    use crate::store::error::IoContext;
    use std::io::Read;
    let (file, size) = regular_at_most(path, limit)?;
    // Sized once from the look just taken: grown as it reads, a file of a
    // few megabytes was copied over and over (the listing cache, the
    // index's manifest).
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .ctx("read", path)?;
    Ok(bytes)
}

/// The regular file `path` (opened as [`regular`]) and its size, when it
/// is not larger than `limit`: a bigger one is refused before a byte of it
/// is read.
pub fn regular_at_most(path: &Path, limit: u64) -> Result<(std::fs::File, u64)> {
    let (file, st) = regular_stat(path)?;
    let size = st.st_size as u64;
    if size > limit {
        return Err(StoreError::Unsafe {
            path: path.to_path_buf(),
            reason: format!("it holds {size} bytes, more than such a file ever does ({limit})"),
        });
    }
    Ok((file, size))
}

/// [`regular`], and the file's `fstat` (its size and times), which the
/// check needed anyway.
pub fn regular_stat(path: &Path) -> Result<(std::fs::File, Stat)> {
    regular_in(None, path)
}

/// [`regular_stat`] of `path`, opened by its name relative to the open
/// folder `dir` that holds it when one is given (a listing opens each
/// folder once; the kernel then walks one name, not the whole path).
pub fn regular_in(dir: Option<&OwnedFd>, path: &Path) -> Result<(std::fs::File, Stat)> {
    // O_NONBLOCK makes opening a FIFO return at once; on a regular file it
    // changes nothing, so the flag is left set.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let opened = match (dir, path.file_name()) {
        (Some(dir), Some(name)) => rustix::fs::openat(dir, name, flags, Mode::empty()),
        _ => rustix::fs::open(path, flags, Mode::empty()),
    };
    let fd = opened.map_err(|e| match e {
        rustix::io::Errno::LOOP => StoreError::Unsafe {
            path: path.to_path_buf(),
            reason: "it is a symbolic link; session files are never read through links".into(),
        },
        e => StoreError::io("read", path, e.into()),
    })?;
    let st = rustix::fs::fstat(&fd).map_err(|e| StoreError::io("read", path, e.into()))?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Ok((std::fs::File::from(fd), st)),
        // As reading it would say (and as the corpus documents it).
        FileType::Directory => Err(StoreError::io(
            "read",
            path,
            std::io::Error::from_raw_os_error(rustix::io::Errno::ISDIR.raw_os_error()),
        )),
        other => Err(StoreError::Unsafe {
            path: path.to_path_buf(),
            reason: format!(
                "it is {}, not a regular file; it is not read",
                special(other)
            ),
        }),
    }
}

/// A file a person keeps (the config), opened for reading: through a link
/// (dotfiles often are links), but never waiting and only if it is a
/// regular file; an `io::Error` whose kind says a missing one.
pub fn regular_followed(path: &Path) -> std::io::Result<std::fs::File> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    let st = rustix::fs::fstat(&fd)?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Ok(std::fs::File::from(fd)),
        other => Err(std::io::Error::other(format!(
            "it is {}, not a regular file",
            match other {
                FileType::Directory => "a directory",
                other => special(other),
            }
        ))),
    }
}

/// What kind of special file `kind` is, in words.
fn special(kind: FileType) -> &'static str {
    match kind {
        FileType::Fifo => "a FIFO",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Socket => "a socket",
        _ => "a special file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_folders_are_refused_saying_what_they_are() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("s.jsonl");
        std::fs::write(&file, b"{}\n").unwrap();
        assert!(regular(&file).is_ok());
        let link = tmp.path().join("link.jsonl");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(
            regular(&link)
                .unwrap_err()
                .to_string()
                .contains("symbolic link")
        );
        let fifo = tmp.path().join("fifo.jsonl");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Refused at once, never waiting for a writer.
        assert!(
            regular(&fifo)
                .unwrap_err()
                .to_string()
                .contains("a FIFO, not a regular file")
        );
        assert!(
            regular(tmp.path())
                .unwrap_err()
                .to_string()
                .contains("directory")
        );
    }
}
