//! Claude Code sessions as Claude Code writes them: one line per event,
//! linked by `parentUuid`; an assistant message streamed over one line per
//! content block, all sharing its `message.id` and `requestId` and
//! repeating its usage; tool results in user lines with `toolUseResult`
//! beside; bookkeeping lines (snapshots, titles, turn durations, progress);
//! compactions, rewinds, resumes and subagents in the sessions that have them.
//! Usage as Claude Code records it: some files without `requestId`s (as
//! older versions wrote them), one-hour cache writes beside five-minute
//! ones in newer versions, a side chain's replay of a message.

use super::{
    AgentsSpec, AgentsSummary, claude_folder_name, dated, iso_z, project_dir, push_line, start_of,
    write_file,
};
use crate::demo::conversation::base64_encode;
use crate::demo::corpus::{Corpus, IMAGE_PNG, Rng};
use crate::store::error::Result;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

const MODELS: [&str; 4] = [
    "claude-sonnet-4-5-20250929",
    "claude-opus-4-1-20250805",
    "claude-haiku-4-5-20251001",
    "claude-opus-4-6",
];
const TOOLS: [&str; 5] = ["Bash", "Read", "Edit", "Grep", "Glob"];

/// A Claude Code session file being written, line by line.
pub struct ClaudeFile {
    /// The file's bytes so far.
    pub out: Vec<u8>,
    session: String,
    cwd: String,
    version: &'static str,
    /// True for versions that write one line per content block.
    streamed: bool,
    clock: f64,
    /// The uuid of the last line of the chain (the next line's parent).
    pub last: Option<String>,
    sidechain: bool,
    agent_id: Option<String>,
    /// The model the assistant's lines name.
    pub model: &'static str,
    /// False for a file whose lines carry no `requestId`.
    pub request_ids: bool,
    rng: Rng,
    /// Cache reads grow as the conversation does.
    context: u64,
}

impl ClaudeFile {
    /// A new session `session` worked in `cwd`, starting at `start`.
    pub fn new(session: &str, cwd: &str, start: f64, seed: u64) -> ClaudeFile {
        let mut rng = Rng::new(seed);
        let (version, streamed) =
            *rng.pick(&[("2.0.14", true), ("2.1.3", true), ("1.0.98", false)]);
        ClaudeFile {
            out: Vec::new(),
            session: session.to_string(),
            cwd: cwd.to_string(),
            version,
            streamed,
            clock: start,
            last: None,
            sidechain: false,
            agent_id: None,
            model: rng.pick::<&str>(&MODELS),
            request_ids: rng.below(3) != 0,
            rng,
            context: 12_000,
        }
    }

    /// The same, as a subagent's file: every line a sidechain of `agent_id`.
    pub fn subagent(session: &str, cwd: &str, start: f64, seed: u64, agent_id: &str) -> ClaudeFile {
        ClaudeFile {
            sidechain: true,
            agent_id: Some(agent_id.to_string()),
            ..ClaudeFile::new(session, cwd, start, seed)
        }
    }

    /// Writes lines of the old layout (one line per message, version 1.0).
    pub fn old_version(&mut self) {
        self.version = "1.0.98";
        self.streamed = false;
    }

    fn tick(&mut self) -> String {
        self.clock += 1.0 + self.rng.unit() * 20.0;
        iso_z(self.clock)
    }

    /// Writes a line.
    pub fn line(&mut self, value: &Value) {
        push_line(&mut self.out, value);
    }

    /// The fields every chained line has, linked after the last one.
    fn base(&mut self, kind: &str) -> (Map<String, Value>, String) {
        let uuid = self.rng.uuid().to_string();
        let mut m = Map::new();
        m.insert("parentUuid".into(), json!(self.last));
        m.insert("isSidechain".into(), json!(self.sidechain));
        m.insert("userType".into(), json!("external"));
        m.insert("cwd".into(), json!(self.cwd));
        m.insert("sessionId".into(), json!(self.session));
        m.insert("version".into(), json!(self.version));
        m.insert("gitBranch".into(), json!("main"));
        if let Some(agent) = &self.agent_id {
            m.insert("agentId".into(), json!(agent));
        }
        m.insert("type".into(), json!(kind));
        (m, uuid)
    }

