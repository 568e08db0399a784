//! What every subcommand needs: the store, the config, the clock.

use crate::cli::{Cli, CliError};
use crate::config::{self, Config};
use crate::humanize;
use crate::store::{
    Agent, AgentHomes, Encoding, PriceTable, PurgePolicy, Store, StoreError, Target, id_start,
    now_seconds, os_user_name,
};
use std::path::{Path, PathBuf};

/// The variable naming the Loki home when `--root` is not given.
pub const LOKI_HOME: &str = "LOKI_HOME";

/// Where the Loki root came from, to say so when it is not there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootFrom {
    /// `--root DIR`.
    Flag,
    /// `LOKI_HOME`.
    Env,
    /// `~/.loki`, nothing given.
    Default,
}

/// The resolved environment of one invocation.
#[derive(Debug)]
pub struct CliEnv {
    /// The user's sessions: a Loki tree or a peteos sessions folder.
    pub store: Store,
    /// The Loki root the store was opened under (`--root`, LOKI_HOME, ~/.loki).
    pub root: PathBuf,
    /// Where `root` came from.
    pub root_from: RootFrom,
    /// True when `--peteos DIR` chose the store.
    pub peteos_flag: bool,
    /// Whose sessions.
    pub user: String,
    /// Settings from the config file.
    pub config: Config,
    /// The config file in use (it may not exist), if there is a config directory.
    pub config_path: Option<PathBuf>,
    /// Seconds since the epoch at start-up (one clock per invocation).
    pub now: f64,
    /// The agents `--agent` asked for (empty: every one).
    pub agents: Vec<Agent>,
}

impl CliEnv {
    /// Resolves root (`--root`, `LOKI_HOME`, `~/.loki`), user and config.
    /// A `--config FILE` that does not exist is an error; the default config
    /// file may be absent.
    pub fn from_cli(cli: &Cli) -> Result<CliEnv, CliError> {
        let config_path = cli.config.clone().or_else(Config::default_path);
        let config = match &cli.config {
            Some(path) if !path.exists() => {
                return Err(CliError::usage(format!(
                    "the config file {} (from --config) does not exist",
                    path.display()
                )));
            }
            Some(path) => Config::load(path).map_err(CliError::usage)?,
            None => match &config_path {
                Some(path) => Config::load(path).map_err(CliError::usage)?,
                None => Config::default(),
            },
        };
        // LOKI_HOME is read here, not by clap, whose usage lines would then
        // show `--root` as if it had to be given.
        let from_env = std::env::var_os(LOKI_HOME).filter(|v| !v.is_empty());
        let (given, root_from) = match (&cli.root, from_env) {
            (Some(root), _) => (Some(root.clone()), RootFrom::Flag),
            (None, Some(root)) => (Some(PathBuf::from(root)), RootFrom::Env),
            (None, None) => (None, RootFrom::Default),
        };
        let root_given = given.is_some();
        let (root, user) = root_and_user(given, cli.user.clone())?;
        let store = open_store(&root, &user, root_given, cli.peteos.as_deref())?;
        let store = with_other_agents(store, &cli.agents, !root_given && cli.peteos.is_none());
        let store = store.with_price_overrides(config.prices.clone());
        Ok(CliEnv {
            store,
            root,
            root_from,
            peteos_flag: cli.peteos.is_some(),
            user,
            config,
            config_path,
            now: now_seconds(),
            agents: cli.agents.clone(),
        })
    }

    /// Refuses a store whose folder is not there (`Store::check_folder`),
    /// saying where the path came from. Commands that read call it first.
    pub fn check_folder(&self) -> Result<(), CliError> {
        // A folder of the tree given as the root holds no users/ of its own.
        if !self.peteos_flag
            && !self.store.sessions_dir().exists()
            && let Some(hint) = root_hint(&self.root)
        {
            return Err(CliError::usage(hint));
        }
        self.store.check_folder().map_err(|e| {
            let from = if self.peteos_flag {
                "from --peteos"
            } else {
                match self.root_from {
                    RootFrom::Flag => "from --root",
                    RootFrom::Env => "from LOKI_HOME",
                    RootFrom::Default => "the default; pass --root DIR or set LOKI_HOME",
                }
            };
            match e {
                // Say where a missing root came from; a missing user folder
                // names the users there instead.
                StoreError::Missing { path, message }
                    if path == self.root || path == self.store.sessions_dir() =>
                {
                    let mut said = format!("{message} ({from})");
                    if let Some(hint) = root_hint(&self.root) {
                        said = format!("{said}; {hint}");
                    }
                    if let Some(elsewhere) = self.agents_not_there() {
                        said = format!("{said}; no other agent's sessions either: {elsewhere}");
                    }
                    CliError::usage(said)
                }
                other => other.into(),
            }
        })
    }

