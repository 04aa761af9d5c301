//! The `--server` client of SPEC §12 against both peers it answers, with the same commands
//! and the same checks: the real Mastra server of the fixture, and a mastra-ask `serve
//! --drive` over a store of its own (SPEC §13), signed in with a reviewer's token. Listing,
//! answering free text, one option and several, a plan rejected with feedback then
//! approved (serve's plan text comes with its item: no file is read), an approval approved
//! and another declined with a reason, an answered item answered again (4), and bad data
//! refused before anything is sent (2, nothing consumed). Each client keeps its own ledger.
//! Serve's 409 (someone decided first) is exit 4 naming who decided, proved on a serve with
//! clients that share no ledger, and on a canned 409.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};

use super::fixture::{shared, Fixture};
use crate::assert_shown;
use crate::command_tools::script;
use crate::common::{assert_one_line_error, Env, Out};
use crate::fake_server::{FakeServer, Reply};
use crate::serve::harness::{item_state, reviewer, Served};
use crate::steps::say;

/// What waits first in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scenario {
    /// A question answered in free text.
    Question,
    /// A question with two options (Light, Dark), one to choose.
    Single,
    /// A question with three options (Add tests, Update docs, Bump deps), several to choose.
    Multi,
    /// A plan (`plans/dark-mode.md`); a rejection brings a revised one, an approval the end.
    Plan,
    /// `deploy` with `{"target": "prod-db"}`, which needs approval.
    Approval,
    /// A question (free text), then a plan.
    Chain,
}

/// Where the client's answers go.
trait Peer {
    fn name(&self) -> &'static str;
    /// The `--server` URL, as a user gives it.
    fn url(&self) -> String;
    /// The server as the client names it (its URL with the API prefix).
    fn shown(&self) -> String {
        format!("{}/api", self.url())
    }
    /// The client's environment: its own ledger, in a directory of its own.
    fn client_env(&self) -> &Env;
    /// The ledger's file, as printed commands name it.
    fn ledger(&self) -> String {
        self.client_env()
            .path("ledger.db")
            .to_str()
            .unwrap()
            .to_string()
    }
    /// `mastra-ask --db LEDGER --server URL ARGS...`.
    fn client(&self, args: &[&str]) -> Out {
        let env = self.client_env();
        let ledger = self.ledger();
        let mut all = vec!["--db", &ledger, "--server"];
        let url = self.url();
        all.push(&url);
        all.extend_from_slice(args);
        let mut c = env.command(&all);
        self.sign_in(&mut c);
        env.run_with(c)
    }
    /// What signs the client in (a token), if anything.
    fn sign_in(&self, _c: &mut Command) {}
    /// A run of `scenario` waiting on its first item: its id and the item's tool call id.
    fn suspended(&self, scenario: Scenario) -> (String, String);
    /// The agent of a scenario's runs.
    fn agent(&self, scenario: Scenario) -> &'static str {
        match scenario {
            Scenario::Approval => "ops",
            _ => "planner",
        }
    }
    /// What the model received as the result of `call` (the leg's last text, or the store).
    fn received(&self, out: &Out, run: &str, call: &str) -> Value;
    /// How many answers to `call` the peer took.
    fn taken(&self, run: &str, call: &str) -> u64;
    /// Where plans are read from for `review`, when they are read at all.
    fn plan_flags(&self) -> Vec<String>;
}

/// The Mastra fixture: the shared server, and a fresh client.
struct Mastra {
    fx: &'static Fixture,
    env: Env,
}

impl Mastra {
    fn new() -> Option<Mastra> {
        let fx = shared()?;
        let env = Env::new();
        env.write(
            "repo/plans/dark-mode.md",
            "# Dark mode\n\n1. Add a setting.\n",
        );
        Some(Mastra { fx, env })
    }
}

