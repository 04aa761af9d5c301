//! Hostile input through the real binary: random `--json` answers, decisions and tool
//! arguments, random agent and script files. Every command ends with a documented exit
//! code — never a panic or a signal — and a refused one (exit 2) changes nothing.

use serde_json::{json, Value};

use crate::common::{assert_same_store, Env, Out};
use crate::rng::{value as any_json, Rng};
use crate::steps::say;

const ROUNDS: usize = 25;

/// Something valid, a valid thing slightly changed, or anything at all.
fn input(rng: &mut Rng, valid: &[Value]) -> Value {
    let mut v = rng.pick(valid).clone();
    match rng.below(3) {
        0 => v,
        1 => {
            if let Value::Object(m) = &mut v {
                let keys: Vec<String> = m.keys().cloned().collect();
                let k = rng.pick(&keys).clone();
                m.insert(k, any_json(rng, 2));
            }
            v
        }
        _ => any_json(rng, 3),
    }
}

#[track_caller]
fn documented(out: &Out, allowed: &[i32], what: &str) {
    assert!(allowed.contains(&out.code), "{what}: {out:?}");
}

#[test]
fn hostile_input_through_the_binary_gets_a_documented_exit_code() {
    let env = Env::new();
    env.write("work/plan.md", "# Plan\n\n1. Ship.\n");
    let question = json!([
        {"toolCalls": [{"id": "q", "name": "ask_user", "args": {
            "question": "Pick", "options": [{"label": "a"}, {"label": "b"}],
            "selectionMode": "multi_select"}}]},
        say("done")
    ]);
    let agent = env.agent(question.clone());
    let mut rng = Rng::new(11);
    let (mut run, mut plan) = (String::new(), String::new());
    for round in 0..ROUNDS {
        if round == 0 || env.status(&run) != "suspended" {
            run = env.start(&agent, &[]).1;
        }
        if round == 0 || env.status(&plan) != "suspended" {
            plan = env.run(&["plan", "plan.md"]).stdout.trim().to_string();
        }
        let before = env.dump();
        let answer = input(&mut rng, &[json!(["a"]), json!(["b", "a"]), json!("a")]);
        let out = env.run(&["answer", &run, "--json", &answer.to_string()]);
        documented(&out, &[0, 2], &format!("answer --json {answer}"));
        if out.code == 2 {
            assert_same_store(&env.dump(), &before);
        }

        let before = env.dump();
        let decision = input(
            &mut rng,
            &[
                json!({"action": "approved"}),
                json!({"action": "rejected", "feedback": "no"}),
            ],
        );
        let out = env.run(&["review", &plan, "--json", &decision.to_string()]);
        documented(&out, &[0, 2], &format!("review --json {decision}"));
        if out.code == 2 {
            assert_same_store(&env.dump(), &before);
        }

        let args = input(
            &mut rng,
            &[json!({"question": "Q?"}), json!({"path": "p.md"})],
        );
        let tool = *rng.pick(&["ask_user", "submit_plan", "nope"]);
        let out = env.run(&["tool", tool, "--json", &args.to_string()]);
        documented(&out, &[0, 2], &format!("tool {tool} --json {args}"));

        // A random agent file, and a random script behind a valid one.
        let file = input(
            &mut rng,
            &[json!({"id": "h", "instructions": "x", "model": "script:script.json"})],
        );
        env.write("work/hostile.json", &file.to_string());
        let out = env.run(&["run", "--agent", "hostile.json", "go"]);
        documented(&out, &[0, 1, 2, 75], &format!("agent file {file}"));
        let script = input(
            &mut rng,
            &[
                json!({"steps": question.clone()}),
                json!({"steps": [{"text": "hi"}]}),
            ],
        );
        env.write("work/script.json", &script.to_string());
        let out = env.run(&["run", "--agent", &agent, "go"]);
        documented(&out, &[0, 1, 2, 75], &format!("script {script}"));
        env.write(
            "work/script.json",
            &json!({ "steps": question }).to_string(),
        );
    }
    crate::invariants::assert_consistent(&env);
}
