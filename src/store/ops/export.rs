//! Exporting a context as a transcript, and writing it to a file outside
//! the sessions: never over an existing file unless asked, never inside a
//! session's tree (where it would become part of the session).

use crate::store::error::{Result, StoreError};
use crate::store::format::transcript::{self, TranscriptFormat, TranscriptHeader};
use crate::store::format::{Context, Session};
use crate::store::fs::atomic;
use crate::store::ops::contexts;
use crate::store::ops::forking;
use crate::store::sources::record::SessionRecord;
use std::path::{Path, PathBuf};

/// The transcript of context `context` (an id or unique prefix; None: the
/// active one) of the session `record`. Reads only.
pub fn transcript(
    record: &SessionRecord,
    context: Option<&str>,
    format: TranscriptFormat,
    usage: Option<&str>,
) -> Result<String> {
    if record.agent.is_external() {
        return crate::store::ops::agent_threads::transcript(record, context, format, usage);
    }
    let dir = &record.conversation_dir;
    let session = Session::load(dir)?;
    let ctx: Context = match context {
        Some(arg) => session.load_context(&contexts::find(dir, arg)?)?,
        None => forking::active(&session)?,
    };
    let header = TranscriptHeader {
        session_id: &record.id,
        name: &record.name,
        usage,
    };
    Ok(transcript::render(&ctx, format, header))
}

/// Context `arg` (an id or unique prefix) of `record`, whoever's it is.
pub fn context(record: &SessionRecord, arg: &str) -> Result<Context> {
    if record.agent.is_external() {
        return crate::store::ops::agent_threads::context(record, Some(arg));
    }
    let dir = &record.conversation_dir;
    let session = Session::load(dir)?;
    session.load_context(&contexts::find(dir, arg)?)
}

/// Writes `text` to `path` atomically. An existing file is replaced only
/// with `force`; a path inside any of the `forbidden` folders (the session
/// folder of the store, the session's own directory) is refused.
pub fn write(path: &Path, text: &str, force: bool, forbidden: &[&Path]) -> Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let real_parent = parent
        .canonicalize()
        .map_err(|e| StoreError::io("find the folder of", path, e))?;
    for folder in forbidden {
        let Ok(real) = folder.canonicalize() else {
            continue;
        };
        if real_parent.starts_with(&real) {
            return Err(StoreError::Unsafe {
                path: path.to_path_buf(),
                reason: format!(
                    "it lies inside the session tree {}; export to a file outside it",
                    folder.display()
                ),
            });
        }
    }
    let exists = std::fs::symlink_metadata(path).is_ok();
    if exists && path.is_dir() {
        return Err(StoreError::Invalid(format!(
            "{} is a directory; name a file",
            path.display()
        )));
    }
    if exists && !force {
        return Err(StoreError::Exists {
            path: path.to_path_buf(),
        });
    }
    if force {
        atomic::write_atomic(path, text.as_bytes())
    } else {
        atomic::create_new_atomic(path, text.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_never_replaced_unasked_nor_written_in_the_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let tree = tmp.path().join("sessions");
        std::fs::create_dir_all(tree.join("s1")).unwrap();
        let out = tmp.path().join("out.md");
        write(&out, "one", false, &[&tree]).unwrap();
        let err = write(&out, "two", false, &[&tree]).unwrap_err();
        assert!(matches!(err, StoreError::Exists { .. }), "{err}");
        assert!(err.to_string().contains("exists already"), "{err}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "one");
        write(&out, "two", true, &[&tree]).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "two");
        let inside = tree.join("s1").join("t.md");
        let err = write(&inside, "x", true, &[&tree]).unwrap_err().to_string();
        assert!(err.contains("inside the session tree"), "{err}");
        // Through a link to the tree, too.
        std::os::unix::fs::symlink(&tree, tmp.path().join("link")).unwrap();
        let err = write(&tmp.path().join("link/s1/t.md"), "x", true, &[&tree]).unwrap_err();
        assert!(err.to_string().contains("inside the session tree"), "{err}");
        assert!(!inside.exists());
        assert!(write(&tmp.path().join("none/t.md"), "x", false, &[&tree]).is_err());
    }
}
