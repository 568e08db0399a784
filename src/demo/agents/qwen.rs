//! Qwen Code sessions as the CLI writes them: one file per session in
//! `projects/<project>/chats/<id>.jsonl`, every record chained to the one
//! before by `parentUuid`; answers with thought parts, text and
//! `functionCall`s and their `usageMetadata`; `tool_result` records. Some
//! sessions have a title set (`system` / `custom_title`), a compression, a
//! rewound answer (a branch off the chain whose tokens still count), a
//! subagent's records (`isSidechain`), or (with `hostile`) a bad line.

use super::{
    AgentsSpec, AgentsSummary, claude_folder_name, iso_z, project_dir, push_line, start_of,
    write_file,
};
use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::Result;
use serde_json::{Value, json};
use std::path::Path;

struct Chat {
    out: Vec<u8>,
    id: String,
    cwd: String,
    parent: Option<String>,
    clock: f64,
    rng: Rng,
    model: &'static str,
}

impl Chat {
    /// Writes a record of `kind` after the last one; returns its uuid.
    fn push(&mut self, kind: &str, mut fields: Value) -> String {
        self.clock += 1.0 + self.rng.unit() * 10.0;
        let uuid = self.rng.uuid().to_string();
        let mut record = json!({"uuid": uuid, "parentUuid": self.parent, "sessionId": self.id,
            "timestamp": iso_z(self.clock), "type": kind, "cwd": self.cwd, "version": "0.21.3",
            "gitBranch": "main"});
        if let (Some(r), Some(f)) = (record.as_object_mut(), fields.as_object_mut()) {
            r.append(f);
        }
        push_line(&mut self.out, &record);
        self.parent = Some(uuid.clone());
        uuid
    }

    fn user(&mut self, prompt: &str) {
        self.push(
            "user",
            json!({"message": {"role": "user", "parts": [{"text": prompt}]}}),
        );
    }

    /// One answer: thought, text, maybe a call; its tokens. Returns its uuid.
    fn answer(&mut self, corpus: &Corpus, call: bool) -> (String, Option<String>) {
        let mut parts = vec![
            json!({"text": self.rng.pick(&corpus.thinking), "thought": true}),
            json!({"text": self.rng.pick(&corpus.replies)}),
        ];
        let call_id = call.then(|| format!("call_{:012x}", self.rng.next_u64() >> 16));
        if let Some(id) = &call_id {
            parts.push(
                json!({"functionCall": {"id": id, "name": "run_shell_command",
                "args": {"command": "cargo test", "description": "Run the tests"}}}),
            );
        }
        let prompt = 4_000 + self.rng.below(40_000) as u64;
        let cached = prompt * self.rng.below(90) as u64 / 100;
        let output = 30 + self.rng.below(1_200) as u64;
        let thoughts = self.rng.below(300) as u64;
        let uuid = self.push(
            "assistant",
            json!({"model": self.model, "contextWindowSize": 1_000_000,
                "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": output,
                    "cachedContentTokenCount": cached, "thoughtsTokenCount": thoughts,
                    "totalTokenCount": prompt + output + thoughts},
                "message": {"role": "model", "parts": parts}}),
        );
        (uuid, call_id)
    }

    fn result(&mut self, call: &str, output: &str, ok: bool) {
        let response = if ok {
            json!({"output": output})
        } else {
            json!({"error": output})
        };
        self.push(
            "tool_result",
            json!({"message": {"role": "user", "parts": [{"functionResponse": {"id": call,
                    "name": "run_shell_command", "response": response}}]},
                "toolCallResult": {"callId": call, "status": if ok { "success" } else { "error" },
                    "resultDisplay": output}}),
        );
    }

    fn turn(&mut self, prompt: &str, corpus: &Corpus) {
        self.user(prompt);
        let with_call = self.rng.below(2) == 0;
        let (_, call) = self.answer(corpus, with_call);
        if let Some(call) = call {
            let output = *self.rng.pick(&corpus.tool_outputs);
            let ok = self.rng.below(5) != 0;
            self.result(&call, output, ok);
            self.answer(corpus, false);
        }
    }
}

/// Writes the sessions of `spec` under `home` (`~/.qwen`).
pub fn generate(
    home: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    for index in 0..spec.qwen {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0x9E3) ^ index as u64);
        let id = rng.uuid().to_string();
        let cwd = project_dir(&mut rng);
        let start = start_of(index, spec.qwen, spec.now, &mut rng);
        let shape = if spec.extras { index % 4 } else { 3 };
        let mut c = Chat {
            out: Vec::new(),
            id: id.clone(),
            cwd: cwd.clone(),
            parent: None,
            clock: start,
            rng: Rng::new(rng.next_u64()),
            model: rng.pick::<&str>(&["qwen3-coder-plus", "qwen3-coder-flash"]),
        };
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        for t in 0..turns.max(1) {
            c.turn(rng.pick::<&str>(&corpus.prompts), corpus);
            if shape == 0 && t == 0 {
                // A rewound answer: the records after it go back to its parent.
                let before = c.parent.clone();
                c.answer(corpus, false);
                c.parent = before;
                c.user("Let us try that a different way");
                c.answer(corpus, false);
            }
        }
        if shape == 1 {
            c.push(
                "system",
                json!({"subtype": "chat_compression", "systemPayload": {
                    "info": {"originalTokenCount": 61_000, "newTokenCount": 4_200, "compressionStatus": 1},
                    "compressedHistory": [{"role": "user", "parts": [{"text": "We profiled the search page and cached the facets."}]}]}}),
            );
            c.turn("Now the tests for the cache", corpus);
            c.push(
                "system",
                json!({"subtype": "custom_title", "systemPayload": {"customTitle": "Search page speed-up", "titleSource": "manual"}}),
            );
        }
        if shape == 2 {
            // A subagent's work, in the parent's file.
            let main_parent = c.parent.clone();
            let agent = format!("explore-{:08x}", rng.next_u64() as u32);
            for (kind, fields) in [
                (
                    "user",
                    json!({"message": {"role": "user", "parts": [{"text": "List the modules that touch billing"}]}}),
                ),
                (
                    "assistant",
                    json!({"model": c.model, "message": {"role": "model", "parts": [{"text": "billing/, invoices/ and the cron job."}]},
                        "usageMetadata": {"promptTokenCount": 3_000, "candidatesTokenCount": 40, "cachedContentTokenCount": 0, "totalTokenCount": 3_040}}),
                ),
            ] {
                let mut fields = fields;
                fields["isSidechain"] = json!(true);
                fields["agentId"] = json!(agent);
                fields["agentName"] = json!("explore");
                c.push(kind, fields);
            }
            c.parent = main_parent;
            c.push(
                "system",
                json!({"subtype": "custom_title", "systemPayload": {"customTitle": "Billing module map", "titleSource": "auto"}}),
            );
        }
        if spec.hostile && shape == 3 {
            c.out.extend_from_slice(b"{\"uuid\": broken\n");
        }
        let chats = home
            .join("projects")
            .join(claude_folder_name(&cwd))
            .join("chats");
        write_file(&chats.join(format!("{id}.jsonl")), &c.out)?;
        summary.qwen.push(id);
    }
    Ok(())
}
