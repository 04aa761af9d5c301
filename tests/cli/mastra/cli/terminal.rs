//! At a terminal: each item asked in turn, a prompt left sends nothing, a person picks
//! among the server's questions.

use super::*;

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_at_a_terminal_run_asks_each_item_in_turn() {
    let Some((_, env, url)) = on_the_shared_server() else {
        return;
    };
    env.write(
        "work/plans/chain.md",
        "# Chain plan\n\n1. Name it.\n2. Ship it.\n",
    );
    let mut pty = Pty::spawn(
        &env,
        &[
            "--server",
            &url,
            "run",
            "--agent",
            "planner",
            "[scenario:chain] [plan:plans/chain.md]",
        ],
        &[],
    );
    pty.expect("Which name?");
    pty.send("darkMode\r");
    pty.expect("# Chain plan");
    pty.expect("2. Ship it.");
    pty.expect("> Approve");
    pty.send(ENTER);
    pty.expect("Received: ");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    // The model saw the plan exactly as shown (the JSON in its text escapes the newline).
    assert!(
        text.contains(r#""submittedPlan":{"title":"Chain plan","path":"plans/chain.md","plan":"1. Name it.\n2. Ship it.""#),
        "{text}"
    );
    assert!(!text.contains("is waiting for input"), "{text}");
    let vias = env.rows(
        "SELECT kind, resolved_via FROM ledger WHERE kind <> 'start' ORDER BY created_at",
        &[],
    );
    assert_eq!(
        vias,
        [
            [Some("question".to_string()), Some("prompt".to_string())].to_vec(),
            [Some("plan".to_string()), Some("prompt".to_string())].to_vec()
        ]
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_leaving_a_prompt_sends_nothing_for_that_item() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let run = start(&env, &url, "planner", "[scenario:chain] [plan:plans/c.md]");
    env.write("work/plans/c.md", "# C\n\nbody\n");
    let mut pty = Pty::spawn(&env, &["--server", &url, "answer", &run], &[]);
    pty.expect("Which name?");
    pty.send("x\r");
    pty.expect("> Approve");
    pty.send(ESC);
    let (code, text) = pty.finish();
    assert_eq!(code, 130, "{text}");
    assert!(text.contains("recorded earlier: "), "{text}");
    assert!(text.contains(&format!("review {run}")), "{text}");
    let plan = only(&env, &url, &run);
    assert_eq!(plan["kind"], "plan");
    assert_eq!(
        fx.calls("planner", "resume-stream", &run, Some(&id_of(&plan))),
        0
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_without_a_run_a_person_picks_among_the_servers_questions() {
    let Some(fx) = Fixture::start() else { return };
    let env = Env::new();
    let url = fx.url();
    let first = start(&env, &url, "planner", "[scenario:question] first");
    let second = start(&env, &url, "planner", "[scenario:question] second");
    start(&env, &url, "ops", "[scenario:approval]");
    let mut pty = Pty::spawn(&env, &["--server", &url, "answer"], &[]);
    pty.expect("Which question?");
    pty.expect(&first);
    pty.expect(&second);
    pty.send(&format!("{DOWN}{ENTER}"));
    pty.expect("What should the new setting be called?");
    pty.send("picked\r");
    pty.expect("User answered: picked");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    assert!(listed(&env, &url, &second).is_empty());
    assert_eq!(listed(&env, &url, &first).len(), 1);
}
