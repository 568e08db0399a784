//! What every subcommand needs: the store, the config, the clock.

use crate::cli::{Cli, CliError};
use crate::config::{self, Config};
use crate::store::{Encoding, PurgePolicy, Store, now_seconds, os_user_name};
use std::path::PathBuf;

/// The resolved environment of one invocation.
#[derive(Debug)]
pub struct CliEnv {
    /// The user's sessions: a Loki tree or a peteos sessions folder.
    pub store: Store,
    /// The Loki root the store was opened under (`--root`, LOKI_HOME, ~/.loki).
    pub root: PathBuf,
    /// Whose sessions.
    pub user: String,
    /// Settings from the config file.
    pub config: Config,
    /// Seconds since the epoch at start-up (one clock per invocation).
    pub now: f64,
}

impl CliEnv {
    /// Resolves root (`--root`, `LOKI_HOME`, `~/.loki`), user and config.
    pub fn from_cli(cli: &Cli) -> Result<CliEnv, CliError> {
        let root = match &cli.root {
            Some(root) => root.clone(),
            None => dirs::home_dir()
                .map(|h| h.join(".loki"))
                .ok_or_else(|| CliError::usage("cannot find the home directory; pass --root"))?,
        };
        let user = match &cli.user {
            Some(user) => user.clone(),
            None => os_user_name()
                .ok_or_else(|| CliError::usage("cannot tell the OS user; pass --user"))?,
        };
        let config_path: Option<PathBuf> = cli.config.clone().or_else(Config::default_path);
        let config = match config_path {
            Some(path) => Config::load(&path).map_err(CliError::usage)?,
            None => Config::default(),
        };
        let store = match &cli.peteos {
            Some(dir) => Store::peteos_folder(dir),
            // --root pointing at a folder of peteos sessions is used as one.
            None if cli.root.is_some() && Store::looks_like_peteos_folder(&root) => {
                Store::peteos_folder(&root)
            }
            None => Store::loki(&root, &user)?,
        };
        Ok(CliEnv {
            store,
            root,
            user,
            config,
            now: now_seconds(),
        })
    }

    /// The encoding: the flag, else the config, else cl100k_base.
    pub fn encoding(&self, flag: Option<&str>) -> Result<Encoding, CliError> {
        match flag.or(self.config.encoding.as_deref()) {
            Some(name) => name.parse().map_err(CliError::usage),
            None => Ok(Encoding::default()),
        }
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
