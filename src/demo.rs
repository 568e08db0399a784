//! Realistic Loki stores for the demo, the tests and the benchmarks:
//! thousands of sessions with agent conversations, stale ones for purge to
//! find, one already trimmed, one long context, one marked active, one damaged.

pub mod agents;
mod conversation;
mod corpus;

use crate::store::error::{IoContext, Result};
use crate::store::format::SESSION_FILE;
use crate::store::format::ids;
use crate::store::format::jsonfile;
use crate::store::format::{Meta, name_from_prompt};
use crate::store::sources::layout::{Layout, SessionPaths};
use crate::store::{Change, Encoding, Mode, Store, Window};
use corpus::{Corpus, Rng};
use serde_json::{Map, Value, json};
use std::fs;
use std::path::Path;

const DAY: f64 = 86_400.0;

/// What to generate.
#[derive(Clone, Debug)]
pub struct DemoSpec {
    /// Number of sessions.
    pub sessions: usize,
    /// Average messages per session (varies from half to one and a half times).
    pub messages: usize,
    /// Messages of the one long session (0: none).
    pub big_context: usize,
    /// Seed of the random choices.
    pub seed: u64,
    /// Whose tree to fill.
    pub user: String,
    /// The time the store is made at (seconds since the epoch).
    pub now: f64,
    /// Add the special sessions (trimmed, active, damaged).
    pub extras: bool,
}

impl DemoSpec {
    /// The store `--demo` opens: a few hundred sessions.
    pub fn tui_demo(user: &str, now: f64) -> Self {
        DemoSpec {
            sessions: 300,
            messages: 24,
            big_context: 3000,
            seed: 42,
            user: user.to_string(),
            now,
            extras: true,
        }
    }
}

/// Ids of the sessions that matter to a tour of the demo.
#[derive(Clone, Debug, Default)]
pub struct DemoSummary {
    /// Sessions written.
    pub sessions: usize,
    /// The long session, if any.
    pub big: Option<String>,
    /// The session trimmed once.
    pub trimmed: Option<String>,
    /// The session marked `is_active`.
    pub active: Option<String>,
    /// The damaged session.
    pub damaged: Option<String>,
}

/// Writes the store under `root` and returns what it made. `progress(done)`
/// is called as sessions are written.
pub fn generate(
    root: &Path,
    spec: &DemoSpec,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<DemoSummary> {
    let layout = Layout::new(root, &spec.user)?;
    let folder = layout.sessions_dir();
    crate::store::fs::atomic::create_private_dir_all(&folder)?;
    let corpus = Corpus::load();
    let workers = crate::store::parallel::workers();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (corpus, folder, done) = (&corpus, &folder, &done);
                scope.spawn(move || -> Result<Vec<(usize, String)>> {
                    let mut made = Vec::new();
                    for index in (w..spec.sessions).step_by(workers) {
                        let size = if index == 0 && spec.big_context > 0 {
                            spec.big_context
                        } else {
                            let mut rng = Rng::new(spec.seed ^ (index as u64).wrapping_mul(31));
                            spec.messages / 2 + rng.below(spec.messages.max(1))
                        };
                        made.push((index, write_session(folder, spec, corpus, index, size)?));
                        progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
                    }
                    Ok(made)
                })
            })
            .collect();
        let mut all: Vec<(usize, String)> = Vec::new();
        for h in handles {
            all.extend(h.join().unwrap_or_else(|_| Ok(Vec::new()))?);
        }
        all.sort();
        Ok::<_, crate::store::StoreError>(all.into_iter().map(|(_, id)| id).collect())
    })?;
    let mut summary = DemoSummary {
        sessions: ids.len(),
        big: (spec.big_context > 0)
            .then(|| ids.first().cloned())
            .flatten(),
        ..DemoSummary::default()
    };
    if spec.extras && ids.len() >= 4 {
        summary.trimmed = Some(trim_once(root, &spec.user, &ids[1], spec.now)?);
        summary.active = Some(mark_active(&folder, &ids[2])?);
        summary.damaged = Some(damage(&folder, &ids[3])?);
    }
    Ok(summary)
}