    fn finish(&mut self, mut m: Map<String, Value>, uuid: String) {
        let ts = self.tick();
        m.insert("uuid".into(), json!(uuid));
        m.insert("timestamp".into(), json!(ts));
        self.line(&Value::Object(m));
        self.last = Some(uuid);
    }

    /// A prompt the person typed (`content` a string, or blocks).
    pub fn user(&mut self, content: Value) {
        let (mut m, uuid) = self.base("user");
        m.insert(
            "message".into(),
            json!({"role": "user", "content": content}),
        );
        self.finish(m, uuid);
    }

    /// A meta line (an injected caveat), and a command the person ran.
    pub fn command(&mut self, name: &str, output: &str) {
        let (mut m, uuid) = self.base("user");
        m.insert("isMeta".into(), json!(true));
        m.insert("message".into(), json!({"role": "user", "content": "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages."}));
        self.finish(m, uuid);
        self.user(json!(format!("<command-name>{name}</command-name>\n<command-message>{name}</command-message>\n<command-args></command-args>")));
        self.user(json!(format!(
            "<local-command-stdout>{output}</local-command-stdout>"
        )));
    }

    /// An assistant message: streamed as one line per block (newer
    /// versions) or written whole, its usage on every line.
    pub fn assistant(&mut self, blocks: Vec<Value>) {
        let id = format!("msg_01{}", &self.rng.uuid().simple().to_string()[..22]);
        let request = format!("req_011C{}", &self.rng.uuid().simple().to_string()[..20]);
        let output: u64 = 40 + self.rng.below(900) as u64;
        let input = 3 + self.rng.below(40) as u64;
        let created = if self.rng.below(3) == 0 {
            500 + self.rng.below(4000) as u64
        } else {
            0
        };
        let read = self.context;
        self.context += created + output;
        // Newer versions say how long each write is cached.
        let hour = if self.version.starts_with("2.") && self.rng.below(2) == 0 {
            created / 2
        } else {
            0
        };
        let split = self.version.starts_with("2.");
        let usage = |out: u64| {
            let mut u = json!({"input_tokens": input, "cache_creation_input_tokens": created,
                   "cache_read_input_tokens": read, "output_tokens": out, "service_tier": "standard"});
            if split {
                u["cache_creation"] = json!({"ephemeral_5m_input_tokens": created - hour, "ephemeral_1h_input_tokens": hour});
            }
            u
        };
        let lines: Vec<Vec<Value>> = if self.streamed {
            blocks.into_iter().map(|b| vec![b]).collect()
        } else {
            vec![blocks]
        };
        let n = lines.len();
        for (i, content) in lines.into_iter().enumerate() {
            let last = i + 1 == n;
            // Earlier lines of a stream carry the usage seen so far.
            let out = if last { output } else { 1 + output / 10 };
            let (mut m, uuid) = self.base("assistant");
            let stop = if last { json!("end_turn") } else { Value::Null };
            m.insert(
                "message".into(),
                json!({"id": id, "type": "message", "role": "assistant", "model": self.model,
                       "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage(out)}),
            );
            if self.request_ids {
                m.insert("requestId".into(), json!(request));
            }
            self.finish(m, uuid);
        }
    }

    /// A side chain's copy of the last line under another request (Claude
    /// Code replays a message so): counted once, with the main chain.
    pub fn sidechain_replay(&mut self) {
        let Some(last) = self.out[..self.out.len().saturating_sub(1)]
            .rsplit(|b| *b == b'\n')
            .next()
            .and_then(|l| serde_json::from_slice::<Value>(l).ok())
        else {
            return;
        };
        if last["type"] != "assistant" {
            return;
        }
        let mut copy = last;
        copy["isSidechain"] = json!(true);
        copy["uuid"] = json!(self.rng.uuid().to_string());
        copy["requestId"] = json!(format!(
            "req_011C{}",
            &self.rng.uuid().simple().to_string()[..20]
        ));
        self.line(&copy);
    }

    /// The results of tool calls, as the user line that carries them back.
    pub fn tool_results(&mut self, results: Vec<(String, String, bool)>) {
        let (mut m, uuid) = self.base("user");
        let content: Vec<Value> = results
            .iter()
            .map(|(id, out, err)| json!({"tool_use_id": id, "type": "tool_result", "content": out, "is_error": err}))
            .collect();
        let first = results.first().map_or(String::new(), |r| r.1.clone());
        m.insert(
            "message".into(),
            json!({"role": "user", "content": content}),
        );
        m.insert(
            "toolUseResult".into(),
            json!({"stdout": first, "stderr": "", "interrupted": false, "isImage": false}),
        );
        self.finish(m, uuid);
    }

    /// A system line of `subtype` with `extra` fields.
    pub fn system(&mut self, subtype: &str, extra: Value) {
        let (mut m, uuid) = self.base("system");
        m.insert("subtype".into(), json!(subtype));
        if let Value::Object(extra) = extra {
            m.extend(extra);
        }
        self.finish(m, uuid);
    }

    /// A compaction: a boundary starting a new root, then the summary.
    pub fn compact(&mut self, corpus: &Corpus) {
        let before = self.last.take();
        let (mut m, uuid) = self.base("system");
        m.insert("subtype".into(), json!("compact_boundary"));
        m.insert("content".into(), json!("Conversation compacted"));
        m.insert("level".into(), json!("info"));
        m.insert("logicalParentUuid".into(), json!(before));
        m.insert(
            "compactMetadata".into(),
            json!({"trigger": "auto", "preTokens": self.context}),
        );
        self.finish(m, uuid);
        let (mut m, uuid) = self.base("user");
        m.insert("isCompactSummary".into(), json!(true));
        let summary = format!(
            "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n{}",
            self.rng.pick(&corpus.replies)
        );
        m.insert(
            "message".into(),
            json!({"role": "user", "content": summary}),
        );
        self.finish(m, uuid);
        self.context = 8_000;
    }

    /// A line outside the chain (titles, snapshots, queue operations).
    pub fn side_line(&mut self, mut value: Value) {
        if let Some(m) = value.as_object_mut() {
            m.entry("sessionId").or_insert(json!(self.session));
        }
        self.line(&value);
    }

    /// One turn: a prompt, the assistant's thinking, text and tool calls,
    /// their results, and its answer.
    pub fn turn(&mut self, corpus: &Corpus, prompt: &str) {
        let with_image = self.rng.below(10) == 0;
        if with_image {
            let data = base64_encode(IMAGE_PNG);
            self.user(json!([{"type": "text", "text": prompt},
                             {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]));
        } else {
            self.user(json!(prompt));
        }
        self.side_line(json!({"type": "file-history-snapshot", "messageId": self.last, "snapshot": {"messageId": self.last, "trackedFileBackups": {}, "timestamp": iso_z(self.clock)}, "isSnapshotUpdate": false}));
        let calls = self.rng.below(3);
        let mut blocks = vec![
            json!({"type": "thinking", "thinking": self.rng.pick(&corpus.thinking), "signature": "EqQBCkYIBxgCKkB"}),
            json!({"type": "text", "text": self.rng.pick(&corpus.replies)}),
        ];
        let mut ids = Vec::new();
        for _ in 0..calls {
            let id = format!("toolu_01{}", &self.rng.uuid().simple().to_string()[..22]);
            let tool = *self.rng.pick(&TOOLS);
            let input = match tool {
                "Bash" => {
                    json!({"command": "cargo test --lib", "description": "Run the unit tests"})
                }
                "Read" => json!({"file_path": format!("{}/src/main.rs", self.cwd)}),
                "Edit" => {
                    json!({"file_path": format!("{}/src/lib.rs", self.cwd), "old_string": "a", "new_string": self.rng.pick(&corpus.code)})
                }
                _ => json!({"pattern": "fn main", "path": self.cwd}),
            };
            blocks.push(json!({"type": "tool_use", "id": id, "name": tool, "input": input}));
            ids.push(id);
        }
        self.assistant(blocks);
        if !ids.is_empty() {
            let results = ids
                .into_iter()
                .map(|id| {
                    let out = self.rng.pick(&corpus.tool_outputs).to_string();
                    let err = self.rng.below(12) == 0;
                    (id, out, err)
                })
                .collect();
            self.tool_results(results);
            let answer = vec![json!({"type": "text", "text": self.rng.pick(&corpus.replies)})];
            self.assistant(answer);
        }
        let ms = 2_000 + self.rng.below(60_000);
        self.system("turn_duration", json!({"durationMs": ms, "isMeta": false}));
    }

    /// A subagent started by a `Task` call: the call, the subagent's own
    /// file (returned), and the result the call got.
    pub fn task(&mut self, corpus: &Corpus, agent_id: &str) -> Vec<u8> {
        let id = format!("toolu_01{}", &self.rng.uuid().simple().to_string()[..22]);
        self.assistant(vec![json!({"type": "tool_use", "id": id, "name": "Task",
            "input": {"description": "Look for the failing test", "prompt": "Find why the test fails", "subagent_type": "general-purpose"}})]);
        let mut sub = ClaudeFile::subagent(
            &self.session,
            &self.cwd,
            self.clock,
            self.rng.next_u64(),
            agent_id,
        );
        sub.user(json!("Find why the test fails"));
        sub.turn(corpus, "Find why the test fails");
        self.tool_results(vec![(
            id,
            "The test fails because the fixture is stale.".into(),
            false,
        )]);
        sub.out
    }
}

/// Writes the sessions of `spec` under `projects`.
pub fn generate(
    projects: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    for index in 0..spec.claude {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0xC1A0) ^ index as u64);
        let session = rng.uuid().to_string();
        let cwd = project_dir(&mut rng);
        let start = start_of(index, spec.claude, spec.now, &mut rng);
        let folder = projects.join(claude_folder_name(&cwd));
        let mut f = ClaudeFile::new(&session, &cwd, start, rng.next_u64());
        let shape = if spec.extras { index % 8 } else { 7 };
        if shape == 4 {
            // A model no price list knows: unpriced, never $0.
            f.model = "acme-coder-7";
        }
        if shape == 5 {
            f.old_version();
            f.side_line(json!({"type": "summary", "summary": "Flaky integration test investigation", "leafUuid": rng.uuid().to_string()}));
        }
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        let prompt = rng.pick::<&str>(&corpus.prompts);
        f.turn(corpus, prompt);
        for t in 1..turns.max(1) {
            if shape == 0 && (t == 2 || t == 4) {
                f.compact(corpus);
            }
            if shape == 1 && t == 2 {
                let fork = f.last.clone();
                f.turn(corpus, "Actually, try it another way");
                f.last = fork;
            }
            if shape == 2 && t == 1 {
                let agent = format!("{:08x}", rng.next_u64() as u32);
                let sub = f.task(corpus, &agent);
                write_file(
                    &folder
                        .join(&session)
                        .join("subagents")
                        .join(format!("agent-{agent}.jsonl")),
                    &sub,
                )?;
                let old = format!("{:08x}", rng.next_u64() as u32);
                let sub = f.task(corpus, &old);
                write_file(&folder.join(format!("agent-{old}.jsonl")), &sub)?;
            }
            if shape == 3 && t == 1 {
                f.command("/cost", "Total cost: $0.42");
            }
            f.turn(corpus, rng.pick::<&str>(&corpus.prompts));
            if shape == 7 && t == 1 {
                f.sidechain_replay();
            }
        }
        match shape {
            1 => summary.claude_rewound = Some(session.clone()),
            0 => summary.claude_compacted = Some(session.clone()),
            2 => summary.claude_with_subagents = Some(session.clone()),
            _ => {}
        }
        if shape == 3 {
            // Resumed: the first lines are written again, same uuids.
            let replay: Vec<u8> = f
                .out
                .split_inclusive(|b| *b == b'\n')
                .take(3)
                .flatten()
                .copied()
                .collect();
            f.out.extend(replay);
            f.side_line(json!({"type": "custom-title", "customTitle": "Login fix"}));
        }
        if shape == 4 {
            f.side_line(json!({"type": "ai-title", "aiTitle": "Paginate the orders endpoint"}));
            f.side_line(json!({"type": "queue-operation", "operation": "enqueue", "timestamp": iso_z(start), "content": "also update the docs"}));
            f.side_line(json!({"type": "permission-mode", "permissionMode": "acceptEdits"}));
            f.side_line(json!({"type": "last-prompt", "lastPrompt": "also update the docs"}));
            f.side_line(json!({"type": "pr-link", "prNumber": 42, "prUrl": "https://example.com/pr/42", "prRepository": "dev/shop-api", "timestamp": iso_z(start)}));
        }
        if spec.hostile && shape == 6 {
            f.side_line(json!({"type": "hologram-event", "uuid": rng.uuid().to_string(), "payload": {"x": 1}}));
            f.out
                .extend_from_slice(b"{\"type\":\"user\",\"message\": not json\n");
            f.out
                .extend_from_slice(b"{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}\n");
            f.assistant(vec![json!({"type": "server_tool_future", "id": "x"})]);
            f.out
                .extend_from_slice(b"{\"type\":\"assistant\",\"uuid\":\"cut");
            summary.claude_hostile = Some(session.clone());
        }
        let file = folder.join(format!("{session}.jsonl"));
        write_file(&file, &f.out)?;
        // Last written at its last line, as Claude Code leaves it (its
        // cleanup goes by this time).
        dated(&file, f.clock.min(spec.now))?;
        summary.claude.push(session);
    }
    Ok(())
}

/// One session of about `bytes` bytes.
pub fn big(projects: &Path, bytes: u64, seed: u64, now: f64, corpus: &Corpus) -> Result<PathBuf> {
    let mut rng = Rng::new(seed);
    let session = rng.uuid().to_string();
    let cwd = project_dir(&mut rng);
    let mut f = ClaudeFile::new(&session, &cwd, now - 86_400.0, rng.next_u64());
    let big_output: String = corpus
        .tool_outputs
        .iter()
        .chain(&corpus.code)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    while (f.out.len() as u64) < bytes {
        f.turn(corpus, rng.pick::<&str>(&corpus.prompts));
        let id = format!("toolu_01{}", &rng.uuid().simple().to_string()[..22]);
        f.assistant(vec![json!({"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": "big.log"}})]);
        f.tool_results(vec![(id, big_output.repeat(8), false)]);
    }
    let path = projects
        .join(claude_folder_name(&cwd))
        .join(format!("{session}.jsonl"));
    write_file(&path, &f.out)?;
    Ok(path)
}

/// `count` small sessions.
pub fn many(
    projects: &Path,
    count: usize,
    seed: u64,
    now: f64,
    corpus: &Corpus,
) -> Result<Vec<PathBuf>> {
    let items: Vec<usize> = (0..count).collect();
    let made = crate::store::parallel::map_ordered(&items, |&index| -> Result<PathBuf> {
        let mut rng = Rng::new(seed ^ (index as u64).wrapping_mul(0x9E37));
        let session = rng.uuid().to_string();
        let cwd = format!("{}-{}", project_dir(&mut rng), index % 50);
        let mut f = ClaudeFile::new(
            &session,
            &cwd,
            start_of(index, count, now, &mut rng),
            rng.next_u64(),
        );
        for _ in 0..1 + rng.below(4) {
            f.turn(corpus, rng.pick::<&str>(&corpus.prompts));
        }
        let path = projects
            .join(claude_folder_name(&cwd))
            .join(format!("{session}.jsonl"));
        write_file(&path, &f.out)?;
        Ok(path)
    });
    made.into_iter().collect()
}
