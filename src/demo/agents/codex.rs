//! Codex rollouts as Codex writes them: `{timestamp, type, payload}` per
//! line, the `session_meta` first; per turn a `turn_context`, the person's
//! message (as an item and as an event), reasoning, tool calls and their
//! outputs, the answer, and a cumulative `token_count`. Older rollouts
//! (drift) keep tool outputs as `{content, success}` objects and use
//! `local_shell_call`; some are compacted, renamed, or archived.

use super::{AgentsSpec, AgentsSummary, iso_z, project_dir, push_line, start_of, write_file};
use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::Result;
use serde_json::{Value, json};
use std::path::Path;

const MODELS: [&str; 2] = ["gpt-5-codex", "gpt-5"];

struct Rollout {
    out: Vec<u8>,
    clock: f64,
    rng: Rng,
    total: [u64; 5],
    model: &'static str,
    old: bool,
    /// Codex 0.15x records cache writes (`cache_write_input_tokens`).
    writes_cache: bool,
}

impl Rollout {
    fn line(&mut self, kind: &str, payload: Value) {
        self.clock += 0.5 + self.rng.unit() * 8.0;
        push_line(
            &mut self.out,
            &json!({"timestamp": iso_z(self.clock), "type": kind, "payload": payload}),
        );
    }

    fn item(&mut self, payload: Value) {
        self.line("response_item", payload);
    }

    fn event(&mut self, payload: Value) {
        self.line("event_msg", payload);
    }

    /// One turn of the person and the agent.
    fn turn(&mut self, corpus: &Corpus, cwd: &str, prompt: &str) {
        self.line("turn_context", json!({"cwd": cwd, "approval_policy": "on-request",
            "sandbox_policy": {"mode": "workspace-write"}, "model": self.model, "effort": "medium", "summary": "auto"}));
        self.item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}));
        self.event(json!({"type": "user_message", "message": prompt, "images": []}));
        let thinking = self.rng.pick(&corpus.thinking).to_string();
        self.item(
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": thinking}],
            "content": null, "encrypted_content": "gAAAAABo-demo-encrypted"}),
        );
        self.event(json!({"type": "agent_reasoning", "text": thinking}));
        for _ in 0..self.rng.below(3) {
            let call = format!("call_{}", &self.rng.uuid().simple().to_string()[..24]);
            let output = self.rng.pick(&corpus.tool_outputs).to_string();
            if self.old {
                self.item(json!({"type": "local_shell_call", "call_id": call, "status": "completed",
                    "action": {"type": "exec", "command": ["bash", "-lc", "ls"], "timeout_ms": 10000}}));
                self.item(json!({"type": "function_call_output", "call_id": call,
                    "output": {"content": output, "success": true}}));
            } else if self.rng.below(3) == 0 {
                let code = self.rng.pick(&corpus.code).to_string();
                self.item(json!({"type": "custom_tool_call", "status": "completed", "call_id": call, "name": "apply_patch",
                    "input": format!("*** Begin Patch\n*** Update File: src/lib.rs\n+{code}\n*** End Patch")}));
                self.item(json!({"type": "custom_tool_call_output", "call_id": call,
                    "output": "{\"output\":\"Success. Updated the following files:\\nM src/lib.rs\\n\",\"metadata\":{\"exit_code\":0}}"}));
            } else {
                self.item(json!({"type": "function_call", "name": "shell",
                    "arguments": "{\"command\":[\"bash\",\"-lc\",\"cargo test\"],\"workdir\":\".\"}", "call_id": call}));
                self.item(json!({"type": "function_call_output", "call_id": call,
                    "output": json!({"output": output, "metadata": {"exit_code": 0, "duration_seconds": 1.2}}).to_string()}));
            }
        }
        let answer = self.rng.pick(&corpus.replies).to_string();
        self.item(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}]}));
        self.event(json!({"type": "agent_message", "message": answer}));
        self.tokens();
    }

    /// A cumulative `token_count`: `input_tokens` includes the cached ones.
    fn tokens(&mut self) {
        let input = 2_000 + self.rng.below(20_000) as u64;
        let cached = input * (self.rng.below(90) as u64) / 100;
        let output = 100 + self.rng.below(2_000) as u64;
        let reasoning = output / 3;
        let written = if self.writes_cache {
            (input - cached) / 2
        } else {
            0
        };
        let last = [input, cached, output, reasoning, written];
        for (t, l) in self.total.iter_mut().zip(last) {
            *t += l;
        }
        let writes = self.writes_cache;
        let usage = |u: [u64; 5]| {
            let mut v = json!({"input_tokens": u[0], "cached_input_tokens": u[1], "output_tokens": u[2],
            "reasoning_output_tokens": u[3], "total_tokens": u[0] + u[2]});
            if writes {
                v["cache_write_input_tokens"] = json!(u[4]);
            }
            v
        };
        let info = json!({"total_token_usage": usage(self.total), "last_token_usage": usage(last), "model_context_window": 272000});
        let limits = json!({"primary": {"used_percent": 4.0, "window_minutes": 300, "resets_at": 1795170000}, "secondary": null});
        self.event(json!({"type": "token_count", "info": info, "rate_limits": limits}));
        // Codex sometimes writes the same totals twice: they count once.
        if self.rng.below(4) == 0 {
            self.event(json!({"type": "token_count", "info": info, "rate_limits": limits}));
        }
    }
}

