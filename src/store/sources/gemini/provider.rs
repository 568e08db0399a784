//! Gemini CLI as the store sees it: where its sessions are, and how each
//! is read, watched and cleaned up by Gemini CLI itself.

use super::GeminiHome;
use crate::store::error::Result;
use crate::store::format::SessionId;
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::provider::{
    EnvLookup, FolderSideFiles, MoveLayout, Provider, Titles, own_bytes,
};
use crate::store::sources::record::SessionRecord;
use crate::store::sources::retention::{DAY, Rule, settings};
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Google's Gemini CLI.
pub struct Gemini;

impl Provider for Gemini {
    fn agent(&self) -> Agent {
        Agent::Gemini
    }

    fn name(&self) -> &'static str {
        "gemini"
    }

    fn display_name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn moves_to_trash(&self) -> bool {
        true
    }

    fn resume_command(&self) -> Option<&'static str> {
        Some("gemini --resume={id}")
    }

    /// `~/.gemini`.
    fn home(&self, home: Option<&Path>, _: EnvLookup<'_>) -> Option<PathBuf> {
        home.map(|h| h.join(".gemini"))
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        GeminiHome::open(root).scan(on_batch)
    }

    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        super::record_at(path)
    }

    /// Its first line says it.
    fn id_of(&self, path: &Path) -> SessionId {
        super::id_of(path)
    }

    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        GeminiHome::open(root).session_files()
    }

    /// A legacy `.json` whose session has a `.jsonl` is left out, as the
    /// list does.
    fn ids(&self, root: &Path) -> Vec<(SessionId, PathBuf)> {
        let is_jsonl = |p: &Path| p.extension().is_some_and(|e| e == "jsonl");
        let mut ids: Vec<(SessionId, PathBuf)> = self
            .session_files(root)
            .into_iter()
            .map(|p| (self.id_of(&p), p))
            .collect();
        let with_jsonl: HashSet<SessionId> = ids
            .iter()
            .filter(|(_, p)| is_jsonl(p))
            .map(|(id, _)| id.clone())
            .collect();
        ids.retain(|(id, p)| is_jsonl(p) || !with_jsonl.contains(id));
        ids
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        GeminiHome::read(record)
    }

    /// Its subagents' files, in `chats/<id>/`.
    fn side_files(&self, record: &SessionRecord) -> Vec<PathBuf> {
        let dir = record.conversation_dir.join(record.id.as_str());
        crate::store::sources::claude::plain_files(&dir)
    }

    fn bytes(&self, record: &SessionRecord) -> u64 {
        let beside = record.conversation_dir.join(record.id.as_str());
        own_bytes(record) + crate::store::fs::disk::tree_facts(&beside).map_or(0, |f| f.bytes)
    }

    /// Its `chats/<id>/` folder of subagents.
    fn trash_belongings(
        &self,
        record: &SessionRecord,
        _: Option<&FolderSideFiles>,
    ) -> Vec<PathBuf> {
        crate::store::sources::claude::provider::side_folder(record)
    }

    /// `<home>/tmp/<project>/chats/<file>`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        file.ancestors().nth(4).map(Path::to_path_buf)
    }

    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot {
            dir: root.to_path_buf(),
            depth: 3,
            only: vec![(1, vec!["tmp".into()]), (3, vec!["chats".into()])],
        }
    }

    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        match names {
            ["tmp", project, "chats", name]
                if name.ends_with(".jsonl") || name.ends_with(".json") =>
            {
                Some(root.join("tmp").join(project).join("chats").join(name))
            }
            _ => None,
        }
    }

    fn id_is_inside(&self) -> bool {
        true
    }

    fn cleanup_rule(&self, root: &Path) -> Option<Rule> {
        Some(cleanup_rule(root))
    }

    fn move_layout(&self) -> std::result::Result<MoveLayout, &'static str> {
        Err("Gemini CLI files them under a project id in its own registry")
    }
}

/// Gemini CLI's rule, from `<home>/settings.json`
/// (`general.sessionRetention`: `enabled`, `maxAge`, `maxCount`,
/// `minRetention`; on, 30 days and 1 day by default).
fn cleanup_rule(home: &Path) -> Rule {
    let path = home.join("settings.json");
    let mut rule = Rule {
        agent: Agent::Gemini,
        max_age: Some(30.0 * DAY),
        max_count: None,
        min_age: DAY,
        from: "its default, 30 days".into(),
        note: None,
    };
    let retention = match settings(&path) {
        Ok(v) => v.and_then(|v| v.get("general")?.get("sessionRetention").cloned()),
        Err(why) => {
            rule.note = Some(why);
            None
        }
    };
    let Some(retention) = retention else {
        return rule;
    };
    let from = format!("general.sessionRetention in {}", path.display());
    if retention.get("enabled").and_then(Value::as_bool) == Some(false) {
        return Rule {
            max_age: None,
            max_count: None,
            from,
            ..rule
        };
    }
    let age = |key: &str| retention.get(key).and_then(Value::as_str).map(age_of);
    match age("maxAge") {
        Some(Some(seconds)) => rule.max_age = Some(seconds),
        Some(None) => {
            rule.note = Some(format!(
                "{}: maxAge is not an age such as 30d; Gemini CLI's default is assumed",
                path.display()
            ))
        }
        None => {}
    }
    if let Some(Some(seconds)) = age("minRetention") {
        rule.min_age = seconds;
    }
    rule.max_count = retention
        .get("maxCount")
        .and_then(Value::as_u64)
        .filter(|n| *n >= 1)
        .map(|n| n as usize);
    rule.from = from;
    rule
}

/// A Gemini CLI age: a number and `h`, `d`, `w` or `m` (30 days).
pub(crate) fn age_of(text: &str) -> Option<f64> {
    let text = text.trim();
    let unit = text.chars().last()?;
    let n: f64 = text[..text.len() - unit.len_utf8()].trim().parse().ok()?;
    let per = match unit {
        'h' => 3600.0,
        'd' => DAY,
        'w' => 7.0 * DAY,
        'm' => 30.0 * DAY,
        _ => return None,
    };
    (n.is_finite() && n > 0.0).then_some(n * per)
}
