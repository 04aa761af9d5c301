//! Concurrency with real processes: exactly-once resolution, parallel answers on different
//! items, concurrent first use of a store.

use serde_json::json;

use crate::common::{finish, Env};
use crate::steps::{ask, say};

#[test]
fn eight_processes_answer_the_same_item_exactly_one_wins() {
    let env = Env::new();
    let agent = env.agent(json!([ask("q", "Who wins?"), say("done")]));
    let (_, run) = env.start(&agent, &[]);
    let children: Vec<_> = (0..8)
        .map(|i| {
            env.spawn(&[
                "answer",
                &run,
                "--as",
                &format!("p{i}"),
                &format!("answer {i}"),
            ])
        })
        .collect();
    let outs: Vec<_> = children.into_iter().map(finish).collect();
    let winners: Vec<_> = outs.iter().filter(|o| o.code == 0).collect();
    let losers: Vec<_> = outs.iter().filter(|o| o.code == 4).collect();
    assert_eq!(winners.len(), 1, "{outs:#?}");
    assert_eq!(losers.len(), 7, "{outs:#?}");
    for l in losers {
        let e = &l.stderr;
        assert!(
            e.contains("is not pending: it was resolved by p")
                || e.contains(": nothing waits for answer"),
            "{e}"
        );
    }
    let resolved = env.count("SELECT count(*) FROM calls WHERE state = 'resolved'", &[]);
    let by = env
        .value(
            "SELECT resolved_by FROM calls WHERE state = 'resolved'",
            &[],
        )
        .unwrap();
    assert_eq!(resolved, 1);
    let results = env.tool_results(&run);
    assert_eq!(results.len(), 1, "one set of tool results");
    assert_eq!(
        results[0].1["content"],
        format!("User answered: answer {}", &by[1..])
    );
    let finishes = env.count("SELECT count(*) FROM events WHERE kind = 'finish'", &[]);
    assert_eq!(finishes, 1);
    assert_eq!(env.status(&run), "completed");
}

#[test]
fn parallel_answers_to_different_items_all_succeed() {
    let env = Env::new();
    let agent = env.agent(json!([
        {"toolCalls": [{"name": "ask_user", "args": {"question": "Q?"}}]},
        say("done")
    ]));
    let runs: Vec<String> = (0..8).map(|_| env.start(&agent, &[]).1).collect();
    let children: Vec<_> = runs
        .iter()
        .map(|r| env.spawn(&["answer", r, "yes"]))
        .collect();
    for out in children.into_iter().map(finish) {
        out.assert_code(0);
    }
    for r in &runs {
        assert_eq!(env.status(r), "completed");
    }
}

#[test]
fn concurrent_first_use_of_a_new_store() {
    let env = Env::new();
    let agent =
        env.agent(json!([{"toolCalls": [{"name": "ask_user", "args": {"question": "Q?"}}]}]));
    let children: Vec<_> = (0..8)
        .map(|_| env.spawn(&["run", "--agent", &agent, "go"]))
        .collect();
    for out in children.into_iter().map(finish) {
        out.assert_code(75);
    }
    let n = env.count("SELECT count(*) FROM runs", &[]);
    assert_eq!(n, 8);
    assert_eq!(env.run(&["pending", "-q"]).stdout.lines().count(), 8);
}