/// Writes the rollouts of `spec` under `home` (`$CODEX_HOME`).
pub fn generate(
    home: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    let mut index_lines = Vec::new();
    for index in 0..spec.codex {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0xC0DE) ^ index as u64);
        let id = rng.uuid().to_string();
        let cwd = project_dir(&mut rng);
        let start = start_of(index, spec.codex, spec.now, &mut rng);
        let shape = if spec.extras { index % 5 } else { 4 };
        let mut r = Rollout {
            out: Vec::new(),
            clock: start,
            rng: Rng::new(rng.next_u64()),
            total: [0; 5],
            model: rng.pick::<&str>(&MODELS),
            old: shape == 3,
            writes_cache: shape == 1,
        };
        let version = match (r.old, r.writes_cache) {
            (true, _) => "0.38.0",
            (false, true) => "0.152.0",
            (false, false) => "0.46.0",
        };
        let mut meta = json!({"id": id, "timestamp": iso_z(start), "cwd": cwd, "originator": "codex_cli_rs",
            "cli_version": version, "source": "cli", "model_provider": "openai",
            "git": {"commit_hash": "3f0c2a9e8d1b4c559e7a2b6f0d4c1a7e00000000", "branch": "main", "repository_url": "git@example.com:dev/app.git"}});
        if !r.old {
            meta["base_instructions"] =
                json!({"text": "You are Codex, a coding agent. ".repeat(200)});
        }
        r.line("session_meta", meta);
        if !r.old {
            r.item(json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>Approvals: on-request.</permissions instructions>"}]}));
        }
        r.item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>")}]}));
        if !r.old {
            r.event(json!({"type": "token_count", "info": null, "rate_limits": null}));
        }
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        r.turn(corpus, &cwd, rng.pick::<&str>(&corpus.prompts));
        for t in 1..turns.max(1) {
            if shape == 0 && t == 2 {
                r.line("compacted", json!({"message": "Summary of the work so far: the tests pass.", "replacement_history": []}));
                r.item(json!({"type": "ghost_snapshot", "ghost_commit": {"id": "abc123", "parent": null, "preexisting_untracked_files": [], "preexisting_untracked_dirs": []}}));
            }
            if shape == 2 && t == 1 {
                r.item(json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "rust serde flatten"}}));
            }
            r.turn(corpus, &cwd, rng.pick::<&str>(&corpus.prompts));
        }
        if shape == 0 {
            r.event(json!({"type": "thread_name_updated", "thread_id": id, "thread_name": "Compacted orders work"}));
            summary.codex_compacted = Some(id.clone());
        }
        if shape == 1 {
            index_lines.push(
                json!({"id": id, "thread_name": "Billing refactor", "updated_at": iso_z(r.clock)}),
            );
        }
        if spec.hostile && shape == 2 {
            r.line("hologram_item", json!({"x": 1}));
            r.item(json!({"type": "image_generation_future", "id": "x"}));
            r.out.extend_from_slice(b"{\"timestamp\":\"2026-");
        }
        let name = format!("rollout-{}-{id}.jsonl", file_time(start));
        let path = if shape == 4 {
            home.join("archived_sessions").join(name)
        } else {
            let day = &iso_z(start)[..10];
            home.join("sessions")
                .join(&day[..4])
                .join(&day[5..7])
                .join(&day[8..10])
                .join(name)
        };
        write_file(&path, &r.out)?;
        summary.codex.push(id);
    }
    let mut index = Vec::new();
    for line in &index_lines {
        push_line(&mut index, line);
    }
    write_file(&home.join("session_index.jsonl"), &index)
}

/// `2026-11-20T10-00-00`, as rollout file names have it.
fn file_time(seconds: f64) -> String {
    iso_z(seconds)[..19].replace(':', "-")
}