impl Peer for Mastra {
    fn name(&self) -> &'static str {
        "the Mastra fixture"
    }
    fn url(&self) -> String {
        self.fx.url()
    }
    fn client_env(&self) -> &Env {
        &self.env
    }
    fn suspended(&self, scenario: Scenario) -> (String, String) {
        let tag = match scenario {
            Scenario::Question => "question",
            Scenario::Single => "single",
            Scenario::Multi => "multi",
            Scenario::Plan => "plan",
            Scenario::Approval => "approval",
            Scenario::Chain => "chain",
        };
        let prompt = format!("[scenario:{tag}] {}", uuid::Uuid::new_v4());
        let out = self.client(&["run", "-q", "--agent", self.agent(scenario), &prompt]);
        out.assert_code(75);
        let run = out.stdout.trim().to_string();
        (run.clone(), only_listed(self, &run))
    }
    fn received(&self, out: &Out, _run: &str, _call: &str) -> Value {
        let text = out.stdout.trim_end().strip_prefix("Received: ");
        serde_json::from_str(text.unwrap_or_else(|| panic!("{out:?}"))).unwrap()
    }
    fn taken(&self, run: &str, call: &str) -> u64 {
        ["resume-stream", "approve-tool-call", "decline-tool-call"]
            .iter()
            .map(|route| {
                ["planner", "ops"]
                    .iter()
                    .map(|a| self.fx.calls(a, route, run, Some(call)))
                    .sum::<u64>()
            })
            .sum()
    }
    fn plan_flags(&self) -> Vec<String> {
        let root = self.env.path("repo");
        vec!["--plan-root".into(), root.to_str().unwrap().into()]
    }
}

/// A serve that drives the runs of its store, and a client elsewhere with a reviewer's
/// token.
struct Serve {
    /// The store serve offers (the suite's backend), where the runs are started.
    store: Env,
    served: Served,
    token: String,
    client: Env,
}

impl Serve {
    fn new() -> Serve {
        let store = Env::new();
        let token = reviewer(&store, "alice");
        store.write(
            "work/plans/dark-mode.md",
            "# Dark mode\n\n1. Add a setting.\n",
        );
        deploy_tool(&store);
        let served = Served::start(&store, &["--drive"]);
        Serve {
            store,
            served,
            token,
            client: Env::new(),
        }
    }

    /// An agent file of its own for each run (a run reads its script as it goes).
    fn agent_file(&self, id: &str, steps: Value, tools: Vec<Value>) -> String {
        let dir = format!("work/agents/{}", uuid::Uuid::new_v4());
        self.store.write(
            &format!("{dir}/script.json"),
            &json!({ "steps": steps }).to_string(),
        );
        let mut all = vec![json!("ask_user"), json!("submit_plan")];
        all.extend(tools);
        let agent = json!({
            "id": id, "instructions": "Test agent.", "model": "script:script.json", "tools": all,
        });
        self.store
            .write(&format!("{dir}/agent.json"), &agent.to_string())
            .to_string_lossy()
            .into_owned()
    }
}

/// `deploy`: needs approval; answers `{"deployed": TARGET}`.
fn deploy_tool(env: &Env) -> PathBuf {
    script(
        env,
        "deploy.sh",
        "sed -n 's/.*\"target\": *\"\\([^\"]*\\)\".*/{\"deployed\":\"\\1\"}/p'\n",
    );
    env.path("work/deploy.sh")
}

fn ask_step(id: &str, args: Value) -> Value {
    json!({"toolCalls": [{"id": id, "name": "ask_user", "args": args}]})
}

fn plan_step(id: &str, next: Value) -> Value {
    json!({"id": id, "toolCalls": [{"id": id, "name": "submit_plan", "args": {"path": "plans/dark-mode.md"}}], "next": next})
}

