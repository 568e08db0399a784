//! GitHub Copilot CLI sessions as the CLI writes them: a folder per session
//! (`session-state/<id>/`) with `events.jsonl`, one event per line, each
//! `{type, data, id, parentId, timestamp}` chained by `parentId`, and a
//! `workspace.yaml`. A run ends with `session.shutdown`, the session's
//! tokens so far by model; a resume appends a second run to the same file,
//! its figures carried on. Some sessions
//! have a subagent (its events carry `agentId`), a compaction, or (with
//! `hostile`) a line that is not JSON.

use super::{AgentsSpec, AgentsSummary, iso_z, project_dir, push_line, start_of, write_file};
use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::Result;
use serde_json::{Value, json};
use std::path::Path;

/// One session's events being written.
struct Events {
    out: Vec<u8>,
    last_id: Option<String>,
    clock: f64,
    rng: Rng,
    model: &'static str,
    /// The session's tokens so far (a resume carries them on): input not
    /// read from or written to the cache, output, cache reads.
    spent: (u64, u64, u64),
}

impl Events {
    /// Writes one event of `kind` (of subagent `agent` when named).
    fn push(&mut self, kind: &str, data: Value, agent: Option<&str>) {
        self.clock += 1.0 + self.rng.unit() * 12.0;
        let id = self.rng.uuid().to_string();
        let mut event = json!({"type": kind, "data": data, "id": id, "parentId": self.last_id,
            "timestamp": iso_z(self.clock)});
        if let Some(agent) = agent {
            event["agentId"] = json!(agent);
        }
        push_line(&mut self.out, &event);
        self.last_id = Some(id);
    }

    /// A prompt, the model's work on it (a reasoning, a tool call or two,
    /// their results) and its answer.
    fn turn(&mut self, prompt: &str, corpus: &Corpus, agent: Option<&str>) {
        self.push("user.message", json!({"content": prompt}), agent);
        let turn = self.rng.below(1000).to_string();
        self.push(
            "assistant.turn_start",
            json!({"turnId": turn, "model": self.model}),
            agent,
        );
        let thinking = *self.rng.pick(&corpus.thinking);
        let reasoning = self.rng.uuid().to_string();
        self.push(
            "assistant.reasoning",
            json!({"reasoningId": reasoning, "content": thinking}),
            agent,
        );
        for _ in 0..self.rng.below(3) {
            let call = format!("toolu_{:016x}", self.rng.next_u64());
            let (tool, arguments) = if self.rng.below(2) == 0 {
                ("view", json!({"path": "/home/dev/src/app/src/main.rs"}))
            } else {
                (
                    "bash",
                    json!({"command": "cargo test", "description": "Run the tests"}),
                )
            };
            let message = self.rng.uuid().to_string();
            self.push(
                "assistant.message",
                json!({"messageId": message, "content": "", "model": self.model,
                    "toolRequests": [{"toolCallId": call, "name": tool, "arguments": arguments, "type": "function"}]}),
                agent,
            );
            self.push(
                "tool.execution_start",
                json!({"toolCallId": call, "toolName": tool, "arguments": arguments}),
                agent,
            );
            let output = *self.rng.pick(&corpus.tool_outputs);
            self.push(
                "tool.execution_complete",
                json!({"toolCallId": call, "success": true, "model": self.model,
                    "result": {"content": output, "detailedContent": output}}),
                agent,
            );
        }
        let reply = *self.rng.pick(&corpus.replies);
        let output = 40 + self.rng.below(900) as u64;
        let message = self.rng.uuid().to_string();
        self.push(
            "assistant.message",
            json!({"messageId": message, "content": reply, "model": self.model,
                "outputTokens": output}),
            agent,
        );
        self.push("assistant.turn_end", json!({"turnId": turn}), agent);
        let input = 2_000 + self.rng.below(20_000) as u64;
        self.spent.0 += input / 4;
        self.spent.1 += output;
        self.spent.2 += input - input / 4;
    }

    /// The end of a run: the session's tokens so far by model (its input
    /// holding the cache reads and writes), the context at its end.
    fn shutdown(&mut self) {
        let (fresh, output, cached) = self.spent;
        let written = fresh / 10;
        let current = 8_000 + self.rng.below(60_000) as u64;
        self.push(
            "session.shutdown",
            json!({"shutdownType": "routine", "totalPremiumRequests": 3, "totalApiDurationMs": 41_000,
                "sessionStartTime": 0, "currentModel": self.model, "currentTokens": current,
                "systemTokens": 6_000, "conversationTokens": current - 6_000,
                "codeChanges": {"linesAdded": 12, "linesRemoved": 3, "filesModified": []},
                "modelMetrics": {self.model: {"requests": {"count": 4, "cost": 1},
                    "usage": {"inputTokens": fresh + cached + written, "outputTokens": output,
                        "cacheReadTokens": cached, "cacheWriteTokens": written}}}}),
            None,
        );
    }
}

