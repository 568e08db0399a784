//! The file system, carefully: the one safe open of a file read (`open`),
//! atomic writes (temp file, fsync, rename, fsync the directory), the
//! per-session lock, which names are plain file
//! names, facts about directories (size, mounts, owner), and watching
//! folders for changes (`watch`: notifications, polling). The bottom
//! layer: it knows no format.

pub mod atomic;
pub mod beneath;
pub mod disk;
pub mod lock;
pub mod mapped;
pub mod names;
pub mod open;
pub mod sealed;
pub mod stamp;
pub mod trash;
pub mod watch;