impl Peer for Serve {
    fn name(&self) -> &'static str {
        "mastra-ask serve"
    }
    fn url(&self) -> String {
        self.served.base.clone()
    }
    fn client_env(&self) -> &Env {
        &self.client
    }
    fn sign_in(&self, c: &mut Command) {
        c.env("MASTRA_SERVER_TOKEN", &self.token);
    }
    fn suspended(&self, scenario: Scenario) -> (String, String) {
        let received = say("Received.");
        let (steps, tools, call) = match scenario {
            Scenario::Question => (
                json!([
                    ask_step(
                        "q1",
                        json!({"question": "What should the new setting be called?"})
                    ),
                    received
                ]),
                vec![],
                "q1",
            ),
            Scenario::Single => (
                json!([
                    ask_step(
                        "s1",
                        json!({"question": "Which theme should be the default?",
                    "options": [{"label": "Light"}, {"label": "Dark", "description": "easier at night"}],
                    "selectionMode": "single_select"})
                    ),
                    received
                ]),
                vec![],
                "s1",
            ),
            Scenario::Multi => (
                json!([
                    ask_step(
                        "m1",
                        json!({"question": "Which chores should come with the change?",
                    "options": [{"label": "Add tests", "description": "unit and integration"},
                                {"label": "Update docs"}, {"label": "Bump deps"}],
                    "selectionMode": "multi_select"})
                    ),
                    received
                ]),
                vec![],
                "m1",
            ),
            Scenario::Plan => (
                json!([
                    plan_step("p1", json!([{"when": {"plan": "approved"}, "goto": "done"}, {"goto": "p2"}])),
                    plan_step("p2", json!([{"when": {"plan": "approved"}, "goto": "done"}, {"goto": "p2"}])),
                    {"id": "done", "text": "Received."}
                ]),
                vec![],
                "p1",
            ),
            Scenario::Approval => (
                json!([{"toolCalls": [{"id": "a1", "name": "deploy", "args": {"target": "prod-db"}}]}, received]),
                vec![json!({
                    "name": "deploy", "description": "Deploys.", "requireApproval": true,
                    "inputSchema": {"type": "object", "properties": {"target": {"type": "string"}},
                                    "required": ["target"], "additionalProperties": false},
                    "command": [self.store.path("work/deploy.sh")],
                })],
                "a1",
            ),
            Scenario::Chain => (
                json!([
                    ask_step("c1", json!({"question": "Which name?"})),
                    plan_step("c2", json!([{"goto": "done"}])),
                    {"id": "done", "text": "Received."}
                ]),
                vec![],
                "c1",
            ),
        };
        let agent = self.agent_file(self.agent(scenario), steps, tools);
        let (out, run) = self.store.start(&agent, &[]);
        out.assert_code(75);
        (run, call.to_string())
    }
    fn received(&self, out: &Out, run: &str, call: &str) -> Value {
        assert!(out.stdout.starts_with("Received."), "{out:?}");
        self.store
            .tool_results(run)
            .into_iter()
            .rev()
            .find(|(id, _)| id == call)
            .unwrap_or_else(|| panic!("no result of {call}"))
            .1
    }
    fn taken(&self, run: &str, call: &str) -> u64 {
        let (state, by, via, _) = item_state(&self.store, run, call);
        match state.as_str() {
            "resolved" => {
                assert_eq!((by, via), (json!("alice"), json!("api")), "the audit");
                1
            }
            _ => 0,
        }
    }
    fn plan_flags(&self) -> Vec<String> {
        // Nothing to read: the client's directory has no plans at all.
        Vec::new()
    }
}

/// The tool call id of the one listed item of `run`.
fn only_listed(peer: &dyn Peer, run: &str) -> String {
    let items = listed(peer, run);
    assert_eq!(items.len(), 1, "{}: {items:?}", peer.name());
    items[0]["toolCallId"].as_str().unwrap().to_string()
}

fn listed(peer: &dyn Peer, run: &str) -> Vec<Value> {
    let out = peer.client(&["-o", "json", "pending"]);
    out.assert_code(0);
    out.json_lines()
        .into_iter()
        .filter(|i| i["runId"] == run)
        .collect()
}

/// Runs `check` against the Mastra fixture (when it is installed) and against serve.
/// Each check as two tests: against serve (always run) and against the Mastra fixture
/// (named `mastra_...` and marked, so a fresh clone lists it as ignored).
macro_rules! against_both {
    ($($check:ident: $on_serve:ident, $on_mastra:ident;)*) => {$(
        #[test]
        fn $on_serve() {
            $check(&Serve::new());
        }

        #[test]
        #[cfg_attr(
            mastra_fixture_missing,
            ignore = "needs tests/fixtures/mastra-server installed"
        )]
        fn $on_mastra() {
            if let Some(mastra) = Mastra::new() {
                $check(&mastra);
            }
        }
    )*};
}

