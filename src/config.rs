//! `$XDG_CONFIG_HOME/loki-sessions/config.toml`: defaults that flags
//! override; and `state.toml` beside it, what the UI remembers between
//! runs (the transcript's display settings).
//!
//! The config is the person's file: comments and all, it is only read.
//! What the UI remembers goes to a file of its own, which loki-sessions
//! rewrites (atomically, keeping keys it does not know), so a setting
//! changed with a key never rewrites the person's file.

use crate::render::transcript::{Display, Tools};
use serde::Deserialize;
use std::collections::BTreeMap;
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
    #[serde(default, deserialize_with = "token_count::optional")]
    pub model_window: Option<u64>,
    /// `[windows]`: the context window of each agent's sessions (`loki`,
    /// `peteos`, `claude`, `codex`, `gemini`), over `model_window`.
    #[serde(default, deserialize_with = "token_count::by_name")]
    pub windows: BTreeMap<String, u64>,
    /// How the UI and `watch` follow the disk: `auto` (notifications,
    /// polling where they cannot be had), `poll`, or `off`.
    pub watch: Option<String>,
    /// Folders given a notification watch at most (the rest are polled).
    pub watch_limit: Option<usize>,
    /// Command run on resume instead of printing (`{id}`, `{workspace}`, `{path}`).
    pub resume_command: Option<String>,
    /// The terminal's background, `light` or `dark` (else it is asked).
    pub theme: Option<String>,
    /// Prices per model (US dollars per million tokens) replacing or adding
    /// to the dated table loki-sessions ships (`[prices."model"]`).
    pub prices: Option<std::collections::BTreeMap<String, crate::store::ModelPrice>>,
    /// The command that resumes another agent's session, by agent
    /// (`[resume] claude = "claude --resume {id}"`); `{id}`, `{cwd}`,
    /// `{path}` are replaced.
    pub resume: Option<std::collections::BTreeMap<String, String>>,
    /// A name several sessions share: `newest` (the default) takes the most
    /// recently used, with a note on stderr; `refuse` lists them instead.
    pub duplicate_names: Option<String>,
    /// Keep in the archive what the agents' own cleanups delete within
    /// this long (`7d`, the default), whenever the UI or `list` runs;
    /// `off` keeps nothing by itself. `LOKI_SESSIONS_ARCHIVE_DUE` overrides.
    pub archive_due: Option<String>,
    /// `[hosts]`: other machines, by name, reached through the person's
    /// `ssh` (`dev = "me@devbox"`, or `[hosts.dev] ssh = "me@devbox"` with
    /// `command`, the program's path there).
    #[serde(default)]
    pub hosts: BTreeMap<String, HostEntry>,
    /// How long a host has to answer (`20s`, the default).
    pub host_timeout: Option<String>,
    /// `[keys]` as written: action (or `scope.action`) to key or keys.
    #[serde(default, rename = "keys")]
    keys_table: BTreeMap<String, toml::Spanned<KeyList>>,
    /// `[keys]` with the line of each entry (filled by [`Config::load`]).
    #[serde(skip)]
    pub keys: Vec<KeyEntry>,
}

/// One entry of `[keys]` as written, with its line in the config file;
/// the UI's keymap checks and applies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyEntry {
    /// `action` or `scope.action`.
    pub name: String,
    /// The keys as written (`"C-o"`, `"F7"`).
    pub keys: Vec<String>,
    /// The line of the entry in the config file (1-based).
    pub line: usize,
}

/// A `[hosts]` entry: a destination, or a table naming it and the program.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum HostEntry {
    /// `dev = "me@devbox"`.
    Destination(String),
    /// `[hosts.dev] ssh = "me@devbox"`, `command = "~/bin/loki-sessions"`.
    Table {
        ssh: String,
        #[serde(default)]
        command: Option<String>,
    },
}

impl Config {
    /// The configured hosts, each checked.
    pub fn hosts(&self) -> Result<Vec<crate::hosts::Host>, String> {
        self.hosts
            .iter()
            .map(|(name, entry)| match entry {
                HostEntry::Destination(to) => crate::hosts::Host::new(name, to, None),
                HostEntry::Table { ssh, command } => {
                    crate::hosts::Host::new(name, ssh, command.as_deref())
                }
            })
            .collect()
    }

