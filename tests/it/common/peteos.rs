//! The committed peteos fixtures (made by the real peteos) and running the
//! binary on a bare peteos sessions folder.

use super::command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The committed fixture sessions folder (read only).
pub fn fixture_sessions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/peteos/_peteos_config/.peteos/sessions")
}

/// What peteos computed for each fixture session.
pub fn expected() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peteos/expected.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A writable copy of the fixture sessions folder.
pub fn copy_folder() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions");
    for entry in std::fs::read_dir(fixture_sessions()).unwrap() {
        let entry = entry.unwrap();
        let to = dir.join(entry.file_name());
        std::fs::create_dir_all(&to).unwrap();
        for file in std::fs::read_dir(entry.path()).unwrap() {
            let file = file.unwrap();
            std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
        }
    }
    (tmp, dir)
}

/// Runs the binary on the peteos folder `dir`.
pub fn peteos(dir: &Path, args: &[&str]) -> std::process::Output {
    command()
        .arg("--peteos")
        .arg(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Parsed JSON stdout of a successful run on the peteos folder `dir`.
pub fn peteos_json(dir: &Path, args: &[&str]) -> Value {
    let out = peteos(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A cache for Python tiktoken holding cl100k_base, copied from the tables
/// tiktoken-rs was built with (byte for byte the published file), so that
/// peteos counts tokens without downloading them; None (tiktoken downloads)
/// when TIKTOKEN_CACHE_DIR is set already or the file is not found.
pub fn tiktoken_cache(work: &Path) -> Option<PathBuf> {
    if std::env::var_os("TIKTOKEN_CACHE_DIR").is_some() {
        return None;
    }
    let cargo = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let asset = std::fs::read_dir(cargo.join("registry/src"))
        .ok()?
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .filter(|c| c.file_name().to_string_lossy().starts_with("tiktoken-rs-"))
        .map(|c| c.path().join("assets/cl100k_base.tiktoken"))
        .find(|p| p.is_file())?;
    let cache = work.join("tiktoken-cache");
    std::fs::create_dir_all(&cache).ok()?;
    // The file name is the sha1 of the URL tiktoken downloads it from.
    std::fs::copy(
        asset,
        cache.join("9b5ad71b2ce5302211f9c61530b329a4922fc6a4"),
    )
    .ok()?;
    Some(cache)
}
