//! OpenCode's database opened for reading and nothing else. SQLite writes
//! files beside a database in WAL mode (`-wal`, `-shm`) for any reader
//! that opens it normally, and OpenCode deletes them when it closes: a
//! reader opening it while OpenCode is not running would leave them
//! behind. So:
//!
//! - while both are there (OpenCode has it open), it is opened read-only
//!   and read in one transaction: a snapshot, consistent while OpenCode
//!   writes (SQLite's WAL readers never block its writer nor see half of
//!   a write);
//! - else it is opened immutable, which writes nothing; if the database
//!   changed meanwhile (OpenCode started, or started and stopped), what
//!   was read is thrown away and read again, as the files then call for.
//!
//! The file is checked first: a regular file, not a link (and SQLite is
//! told not to follow one), so a FIFO never blocks us.

use crate::store::error::{Result, StoreError};
use crate::store::fs::stamp::FileStamp;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Reads of a database that changes under an immutable read, at most.
const ATTEMPTS: usize = 3;

/// How long a read waits for OpenCode's writer to let go (a checkpoint).
const BUSY_WAIT: Duration = Duration::from_secs(2);

/// The database's stamp; an error unless it is a regular file.
fn stamp(path: &Path) -> Result<FileStamp> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| StoreError::io("read", path, e))?;
    if !meta.file_type().is_file() {
        return Err(StoreError::Invalid(format!(
            "{} is not a regular file, so it is not read as OpenCode's database",
            path.display()
        )));
    }
    FileStamp::at(path).ok_or_else(|| StoreError::NotFound(path.display().to_string()))
}

/// `path` with `suffix` added to its name (`opencode.db-wal`).
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// True while OpenCode (or any WAL writer) has the database open: its
/// `-wal` and `-shm` files are there.
fn in_use(path: &Path) -> bool {
    let there = |p: PathBuf| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    there(beside(path, "-wal")) && there(beside(path, "-shm"))
}

/// A `file:` URI naming `path`, every byte that is not plainly safe
/// percent-encoded (a `?` or `#` in a folder's name is not a parameter).
fn uri(path: &Path, immutable: bool) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file:");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push_str(if immutable {
        "?mode=ro&immutable=1"
    } else {
        "?mode=ro"
    });
    out
}

fn open(path: &Path, immutable: bool) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let failed = |e: rusqlite::Error| {
        StoreError::Damaged(format!(
            "{}: could not be opened as OpenCode's database ({e})",
            path.display()
        ))
    };
    let conn = Connection::open_with_flags(uri(path, immutable), flags).map_err(failed)?;
    conn.busy_timeout(BUSY_WAIT).map_err(failed)?;
    conn.pragma_update(None, "query_only", true)
        .map_err(failed)?;
    Ok(conn)
}

/// Runs `read` on the database `path`, opened as the module says, inside
/// one read transaction.
pub fn read<T>(path: &Path, read: impl Fn(&Connection) -> rusqlite::Result<T>) -> Result<T> {
    let failed = |e: rusqlite::Error| {
        StoreError::Damaged(format!(
            "{}: OpenCode's database could not be read ({e})",
            path.display()
        ))
    };
    let in_snapshot = |conn: &Connection| -> rusqlite::Result<T> {
        let tx = conn.unchecked_transaction()?;
        let out = read(&tx)?;
        tx.finish()?;
        Ok(out)
    };
    for _ in 0..ATTEMPTS {
        let before = stamp(path)?;
        let immutable = !in_use(path);
        let conn = open(path, immutable)?;
        let out = in_snapshot(&conn);
        drop(conn);
        // Read as OpenCode's reader: a snapshot. Read immutable: good only
        // if OpenCode did not start (or start and stop) meanwhile; else
        // read again, as whichever the files now call for.
        if !immutable || (stamp(path)? == before && !in_use(path)) {
            return out.map_err(failed);
        }
    }
    Err(StoreError::Busy(format!(
        "{}: OpenCode's database changed every time it was read; try again",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_name_with_uri_characters_is_encoded() {
        assert_eq!(
            uri(Path::new("/a b/x?y#z%.db"), false),
            "file:/a%20b/x%3Fy%23z%25.db?mode=ro"
        );
        assert!(uri(Path::new("/d/o.db"), true).ends_with("?mode=ro&immutable=1"));
    }
}
