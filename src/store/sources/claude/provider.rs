//! Claude Code as the store sees it: where its sessions are, and how each
//! is read, watched, moved, forked and cleaned up by Claude Code itself.

use super::{ClaudeProjects, OldSubagents};
use crate::store::error::Result;
use crate::store::format::{Context, SessionId};
use crate::store::fs::watch::WatchRoot;
use crate::store::sources::agent::Agent;
use crate::store::sources::agent_read::AgentRead;
use crate::store::sources::listing_cache::{ListingCache, rules_of};
use crate::store::sources::provider::{
    EnvLookup, FolderSideFiles, ForkLayout, MoveLayout, Provider, Titles, named_or_home, own_bytes,
};
use crate::store::sources::record::SessionRecord;
use crate::store::sources::retention::{DAY, Rule, settings};
use std::path::{Path, PathBuf};

/// Claude Code.
pub struct Claude;

/// The code a session's record is read by, and its folders listed, as
/// text: a build that reads records or lists folders differently does not
/// take another build's remembered records or folders.
const LISTING_RULES: u64 = rules_of(&[
    include_bytes!("listing.rs"),
    include_bytes!("../claude.rs"),
    include_bytes!("listing/prompt.rs"),
    include_bytes!("command.rs"),
    include_bytes!("line.rs"),
    include_bytes!("blocks.rs"),
    include_bytes!("../jsonl.rs"),
    include_bytes!("../agent_read.rs"),
    include_bytes!("../listing_cache.rs"),
    include_bytes!("../../format/naming.rs"),
]);

impl Provider for Claude {
    fn agent(&self) -> Agent {
        Agent::Claude
    }