against_both! {
    lists_each_kind_with_the_commands_that_answer_it:
        peers_on_serve_list_each_kind_with_the_commands_that_answer_it,
        mastra_peers_list_each_kind_with_the_commands_that_answer_it;
    answers_free_text_one_option_and_several:
        peers_on_serve_take_free_text_one_option_and_several,
        mastra_peers_take_free_text_one_option_and_several;
    reviews_a_plan_rejected_with_feedback_then_approved:
        peers_on_serve_take_a_plan_rejected_with_feedback_then_approved,
        mastra_peers_take_a_plan_rejected_with_feedback_then_approved;
    approves_and_declines_with_a_reason:
        peers_on_serve_take_an_approval_and_a_decline_with_a_reason,
        mastra_peers_take_an_approval_and_a_decline_with_a_reason;
    refuses_bad_answers_and_consumes_nothing:
        peers_on_serve_are_sent_no_bad_answer,
        mastra_peers_are_sent_no_bad_answer;
    answering_an_answered_item_again_is_a_conflict:
        peers_on_serve_answered_item_answered_again_is_a_conflict,
        mastra_peers_answered_item_answered_again_is_a_conflict;
}

fn lists_each_kind_with_the_commands_that_answer_it(peer: &dyn Peer) {
    let (server, ledger) = (peer.shown(), peer.ledger());
    for (scenario, kind, command) in [
        (Scenario::Question, "question", "answer {run} <answer>"),
        (Scenario::Single, "question", "answer {run} <label>"),
        (
            Scenario::Multi,
            "question",
            "answer {run} --multi <label>...",
        ),
        (Scenario::Plan, "plan", "review {run} --approve"),
        (Scenario::Approval, "approval", "approve {run}"),
    ] {
        let (run, call) = peer.suspended(scenario);
        let items = listed(peer, &run);
        assert_eq!(items.len(), 1, "{}: {items:?}", peer.name());
        let item = &items[0];
        let command = format!(
            "mastra-ask --db {ledger} --server {server} {}",
            command.replace("{run}", &run)
        );
        assert_eq!(
            (
                item["kind"].as_str(),
                item["toolCallId"].as_str(),
                item["server"].as_str(),
                item["agentId"].as_str(),
                item["command"].as_str(),
            ),
            (
                Some(kind),
                Some(call.as_str()),
                Some(server.as_str()),
                Some(peer.agent(scenario)),
                Some(command.as_str()),
            ),
            "{}: {item}",
            peer.name()
        );
        let quiet = peer.client(&["pending", "-q", "--run", &run[..8]]);
        assert_eq!(
            quiet.stdout,
            format!("{run} {call} {kind}\n"),
            "{}",
            peer.name()
        );
    }
    let single = listed(peer, &peer.suspended(Scenario::Single).0);
    assert_eq!(
        single[0]["suspendPayload"]["options"][1],
        json!({"label": "Dark", "description": "easier at night"})
    );
}

fn answers_free_text_one_option_and_several(peer: &dyn Peer) {
    for (scenario, args, said) in [
        (Scenario::Question, vec!["darkMode"], "darkMode"),
        (Scenario::Single, vec!["Dark"], "Dark"),
        (
            Scenario::Multi,
            vec!["--multi", "Add tests", "Update docs"],
            "Add tests, Update docs",
        ),
    ] {
        let (run, call) = peer.suspended(scenario);
        let mut all = vec!["answer", &run[..8]];
        all.extend(args.iter().copied());
        let out = peer.client(&all);
        out.assert_code(0);
        assert_eq!(
            peer.received(&out, &run, &call),
            json!({"content": format!("User answered: {said}"), "isError": false}),
            "{}",
            peer.name()
        );
        assert_eq!(peer.taken(&run, &call), 1, "{}", peer.name());
        assert!(listed(peer, &run).is_empty(), "{}", peer.name());
    }
}

