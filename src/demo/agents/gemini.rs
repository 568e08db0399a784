//! Gemini CLI sessions as the CLI writes them: the metadata first, then one
//! record per message; a `gemini` record written again (same `id`) once its
//! tool calls have results; `$set` lines for the metadata; a `$rewindTo`;
//! a `$set` of `messages` (a checkpoint); the legacy single `.json` object;
//! a subagent's file in `chats/<parent id>/`.

use super::{AgentsSpec, AgentsSummary, iso_z, project_dir, push_line, start_of, write_file};
use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::Result;
use serde_json::{Value, json};
use std::path::Path;

struct Chat {
    out: Vec<u8>,
    records: Vec<Value>,
    clock: f64,
    rng: Rng,
    model: &'static str,
}

impl Chat {
    fn tick(&mut self) -> String {
        self.clock += 1.0 + self.rng.unit() * 15.0;
        iso_z(self.clock)
    }

    /// Writes a message record; `records` keeps the messages as they
    /// stand (a record with an id already there replaces it in place).
    fn write(&mut self, record: Value) {
        push_line(&mut self.out, &record);
        match self.records.iter_mut().find(|r| r["id"] == record["id"]) {
            Some(old) => *old = record,
            None => self.records.push(record),
        }
    }

    /// Drops message `id` and every later one.
    fn rewind(&mut self, id: &str) {
        push_line(&mut self.out, &json!({"$rewindTo": id}));
        if let Some(at) = self.records.iter().position(|r| r["id"] == id) {
            self.records.truncate(at);
        }
    }

    fn user(&mut self, prompt: &str) -> String {
        let id = self.rng.uuid().to_string();
        let ts = self.tick();
        self.write(
            json!({"id": id, "timestamp": ts, "type": "user", "content": [{"text": prompt}]}),
        );
        id
    }

    /// The model's answer: written first without results, then again with them.
    fn answer(&mut self, corpus: &Corpus) {
        let id = self.rng.uuid().to_string();
        let ts = self.tick();
        let input = 3_000 + self.rng.below(30_000) as u64;
        let cached = input * self.rng.below(80) as u64 / 100;
        let output = 50 + self.rng.below(1_500) as u64;
        let thoughts = self.rng.below(400) as u64;
        let tokens = json!({"input": input, "output": output, "cached": cached, "thoughts": thoughts, "tool": 0,
            "total": input + output + thoughts});
        let thought = json!([{"subject": "Planning", "description": self.rng.pick(&corpus.thinking), "timestamp": ts}]);
        let text = self.rng.pick(&corpus.replies).to_string();
        let calls = self.rng.below(3);
        if calls == 0 {
            self.write(json!({"id": id, "timestamp": ts, "type": "gemini", "content": text, "thoughts": thought,
                "tokens": tokens, "model": self.model}));
            return;
        }
        let call_ids: Vec<String> = (0..calls)
            .map(|_| format!("read_file-{}", self.rng.next_u64()))
            .collect();
        let pending: Vec<Value> = call_ids
            .iter()
            .map(|c| json!({"id": c, "name": "read_file", "args": {"absolute_path": "/src/main.rs"}, "status": "executing", "timestamp": ts}))
            .collect();
        self.write(
            json!({"id": id, "timestamp": ts, "type": "gemini", "content": "", "thoughts": thought,
            "toolCalls": pending, "tokens": tokens, "model": self.model}),
        );
        let done: Vec<Value> = call_ids
            .iter()
            .map(|c| {
                let out = self.rng.pick(&corpus.tool_outputs).to_string();
                json!({"id": c, "name": "read_file", "args": {"absolute_path": "/src/main.rs"}, "status": "success", "timestamp": ts,
                    "result": [{"functionResponse": {"id": c, "name": "read_file", "response": {"output": out}}}],
                    "displayName": "ReadFile", "description": "Reads a file", "resultDisplay": "", "renderOutputAsMarkdown": true})
            })
            .collect();
        self.write(json!({"id": id, "timestamp": ts, "type": "gemini", "content": text, "thoughts": thought,
            "toolCalls": done, "tokens": tokens, "model": self.model}));
    }