    /// How long a host has to answer: `host_timeout`, else 20 s.
    pub fn host_timeout(&self) -> Result<std::time::Duration, String> {
        match &self.host_timeout {
            None => Ok(std::time::Duration::from_secs(20)),
            Some(text) => humantime::parse_duration(text)
                .map_err(|e| format!("host_timeout {text:?}: {e} (say 20s or 1m)")),
        }
    }
}

/// One key or several, as a `[keys]` entry may give them.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum KeyList {
    One(String),
    Many(Vec<String>),
}

impl Config {
    /// The default config file location.
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|d| d.join("loki-sessions").join("config.toml"))
    }

    /// Reads the config at `path`; a missing file is the empty config.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = match read_text(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let lines = LineStarts::of(&text);
        let mut config: Config = toml::from_str(&text).map_err(|e| {
            // toml's own message quotes the whole line, however long and
            // whatever it holds: the line's number and the reason instead.
            let at = e.span().map_or(String::new(), |s| {
                format!(", line {}", lines.line_of(s.start))
            });
            let why = crate::humanize::truncate(e.message().trim(), 200);
            format!("bad config in {}{at}: {why}", path.display())
        })?;
        config.keys = std::mem::take(&mut config.keys_table)
            .into_iter()
            .map(|(name, spanned)| {
                let line = lines.line_of(spanned.span().start);
                let keys = match spanned.into_inner() {
                    KeyList::One(key) => vec![key],
                    KeyList::Many(keys) => keys,
                };
                KeyEntry { name, keys, line }
            })
            .collect();
        config.keys.sort_by_key(|e| e.line);
        Ok(config)
    }
}

/// Numbers of tokens in the config, written as on the command line:
/// `200000`, or `"200k"`, `"1M"`, `"1,048,576"` as `--window` takes them.
mod token_count {
    use serde::{Deserialize, Deserializer, de::Error};
    use std::collections::BTreeMap;

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Number(u64),
        Text(String),
    }

    impl Written {
        fn tokens<E: Error>(self) -> Result<u64, E> {
            match self {
                Written::Number(n) => Ok(n),
                Written::Text(text) => crate::cli::args::tokens(&text).map_err(E::custom),
            }
        }
    }

    pub fn optional<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        Option::<Written>::deserialize(d)?
            .map(Written::tokens)
            .transpose()
    }

    pub fn by_name<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, u64>, D::Error> {
        BTreeMap::<String, Written>::deserialize(d)?
            .into_iter()
            .map(|(name, written)| Ok((name, written.tokens()?)))
            .collect()
    }
}

/// Context windows of the agents whose models are known, when the config
/// says nothing (in tokens): Claude Code's models hold 200k, Codex's
/// GPT-5 models 272k of input, Gemini CLI's models 1M. Loki and peteos
/// sessions use `model_window` (or the default of the UI).
pub const AGENT_WINDOWS: &[(&str, u64)] = &[
    ("claude", 200_000),
    ("codex", 272_000),
    ("gemini", 1_048_576),
];

impl Config {
    /// How the disk is followed: None for `watch = "off"`; polling for
    /// `"poll"`; notifications (polled where they cannot be had) for
    /// `"auto"` or nothing said.
    pub fn watch_options(&self) -> Result<Option<crate::store::WatchOptions>, String> {
        let mut options = crate::store::WatchOptions::default();
        match self.watch.as_deref() {
            None | Some("auto") => {}
            Some("poll") => options.polling = true,
            Some("off") => return Ok(None),
            Some(other) => {
                return Err(format!(
                    "bad config: watch = {other:?}; one of \"auto\", \"poll\", \"off\""
                ));
            }
        }
        if let Some(limit) = self.watch_limit {
            options.max_watches = limit;
        }
        Ok(Some(options))
    }

