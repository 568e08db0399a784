//! `$XDG_CONFIG_HOME/loki-sessions/config.toml`: defaults that flags override.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Settings read from the config file; every field is optional.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Purge keeps this many most recently used sessions.
    pub keep: Option<usize>,
    /// Purge removes sessions unused for longer than this (`30d`, `2w`).
    pub max_age: Option<String>,
    /// Token encoding: `cl100k_base` or `o200k_base`.
    pub encoding: Option<String>,
    /// The model's context window in tokens, for the viewer's gauge.
    pub model_window: Option<u64>,
    /// Command run on resume instead of printing (`{id}`, `{workspace}`, `{path}`).
    pub resume_command: Option<String>,
}

impl Config {
    /// The default config file location.
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("loki-sessions").join("config.toml"))
    }

    /// Reads the config at `path`; a missing file is the empty config.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        toml::from_str(&text).map_err(|e| format!("bad config in {}: {e}", path.display()))
    }
}

/// Parses an age such as `30d`, `12h`, `2w` or a bare number of days into days.
pub fn parse_days(text: &str) -> Result<f64, String> {
    let text = text.trim();
    if let Ok(days) = text.parse::<f64>() {
        return if days.is_finite() && days >= 0.0 {
            Ok(days)
        } else {
            Err(format!(
                "bad age {text:?}: it must be a non-negative number of days"
            ))
        };
    }
    humantime::parse_duration(text)
        .map(|d| d.as_secs_f64() / 86_400.0)
        .map_err(|e| format!("bad age {text:?}: {e} (try 30d, 12h or 2w)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_parse() {
        assert_eq!(parse_days("30d").unwrap(), 30.0);
        assert_eq!(parse_days("12h").unwrap(), 0.5);
        assert_eq!(parse_days("2w").unwrap(), 14.0);
        assert_eq!(parse_days("7").unwrap(), 7.0);
        assert!(parse_days("-1").is_err());
        assert!(parse_days("soon").is_err());
    }

    #[test]
    fn config_reads_and_rejects_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert_eq!(Config::load(&path).unwrap(), Config::default());
        std::fs::write(
            &path,
            "keep = 5\nmax_age = \"10d\"\nencoding = \"o200k_base\"\n",
        )
        .unwrap();
        let c = Config::load(&path).unwrap();
        assert_eq!((c.keep, c.max_age.as_deref()), (Some(5), Some("10d")));
        std::fs::write(&path, "kep = 5\n").unwrap();
        assert!(Config::load(&path).unwrap_err().contains("config.toml"));
    }
}
