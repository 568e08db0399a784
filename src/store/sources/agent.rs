//! Which agent a session belongs to, the registry of their providers, and
//! where each agent keeps its sessions when nothing else is said.

use crate::store::sources::provider::{EnvLookup, Native, Provider};
use crate::store::sources::{claude, codex, copilot, cursor, gemini, opencode, qwen};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The agent whose session a record is.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// A Loki session tree.
    #[default]
    Loki,
    /// A folder of bare peteos sessions.
    Peteos,
    /// Claude Code (`~/.claude/projects`).
    Claude,
    /// OpenAI's Codex CLI (`~/.codex/sessions`).
    Codex,
    /// Google's Gemini CLI (`~/.gemini/tmp`).
    Gemini,
    /// GitHub Copilot CLI (`~/.copilot/session-state`).
    Copilot,
    /// Qwen Code (`~/.qwen/projects`).
    Qwen,
    /// The Cursor CLI's transcripts (`~/.cursor/projects`).
    Cursor,
    /// OpenCode (`~/.local/share/opencode/opencode.db`).
    Opencode,
}

impl Agent {
    /// Every agent, in the order lists name them.
    pub const ALL: [Agent; 9] = [
        Agent::Loki,
        Agent::Peteos,
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Qwen,
        Agent::Cursor,
        Agent::Opencode,
    ];

    /// The agents whose formats are read only (no trims, no deletes yet).
    pub const EXTERNAL: [Agent; 7] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Qwen,
        Agent::Cursor,
        Agent::Opencode,
    ];

    /// What the store knows of this agent's format: the one registry.
    /// Everything else asks the provider, never the agent's name.
    pub fn provider(self) -> &'static dyn Provider {
        match self {
            Agent::Loki => &LOKI,
            Agent::Peteos => &PETEOS,
            Agent::Claude => &claude::provider::Claude,
            Agent::Codex => &codex::provider::Codex,
            Agent::Gemini => &gemini::provider::Gemini,
            Agent::Copilot => &copilot::provider::Copilot,
            Agent::Qwen => &qwen::provider::Qwen,
            Agent::Cursor => &cursor::provider::Cursor,
            Agent::Opencode => &opencode::provider::Opencode,
        }
    }

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        self.provider().name()
    }

    /// The name a person reads ("Claude Code").
    pub fn display_name(self) -> &'static str {
        self.provider().display_name()
    }

    /// True for another agent's format, which loki-sessions only reads.
    pub fn is_external(self) -> bool {
        self.provider().is_external()
    }

    /// True for an agent whose files say what its sessions spent.
    pub fn records_usage(self) -> bool {
        self.provider().records_usage()
    }

    /// True for another agent whose session a delete or a purge moves to
    /// our trash (and `restore` puts back).
    pub fn moves_to_trash(self) -> bool {
        self.provider().moves_to_trash()
    }

    /// The command that resumes a session of this agent, `{id}` standing
    /// for its id (None for Loki and peteos, which resume by printing).
    pub fn default_resume_command(self) -> Option<&'static str> {
        self.provider().resume_command()
    }
}

const LOKI: Native = Native {
    agent: Agent::Loki,
    name: "loki",
    display_name: "Loki",
};

const PETEOS: Native = Native {
    agent: Agent::Peteos,
    name: "peteos",
    display_name: "peteos",
};

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Agent {
    type Err = String;

    fn from_str(s: &str) -> Result<Agent, String> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown agent {s:?}; one of {}",
                    Agent::ALL.map(Agent::name).join(", ")
                )
            })
    }
}

/// Where the other agents keep their sessions, by agent. Each is
/// optional; a folder that does not exist is simply an agent not used on
/// this machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentHomes {
    roots: BTreeMap<Agent, PathBuf>,
}

impl AgentHomes {
    /// The folders found without configuration, from the user's `home` and
    /// the environment (`env` looks a variable up: `CLAUDE_CONFIG_DIR`,
    /// `CODEX_HOME`, `COPILOT_HOME`, `QWEN_HOME`), as each provider says.
    pub fn from_env(home: Option<&Path>, env: EnvLookup<'_>) -> AgentHomes {
        let roots = Agent::EXTERNAL
            .into_iter()
            .filter_map(|agent| Some((agent, agent.provider().home(home, env)?)))
            .collect();
        AgentHomes { roots }
    }

    /// The same homes under one folder, as the demo and the fixtures lay
    /// them out (`<dir>/.claude/projects`, `<dir>/.codex`, `<dir>/.gemini`,
    /// `<dir>/.copilot`, `<dir>/.qwen`, `<dir>/.cursor`).
    pub fn under(dir: &Path) -> AgentHomes {
        AgentHomes::from_env(Some(dir), &|_| None)
    }

    /// The folder an agent's sessions are listed from.
    pub fn root_of(&self, agent: Agent) -> Option<&Path> {
        self.roots.get(&agent).map(PathBuf::as_path)
    }
}