    /// The context window of each agent: the defaults, then `[windows]`.
    pub fn agent_windows(&self) -> Result<Vec<(String, u64)>, String> {
        let mut out: Vec<(String, u64)> = AGENT_WINDOWS
            .iter()
            .map(|(a, w)| (a.to_string(), *w))
            .filter(|(a, _)| !self.windows.contains_key(a))
            .collect();
        for (agent, window) in &self.windows {
            if *window == 0 {
                return Err(format!(
                    "bad config: windows.{agent} = 0; a window holds tokens"
                ));
            }
            out.push((agent.clone(), *window));
        }
        Ok(out)
    }
}

/// Where each line of a text starts, to name the line of a byte offset
/// without counting newlines anew each time (a config of 200,000 keys).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> LineStarts {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1))
            .collect();
        LineStarts(starts)
    }

    /// The line (1-based) holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset)
    }
}

/// The text of a config file: opened without waiting (a FIFO would wait
/// for a writer) and read only when it is a regular file (a link to one is
/// fine: dotfiles are often links).
fn read_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = crate::store::open_regular_followed(path)?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text)
}

/// The file of what the UI remembers, beside the config file `config`.
pub fn state_path(config: &Path) -> Option<PathBuf> {
    Some(config.parent()?.join("state.toml"))
}

/// The transcript's display settings remembered at `path` (the defaults
/// when the file or a key is missing or not understood: it is only a memory).
pub fn load_display(path: &Path) -> Display {
    let mut display = Display::default();
    let Ok(text) = read_text(path) else {
        return display;
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return display;
    };
    let Some(t) = table.get("transcript").and_then(|t| t.as_table()) else {
        return display;
    };
    if let Some(v) = t.get("thinking").and_then(toml::Value::as_bool) {
        display.thinking = v;
    }
    if let Some(v) = t.get("raw").and_then(toml::Value::as_bool) {
        display.raw = v;
    }
    if let Some(v) = t
        .get("tools")
        .and_then(|v| v.as_str()?.parse::<Tools>().ok())
    {
        display.tools = v;
    }
    display
}

/// Remembers `display` at `path`: every other key of the file is kept; the
/// file is replaced atomically (a temporary file beside it, synced, renamed).
/// Its folder is made if the folder holding it exists (`~/.config`); where
/// even that is missing there is nowhere to remember, and nothing is written.
pub fn save_display(path: &Path, display: Display) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let dir = path.parent().unwrap_or(Path::new("."));
    if !dir.is_dir() && !dir.parent().is_some_and(Path::is_dir) {
        return Ok(());
    }
    let mut table = match read_text(path) {
        Ok(text) => text.parse::<toml::Table>().unwrap_or_default(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => toml::Table::new(),
        Err(e) => return Err(fail(&e)),
    };
    let section = table
        .entry("transcript")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !section.is_table() {
        *section = toml::Value::Table(toml::Table::new());
    }
    if let Some(t) = section.as_table_mut() {
        t.insert("thinking".into(), display.thinking.into());
        t.insert("tools".into(), display.tools.name().into());
        t.insert("raw".into(), display.raw.into());
    }
    let text = toml::to_string(&table).map_err(|e| fail(&e))?;
    std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    let mut bytes =
        b"# What loki-sessions remembers between runs; it rewrites this file.\n".to_vec();
    bytes.extend_from_slice(text.as_bytes());
    // The store's atomic write: a temporary file beside it, synced,
    // renamed over it, the folder synced.
    crate::store::write_atomic(path, &bytes).map_err(|e| fail(&e))
}

/// The variable that overrides the config's `archive_due`.
pub const ARCHIVE_DUE_VAR: &str = "LOKI_SESSIONS_ARCHIVE_DUE";
/// `archive_due` unless set: a week, so a session is kept in the days
/// before its agent deletes it, without copying every old session at once.
pub const ARCHIVE_DUE_DEFAULT: &str = "7d";

