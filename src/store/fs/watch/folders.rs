//! The folders a watcher covers: found under the roots (down to each
//! root's depth, links not followed, hidden names skipped), ranked by when
//! they last changed, and polled when they hold no watch, file by file:
//! the roots and the folders changed in the last minutes at every poll,
//! the others in turns (a share at each poll), those unchanged for a day
//! at a slower pace. A look stats the folder and the files it knows; the
//! folder is read again only when its own stamp moved (a name came or
//! went), so an idle store costs a few `stat` calls a second.

use super::WatchRoot;
use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A folder covered.
struct Folder {
    path: PathBuf,
    root: usize,
    depth: usize,
    watched: bool,
    /// The folder's own stamp (modification and change times, inode).
    stamp: u64,
    /// When it last changed, as an order: its modification time (ns) when
    /// found, then a counter above every time seen.
    changed: u64,
    /// Its entries and their stamps, sorted by name, when polled file by file.
    entries: Option<Vec<(OsString, u64)>>,
    /// When it last changed, in seconds since the epoch: its modification
    /// time when found, then the time each change was seen.
    changed_at: f64,
    /// When a cold round may look at it next (seconds since the epoch).
    next_look: f64,
}

/// How often polled folders are looked at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    /// At most this many polled folders changed within `hot_for` are
    /// looked at every poll.
    pub hot: usize,
    /// How recently a folder changed to be looked at every poll (seconds).
    pub hot_for: f64,
    /// The share of every folder the cold round passes at this poll.
    pub cold_share: f64,
    /// A folder unchanged for a day is looked at once in this many
    /// seconds at most (the cold round passes it by until then).
    pub quiet_interval: f64,
}

/// A folder unchanged for this long (seconds) is quiet: its cold looks
/// come at [`Pace::quiet_interval`].
const QUIET_AFTER: f64 = 86_400.0;

/// How long a ranking of the hot folders is kept (seconds) when nothing
/// changes: folders age out of the hot set as time passes.
const HOT_RANK_KEPT: f64 = 10.0;

/// What a poll found.
#[derive(Default)]
pub(super) struct Polled {
    /// Paths that changed, appeared or went.
    pub changed: Vec<PathBuf>,
    /// Polled folders that changed: they should get a watch.
    pub promote: Vec<usize>,
    /// Folders found new.
    pub added: Vec<usize>,
}

/// Every folder covered.
pub(super) struct Folders {
    roots: Vec<WatchRoot>,
    list: Vec<Folder>,
    by_path: HashMap<PathBuf, usize>,
    watched: usize,
    cold_cursor: usize,
    clock: u64,
    /// The polled folders looked at every poll, a mark for each folder
    /// that is one of them, and when they were ranked; kept while neither
    /// the ranking, the watches nor the list changed, for a few seconds
    /// (on a large store, ranking the polled folders at every poll cost
    /// more than the looks).
    hot: Option<(Vec<usize>, Vec<bool>, f64)>,
    /// Whether each root was there when last looked at (a root that goes
    /// is said once, and looked for until it is back).
    present: Vec<bool>,
}

fn stamp_of(meta: &std::fs::Metadata) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino(),
    )
        .hash(&mut h);
    h.finish()
}

fn mtime_seconds(meta: &std::fs::Metadata) -> f64 {
    meta.mtime() as f64 + meta.mtime_nsec() as f64 / 1e9
}