    /// The session a `SESSION` argument names (`Store::locate`), after
    /// checking the store is there; several matches are listed with their
    /// last use, most recent first (exit 2).
    pub fn locate(&self, arg: &str) -> Result<Target, CliError> {
        let newest = match self.config.duplicate_names.as_deref() {
            None | Some("newest") => true,
            Some("refuse") => false,
            Some(other) => {
                return Err(CliError::usage(format!(
                    "bad config: duplicate_names is \"newest\" or \"refuse\", not {other:?}"
                )));
            }
        };
        self.locate_with(arg, newest)
    }

    /// [`CliEnv::locate`] that never picks among sessions of one name
    /// (`delete`: what it removes is named without doubt).
    pub fn locate_exactly(&self, arg: &str) -> Result<Target, CliError> {
        self.locate_with(arg, false)
    }

    /// Locates `arg`; with `newest`, a name several sessions share (and
    /// nothing else tells apart) is the most recently used of them, said
    /// on stderr.
    fn locate_with(&self, arg: &str, newest: bool) -> Result<Target, CliError> {
        // A path names its session by itself: no store need be there.
        if !Store::is_path_argument(arg) {
            self.check_folder()?;
        }
        self.store
            .locate(arg)
            .or_else(|e| match e {
                StoreError::Ambiguous { candidates, .. }
                    if newest && candidates.windows(2).all(|w| w[0].name == w[1].name) =>
                {
                    let chosen = &candidates[0];
                    crate::note!(
                        "loki-sessions: {} sessions are named {:?}; taking the most recently used, \
                     {} (name another as \"{} · {}\" or by its id)",
                        candidates.len(),
                        chosen.name,
                        chosen.id,
                        chosen.name,
                        candidates.get(1).map_or("", |c| id_start(&c.id)),
                    );
                    Ok(self.store.locate(&chosen.id)?)
                }
                other => Err(other),
            })
            .map_err(|e| match e {
                StoreError::Ambiguous { arg, candidates } => {
                    let mut rows = vec![format!(
                        "{arg:?} matches {}; give more of the name or the id:",
                        humanize::plural(candidates.len() as u64, "session")
                    )];
                    const SHOWN: usize = 10;
                    let shown = &candidates[..candidates.len().min(SHOWN)];
                    let width = shown
                        .iter()
                        .map(|c| unicode_width::UnicodeWidthStr::width(c.name.as_str()))
                        .max()
                        .unwrap_or(0);
                    for c in shown {
                        let used = humanize::last_used(c.last_used_at, self.now);
                        rows.push(format!(
                            "  {}  {used:<14}  {}",
                            humanize::pad(&c.name, width),
                            c.id
                        ));
                    }
                    if candidates.len() > SHOWN {
                        rows.push(format!("  … and {} more", candidates.len() - SHOWN));
                    }
                    CliError::usage(rows.join("\n"))
                }
                other => other.into(),
            })
    }

    /// The encoding: the flag, else the config, else cl100k_base.
    pub fn encoding(&self, flag: Option<Encoding>) -> Result<Encoding, CliError> {
        match (flag, self.config.encoding.as_deref()) {
            (Some(encoding), _) => Ok(encoding),
            (None, Some(name)) => name.parse().map_err(CliError::usage),
            (None, None) => Ok(Encoding::default()),
        }
    }

    /// The window a session of `agent` is measured against when neither
    /// its file nor its model says one: the config's `[windows]` entry,
    /// else `model_window`, else 128k.
    pub fn window_for(&self, agent: crate::store::Agent) -> u64 {
        self.config
            .agent_windows()
            .ok()
            .and_then(|w| w.into_iter().find(|(a, _)| a == agent.name()))
            .map(|(_, w)| w)
            .or(self.config.model_window)
            .unwrap_or(crate::cli::browse::DEFAULT_WINDOW)
            .max(1)
    }

    /// The price table: the one shipped, with the config's prices on top
    /// (the store's own, which its listings and reports price with).
    pub fn prices(&self) -> &PriceTable {
        self.store.prices()
    }

    /// How far ahead the `archive_due` setting keeps what the agents'
    /// cleanups delete (seconds; None: off): `LOKI_SESSIONS_ARCHIVE_DUE`,
    /// else the config, else a week.
    pub fn archive_due(&self) -> Result<Option<f64>, CliError> {
        let var = std::env::var(config::ARCHIVE_DUE_VAR).ok();
        config::archive_due(self.config.archive_due.as_deref(), var.as_deref())
            .map_err(|e| CliError::usage(format!("bad setting: {e}")))
    }

    /// The purge policy: flags, else the config, else the seed's defaults.
    pub fn policy(
        &self,
        keep: Option<usize>,
        max_age: Option<&str>,
    ) -> Result<PurgePolicy, CliError> {
        let defaults = PurgePolicy::default();
        let max_age_days = match max_age.or(self.config.max_age.as_deref()) {
            Some(text) => config::parse_days(text).map_err(CliError::usage)?,
            None => defaults.max_age_days,
        };
        Ok(PurgePolicy {
            keep: keep.or(self.config.keep).unwrap_or(defaults.keep),
            max_age_days,
        })
    }
}