fn reviews_a_plan_rejected_with_feedback_then_approved(peer: &dyn Peer) {
    let (run, first) = peer.suspended(Scenario::Plan);
    let flags = peer.plan_flags();
    let with = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(flags.iter().map(String::as_str));
        peer.client(&all)
    };
    let out = with(&[
        "review",
        &run,
        "--reject",
        "--feedback",
        "More tests, please.",
    ]);
    out.assert_code(75);
    assert!(
        out.stderr.contains(&format!("review {run} --approve")),
        "{}: {}",
        peer.name(),
        out.stderr
    );
    let second = only_listed(peer, &run);
    assert_ne!(
        second,
        first,
        "{}: a revised plan is a new call",
        peer.name()
    );
    let out = with(&["review", &run, "--approve"]);
    out.assert_code(0);
    assert!(
        out.stderr
            .contains("sending the approval with the plan plans/dark-mode.md"),
        "{}: {}",
        peer.name(),
        out.stderr
    );
    let result = peer.received(&out, &run, &second);
    assert_eq!(
        result["submittedPlan"],
        json!({"title": "Dark mode", "path": "plans/dark-mode.md", "plan": "1. Add a setting."}),
        "{}",
        peer.name()
    );
    assert_eq!(
        (peer.taken(&run, &first), peer.taken(&run, &second)),
        (1, 1)
    );
}

fn approves_and_declines_with_a_reason(peer: &dyn Peer) {
    let (yes, yes_call) = peer.suspended(Scenario::Approval);
    let (no, no_call) = peer.suspended(Scenario::Approval);
    let out = peer.client(&["approve", &yes]);
    out.assert_code(0);
    assert_eq!(
        peer.received(&out, &yes, &yes_call),
        json!({"deployed": "prod-db"}),
        "{}",
        peer.name()
    );
    let out = peer.client(&["decline", &no, "--reason", "Not on prod, please."]);
    out.assert_code(0);
    assert_eq!(
        peer.received(&out, &no, &no_call),
        json!("Not on prod, please."),
        "{}",
        peer.name()
    );
    assert_eq!(
        (peer.taken(&yes, &yes_call), peer.taken(&no, &no_call)),
        (1, 1)
    );
}

fn refuses_bad_answers_and_consumes_nothing(peer: &dyn Peer) {
    let (multi, multi_call) = peer.suspended(Scenario::Multi);
    let (single, single_call) = peer.suspended(Scenario::Single);
    let (question, question_call) = peer.suspended(Scenario::Question);
    let (plan, plan_call) = peer.suspended(Scenario::Plan);
    let (tool, tool_call) = peer.suspended(Scenario::Approval);
    for (args, needle) in [
        (
            vec!["answer", &multi, "--multi", "Add tests", "Nope"],
            "\"Nope\" is not one of the options",
        ),
        (
            vec!["answer", &single, "Purple"],
            "\"Purple\" is not one of",
        ),
        (vec!["answer", &question, ""], "empty"),
        (vec!["answer", &plan, "yes"], "is a plan, not a question"),
        (
            vec!["answer", &tool, "yes"],
            "is an approval, not a question",
        ),
        (
            vec!["review", &question, "--approve"],
            "is a question, not a plan",
        ),
        (
            vec!["review", &plan, "--json", "{\"action\":\"maybe\"}"],
            "action must be",
        ),
        (
            vec!["approve", &tool, "--json", "{\"approved\":false}"],
            "but the command is approve",
        ),
    ] {
        let out = peer.client(&args);
        out.assert_code(2);
        assert!(
            out.stderr.contains(needle),
            "{}: {args:?}: {}",
            peer.name(),
            out.stderr
        );
    }
    for (run, call) in [
        (&multi, &multi_call),
        (&single, &single_call),
        (&question, &question_call),
        (&plan, &plan_call),
        (&tool, &tool_call),
    ] {
        assert_eq!(peer.taken(run, call), 0, "{}: {run}", peer.name());
        assert_eq!(
            only_listed(peer, run),
            *call,
            "{}: still waits",
            peer.name()
        );
    }
}

