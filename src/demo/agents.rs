//! Other agents' sessions made from their published formats, for the demo,
//! the tests and the benchmarks: Claude Code projects, Codex rollouts,
//! Gemini CLI chats, Copilot CLI and Qwen Code sessions, Cursor CLI
//! transcripts and an OpenCode database under one home folder
//! (`.claude/projects`, `.codex`, `.gemini`, `.copilot`, `.qwen`,
//! `.cursor`, `.local/share/opencode`), with every line type the readers
//! know, versions that drift,
//! and (with `hostile`) lines no reader can use. Deterministic for a seed.
//! Nothing here is copied from the agents or their tests: the lines are
//! written from the formats as `docs/FORMATS.md` states them.

mod claude;
mod codex;
mod copilot;
mod cursor;
mod gemini;
mod opencode;
mod qwen;

use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::{IoContext, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use claude::ClaudeFile;

/// What to make.
#[derive(Clone, Debug)]
pub struct AgentsSpec {
    /// Claude Code sessions.
    pub claude: usize,
    /// Codex rollouts.
    pub codex: usize,
    /// Gemini CLI sessions.
    pub gemini: usize,
    /// GitHub Copilot CLI sessions.
    pub copilot: usize,
    /// Qwen Code sessions.
    pub qwen: usize,
    /// Cursor CLI transcripts.
    pub cursor: usize,
    /// OpenCode sessions.
    pub opencode: usize,
    /// Turns per session, on average (a turn is a prompt, the work, a reply).
    pub turns: usize,
    /// Seed of every choice.
    pub seed: u64,
    /// When the sessions end at the latest (seconds since the epoch).
    pub now: f64,
    /// Add the sessions with a special shape: compacted, rewound, resumed
    /// (replayed lines), with subagents, of an old version, and titled.
    pub extras: bool,
    /// Add lines no reader can use: not JSON, not UTF-8, unknown types,
    /// and a last line still being written.
    pub hostile: bool,
}

impl AgentsSpec {
    /// How many sessions it makes, of every agent.
    pub fn sessions(&self) -> usize {
        self.claude
            + self.codex
            + self.gemini
            + self.copilot
            + self.qwen
            + self.cursor
            + self.opencode
    }

    /// A few sessions of each agent, every shape and bad line included.
    pub fn fixtures(now: f64) -> AgentsSpec {
        AgentsSpec {
            claude: 8,
            codex: 5,
            gemini: 5,
            copilot: 4,
            qwen: 4,
            cursor: 3,
            opencode: 4,
            turns: 6,
            seed: 7,
            now,
            extras: true,
            hostile: true,
        }
    }

    /// What `--demo` shows beside its Loki sessions.
    pub fn demo(now: f64) -> AgentsSpec {
        AgentsSpec {
            claude: 40,
            codex: 20,
            gemini: 15,
            copilot: 12,
            qwen: 10,
            cursor: 8,
            opencode: 10,
            turns: 8,
            hostile: false,
            ..AgentsSpec::fixtures(now)
        }
    }
}

/// The sessions a test or a tour looks for.
#[derive(Clone, Debug, Default)]
pub struct AgentsSummary {
    /// Every Claude Code session id made, in order.
    pub claude: Vec<String>,
    /// Every Codex session id made.
    pub codex: Vec<String>,
    /// Every Gemini CLI session id made.
    pub gemini: Vec<String>,
    /// Every Copilot CLI session id made.
    pub copilot: Vec<String>,
    /// Every Qwen Code session id made.
    pub qwen: Vec<String>,
    /// Every Cursor CLI transcript id made.
    pub cursor: Vec<String>,
    /// Every OpenCode session id made (subagents' left out).
    pub opencode: Vec<String>,
    /// The Claude Code session compacted twice.
    pub claude_compacted: Option<String>,
    /// The Claude Code session with a rewind (an abandoned branch).
    pub claude_rewound: Option<String>,
    /// The Claude Code session with subagents (new and old layout).
    pub claude_with_subagents: Option<String>,
    /// The Claude Code session with bad lines and a cut last line.
    pub claude_hostile: Option<String>,
    /// The Codex session that was compacted and renamed.
    pub codex_compacted: Option<String>,
    /// The Gemini session rewound and checkpointed.
    pub gemini_rewound: Option<String>,
    /// The Gemini session kept in the legacy single-object `.json`.
    pub gemini_legacy: Option<String>,
}

impl AgentsSummary {
    /// How many sessions were made, of every agent.
    pub fn sessions(&self) -> usize {
        self.claude.len()
            + self.codex.len()
            + self.gemini.len()
            + self.copilot.len()
            + self.qwen.len()
            + self.cursor.len()
            + self.opencode.len()
    }
}

/// Writes every agent's sessions under `home` (a home folder: `.claude`,
/// `.codex`, `.gemini`, `.copilot`, `.qwen`, `.cursor`,
/// `.local/share/opencode` are made in it).
pub fn generate(home: &Path, spec: &AgentsSpec) -> Result<AgentsSummary> {
    let corpus = Corpus::load();
    let mut summary = AgentsSummary::default();
    claude::generate(&home.join(".claude/projects"), spec, &corpus, &mut summary)?;
    codex::generate(&home.join(".codex"), spec, &corpus, &mut summary)?;
    gemini::generate(&home.join(".gemini"), spec, &corpus, &mut summary)?;
    copilot::generate(&home.join(".copilot"), spec, &corpus, &mut summary)?;
    qwen::generate(&home.join(".qwen"), spec, &corpus, &mut summary)?;
    cursor::generate(&home.join(".cursor"), spec, &corpus, &mut summary)?;
    opencode::generate(
        &home.join(".local/share/opencode"),
        spec,
        &corpus,
        &mut summary,
    )?;
    Ok(summary)
}

/// Dates the file `path` last written at `at` (seconds since the epoch).
pub(crate) fn dated(path: &Path, at: f64) -> Result<()> {
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(at.max(0.0));
    std::fs::File::options()
        .append(true)
        .open(path)
        .and_then(|f| f.set_modified(when))
        .ctx("set the time of", path)
}

/// Makes every file under `home` look last written at `at` (seconds since
/// the epoch): the demo's sessions were all just written, but no agent is
/// writing them, so a delete or a purge in the demo is not refused as busy.
pub fn settle(home: &Path, at: f64) -> Result<()> {
    let mut todo = vec![home.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries = std::fs::read_dir(&dir).ctx("read", &dir)?;
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => todo.push(path),
                Ok(t) if t.is_file() => dated(&path, at)?,
                _ => {}
            }
        }
    }
    Ok(())
}

