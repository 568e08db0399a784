//! Real tmpfs mounts for the checks that need another filesystem or a full
//! disk (root only: CI runs them, a local run lists them as ignored).

use std::path::{Path, PathBuf};

/// Mounts a tmpfs of `size` (as `mount -o size=` reads it: `4m`) at `at`
/// (a directory made if missing).
pub fn mount_tmpfs(at: &Path, size: &str) -> PathBuf {
    std::fs::create_dir_all(at).unwrap();
    let status = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(at)
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "mounting a tmpfs needs root (and CAP_SYS_ADMIN); run this check as root, as CI does"
    );
    at.to_path_buf()
}

/// When dropped, unmounts every mount under its path, deepest first: also
/// one that a faulty purge moved along with its session.
pub struct UnmountAllUnder(pub PathBuf);

impl Drop for UnmountAllUnder {
    fn drop(&mut self) {
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        let mut points: Vec<&str> = mounts
            .lines()
            .filter_map(|line| line.split(' ').nth(1))
            .filter(|p| Path::new(p).starts_with(&self.0))
            .collect();
        points.sort_by_key(|p| std::cmp::Reverse(p.len()));
        for point in points {
            let _ = std::process::Command::new("umount").arg(point).status();
        }
    }
}