    fn name(&self) -> &'static str {
        "claude"
    }

    fn display_name(&self) -> &'static str {
        "Claude Code"
    }

    fn moves_to_trash(&self) -> bool {
        true
    }

    fn resume_command(&self) -> Option<&'static str> {
        // The id is checked (it never starts with `-`); passed as the
        // option's own value it could not be an option even if it did.
        Some("claude --resume={id}")
    }

    /// `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
    fn home(&self, home: Option<&Path>, env: EnvLookup<'_>) -> Option<PathBuf> {
        named_or_home(env, "CLAUDE_CONFIG_DIR", home, ".claude").map(|c| c.join("projects"))
    }

    fn scan(
        &self,
        root: &Path,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        ClaudeProjects::open(root).scan(&ListingCache::off(), on_batch)
    }

    fn listing_rules(&self) -> Option<u64> {
        Some(LISTING_RULES)
    }

    fn scan_remembering(
        &self,
        root: &Path,
        cache: &ListingCache,
        on_batch: &mut dyn FnMut(Vec<SessionRecord>) -> bool,
    ) -> Result<()> {
        ClaudeProjects::open(root).scan(cache, on_batch)
    }

    fn record_at(&self, path: &Path, _: &Titles) -> SessionRecord {
        ClaudeProjects::record_at(path)
    }

    /// The file's name is the id.
    fn id_of(&self, path: &Path) -> SessionId {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        SessionId::of_file(&stem, path)
    }

    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        ClaudeProjects::open(root).session_paths()
    }

    fn read(&self, record: &SessionRecord) -> Result<AgentRead> {
        ClaudeProjects::read(record)
    }

    fn tail(&self, record: &SessionRecord, bytes: usize) -> Option<Result<Context>> {
        Some(ClaudeProjects::tail(record, bytes))
    }

    fn side_files(&self, record: &SessionRecord) -> Vec<PathBuf> {
        ClaudeProjects::subagents(record)
    }

    /// Its own file and its `<id>/` folder (subagents, large tool outputs).
    /// Older subagent files lying beside the sessions are not counted:
    /// finding them means reading the head of every such file of the
    /// project, too much for a listing.
    fn bytes(&self, record: &SessionRecord) -> u64 {
        let beside = record.conversation_dir.join(record.id.as_str());
        own_bytes(record) + crate::store::fs::disk::tree_facts(&beside).map_or(0, |f| f.bytes)
    }

    fn folder_side_files(&self, folder: &Path) -> Option<FolderSideFiles> {
        Some(ClaudeProjects::old_subagents(folder))
    }

    /// Its `<id>/` folder, and its subagents' files of the older layout.
    fn trash_belongings(
        &self,
        record: &SessionRecord,
        folder_files: Option<&FolderSideFiles>,
    ) -> Vec<PathBuf> {
        let side = record.conversation_dir.join(record.id.as_str());
        let mut out = side_folder(record);
        let subagents = match folder_files {
            Some(old) => ClaudeProjects::subagents_given(record, old as &OldSubagents),
            None => ClaudeProjects::subagents(record),
        };
        out.extend(subagents.into_iter().filter(|p| !p.starts_with(&side)));
        out
    }

    /// `<projects>/<project>/<id>.jsonl`.
    fn root_of_file(&self, file: &Path) -> Option<PathBuf> {
        file.parent()?.parent().map(Path::to_path_buf)
    }

    /// The project folders (one level): a session file, or anything in the
    /// `<id>/` folder beside it.
    fn watch_root(&self, root: &Path) -> WatchRoot {
        WatchRoot::new(root.to_path_buf(), 1)
    }

    /// `agent-*.jsonl` files are subagents of older versions, named by
    /// their parent inside, and left to a refresh.
    fn session_file_of(&self, root: &Path, names: &[&str]) -> Option<PathBuf> {
        let [project, name, ..] = names else {
            return None;
        };
        let session = match name.strip_suffix(".jsonl") {
            Some(_) if names.len() == 2 => name.to_string(),
            // Inside the folder beside a session: that session.
            _ if names.len() > 2 => format!("{name}.jsonl"),
            _ => return None,
        };
        (!session.starts_with(super::AGENT_PREFIX)).then(|| root.join(project).join(session))
    }

    /// `cleanupPeriodDays` in the `settings.json` beside `projects`.
    fn cleanup_rule(&self, root: &Path) -> Option<Rule> {
        root.parent().map(cleanup_rule)
    }

    /// Claude Code compares the file's modification time, so a restored
    /// or touched file starts again.
    fn ages_by_modification(&self) -> bool {
        true
    }

    fn fork_layout(&self) -> Option<ForkLayout> {
        Some(ForkLayout::Claude)
    }

    fn move_layout(&self) -> std::result::Result<MoveLayout, &'static str> {
        Ok(MoveLayout::ProjectFolder)
    }
}

/// The session's `<id>/` folder, when it is a real folder there. A checked
/// id is one plain name: the folder is a direct child of the session's.
pub(crate) fn side_folder(record: &SessionRecord) -> Vec<PathBuf> {
    if record.error.is_some() {
        return Vec::new();
    }
    crate::store::sources::provider::folder_if_there(
        record.conversation_dir.join(record.id.as_str()),
    )
}

/// Claude Code's rule, from `<config>/settings.json` (`cleanupPeriodDays`).
pub(crate) fn cleanup_rule(config: &Path) -> Rule {
    let path = config.join("settings.json");
    let mut rule = Rule {
        agent: Agent::Claude,
        max_age: Some(30.0 * DAY),
        max_count: None,
        min_age: 0.0,
        from: "its default, 30 days".into(),
        note: None,
    };
    match settings(&path) {
        Ok(None) => {}
        Ok(Some(v)) => match v.get("cleanupPeriodDays") {
            None => {}
            Some(days) => match days.as_f64().filter(|d| d.is_finite() && *d >= 0.0) {
                // 0 stops Claude Code writing transcripts, not its cleanup
                // of the old ones: the shortest period, a day, stands.
                Some(days) => {
                    rule.max_age = Some(days.max(1.0) * DAY);
                    rule.from = format!("cleanupPeriodDays in {}", path.display());
                }
                None => {
                    rule.note = Some(format!(
                        "{}: cleanupPeriodDays is not a number of days; Claude Code's default (30) is assumed",
                        path.display()
                    ))
                }
            },
        },
        Err(why) => rule.note = Some(why),
    }
    rule
}
