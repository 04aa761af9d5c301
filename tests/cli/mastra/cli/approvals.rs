//! Tool approvals on a server: approved and declined with a reason, approve then answer
//! the same call, a terminal's prompt starting on decline.

use super::*;
use crate::assert_shown;

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_an_approval_approved_and_another_declined_with_a_reason() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let yes = start(&env, &url, "ops", "[scenario:approval] yes");
    let no = start(&env, &url, "ops", "[scenario:approval] no");
    let yes_call = id_of(&only(&env, &url, &yes));
    let no_call = id_of(&only(&env, &url, &no));
    let item = only(&env, &url, &yes);
    assert_eq!(item["kind"], "approval");
    assert_eq!(item["args"], json!({"target": "prod-db"}));

    // The wrong verb for the item, or a --json that disagrees with the verb: nothing sent.
    let out = at(&env, &url, &["answer", &yes, "yes"]);
    out.assert_code(2);
    assert_shown!(env, out.stderr, @"
        error: tool call a_2e3e5ec55b of run [RUN] is an approval, not a question or an `other`
        hint: use: mastra-ask --server http://127.0.0.1:[PORT]/api approve [RUN], or mastra-ask --server http://127.0.0.1:[PORT]/api decline [RUN]
        ");
    let out = at(
        &env,
        &url,
        &["approve", &yes, "--json", r#"{"approved":false}"#],
    );
    out.assert_code(2);

    let out = at(&env, &url, &["approve", &yes]);
    out.assert_code(0);
    assert_eq!(out.stdout, "Received: {\"deployed\":\"prod-db\"}\n");
    let out = at(
        &env,
        &url,
        &["decline", &no, "--reason", "Not on prod, please."],
    );
    out.assert_code(0);
    assert_eq!(out.stdout, "Received: \"Not on prod, please.\"\n");

    assert_eq!(
        fx.calls("ops", "approve-tool-call", &yes, Some(&yes_call)),
        1
    );
    assert_eq!(fx.calls("ops", "decline-tool-call", &no, Some(&no_call)), 1);
    for run in [&yes, &no] {
        assert_eq!(fx.calls("ops", "resume-stream", run, None), 0);
        assert_eq!(
            fx.calls("ops", "decline-tool-call", run, Some(&yes_call)),
            0
        );
    }
    let sent = env.rows(
        "SELECT kind, resume_data FROM ledger WHERE kind <> 'start' ORDER BY created_at",
        &[],
    );
    assert_eq!(
        sent,
        [
            [
                Some("approval".to_string()),
                Some(r#"{"approved":true}"#.to_string())
            ]
            .to_vec(),
            [
                Some("approval".to_string()),
                Some(r#"{"approved":false,"reason":"Not on prod, please."}"#.to_string())
            ]
            .to_vec()
        ]
    );
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_require_tool_approval_approve_then_answer_the_same_call() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    let out = at(
        &env,
        &url,
        &[
            "run",
            "-q",
            "--require-approval",
            "--agent",
            "planner",
            "[scenario:question]",
        ],
    );
    out.assert_code(75);
    let run = out.stdout.trim().to_string();
    let approval = only(&env, &url, &run);
    assert_eq!(approval["kind"], "approval");
    assert_eq!(approval["toolName"], "ask_user");
    let call = id_of(&approval);

    let out = at(&env, &url, &["approve", &run]);
    out.assert_code(75);
    assert_shown!(env, out.stderr, @"
        run [RUN] is waiting for input (1 pending):
          q_f36488b3d2 question: What should the new setting be called?
            mastra-ask --server http://127.0.0.1:[PORT]/api answer [RUN] <answer>
        ");
    let question = only(&env, &url, &run);
    assert_eq!(question["kind"], "question");
    assert_eq!(id_of(&question), call, "Mastra reuses the call id");

    let out = at(&env, &url, &["answer", &run, "--tool-call", &call, "x"]);
    out.assert_code(0);
    assert_eq!(
        out.stdout,
        "Received: {\"content\":\"User answered: x\",\"isError\":false}\n"
    );
    // Two entries for one call id, told apart by their kind.
    let kinds = env.rows(
        "SELECT kind, state FROM ledger WHERE tool_call_id = ?1 ORDER BY created_at",
        &[&call],
    );
    assert_eq!(
        kinds,
        [
            [Some("approval".to_string()), Some("delivered".to_string())].to_vec(),
            [Some("question".to_string()), Some("delivered".to_string())].to_vec()
        ]
    );
    assert_eq!(
        fx.calls("planner", "approve-tool-call", &run, Some(&call)),
        1
    );
    assert_eq!(fx.calls("planner", "resume-stream", &run, Some(&call)), 1);
}

#[test]
#[cfg_attr(
    mastra_fixture_missing,
    ignore = "needs tests/fixtures/mastra-server installed"
)]
fn mastra_cli_at_a_terminal_an_approval_starts_on_decline() {
    let Some((fx, env, url)) = on_the_shared_server() else {
        return;
    };
    // The run's first leg, started at a terminal, asks for the approval inline.
    let mut pty = Pty::spawn(
        &env,
        &[
            "--server",
            &url,
            "run",
            "--agent",
            "ops",
            "[scenario:approval] inline",
        ],
        &[],
    );
    pty.expect("wants to run deploy with:");
    pty.expect("> Decline (the tool does not run)");
    pty.send(ENTER);
    pty.expect("Received: \"Tool call was not approved by the user\"");
    let (code, text) = pty.finish();
    assert_eq!(code, 0, "{text}");
    let run = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("run "))
        .unwrap()
        .to_string();
    let sent = env.rows(
        "SELECT tool_call_id, kind, resolved_via FROM ledger WHERE run_id = ?1 AND kind <> 'start'",
        &[&run],
    );
    assert_eq!(sent.len(), 1, "{sent:?}");
    let call = sent[0][0].clone().unwrap();
    assert_eq!(
        sent[0][1..],
        [Some("approval".to_string()), Some("prompt".to_string())]
    );
    assert_eq!(fx.calls("ops", "decline-tool-call", &run, Some(&call)), 1);
    assert_eq!(fx.calls("ops", "approve-tool-call", &run, Some(&call)), 0);
}
