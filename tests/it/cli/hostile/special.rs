//! Cases of the hostile corpus that git cannot hold, made by the test: a
//! FIFO (an open for reading waits for a writer that never comes) or a
//! character device (`/dev/zero`, `/dev/urandom`: a read that never ends)
//! where the store expects a regular file. Each is damage, named; no
//! command waits on it. Device nodes need root (CI runs as root).

use super::{CTX, Case, META, SESSION, case};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A special file to make, relative to the session directory.
#[derive(Clone, Copy, Debug)]
pub enum Special {
    Fifo(&'static str),
    /// A character device: major, minor (1, 5 is /dev/zero; 1, 9 /dev/urandom).
    Device(&'static str, u32, u32),
}

/// A generated case: a healthy session of the corpus (`base`) with one of
/// its files replaced by a special file.
pub struct Generated {
    pub case: Case,
    pub base: &'static str,
    pub special: Special,
}

const HEALTHY: &str = "context-string-content";
const NOT_REGULAR: Option<&str> = Some("not a regular file");

const fn generated(case: Case, special: Special) -> Generated {
    Generated {
        case,
        base: HEALTHY,
        special,
    }
}

#[rustfmt::skip]
pub const GENERATED: &[Generated] = &[
    generated(case("meta-fifo", NOT_REGULAR, META, [0, 2, 2], false), Special::Fifo("meta.json")),
    generated(case("session-json-fifo", NOT_REGULAR, SESSION, [2, 2, 2], false), Special::Fifo("memory/session.json")),
    generated(case("context-fifo", NOT_REGULAR, CTX, [2, 2, 2], false), Special::Fifo("memory/ctx.json")),
    // A context that is not the active one: the session stays readable.
    generated(case("fork-context-fifo", None, None, [0, 0, 0], true), Special::Fifo("memory/old.json")),
    generated(case("meta-dev-zero", NOT_REGULAR, META, [0, 2, 2], false), Special::Device("meta.json", 1, 5)),
    generated(case("session-json-dev-urandom", NOT_REGULAR, SESSION, [2, 2, 2], false), Special::Device("memory/session.json", 1, 9)),
    generated(case("context-dev-zero", NOT_REGULAR, CTX, [2, 2, 2], false), Special::Device("memory/ctx.json", 1, 5)),
];

/// True when this process may make device nodes.
pub fn can_make_devices() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Replaces `session_dir/<file>` by the special file.
pub fn make(session_dir: &Path, special: Special) {
    let (file, mode, device) = match special {
        Special::Fifo(file) => (file, libc::S_IFIFO | 0o600, 0),
        Special::Device(file, major, minor) => {
            (file, libc::S_IFCHR | 0o600, libc::makedev(major, minor))
        }
    };
    let path = session_dir.join(file);
    let _ = std::fs::remove_file(&path);
    let c_path = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mknod only creates the node.
    let made = unsafe { libc::mknod(c_path.as_ptr(), mode, device) };
    assert_eq!(
        made,
        0,
        "mknod {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}