/// How far ahead the `archive_due` setting looks, in seconds (None: off),
/// from `var` (the variable, when set) over `config`.
pub fn archive_due(config: Option<&str>, var: Option<&str>) -> Result<Option<f64>, String> {
    let (text, from) = match (var, config) {
        (Some(v), _) => (v, ARCHIVE_DUE_VAR),
        (None, Some(c)) => (c, "archive_due in the config"),
        (None, None) => (ARCHIVE_DUE_DEFAULT, "the default"),
    };
    if matches!(text.trim(), "off" | "0" | "") {
        return Ok(None);
    }
    parse_days(text)
        .map(|days| Some(days * 86_400.0))
        .map_err(|e| format!("{from}: {e}, or \"off\""))
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
    fn windows_are_written_as_on_the_command_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "model_window = \"64k\"\n[windows]\nclaude = \"1M\"\ncodex = 272000\ngemini = \"1,048,576\"\n",
        )
        .unwrap();
        let config = Config::load(&path).unwrap();
        assert_eq!(config.model_window, Some(64_000));
        let windows: Vec<_> = config.windows.into_iter().collect();
        assert_eq!(
            windows,
            [
                ("claude".to_string(), 1_000_000),
                ("codex".to_string(), 272_000),
                ("gemini".to_string(), 1_048_576)
            ]
        );
        std::fs::write(&path, "[windows]\nclaude = \"big\"\n").unwrap();
        let e = Config::load(&path).unwrap_err();
        assert!(e.contains("not a number of tokens"), "{e}");
    }

    #[test]
    fn a_bad_line_is_named_by_its_number_not_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let hostile = format!("a = \"\x1b]0;x\x07{}", "y".repeat(100_000));
        std::fs::write(&path, format!("window = 100\n\n{hostile}\n")).unwrap();
        let e = Config::load(&path).unwrap_err();
        assert!(e.contains(", line 3:"), "{e}");
        assert!(e.len() < 600, "the line is not echoed: {} bytes", e.len());
        assert!(!e.contains('\x1b') && !e.contains("yyyy"), "{e}");
    }

    #[test]
    fn each_key_entry_knows_its_line() {
        let lines = LineStarts::of("a\nbb\n\nccc");
        let at = |n| lines.line_of(n);
        assert_eq!(
            [at(0), at(1), at(2), at(4), at(5), at(6), at(9)],
            [1, 1, 2, 2, 3, 4, 4]
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "\n[keys]\nresume = \"F7\"\n\n\"viewer.contexts\" = \"C-x\"\n",
        )
        .unwrap();
        let config = Config::load(&path).unwrap();
        let found: Vec<(&str, usize)> = config
            .keys
            .iter()
            .map(|k| (k.name.as_str(), k.line))
            .collect();
        assert_eq!(found, [("resume", 3), ("viewer.contexts", 5)]);
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
        std::fs::write(&path, "theme = \"light\"\n").unwrap();
        assert_eq!(Config::load(&path).unwrap().theme.as_deref(), Some("light"));
        // A FIFO is refused at once, never waited on.
        std::fs::remove_file(&path).unwrap();
        let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let err = Config::load(&path).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn display_settings_are_remembered_beside_the_config_keeping_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = state_path(&dir.path().join("config.toml")).unwrap();
        assert_eq!(path, dir.path().join("state.toml"));
        assert_eq!(load_display(&path), Display::default(), "no file yet");
        std::fs::write(
            &path,
            "other = 1\n[transcript]\nthinking = false\nmine = \"x\"\n",
        )
        .unwrap();
        let display = Display {
            thinking: true,
            tools: Tools::Full,
            raw: true,
        };
        save_display(&path, display).unwrap();
        assert_eq!(load_display(&path), display);
        let table: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        assert_eq!(table["other"].as_integer(), Some(1), "unknown keys stay");
        assert_eq!(table["transcript"]["mine"].as_str(), Some("x"));
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
        std::fs::write(&path, "[transcript]\ntools = \"sideways\"\n").unwrap();
        assert_eq!(
            load_display(&path),
            Display::default(),
            "a bad value is ignored"
        );
        let nowhere = dir.path().join("missing/loki-sessions/state.toml");
        save_display(&nowhere, display).unwrap();
        assert!(
            !dir.path().join("missing").exists(),
            "no config home is made"
        );
        let made = dir.path().join("loki-sessions/state.toml");
        save_display(&made, display).unwrap();
        assert_eq!(load_display(&made), display, "the app's own folder is made");
    }
}