fn answering_an_answered_item_again_is_a_conflict(peer: &dyn Peer) {
    let (run, call) = peer.suspended(Scenario::Chain);
    peer.client(&["answer", &run, "Light"]).assert_code(75);
    let out = peer.client(&["answer", &run, "--tool-call", &call, "Dark"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("question {call} of run {run} was already answered by tester (the server took that answer)"),
    );
    let (done, done_call) = peer.suspended(Scenario::Single);
    peer.client(&["answer", &done, "Light"]).assert_code(0);
    let out = peer.client(&["answer", &done, "--tool-call", &done_call, "Dark"]);
    out.assert_code(4);
    assert_one_line_error(
        &out,
        &format!("question {done_call} was answered by tester from this store"),
    );
    assert_eq!(
        (peer.taken(&run, &call), peer.taken(&done, &done_call)),
        (1, 1),
        "{}",
        peer.name()
    );
}

/// Clients that share no ledger (on different machines, say) race on one of two items of a
/// step on a serve (the run stays suspended on the other): serve takes one answer, which is
/// only recorded (exit 0), and every other client exits 4: refused with serve's 409, or
/// told the item is no longer listed.
#[test]
fn serve_takes_one_of_eight_clients_without_a_shared_ledger_and_the_others_exit_4() {
    let serve = Serve::new();
    let agent = serve.agent_file(
        "planner",
        json!([
            {"toolCalls": [
                {"id": "s1", "name": "ask_user", "args": {"question": "Which theme?",
                    "options": [{"label": "Light"}, {"label": "Dark"}]}},
                {"id": "q2", "name": "ask_user", "args": {"question": "Which name?"}}
            ]},
            say("Received.")
        ]),
        vec![],
    );
    let (out, run) = serve.store.start(&agent, &[]);
    out.assert_code(75);
    let call = "s1".to_string();
    let clients: Vec<Env> = (0..8).map(|_| Env::new()).collect();
    let url = serve.url();
    let children: Vec<_> = clients
        .iter()
        .enumerate()
        .map(|(i, env)| {
            let ledger = env.path("ledger.db");
            let label = if i % 2 == 0 { "Light" } else { "Dark" };
            let mut c = env.command(&[
                "--db",
                ledger.to_str().unwrap(),
                "--server",
                &url,
                "answer",
                &run,
                "--tool-call",
                &call,
                label,
            ]);
            c.env("MASTRA_SERVER_TOKEN", &serve.token)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    let outs: Vec<Out> = children.into_iter().map(crate::common::finish).collect();
    let won: Vec<&Out> = outs.iter().filter(|o| o.code == 0).collect();
    assert_eq!(won.len(), 1, "{outs:?}");
    assert!(
        won[0].stderr.contains("answer recorded on"),
        "{}",
        won[0].stderr
    );
    for out in outs.iter().filter(|o| o.code != 0) {
        assert_eq!(out.code, 4, "{out:?}");
        assert!(
            out.stderr
                .contains("refused the answer: tool call s1 was already decided by alice at ")
                || out.stderr.contains("is no longer suspended")
                // Listed after the winner's answer was recorded: the run waits on q2 alone.
                || (out.stderr.contains(&format!("tool call s1 of run {run} is not pending on "))
                    && out.stderr.contains(": the run waits on q2")),
            "{}",
            out.stderr
        );
    }
    assert_eq!(serve.taken(&run, &call), 1);
    assert_eq!(serve.taken(&run, "q2"), 0);
    assert_eq!(serve.store.status(&run), "suspended");
}

/// A serve's 409 (an item someone decided first) is exit 4, with serve's words: who
/// decided, when; the claim is not taken for delivered.
#[test]
fn a_409_from_serve_is_exit_4_naming_who_decided() {
    let env = Env::new();
    let run_page = json!({"runs": [{"runId": "run-0001", "status": "suspended",
        "suspendedAt": "2026-12-01T03:13:33.727Z",
        "toolCalls": [{"toolCallId": "q1", "toolName": "ask_user", "requiresApproval": false,
                       "suspendPayload": {"question": "Name?"}}]}], "total": 1});
    let empty = json!({"runs": [], "total": 0});
    let fake = FakeServer::start(vec![
        Reply::ok(run_page),
        Reply::status(
            409,
            json!({"error": "tool call q1 was already decided by bob at 2026-12-01T03:14:00Z",
                   "code": "CONFLICT"}),
        ),
        Reply::ok(empty),
    ]);
    let out = env
        .cmd(&[
            "--server",
            &fake.base_url(),
            "answer",
            "run-0001",
            "--agent",
            "planner",
            "Ada",
        ])
        .code(4);
    assert_shown!(env, out.stderr, @"error: http://127.0.0.1:[PORT]/v1 refused the answer: tool call q1 was already decided by bob at [TIME]");
    let state = env.value("SELECT state FROM ledger WHERE run_id = ?1", &["run-0001"]);
    assert_ne!(state.as_deref(), Some("delivered"));
}