/// One Claude Code session of about `bytes` bytes (a long working session:
/// big tool outputs, code, thinking), for the viewer's speed test.
pub fn big_claude_session(projects: &Path, bytes: u64, seed: u64, now: f64) -> Result<PathBuf> {
    let corpus = Corpus::load();
    claude::big(projects, bytes, seed, now, &corpus)
}

/// `count` small Claude Code sessions spread over projects, for the list's
/// speed test; returns their files.
pub fn many_claude_sessions(
    projects: &Path,
    count: usize,
    seed: u64,
    now: f64,
) -> Result<Vec<PathBuf>> {
    let corpus = Corpus::load();
    claude::many(projects, count, seed, now, &corpus)
}

/// A time as the agents write it: RFC 3339, UTC, milliseconds.
pub(crate) fn iso_z(seconds: f64) -> String {
    let t = std::time::UNIX_EPOCH
        + std::time::Duration::from_millis((seconds.max(0.0) * 1000.0) as u64);
    humantime::format_rfc3339_millis(t).to_string()
}

/// A line as the agents write it: compact JSON (the independent readers
/// check against, ccusage among them, expect no spaces), and a newline.
pub(crate) fn push_line(out: &mut Vec<u8>, value: &Value) {
    serde_json::to_writer(&mut *out, value).expect("a JSON value writes");
    out.push(b'\n');
}

/// Writes `bytes` to `path`, making its folder.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ctx("create", dir)?;
    }
    std::fs::write(path, bytes).ctx("write", path)
}

/// A folder a project of the demo was worked in.
pub(crate) fn project_dir(rng: &mut Rng) -> String {
    const PROJECTS: [&str; 6] = [
        "shop-api",
        "billing",
        "web-app",
        "infra",
        "mobile",
        "data-pipeline",
    ];
    format!("/home/dev/src/{}", rng.pick(&PROJECTS))
}

/// Claude Code's name for the folder of a project: every character outside
/// `[A-Za-z0-9-]` becomes `-`.
pub(crate) fn claude_folder_name(cwd: &str) -> String {
    cwd.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The start of session `index` of `count` ending by `now`: spread over
/// the last 60 days, the first ones most recent.
pub(crate) fn start_of(index: usize, count: usize, now: f64, rng: &mut Rng) -> f64 {
    let age = (index as f64 / count.max(1) as f64) * 60.0 + rng.unit();
    now - age * 86_400.0 - 3_600.0
}
