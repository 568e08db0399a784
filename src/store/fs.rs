//! The file system, carefully: atomic writes (temp file, fsync, rename,
//! fsync the directory), JSON files laid out as peteos writes them, the
//! per-session lock, and facts about directories (size, mounts, owner).

pub mod atomic;
pub mod disk;
pub mod jsonfile;
pub mod lock;