/// Writes the sessions of `spec` under `home` (`~/.copilot`).
pub fn generate(
    home: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    for index in 0..spec.copilot {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0xC0B1) ^ index as u64);
        let id = rng.uuid().to_string();
        let cwd = project_dir(&mut rng);
        let start = start_of(index, spec.copilot, spec.now, &mut rng);
        let shape = if spec.extras { index % 4 } else { 3 };
        let mut e = Events {
            out: Vec::new(),
            last_id: None,
            clock: start,
            rng: Rng::new(rng.next_u64()),
            model: rng.pick::<&str>(&["claude-sonnet-4.5", "gpt-5", "claude-haiku-4.5"]),
            spent: (0, 0, 0),
        };
        let context =
            json!({"cwd": cwd, "gitRoot": cwd, "branch": "main", "repository": "dev/app"});
        e.push(
            "session.start",
            json!({"sessionId": id, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.4",
                "startTime": iso_z(start), "context": context, "selectedModel": e.model}),
            None,
        );
        e.push(
            "system.message",
            json!({"role": "system", "content": "You are the GitHub Copilot CLI, a terminal assistant."}),
            None,
        );
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        for _ in 0..turns.max(1) {
            e.turn(rng.pick::<&str>(&corpus.prompts), corpus, None);
        }
        if shape == 0 {
            // A subagent's work, inside the parent's file.
            let call = format!("toolu_{:016x}", rng.next_u64());
            e.push(
                "subagent.started",
                json!({"toolCallId": call, "agentName": "explore", "agentDisplayName": "Explore",
                    "agentDescription": "Looks through the code"}),
                None,
            );
            let agent = format!("explore-{:08x}", rng.next_u64() as u32);
            e.turn("Find where the orders are validated", corpus, Some(&agent));
            e.push(
                "subagent.completed",
                json!({"toolCallId": call, "agentName": "explore", "agentDisplayName": "Explore"}),
                None,
            );
        }
        e.shutdown();
        if shape == 1 {
            // Resumed the next day: a second run in the same file, compacted.
            e.clock += 86_400.0;
            e.push(
                "session.resume",
                json!({"resumeTime": iso_z(e.clock), "eventCount": 40, "context": context, "selectedModel": e.model}),
                None,
            );
            e.push(
                "session.compaction_start",
                json!({"tokenLimit": 128_000, "currentTokens": 90_000, "trigger": "threshold"}),
                None,
            );
            e.push(
                "session.compaction_complete",
                json!({"success": true, "summaryContent": "We fixed the tests and started on the docs.",
                    "preCompactionTokens": 90_000, "postCompactionTokens": 9_000}),
                None,
            );
            e.turn("Now update the docs", corpus, None);
            e.shutdown();
        }
        if spec.hostile && shape == 2 {
            e.out.extend_from_slice(b"{\"type\": broken\n");
        }
        let dir = home.join("session-state").join(&id);
        write_file(&dir.join("events.jsonl"), &e.out)?;
        const NAMES: [&str; 4] = [
            "Review the orders module",
            "Speed up the search page",
            "Move the config to TOML",
            "Explain the payment flow",
        ];
        // A session a person never named, or that older versions left
        // unnamed, is titled by its first prompt.
        let name = match shape {
            1 => "Fix the flaky tests",
            3 => "",
            _ => NAMES[index / 2 % NAMES.len()],
        };
        let mut yaml = format!(
            "id: {id}\ncwd: {cwd}\ngit_root: {cwd}\nrepository: dev/app\nbranch: main\nclient_name: github/cli\ncreated_at: {}\nupdated_at: {}\n",
            iso_z(start),
            iso_z(e.clock)
        );
        if !name.is_empty() {
            yaml.push_str(&format!("name: {name}\nuser_named: false\n"));
        }
        write_file(&dir.join("workspace.yaml"), yaml.as_bytes())?;
        if shape == 0 {
            // What Copilot keeps beside its events: a plan and checkpoints.
            write_file(
                &dir.join("plan.md"),
                b"# Plan\n\n- [x] Read the orders module\n- [ ] Write the review\n",
            )?;
            write_file(
                &dir.join("checkpoints/index.md"),
                b"| # | Title |\n|---|---|\n| 1 | Orders module read |\n",
            )?;
        }
        summary.copilot.push(id);
    }
    Ok(())
}