fn mtime_ns(meta: &std::fs::Metadata) -> u64 {
    (meta.mtime().max(0) as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(meta.mtime_nsec().max(0) as u64)
}

/// A real folder (not a link), with its metadata.
fn folder_meta(path: &Path) -> Option<std::fs::Metadata> {
    std::fs::symlink_metadata(path).ok().filter(|m| m.is_dir())
}

fn hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

impl Folders {
    /// The folders under `roots` as they are now.
    pub fn discover(roots: &[WatchRoot]) -> Folders {
        let mut folders = Folders {
            roots: roots.to_vec(),
            list: Vec::new(),
            by_path: HashMap::new(),
            watched: 0,
            cold_cursor: 0,
            clock: 0,
            hot: None,
            present: Vec::new(),
        };
        for (root, r) in roots.iter().enumerate() {
            folders.add_tree(&r.dir, root, 0, &mut Vec::new());
        }
        // Kept for the whole run: nothing of the doubling's slack.
        folders.list.shrink_to_fit();
        folders.by_path.shrink_to_fit();
        folders.present = folders.roots_there();
        folders.clock = folders.list.iter().map(|f| f.changed).max().unwrap_or(0);
        // The roots are always looked at file by file: sessions come and go there.
        for f in folders.list.iter_mut().filter(|f| f.depth == 0) {
            f.entries = Some(read_entries(&f.path));
        }
        folders
    }

    /// Adds `dir` and its folders down to the root's depth; pushes the new indices.
    fn add_tree(&mut self, dir: &Path, root: usize, depth: usize, added: &mut Vec<usize>) {
        if self.by_path.contains_key(dir) {
            return;
        }
        let Some(meta) = folder_meta(dir) else {
            return;
        };
        let index = self.list.len();
        self.hot = None;
        self.list.push(Folder {
            path: dir.to_path_buf(),
            root,
            depth,
            watched: false,
            stamp: stamp_of(&meta),
            changed: mtime_ns(&meta),
            entries: None,
            changed_at: mtime_seconds(&meta),
            next_look: 0.0,
        });
        self.by_path.insert(dir.to_path_buf(), index);
        added.push(index);
        if depth >= self.roots[root].depth {
            return;
        }
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in read.flatten() {
            let name = entry.file_name();
            if hidden(&name)
                || !self.roots[root].admits(depth + 1, &name)
                || !entry.file_type().is_ok_and(|t| t.is_dir())
            {
                continue;
            }
            self.add_tree(&entry.path(), root, depth + 1, added);
        }
    }

    /// Whether each root is covered now.
    fn roots_there(&self) -> Vec<bool> {
        self.roots
            .iter()
            .map(|r| self.by_path.contains_key(&r.dir))
            .collect()
    }

    /// The roots that went since the last call (each said once).
    pub fn roots_gone(&mut self) -> Vec<PathBuf> {
        let now = self.roots_there();
        let gone = (0..self.roots.len())
            .filter(|&r| self.present[r] && !now[r])
            .map(|r| self.roots[r].dir.clone())
            .collect();
        self.present = now;
        gone
    }

    /// Drops the roots that are not there any more (a notification for a
    /// root's own removal is not had everywhere: it is looked at).
    pub fn check_roots(&mut self) {
        for root in 0..self.roots.len() {
            let dir = self.roots[root].dir.clone();
            if self.by_path.contains_key(&dir) && folder_meta(&dir).is_none() {
                self.remove_tree(&dir);
            }
        }
    }

    /// Takes in again the roots that are there again (or there for the
    /// first time): their paths, and the folders added.
    pub fn roots_back(&mut self) -> (Vec<PathBuf>, Vec<usize>) {
        let mut back = Vec::new();
        let mut added = Vec::new();
        for root in 0..self.roots.len() {
            if self.present[root] {
                continue;
            }
            let dir = self.roots[root].dir.clone();
            if folder_meta(&dir).is_none() {
                continue;
            }
            let first = added.len();
            self.add_tree(&dir, root, 0, &mut added);
            if let Some(&index) = added.get(first) {
                self.list[index].entries = Some(read_entries(&dir));
            }
            let t = self.tick();
            for &i in &added[first..] {
                self.list[i].changed = t;
            }
            self.present[root] = true;
            back.push(dir);
        }
        (back, added)
    }

    /// Folders covered.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Folders holding a watch.
    pub fn watched_count(&self) -> usize {
        self.watched
    }

    /// Folders polled.
    pub fn polled_count(&self) -> usize {
        self.list.len() - self.watched
    }

    /// The path of folder `index`.
    pub fn path(&self, index: usize) -> &Path {
        &self.list[index].path
    }

    /// True when folder `index` holds a watch.
    pub fn is_watched(&self, index: usize) -> bool {
        self.list[index].watched
    }

    /// Records whether folder `index` holds a watch.
    pub fn set_watched(&mut self, index: usize, watched: bool) {
        let f = &mut self.list[index];
        if f.watched != watched {
            self.hot = None;
            f.watched = watched;
            if watched {
                self.watched += 1;
                f.entries = None;
            } else {
                self.watched -= 1;
                if f.depth == 0 {
                    f.entries = Some(read_entries(&f.path));
                }
            }
        }
    }

    /// Every folder, the roots first, then the most recently changed.
    pub fn by_priority(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.list.len()).collect();
        order.sort_by_key(|&i| {
            (
                self.list[i].depth != 0,
                std::cmp::Reverse(self.list[i].changed),
            )
        });
        order
    }

    /// The watched folder (not a root) unchanged for longest.
    pub fn stalest_watched(&self) -> Option<usize> {
        (0..self.list.len())
            .filter(|&i| self.list[i].watched && self.list[i].depth != 0)
            .min_by_key(|&i| self.list[i].changed)
    }

    /// The paths of folder `index`'s entries, and its own.
    pub fn entries(&self, index: usize) -> Vec<PathBuf> {
        let path = &self.list[index].path;
        let mut out = vec![path.clone()];
        if let Ok(read) = std::fs::read_dir(path) {
            out.extend(read.flatten().map(|e| e.path()));
        }
        out
    }

    fn tick(&mut self) -> u64 {
        self.hot = None;
        self.clock += 1;
        self.clock
    }

    /// `path` was reported changed at `now`: the folder holding it ranks
    /// as just changed.
    pub fn touched(&mut self, path: &Path, now: f64) {
        let index = self
            .by_path
            .get(path)
            .or_else(|| path.parent().and_then(|p| self.by_path.get(p)))
            .copied();
        if let Some(index) = index {
            let t = self.tick();
            self.list[index].changed = t;
            self.list[index].changed_at = now;
        }
    }

    /// An event named `path`: a folder that appeared below one covered (and
    /// within its root's depth) is added, with its own folders; a covered
    /// folder that went is dropped. Returns the folders added, and whether
    /// any went.
    pub fn on_path(&mut self, path: &Path) -> (Vec<usize>, bool) {
        let mut added = Vec::new();
        if self.by_path.contains_key(path) {
            if folder_meta(path).is_none() {
                self.remove_tree(path);
                return (added, true);
            }
            return (added, false);
        }
        let Some(parent) = path.parent().and_then(|p| self.by_path.get(p)).copied() else {
            return (added, false);
        };
        let (root, depth) = (self.list[parent].root, self.list[parent].depth);
        if depth < self.roots[root].depth
            && path
                .file_name()
                .is_some_and(|n| !hidden(n) && self.roots[root].admits(depth + 1, n))
            && folder_meta(path).is_some()
        {
            self.add_tree(path, root, depth + 1, &mut added);
            let t = self.tick();
            for &i in &added {
                self.list[i].changed = t;
            }
        }
        (added, false)
    }

    /// Drops the folder at `path` and every folder below it.
    fn remove_tree(&mut self, path: &Path) {
        let gone: Vec<usize> = self
            .list
            .iter()
            .enumerate()
            .filter(|(_, f)| f.path.starts_with(path))
            .map(|(i, _)| i)
            .collect();
        self.hot = None;
        // From the end, so swap_remove moves only entries not yet visited.
        for index in gone.into_iter().rev() {
            let folder = self.list.swap_remove(index);
            if folder.watched {
                self.watched -= 1;
            }
            self.by_path.remove(&folder.path);
            if let Some(moved) = self.list.get(index) {
                self.by_path.insert(moved.path.clone(), index);
            }
        }
        self.cold_cursor = self.cold_cursor.min(self.list.len());
    }

    /// Looks at the polled folders at `now`: the roots and the hot ones
    /// (changed within `pace.hot_for`), and the folders the cold round
    /// passes whose turn has come.
    pub fn poll(&mut self, now: f64, pace: Pace) -> Polled {
        let mut out = Polled::default();
        if self.list.len() == self.watched {
            return out;
        }
        let (hot_list, is_hot, ranked_at) = match self.hot.take() {
            Some(cached) if now - cached.2 < HOT_RANK_KEPT => cached,
            _ => self.rank_hot(pace.hot, now - pace.hot_for, now),
        };
        let mut looked: Vec<usize> = hot_list.clone();
        // The cold round passes every folder once in `1 / cold_share`
        // polls, and looks at the polled ones whose turn has come.
        let steps =
            ((self.list.len() as f64 * pace.cold_share).ceil() as usize).min(self.list.len());
        for _ in 0..steps {
            let i = self.cold_cursor % self.list.len();
            self.cold_cursor = (self.cold_cursor + 1) % self.list.len();
            let f = &mut self.list[i];
            if !f.watched && !is_hot[i] && now >= f.next_look {
                let quiet = now - f.changed_at > QUIET_AFTER;
                f.next_look = if quiet {
                    now + pace.quiet_interval
                } else {
                    0.0
                };
                looked.push(i);
            }
        }
        // Paths, not indices: a folder that went reshuffles the list.
        let paths: Vec<PathBuf> = looked.iter().map(|&i| self.list[i].path.clone()).collect();
        // Kept for the next poll unless a look changes what it rests on.
        self.hot = Some((hot_list, is_hot, ranked_at));
        for path in paths {
            self.look(&path, now, &mut out);
        }
        out
    }

    /// The roots and at most `hot` polled folders changed since `since`,
    /// the most recent first, marked.
    fn rank_hot(&mut self, hot: usize, since: f64, now: f64) -> (Vec<usize>, Vec<bool>, f64) {
        let mut polled: Vec<usize> = (0..self.list.len())
            .filter(|&i| {
                let f = &self.list[i];
                !f.watched && (f.depth == 0 || f.changed_at >= since)
            })
            .collect();
        let roots = polled.iter().filter(|&&i| self.list[i].depth == 0).count();
        let hot_count = (hot + roots).min(polled.len());
        if hot_count < polled.len() {
            polled.select_nth_unstable_by_key(hot_count, |&i| {
                (
                    self.list[i].depth != 0,
                    std::cmp::Reverse(self.list[i].changed),
                )
            });
        }
        polled.truncate(hot_count);
        let mut is_hot = vec![false; self.list.len()];
        for &i in &polled {
            is_hot[i] = true;
        }
        (polled, is_hot, now)
    }

    /// Looks at one folder file by file (the first look only learns the
    /// files): an append in place moves a file's stamp, never the
    /// folder's. Hot folders are looked at every poll, the others in turns.
    fn look(&mut self, path: &Path, now: f64, out: &mut Polled) {
        let Some(&index) = self.by_path.get(path) else {
            return;
        };
        let Some(meta) = folder_meta(path) else {
            self.remove_tree(path);
            out.changed.push(path.to_path_buf());
            return;
        };
        let stamp = stamp_of(&meta);
        let folder = &self.list[index];
        // Folders inside are known by name, and names change the folder's
        // own stamp: a folder holding only folders (a root of 10,000
        // sessions) is read again only when that stamp moves.
        let only_folders = |e: &Vec<(OsString, u64)>| e.iter().all(|(_, s)| *s == 0);
        if stamp == folder.stamp && folder.entries.as_ref().is_some_and(only_folders) {
            return;
        }
        let before = self.list[index].entries.take();
        // The same stamp: the same names, so only the files' stamps are
        // taken again (no read of the folder).
        let entries = match &before {
            Some(before) if stamp == self.list[index].stamp => {
                restat_entries(path, before).unwrap_or_else(|| read_entries(path))
            }
            _ => read_entries(path),
        };
        let mut changed = Vec::new();
        match &before {
            Some(before) => {
                diff_entries(before, &entries, &mut |name| changed.push(path.join(name)))
            }
            None if stamp != self.list[index].stamp => {
                changed.extend(entries.iter().map(|(name, _)| path.join(name)));
            }
            None => {}
        }
        let stamp_moved = stamp != self.list[index].stamp;
        if stamp_moved || !changed.is_empty() {
            changed.push(path.to_path_buf());
        }
        let (root, depth) = (self.list[index].root, self.list[index].depth);
        self.list[index].stamp = stamp;
        self.list[index].entries = Some(entries);
        if changed.is_empty() {
            return;
        }
        let t = self.tick();
        self.list[index].changed = t;
        self.list[index].changed_at = now;
        self.list[index].next_look = 0.0;
        if depth != 0 {
            out.promote.push(index);
        }
        // Folders that appeared inside, within the root's depth.
        if depth < self.roots[root].depth {
            for p in &changed {
                let admitted = p
                    .file_name()
                    .is_some_and(|n| !hidden(n) && self.roots[root].admits(depth + 1, n));
                if p != path
                    && admitted
                    && !self.by_path.contains_key(p)
                    && folder_meta(p).is_some()
                {
                    self.add_tree(p, root, depth + 1, &mut out.added);
                } else if p != path && self.by_path.contains_key(p) && folder_meta(p).is_none() {
                    self.remove_tree(p);
                }
            }
        }
        out.changed.extend(changed);
    }
}

