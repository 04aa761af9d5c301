//! Run ids (SPEC §1): random, so that short prefixes stay unique; runs are ordered by their
//! creation time, never by id.

use std::collections::HashMap;

use crate::common::Env;

/// Starts `n` one-question runs, four processes at a time; their ids in creation order.
fn ask_many(env: &Env, n: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(n);
    while ids.len() < n {
        let batch: Vec<_> = (0..4.min(n - ids.len()))
            .map(|_| env.spawn(&["--no-input", "ask", "Ship it?"]))
            .collect();
        for child in batch {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(75));
            ids.push(String::from_utf8(out.stdout).unwrap().trim().to_string());
        }
    }
    ids
}

#[test]
fn a_thousand_runs_started_at_once_have_unique_short_prefixes() {
    let env = Env::new();
    let ids = ask_many(&env, 1000);
    let mut by_prefix: HashMap<&str, Vec<&str>> = HashMap::new();
    for id in &ids {
        assert_eq!(
            uuid::Uuid::parse_str(id).unwrap().get_version_num(),
            4,
            "{id}"
        );
        by_prefix.entry(&id[..8]).or_default().push(id);
    }
    assert_eq!(by_prefix.len(), ids.len(), "8-character prefixes collide");
    // Every printed 8-character prefix names exactly its run: answer a sample through it.
    for id in ids.iter().step_by(50) {
        env.run(&["answer", &id[..8], "yes"]).assert_code(0);
        let show = env.run(&["show", &id[..8], "-o", "json"]);
        let run: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
        assert_eq!(run["runId"], id.as_str());
        assert_eq!(run["status"], "completed");
    }
    // Shorter prefixes shared by two runs are ambiguous, and say which runs they name.
    let mut by4: HashMap<&str, Vec<&str>> = HashMap::new();
    for id in &ids {
        by4.entry(&id[..4]).or_default().push(id);
    }
    if let Some((prefix, shared)) = by4.iter().find(|(_, v)| v.len() > 1) {
        let out = env.cmd(&["answer", prefix, "yes"]).code(4);
        assert!(out.stderr.contains("is ambiguous"), "{}", out.stderr);
        for id in shared {
            assert!(out.stderr.contains(id), "{}", out.stderr);
        }
    }
}

#[test]
fn runs_are_listed_newest_first_by_creation_time() {
    let env = Env::new();
    let ids = ask_many(&env, 12);
    let listed: Vec<String> = env
        .run(&["runs", "-o", "json", "--limit", "100"])
        .json_lines()
        .iter()
        .map(|r| r["runId"].as_str().unwrap().to_string())
        .collect();
    // Within a batch of four started together the order is theirs; across batches it is
    // creation order.
    let newest_batch: Vec<&String> = ids[8..].iter().collect();
    assert!(
        newest_batch.iter().all(|id| listed[..4].contains(id)),
        "{listed:?}"
    );
    let oldest_batch: Vec<&String> = ids[..4].iter().collect();
    assert!(
        oldest_batch.iter().all(|id| listed[8..].contains(id)),
        "{listed:?}"
    );
}
