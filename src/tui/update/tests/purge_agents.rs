//! Transitions of the purge preview of another agent's sessions: offered
//! when listed, picked with a key (or by the list's `@agent`), planned with
//! its own policy, confirmed, moved to the trash off the UI thread.

use super::*;
use crate::store::{Agent, AgentPurgeFacts, agent_purge_policy};
use crate::tui::model::{SessionRow, TextField};

/// The list with Claude Code sessions beside Loki's a, b, c.
fn with_claude() -> Model {
    let mut m = listed(true);
    for (id, days) in [("c1", 1.0), ("c2", 200.0), ("c3", 150.0)] {
        let r = SessionRecord {
            agent: Agent::Claude,
            title: format!("title {id}"),
            ..record(id, days)
        };
        m.list.rows.push(SessionRow::new(r));
    }
    m
}

/// What a worker gathers for Claude Code: c3 is open in an agent.
fn claude_facts() -> AgentPurgeFacts {
    AgentPurgeFacts {
        agent: Agent::Claude,
        candidates: claude_records()
            .into_iter()
            .map(|r| Candidate {
                bytes: 1_000,
                ..candidate(r)
            })
            .collect(),
        busy: [("c3".to_string(), "process 42 has it open".to_string())].into(),
    }
}

fn claude_records() -> Vec<SessionRecord> {
    [("c1", 1.0), ("c2", 200.0), ("c3", 150.0)]
        .into_iter()
        .map(|(id, days)| SessionRecord {
            agent: Agent::Claude,
            ..record(id, days)
        })
        .collect()
}

/// The one effect of `effects`, a gathering of `agent`'s sessions: its tag.
fn gather_req(effects: Vec<Effect>, agent: Agent) -> u64 {
    only_store!(
        effects,
        StoreOp::Purge(PurgeOp::GatherAgent { agent: a, now }) if a == agent && now == NOW
    )
}

#[test]
fn a_key_turns_the_preview_to_another_agent_whose_plan_moves_to_the_trash() {
    let mut m = with_claude();
    only_store!(
        act(&mut m, Action::PurgePreview),
        StoreOp::Purge(PurgeOp::Gather)
    );
    assert_eq!(
        m.purge().unwrap().offered,
        vec![None, Some(Agent::Claude)],
        "Loki's and the agent listed"
    );
    assert!(matches!(
        key(&m, KeyCode::Char('a')),
        Some(Msg::Action(Action::CycleAgent))
    ));
    let req = gather_req(act(&mut m, Action::CycleAgent), Agent::Claude);
    let facts = Arc::new(claude_facts());
    reply(&mut m, req, PurgeReply::AgentGathered { result: Ok(facts) });
    let purge = m.purge().unwrap();
    assert!(purge.to_trash());
    assert_eq!(purge.agent_policy, agent_purge_policy());
    let plan = purge.plan.as_ref().unwrap();
    let said: Vec<(String, String)> = plan
        .entries
        .iter()
        .map(|e| (e.candidate.record.id.to_string(), e.decision.to_string()))
        .collect();
    assert_eq!(
        said,
        [
            ("c1", "recent: #1, unused for 1 day"),
            ("c3", "busy: process 42 has it open"),
            ("c2", "stale: unused for 200 days (limit 90 days)"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // Its own policy changes; Loki's stays.
    act(&mut m, Action::KeepLess);
    assert_eq!(
        m.purge().unwrap().agent_policy.keep,
        agent_purge_policy().keep - 10
    );
    assert_eq!(m.app.settings.policy.keep, 2);
    act(&mut m, Action::Confirm);
    let Some(Overlay::Confirm(c)) = &m.app.overlay else {
        panic!("asks first")
    };
    assert_eq!(c.title, "Move 1 Claude Code session to the trash?");
    assert!(c.lines.iter().any(|l| l.contains("loki-sessions restore")));
    let (req, (plan, now)) = only_store!(
        act(&mut m, Action::Yes),
        StoreOp::Purge(PurgeOp::ApplyAgent { plan, now }) => (plan, now)
    );
    assert_eq!(now, NOW);
    assert_eq!(
        plan.removals()
            .map(|e| e.candidate.record.id.as_str())
            .collect::<Vec<_>>(),
        ["c2"]
    );
    let report = PurgeReport {
        removed: vec!["c2".into()],
        ..Default::default()
    };
    let effects = reply(&mut m, req, PurgeReply::Done { result: Ok(report) });
    gather_req(
        effects
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Effect::Store {
                        op: StoreOp::Purge(_),
                        ..
                    }
                )
            })
            .cloned()
            .collect::<Vec<_>>(),
        Agent::Claude,
    );
    assert!(asks!(&effects, StoreOp::List(ListOp::Scan)));
    let status = &m.app.status.as_ref().unwrap().text;
    assert!(
        status.starts_with("moved 1 Claude Code session (1000 B) to the trash")
            && status.contains("`loki-sessions restore c2` brings one back"),
        "{status}"
    );
    // Round again: Loki's own purge.
    only_store!(
        act(&mut m, Action::CycleAgent),
        StoreOp::Purge(PurgeOp::Gather)
    );
    assert!(!m.purge().unwrap().to_trash());
}

#[test]
fn the_list_showing_one_agent_opens_its_purge_and_one_agent_offers_no_choice() {
    let mut m = with_claude();
    m.list.query = TextField::new("@claude fix", 100);
    gather_req(act(&mut m, Action::PurgePreview), Agent::Claude);
    act(&mut m, Action::Back);
    let mut m = listed(true);
    act(&mut m, Action::PurgePreview);
    assert_eq!(m.purge().unwrap().offered, vec![None]);
    assert!(act(&mut m, Action::CycleAgent).is_empty());
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "only one agent's sessions are listed"
    );
}

#[test]
fn the_trash_opened_from_claude_codes_preview_goes_back_to_it() {
    let mut m = with_claude();
    act(&mut m, Action::PurgePreview);
    act(&mut m, Action::CycleAgent);
    assert_eq!(m.purge().unwrap().agent, Some(Agent::Claude));
    act(&mut m, Action::Trash);
    assert!(m.trash().is_some());
    // Esc: Claude Code's preview again (not Loki's, which ^G opens).
    let effects = act(&mut m, Action::Back);
    assert_eq!(m.purge().unwrap().agent, Some(Agent::Claude));
    gather_req(effects, Agent::Claude);
}

#[test]
fn f4_before_the_scan_has_listed_every_session_says_it_is_still_reading() {
    let mut m = listed(true);
    m.list.scanning = true;
    assert!(act(&mut m, Action::CycleAgent).is_empty());
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "the sessions are still being read: F4 once they are listed"
    );
    m.list.scanning = false;
    act(&mut m, Action::CycleAgent);
    assert_eq!(
        m.app.status.as_ref().unwrap().text,
        "only one agent's sessions are listed"
    );
}