/// Writes one session; returns its id.
fn write_session(
    folder: &Path,
    spec: &DemoSpec,
    corpus: &Corpus,
    index: usize,
    size: usize,
) -> Result<String> {
    let mut rng = Rng::new(spec.seed.wrapping_mul(0x1000_0001) ^ index as u64);
    let last_used = spec.now - age_days(index, spec.sessions, &mut rng) * DAY;
    let created = last_used - rng.unit() * 3.0 * DAY;
    let id = format!("{}-{}", &ids::dated_id(created)[..8], rng.uuid());
    let context_id = format!("{}-{}", &id[..8], rng.uuid());
    let first_prompt = *rng.pick(&corpus.prompts);

    let dir = folder.join(&id);
    let paths = SessionPaths::new(&dir);
    for d in [&dir, &paths.workspace(), &paths.memory(), &paths.cache()] {
        fs::create_dir_all(d).ctx("create", d)?;
    }
    let mut meta = Meta::new(
        &paths.meta(),
        &id,
        &name_from_prompt(first_prompt),
        &spec.user,
        first_prompt,
        created,
    );
    meta.touch(last_used);
    write(&paths.meta(), meta.raw_dict())?;
    let context =
        conversation::build_context(&mut rng, corpus, &context_id, first_prompt, size, created);
    write(&paths.memory().join(format!("{context_id}.json")), &context)?;
    let session = json!({"uuid": id, "active_context_id": context_id, "auto_approve_tools": [],
                         "state_data": {}, "is_active": false});
    write(&paths.memory().join(SESSION_FILE), &as_map(session))?;
    let notes = paths.workspace().join("NOTES.md");
    fs::write(&notes, format!("# {first_prompt}\n")).ctx("write", &notes)?;
    // Dated as a person's store is: each file and folder last changed when
    // the session was last used (what the watcher ranks folders by), the
    // folders after what is in them.
    let written = [
        paths.meta(),
        paths.memory().join(format!("{context_id}.json")),
        paths.memory().join(SESSION_FILE),
        notes,
        paths.workspace(),
        paths.memory(),
        paths.cache(),
        dir,
    ];
    for path in written {
        set_modified(&path, last_used)?;
    }
    Ok(id)
}

/// Sets the modification time of a file or folder to `seconds` since the epoch.
fn set_modified(path: &Path, seconds: f64) -> Result<()> {
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(seconds.max(0.0));
    fs::File::open(path)
        .and_then(|f| f.set_modified(when))
        .ctx("date", path)
}

/// Spread of last use: most sessions recent, a tail of old ones.
fn age_days(index: usize, total: usize, rng: &mut Rng) -> f64 {
    let position = index as f64 / total.max(1) as f64;
    if index < 3 {
        rng.unit() * 0.2
    } else if position > 0.9 {
        31.0 + rng.unit() * 60.0
    } else {
        position * 25.0 + rng.unit()
    }
}

/// Trims one session as a person would, through the store's door: its
/// old context stays, so the demo shows a session with two contexts. The
/// counts the trim keeps go to a scratch folder removed after it, never
/// the person's cache (a `--demo` store is itself removed at the end).
fn trim_once(root: &Path, user: &str, id: &str, now: f64) -> Result<String> {
    let scratch = tempfile::tempdir().ctx("create", &std::env::temp_dir())?;
    let store = Store::loki(root, user)?.with_cache_dir(scratch.path());
    let target = store.locate(id)?;
    store.change(
        &target,
        &Change::Window(Window::KeepMessages(8)),
        Encoding::Cl100kBase,
        Mode::Write { expected: None },
        now,
    )?;
    Ok(id.to_string())
}

fn mark_active(folder: &Path, id: &str) -> Result<String> {
    let path = SessionPaths::new(&folder.join(id))
        .memory()
        .join(SESSION_FILE);
    let mut session = jsonfile::read_object(&path)?;
    session.insert("is_active".into(), json!(true));
    write(&path, &session)?;
    Ok(id.to_string())
}

fn damage(folder: &Path, id: &str) -> Result<String> {
    let path = SessionPaths::new(&folder.join(id)).meta();
    let text = fs::read_to_string(&path).ctx("read", &path)?;
    fs::write(&path, &text[..text.len() / 2]).ctx("write", &path)?;
    Ok(id.to_string())
}

fn write(path: &Path, map: &Map<String, Value>) -> Result<()> {
    fs::write(path, jsonfile::render(map)).ctx("write", path)
}

fn as_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
