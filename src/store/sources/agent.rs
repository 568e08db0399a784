//! Which agent a session belongs to, and where each agent keeps its
//! sessions when nothing else is said.

use serde::Serialize;
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
}

impl Agent {
    /// Every agent, in the order lists name them.
    pub const ALL: [Agent; 8] = [
        Agent::Loki,
        Agent::Peteos,
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Qwen,
        Agent::Cursor,
    ];

    /// The agents whose formats are read only (no trims, no deletes yet).
    pub const EXTERNAL: [Agent; 6] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Qwen,
        Agent::Cursor,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Loki => "loki",
            Agent::Peteos => "peteos",
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Qwen => "qwen",
            Agent::Cursor => "cursor",
        }
    }

    /// The name a person reads ("Claude Code").
    pub fn display_name(self) -> &'static str {
        match self {
            Agent::Loki => "Loki",
            Agent::Peteos => "peteos",
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Copilot => "Copilot CLI",
            Agent::Qwen => "Qwen Code",
            Agent::Cursor => "Cursor CLI",
        }
    }

    /// True for another agent's format, which loki-sessions only reads.
    pub fn is_external(self) -> bool {
        Agent::EXTERNAL.contains(&self)
    }

    /// True for an agent whose files say what its sessions spent (the
    /// Cursor CLI's transcripts hold no tokens: its sessions show no usage
    /// and no cost, not a cost of nothing).
    pub fn records_usage(self) -> bool {
        match self {
            Agent::Claude | Agent::Codex | Agent::Gemini | Agent::Copilot | Agent::Qwen => true,
            Agent::Cursor | Agent::Loki | Agent::Peteos => false,
        }
    }

    /// True for another agent whose session a delete or a purge moves to
    /// our trash (and `restore` puts back). Copilot CLI's session is a
    /// folder of the agent's own files (checkpoints, a plan) the trash does
    /// not move as one: not moved yet.
    pub fn moves_to_trash(self) -> bool {
        match self {
            Agent::Claude | Agent::Codex | Agent::Gemini | Agent::Qwen | Agent::Cursor => true,
            Agent::Copilot | Agent::Loki | Agent::Peteos => false,
        }
    }

    /// The command that resumes a session of this agent, `{id}` standing
    /// for its id (None for Loki and peteos, which resume by printing).
    pub fn default_resume_command(self) -> Option<&'static str> {
        match self {
            // The id is checked (it never starts with `-`); passed as the
            // option's own value, or after `--`, it could not be an option
            // even if it did.
            Agent::Claude => Some("claude --resume={id}"),
            Agent::Codex => Some("codex resume -- {id}"),
            Agent::Gemini => Some("gemini --resume={id}"),
            Agent::Copilot => Some("copilot --resume={id}"),
            Agent::Qwen => Some("qwen --resume={id}"),
            Agent::Cursor => Some("cursor-agent --resume={id}"),
            Agent::Loki | Agent::Peteos => None,
        }
    }
}

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

/// The agents' folders the environment names (`CLAUDE_CONFIG_DIR`,
/// `CODEX_HOME`, `COPILOT_HOME`, `QWEN_HOME`), each None when unset.
#[derive(Clone, Debug, Default)]
pub struct NamedHomes {
    /// `CLAUDE_CONFIG_DIR`.
    pub claude_config: Option<PathBuf>,
    /// `CODEX_HOME`.
    pub codex: Option<PathBuf>,
    /// `COPILOT_HOME`.
    pub copilot: Option<PathBuf>,
    /// `QWEN_HOME`.
    pub qwen: Option<PathBuf>,
}

/// Where the other agents keep their sessions. Each is optional; a folder
/// that does not exist is simply an agent not used on this machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentHomes {
    /// Claude Code's `projects` folder.
    pub claude_projects: Option<PathBuf>,
    /// Codex's home (`sessions/`, `archived_sessions/`, `session_index.jsonl`).
    pub codex_home: Option<PathBuf>,
    /// Gemini CLI's folder (`~/.gemini`: `tmp/<project>/chats/`).
    pub gemini_home: Option<PathBuf>,
    /// Copilot CLI's folder (`~/.copilot`: `session-state/<id>/`).
    pub copilot_home: Option<PathBuf>,
    /// Qwen Code's folder (`~/.qwen`: `projects/<project>/chats/`).
    pub qwen_home: Option<PathBuf>,
    /// The Cursor CLI's folder (`~/.cursor`: `projects/<project>/agent-transcripts/`).
    pub cursor_home: Option<PathBuf>,
}

impl AgentHomes {
    /// The folders found without configuration, from the environment:
    /// `$CLAUDE_CONFIG_DIR/projects` else `~/.claude/projects`;
    /// `$CODEX_HOME` else `~/.codex`; `~/.gemini`; `$COPILOT_HOME` else
    /// `~/.copilot`; `$QWEN_HOME` else `~/.qwen`; `~/.cursor`.
    pub fn from_env(home: Option<&Path>, named: &NamedHomes) -> AgentHomes {
        let or_home = |named: &Option<PathBuf>, dot: &str| {
            named.clone().or_else(|| home.map(|h| h.join(dot)))
        };
        AgentHomes {
            claude_projects: or_home(&named.claude_config, ".claude").map(|c| c.join("projects")),
            codex_home: or_home(&named.codex, ".codex"),
            gemini_home: home.map(|h| h.join(".gemini")),
            copilot_home: or_home(&named.copilot, ".copilot"),
            qwen_home: or_home(&named.qwen, ".qwen"),
            cursor_home: home.map(|h| h.join(".cursor")),
        }
    }

    /// The same homes under one folder, as the demo and the fixtures lay
    /// them out (`<dir>/.claude/projects`, `<dir>/.codex`, `<dir>/.gemini`,
    /// `<dir>/.copilot`, `<dir>/.qwen`, `<dir>/.cursor`).
    pub fn under(dir: &Path) -> AgentHomes {
        AgentHomes::from_env(Some(dir), &NamedHomes::default())
    }

    /// The folder an agent's sessions are listed from.
    pub fn root_of(&self, agent: Agent) -> Option<&Path> {
        match agent {
            Agent::Claude => self.claude_projects.as_deref(),
            Agent::Codex => self.codex_home.as_deref(),
            Agent::Gemini => self.gemini_home.as_deref(),
            Agent::Copilot => self.copilot_home.as_deref(),
            Agent::Qwen => self.qwen_home.as_deref(),
            Agent::Cursor => self.cursor_home.as_deref(),
            Agent::Loki | Agent::Peteos => None,
        }
    }
}