/// The entries of `dir` with their stamps, sorted by name (links not
/// followed). A folder inside is known by its name alone: what changes in
/// it is seen by looking at it (when it is within the watched depth), and
/// a stat of every session folder of a polled root at every poll cost a
/// share of a core that grew with the store.
fn read_entries(dir: &Path) -> Vec<(OsString, u64)> {
    let mut out: Vec<(OsString, u64)> = match std::fs::read_dir(dir) {
        Ok(read) => read
            .flatten()
            .map(|e| {
                let stamp = if e.file_type().is_ok_and(|t| t.is_dir()) {
                    0
                } else {
                    std::fs::symlink_metadata(e.path()).map_or(0, |m| stamp_of(&m))
                };
                (e.file_name(), stamp)
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The entries of `dir` known as `before`, each file's stamp taken again
/// by its name (folders keep 0); None when one is not there any more
/// (the folder is then read whole).
fn restat_entries(dir: &Path, before: &[(OsString, u64)]) -> Option<Vec<(OsString, u64)>> {
    before
        .iter()
        .map(|(name, old)| {
            if *old == 0 {
                return Some((name.clone(), 0));
            }
            let meta = std::fs::symlink_metadata(dir.join(name)).ok()?;
            Some((
                name.clone(),
                if meta.is_dir() { 0 } else { stamp_of(&meta) },
            ))
        })
        .collect()
}

/// Calls `changed` with each name new, gone or with another stamp.
fn diff_entries(
    before: &[(OsString, u64)],
    now: &[(OsString, u64)],
    changed: &mut dyn FnMut(&std::ffi::OsStr),
) {
    let (mut a, mut b) = (0, 0);
    while a < before.len() || b < now.len() {
        match (before.get(a), now.get(b)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                if x.1 != y.1 {
                    changed(&y.0);
                }
                a += 1;
                b += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                changed(&x.0);
                a += 1;
            }
            (Some(_), Some(y)) => {
                changed(&y.0);
                b += 1;
            }
            (Some(x), None) => {
                changed(&x.0);
                a += 1;
            }
            (None, Some(y)) => {
                changed(&y.0);
                b += 1;
            }
            (None, None) => break,
        }
    }
}