    fn set(&mut self, fields: Value) {
        push_line(&mut self.out, &json!({"$set": fields}));
    }
}

/// Writes the sessions of `spec` under `home` (`~/.gemini`).
pub fn generate(
    home: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    for index in 0..spec.gemini {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0x6E41) ^ index as u64);
        let id = rng.uuid().to_string();
        let cwd = project_dir(&mut rng);
        let project = home
            .join("tmp")
            .join(cwd.rsplit('/').next().unwrap_or("project"));
        write_file(&project.join(".project_root"), cwd.as_bytes())?;
        let start = start_of(index, spec.gemini, spec.now, &mut rng);
        let shape = if spec.extras { index % 5 } else { 4 };
        let mut c = Chat {
            out: Vec::new(),
            records: Vec::new(),
            clock: start,
            rng: Rng::new(rng.next_u64()),
            model: rng.pick::<&str>(&["gemini-2.5-pro", "gemini-2.5-flash"]),
        };
        let meta = json!({"sessionId": id, "projectHash": format!("{:016x}", rng.next_u64()),
            "startTime": iso_z(start), "lastUpdated": iso_z(start), "kind": "main"});
        push_line(&mut c.out, &meta);
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        for t in 0..turns.max(1) {
            let rewound = c.user(rng.pick::<&str>(&corpus.prompts));
            c.answer(corpus);
            if shape == 0 && t == 1 {
                c.rewind(&rewound);
                c.user("Let us try that differently");
                c.answer(corpus);
            }
            let ts = iso_z(c.clock);
            c.set(json!({"lastUpdated": ts}));
        }
        if shape == 0 {
            // A checkpoint: every message as it stands, written again at once.
            let messages = c.records.clone();
            c.set(json!({"messages": messages}));
            c.user("And now the docs");
            c.answer(corpus);
            c.set(json!({"summary": "Retry of the orders query"}));
            summary.gemini_rewound = Some(id.clone());
        }
        if shape == 1 {
            let info_ts = c.tick();
            let info_id = c.rng.uuid().to_string();
            c.write(json!({"id": info_id, "timestamp": info_ts, "type": "info", "content": "Switched to fallback model"}));
            c.set(json!({"summary": "Deploy script fixes"}));
        }
        if shape == 2 {
            let sub_id = c.rng.uuid().to_string();
            let mut sub = Chat {
                out: Vec::new(),
                records: Vec::new(),
                clock: c.clock,
                rng: Rng::new(rng.next_u64()),
                model: c.model,
            };
            push_line(
                &mut sub.out,
                &json!({"sessionId": sub_id, "projectHash": "sub", "startTime": iso_z(c.clock), "lastUpdated": iso_z(c.clock), "kind": "subagent"}),
            );
            sub.user("Investigate the flaky test");
            sub.answer(corpus);
            write_file(
                &project
                    .join("chats")
                    .join(&id)
                    .join(format!("{sub_id}.jsonl")),
                &sub.out,
            )?;
        }
        if spec.hostile && shape == 3 {
            c.out.extend_from_slice(b"{\"id\": broken\n");
            c.out
                .extend_from_slice(b"{\"id\":\"m-x\",\"type\":\"gemini\",\"content\":\"");
        }
        let file_time = iso_z(start)[..16].replace(':', "-");
        let chats = project.join("chats");
        if shape == 4 {
            // The legacy layout: one object, messages in it.
            let messages: Vec<Value> = c.records.clone();
            let legacy = json!({"sessionId": id, "projectHash": meta["projectHash"], "startTime": iso_z(start),
                "lastUpdated": iso_z(c.clock), "messages": messages});
            let text = serde_json::to_string_pretty(&legacy).expect("JSON writes");
            write_file(
                &chats.join(format!("session-{file_time}-{}.json", &id[..8])),
                text.as_bytes(),
            )?;
            summary.gemini_legacy = Some(id.clone());
        } else {
            write_file(
                &chats.join(format!("session-{file_time}-{}.jsonl", &id[..8])),
                &c.out,
            )?;
        }
        summary.gemini.push(id);
    }
    Ok(())
}
