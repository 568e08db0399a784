//! `loki-sessions demo --root DIR [--sessions N] [--messages M] [--big-context K]`.

use crate::cli::output::{self, Progress};
use crate::cli::{CliEnv, CliError};
use crate::demo::{self, DemoSpec};
use crate::store::LokiOnly;
use clap::Args;
use serde_json::json;
use std::sync::Mutex;

/// Arguments of `demo`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  loki-sessions demo --root /tmp/demo-store\n  loki-sessions demo --root /tmp/big --sessions 100000 --messages 12 --big-context 10000\n  loki-sessions --root /tmp/demo-store"
)]
pub struct DemoArgs {
    /// Number of sessions.
    #[arg(long, default_value_t = 300)]
    pub sessions: usize,
    /// Average messages per session.
    #[arg(long, default_value_t = 24)]
    pub messages: usize,
    /// Messages of one long session (0 for none).
    #[arg(long, default_value_t = 3000)]
    pub big_context: usize,
    /// Seed of the random choices (the same seed gives the same store).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Leave out the trimmed, active and damaged sessions.
    #[arg(long)]
    pub plain: bool,
    /// Also write other agents' sessions (Claude Code, Codex, Gemini CLI,
    /// Copilot CLI, Qwen Code, Cursor CLI, OpenCode: every line type,
    /// versions that drift, bad lines unless --plain) in DIR as a home
    /// folder (DIR/.claude/projects, DIR/.codex, DIR/.gemini, DIR/.copilot,
    /// DIR/.qwen, DIR/.cursor, DIR/.local/share/opencode); HOME=DIR (and
    /// XDG_DATA_HOME unset) then lists them.
    #[arg(long = "agents-home", value_name = "DIR")]
    pub agents_home: Option<std::path::PathBuf>,
    /// With --agents-home: this many Claude Code sessions (the benchmarks'
    /// stores) [default: 8].
    #[arg(long = "claude-sessions", value_name = "N", requires = "agents_home")]
    pub claude_sessions: Option<usize>,
}

/// Fills an empty store with generated sessions.
pub fn run(env: &CliEnv, args: DemoArgs) -> Result<(), CliError> {
    env.store.check(LokiOnly::Demo)?;
    let folder = env.store.sessions_dir();
    let has_sessions = std::fs::read_dir(&folder).is_ok_and(|mut d| d.next().is_some());
    if has_sessions {
        return Err(CliError::usage(format!(
            "refusing to add demo sessions to {}: it already holds sessions; pass --root with a new directory",
            folder.display()
        )));
    }
    let spec = DemoSpec {
        sessions: args.sessions,
        messages: args.messages,
        big_context: args.big_context,
        seed: args.seed,
        user: env.user.clone(),
        now: env.now,
        extras: !args.plain,
    };
    let progress = Mutex::new(Progress::new("writing sessions"));
    let summary = demo::generate(&env.root, &spec, &|done| {
        if let Ok(mut p) = progress.lock() {
            p.update(done, spec.sessions);
        }
    })?;
    if let Ok(mut p) = progress.lock() {
        p.finish();
    }
    let agents = match &args.agents_home {
        Some(home) => {
            let mut spec = demo::agents::AgentsSpec::fixtures(env.now);
            spec.seed = args.seed;
            spec.hostile = !args.plain;
            if let Some(n) = args.claude_sessions {
                spec.claude = n;
            }
            let made = demo::agents::generate(home, &spec)?;
            Some(
                json!({"home": home, "claude": made.claude, "codex": made.codex, "gemini": made.gemini}),
            )
        }
        None => None,
    };
    output::print_json(&json!({
        "agents": agents,
        "root": env.root,
        "user": spec.user,
        "sessions": summary.sessions,
        "big": summary.big,
        "trimmed": summary.trimmed,
        "active": summary.active,
        "damaged": summary.damaged,
    }))
}
