//! Cursor CLI transcripts as the CLI writes them: one folder per chat in
//! `projects/<project>/agent-transcripts/<id>/`, its `<id>.jsonl` lines
//! `{role, message: {content: [blocks]}}` (a person's text wrapped in
//! `<user_query>`, an answer spread over several lines: thinking, text,
//! tool calls without results), `turn_ended` lines; no times, no tokens.
//! Some chats have a subagent's transcript, an aborted turn, or (with
//! `hostile`) a bad line.

use super::{AgentsSpec, AgentsSummary, dated, project_dir, push_line, start_of, write_file};
use crate::demo::corpus::{Corpus, Rng};
use crate::store::error::Result;
use serde_json::{Value, json};
use std::path::Path;

fn line(role: &str, blocks: Value) -> Value {
    json!({"role": role, "message": {"content": blocks}})
}

/// One turn: the prompt, the answer over a few lines (a shell call among
/// them when `call`), its end.
fn turn(out: &mut Vec<u8>, prompt: &str, call: bool, rng: &mut Rng, corpus: &Corpus, cwd: &str) {
    let wrapped = format!("<user_query>\n{prompt}\n</user_query>");
    push_line(
        out,
        &line("user", json!([{"type": "text", "text": wrapped}])),
    );
    push_line(
        out,
        &line(
            "assistant",
            json!([{"type": "thinking", "thinking": rng.pick(&corpus.thinking)},
                {"type": "text", "text": "Let me look at the code first."}]),
        ),
    );
    if call {
        push_line(
            out,
            &line(
                "assistant",
                json!([{"type": "tool_use", "name": "Shell",
                    "input": {"command": "cargo test", "working_directory": cwd, "description": "Run the tests"}}]),
            ),
        );
    }
    push_line(
        out,
        &line(
            "assistant",
            json!([{"type": "text", "text": rng.pick(&corpus.replies)}]),
        ),
    );
    push_line(out, &json!({"type": "turn_ended", "status": "success"}));
}

/// Writes the transcripts of `spec` under `home` (`~/.cursor`).
pub fn generate(
    home: &Path,
    spec: &AgentsSpec,
    corpus: &Corpus,
    summary: &mut AgentsSummary,
) -> Result<()> {
    for index in 0..spec.cursor {
        let mut rng = Rng::new(spec.seed.wrapping_mul(0xC5) ^ index as u64);
        let id = rng.uuid().to_string();
        let cwd = project_dir(&mut rng);
        let start = start_of(index, spec.cursor, spec.now, &mut rng);
        let shape = if spec.extras { index % 3 } else { 2 };
        let mut out = Vec::new();
        let turns = spec.turns / 2 + rng.below(spec.turns.max(1));
        for t in 0..turns.max(1) {
            let prompt = *rng.pick(&corpus.prompts);
            // The first turn runs a command: its folder is the session's.
            let call = t == 0 || rng.below(2) == 0;
            turn(&mut out, prompt, call, &mut rng, corpus, &cwd);
        }
        let dir = home
            .join("projects")
            .join(cwd.trim_start_matches('/').replace('/', "-"))
            .join("agent-transcripts")
            .join(&id);
        if shape == 0 {
            let wrapped = "<user_query>\nstop, that is the wrong file\n</user_query>";
            push_line(
                &mut out,
                &line("user", json!([{"type": "text", "text": wrapped}])),
            );
            push_line(
                &mut out,
                &json!({"type": "turn_ended", "status": "error", "error": "User aborted request"}),
            );
            let mut sub = Vec::new();
            turn(
                &mut sub,
                "Find the tests of the parser",
                false,
                &mut rng,
                corpus,
                &cwd,
            );
            let sub_file = dir.join("subagents").join(format!("{}.jsonl", rng.uuid()));
            write_file(&sub_file, &sub)?;
            dated(&sub_file, start + 60.0)?;
        }
        if spec.hostile && shape == 1 {
            out.extend_from_slice(b"{\"role\": broken\n");
        }
        let file = dir.join(format!("{id}.jsonl"));
        write_file(&file, &out)?;
        // No time is written in a transcript: the file's is the session's.
        dated(&file, start + 120.0)?;
        summary.cursor.push(id);
    }
    Ok(())
}
