//! Conformance with the real peteos package: token counts, both windows and
//! a trim's fork must match what peteos computed for the committed fixtures
//! (tests/fixtures/peteos, made by shared/conformance/make-peteos-fixtures.sh).
//! Set PETEOS_FIXTURES=DIR to check another generated set locally; under CI
//! it is refused, so that CI always checks the committed fixtures.

use crate::common;
use loki_sessions::store::format::tokens::{self, Encoding};
use loki_sessions::store::format::{Context, Session, window};
use loki_sessions::store::{Change, Mode, Store, Window, message_counts};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/peteos");
    let Some(other) = std::env::var_os("PETEOS_FIXTURES") else {
        return committed;
    };
    assert!(
        !common::in_ci(),
        "PETEOS_FIXTURES would redirect CI's conformance check away from the committed fixtures"
    );
    PathBuf::from(other)
}

struct Case {
    raw: Value,
    dir: PathBuf,
}

impl Case {
    fn str(&self, key: &str) -> &str {
        self.raw[key].as_str().unwrap()
    }
    fn ids(value: &Value) -> Option<Vec<String>> {
        value
            .as_array()
            .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
    }
    fn windows(&self, key: &str) -> BTreeMap<u64, Option<Vec<String>>> {
        self.raw[key]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.parse().unwrap(), Case::ids(v)))
            .collect()
    }
}

fn cases() -> Vec<Case> {
    let root = fixtures();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap())
            .unwrap();
    expected["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            dir: root.join(c["session_dir"].as_str().unwrap()),
            raw: c.clone(),
        })
        .collect()
}

fn active(case: &Case) -> Context {
    let session = Session::load(&case.dir).unwrap();
    assert_eq!(session.uuid(), case.str("session_uuid"));
    assert_eq!(
        session.active_context_id(),
        Some(case.str("active_context_id"))
    );
    session.active_context().unwrap().unwrap()
}

fn ids_of(ctx: &Context, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .map(|&i| ctx.message(i).unwrap().id().to_string())
        .collect()
}

#[test]
fn token_counts_match_peteos_for_every_message() {
    let (mut cases_seen, mut messages, mut matches) = (0, 0, 0);
    for case in cases() {
        let ctx = active(&case);
        let ids: Vec<String> = ctx.messages().map(|m| m.id().to_string()).collect();
        assert_eq!(
            Some(ids),
            Case::ids(&case.raw["message_ids"]),
            "{}",
            case.dir.display()
        );
        for enc in Encoding::ALL {
            let want: Vec<u64> = case.raw["computed_tokens"][enc.name()]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            let got: Vec<u64> = ctx
                .messages()
                .map(|m| tokens::computed_count(&m, enc).unwrap())
                .collect();
            assert_eq!(got, want, "{} {enc}", case.dir.display());
            messages += got.len();
            matches += got.iter().zip(&want).filter(|(a, b)| a == b).count();
        }
        let effective: Vec<u64> = message_counts(&ctx, Encoding::Cl100kBase).unwrap();
        let want_effective: Vec<u64> = case.raw["effective_tokens_cl100k"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(effective, want_effective, "{}", case.dir.display());
        assert_eq!(
            effective.iter().sum::<u64>(),
            case.raw["total_tokens_cl100k"].as_u64().unwrap()
        );
        cases_seen += 1;
    }
    eprintln!("token counts: {cases_seen} cases, {messages} message counts, {matches} match");
    assert!(cases_seen > 0);
}

#[test]
fn sequence_windows_match_peteos() {
    let mut checked = 0;
    for case in cases() {
        let ctx = active(&case);
        for (count, want) in case.windows("rolling_sequence_window") {
            let got = window::rolling_sequence_window(&ctx, count as usize)
                .unwrap()
                .map(|kept| ids_of(&ctx, &kept));
            assert_eq!(got, want, "{} count {count}", case.dir.display());
            checked += 1;
        }
    }
    eprintln!("rolling_sequence_window: {checked} windows match");
    assert!(checked > 0);
}

#[test]
fn token_windows_match_peteos() {
    let mut checked = 0;
    for case in cases() {
        let ctx = active(&case);
        let counts = message_counts(&ctx, Encoding::Cl100kBase).unwrap();
        for (budget, want) in case.windows("rolling_token_window") {
            let got =
                window::rolling_token_window(&ctx, &counts, budget).map(|kept| ids_of(&ctx, &kept));
            assert_eq!(got, want, "{} budget {budget}", case.dir.display());
            checked += 1;
        }
    }
    eprintln!("rolling_token_window: {checked} windows match");
    assert!(checked > 0);
}

/// Copies a fixture session to a temp dir so a trim can write to it.
fn copy_session(case: &Case) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(case.dir.file_name().unwrap());
    std::fs::create_dir(&dir).unwrap();
    for entry in std::fs::read_dir(&case.dir).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    (tmp, dir)
}

#[test]
fn trimmed_context_reads_back_with_the_expected_messages() {
    let mut forks = 0;
    for case in cases() {
        for (budget, want) in case.windows("rolling_token_window") {
            let Some(want) = want else { continue };
            let (_tmp, dir) = copy_session(&case);
            let parent_before = std::fs::read_to_string(
                dir.join(format!("{}.json", case.str("active_context_id"))),
            )
            .unwrap();
            let store = common::sandbox::store(Store::peteos_folder(dir.parent().unwrap()));
            let target = store.locate(dir.to_str().unwrap()).unwrap();
            let outcome = store
                .change(
                    &target,
                    &Change::Window(Window::MaxTokens(budget)),
                    Encoding::Cl100kBase,
                    Mode::Write { expected: None },
                    1.8e9,
                )
                .unwrap();
            let child = outcome.child.expect("peteos forked here, so must we");
            let session = Session::load(&dir).unwrap();
            assert_eq!(session.active_context_id(), Some(child.id()));
            let reread = session.active_context().unwrap().unwrap();
            let got: Vec<String> = reread.messages().map(|m| m.id().to_string()).collect();
            assert_eq!(got, want, "{} budget {budget}", case.dir.display());
            // Sequence numbers are renumbered from the child's own counter.
            let seqs: Vec<i64> = reread.messages().map(|m| m.sequence().unwrap()).collect();
            assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
            // The parent gained the child and is otherwise unchanged.
            let parent = reread.origin_context_id().unwrap();
            assert_eq!(parent, case.str("active_context_id"));
            let mut before: Value = serde_json::from_str(&parent_before).unwrap();
            let after: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("{parent}.json"))).unwrap(),
            )
            .unwrap();
            before["children"]
                .as_array_mut()
                .unwrap()
                .push(Value::String(child.id().to_string()));
            assert_eq!(after, before);
            forks += 1;
        }
    }
    eprintln!("trim forks read back: {forks}");
    assert!(forks > 0);
}