/// What a root that holds no `users/<user>/session` looks like, when it is
/// a folder of the tree itself (a mistake one makes with `--root`): what to
/// pass instead.
fn root_hint(root: &Path) -> Option<String> {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let shown = |p: &Path| p.display().to_string();
    if root.join("meta.json").is_file() {
        return Some(format!(
            "{} looks like one session: name it as the SESSION argument (a path works) and \
             leave --root out",
            shown(root)
        ));
    }
    if name(root).as_deref() == Some("session")
        && let Some(user_dir) = root.parent()
        && let Some(users) = user_dir.parent()
        && name(users).as_deref() == Some("users")
        && let (Some(home), Some(owner)) = (users.parent(), name(user_dir))
    {
        return Some(format!(
            "{} looks like the session folder of user {owner}: pass --root {} --user {owner}",
            shown(root),
            shown(home)
        ));
    }
    if name(root).as_deref() == Some("users")
        && let Some(home) = root.parent()
    {
        return Some(format!(
            "{} looks like the users folder of a Loki home: pass --root {}",
            shown(root),
            shown(home)
        ));
    }
    if root.join("session").is_dir()
        && let (Some(users), Some(owner)) = (root.parent(), name(root))
        && name(users).as_deref() == Some("users")
        && let Some(home) = users.parent()
    {
        return Some(format!(
            "{} looks like the folder of user {owner}: pass --root {} --user {owner}",
            shown(root),
            shown(home)
        ));
    }
    None
}

/// The root (`--root`/`LOKI_HOME`, else `~/.loki`) and the user (`--user`,
/// else the OS user).
pub fn root_and_user(
    root: Option<PathBuf>,
    user: Option<String>,
) -> Result<(PathBuf, String), CliError> {
    let root = match root {
        Some(root) => root,
        None => dirs::home_dir()
            .map(|h| h.join(".loki"))
            .ok_or_else(|| CliError::usage("cannot find the home directory; pass --root"))?,
    };
    let user = match user {
        Some(user) => user,
        None => {
            os_user_name().ok_or_else(|| CliError::usage("cannot tell the OS user; pass --user"))?
        }
    };
    Ok((root, user))
}

/// The store: `--peteos DIR`, else a `--root` that holds peteos sessions,
/// else the user's Loki tree under the root.
pub fn open_store(
    root: &std::path::Path,
    user: &str,
    root_given: bool,
    peteos: Option<&std::path::Path>,
) -> Result<Store, CliError> {
    // One Loki session given as the root would read as a peteos folder
    // (its memory/ holds session.json): say what it is instead.
    if peteos.is_none()
        && root_given
        && root.join("meta.json").is_file()
        && let Some(hint) = root_hint(root)
    {
        return Err(CliError::usage(hint));
    }
    Ok(match peteos {
        Some(dir) => Store::peteos_folder(dir),
        // --root pointing at a folder of peteos sessions is used as one.
        None if root_given && Store::looks_like_peteos_folder(root) => Store::peteos_folder(root),
        None => Store::loki(root, user)?,
    })
}

/// `store` with the other agents' sessions found from the environment
/// (`HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `COPILOT_HOME`, `QWEN_HOME`), showing only `agents` when
/// some are named; `default_root` when the Loki root was not named (its
/// absence is then no mistake while other agents' sessions are there).
pub fn with_other_agents(store: Store, agents: &[Agent], default_root: bool) -> Store {
    store
        .with_agents(&agent_homes())
        .only_agents(agents)
        .primary_optional(default_root)
}

/// Where the other agents keep their sessions, from the environment
/// (`HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `COPILOT_HOME`, `QWEN_HOME`).
pub fn agent_homes() -> AgentHomes {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    AgentHomes::from_env(dirs::home_dir().as_deref(), &var)
}

impl CliEnv {
    /// Where the sessions shown were looked for, for a list that found
    /// none: the Loki tree or peteos folder, and each agent's folder
    /// (said missing when it is not there: an empty home is looked in for
    /// every agent, and a person should see where).
    /// The other agents' folders looked in and not there, for the error of
    /// a missing Loki tree (None when there are none to name).
    fn agents_not_there(&self) -> Option<String> {
        let homes = agent_homes();
        let missing: Vec<String> = Agent::EXTERNAL
            .into_iter()
            .filter(|a| self.store.shows(*a) && self.store.agent_folder(*a).is_none())
            .filter_map(|a| homes.root_of(a))
            .map(|p| p.display().to_string())
            .collect();
        (!missing.is_empty()).then(|| format!("looked in {}", missing.join(", ")))
    }

    pub fn looked_in(&self) -> String {
        let homes = agent_homes();
        let mut places = Vec::new();
        if self.store.shows(self.store.primary_agent()) {
            places.push(self.store.sessions_dir().display().to_string());
        }
        for agent in Agent::EXTERNAL {
            if !self.store.shows(agent) {
                continue;
            }
            match (self.store.agent_folder(agent), homes.root_of(agent)) {
                (Some(found), _) => places.push(found.display().to_string()),
                (None, Some(wanted)) => places.push(format!(
                    "{} (not there: no {} sessions)",
                    wanted.display(),
                    agent.display_name()
                )),
                _ => {}
            }
        }
        places.join(", ")
    }
}
