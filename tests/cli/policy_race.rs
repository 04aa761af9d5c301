//! Eight reviewers racing on the last approval a policy needs (SPEC §14: exactly once for
//! the final resolution), as eight real `mastra-ask approve` processes started together on
//! PostgreSQL, each signed in by its own role (`store grant`, `reviewer add --pg-role`):
//! one resolves the item and runs the tool, the seven others are told it was decided (exit
//! 4), the tool runs once, and the store holds two decisions and one resolution. The same
//! race through `serve` is `serve::race_policy`. `gated` is the start line both share.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::command_tools::tag_runs;
use crate::common::{finish_within, Env, Out};
use crate::pg_safety::{database, server, Role};
use crate::policy_fixture::{of_group, tagging_agent};

/// How many processes race.
pub const RACERS: usize = 8;

/// `command` started behind a start line: a shell that marks `work/ready.N` and waits
/// (30 s at most) for `work/go` before it execs the command, so all start at once.
pub fn gated(env: &Env, n: usize, command: Command) -> Child {
    let program = command.get_program().to_owned();
    let mut args = vec![
        "-c".to_string(),
        format!(
            "touch ready.{n}; i=0; while [ ! -e go ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; exec \"$0\" \"$@\""
        ),
        program.to_string_lossy().into_owned(),
    ];
    args.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut shell = env.command_of(Path::new("/bin/sh"), &args);
    for (k, v) in command.get_envs() {
        match v {
            Some(v) => shell.env(k, v),
            None => shell.env_remove(k),
        };
    }
    shell
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until all `RACERS` gated processes stand at the line, lets them go, and gathers
/// how each ended (60 s at most each).
pub fn race(env: &Env, children: Vec<Child>) -> Vec<Out> {
    env.poll("every racer at the start line", || {
        (0..RACERS).all(|n| env.path(&format!("work/ready.{n}")).exists())
    });
    std::fs::write(env.path("work/go"), "").unwrap();
    children
        .into_iter()
        .map(|c| finish_within(c, "a racer", Duration::from_secs(60)))
        .collect()
}

/// A run suspended on the approval of `tag_release {"version":"v2"}` (`c1`), which two of
/// the group `racers` must approve.
pub fn two_of_the_racers(env: &Env) -> String {
    let review = of_group("racers", 2);
    let agent = tagging_agent(env, json!({"version": "v2"}), Some(review));
    let (out, run) = env.start(&agent, &[]);
    out.assert_code(75);
    run
}

/// One winner (exit 0) and seven told who decided it (4); the tool ran once; the store
/// holds `first`'s decision and the winner's, and one resolution, by the winner.
pub fn assert_decided_once(env: &Env, run: &str, first: &str, outs: &[Out]) {
    assert_told_once(env, run, first, outs, false);
}

/// `assert_decided_once`; `gone_is_told`: a loser that looked for the item after the
/// winner's leg ended (a `--server` client lists what waits first) may instead be told
/// the run no longer waits there (3).
pub fn assert_told_once(env: &Env, run: &str, first: &str, outs: &[Out], gone_is_told: bool) {
    let codes: Vec<i32> = outs.iter().map(|o| o.code).collect();
    let said: Vec<&str> = outs.iter().map(|o| o.stderr.as_str()).collect();
    let gone = |o: &Out| {
        gone_is_told
            && o.code == 3
            && o.stderr
                .starts_with(&format!("error: no suspended run {run} on "))
    };
    let losers: Vec<&Out> = outs.iter().filter(|o| o.code == 4 || gone(o)).collect();
    assert_eq!(
        (codes.iter().filter(|c| **c == 0).count(), losers.len()),
        (1, RACERS - 1),
        "{codes:?} {said:#?}"
    );
    assert_eq!(tag_runs(env), 1, "the tool ran once");
    assert_eq!(env.status(run), "completed");
    let show = env.show(run);
    let item = &show["suspensions"][0];
    let decisions: Vec<&str> = item["decisions"]
        .as_array()
        .unwrap_or_else(|| panic!("{show}"))
        .iter()
        .map(|d| d["by"].as_str().unwrap())
        .collect();
    assert_eq!(decisions.len(), 2, "{show}");
    assert_eq!(decisions[0], first, "{show}");
    assert_ne!(decisions[1], first, "{show}");
    assert_eq!(
        (item["state"].clone(), item["resolvedBy"].clone()),
        (json!("resolved"), json!(decisions[1])),
        "{show}"
    );
    // Each loser is told who decided first, or that the run no longer waits.
    let by = format!(" by {} ", decisions[1]);
    // (One that looked after the winner's leg began is told nothing waits any more.)
    for o in outs.iter().filter(|o| o.code == 4) {
        assert!(
            o.stderr.contains(&by)
                || o.stderr.ends_with(&format!("{}\n", by.trim_end()))
                || o.stderr.contains(&format!("error: run {run} is ")),
            "{}",
            o.stderr
        );
    }
    let resolutions = env.count(
        "SELECT count(*) FROM calls WHERE call_id = 'c1' AND state = 'resolved'",
        &[],
    );
    assert_eq!(resolutions, 1);
}

#[test]
fn eight_reviewer_roles_racing_on_the_last_approval_resolve_it_once() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let db = database(&env);
    // One reviewer gives the first approval; eight race on the second.
    let roles: Vec<Role> = (0..=RACERS).map(|_| Role::new(&admin, None)).collect();
    for (i, role) in roles.iter().enumerate() {
        env.run(&[
            "reviewer",
            "add",
            &format!("rev{i}"),
            "--group",
            "racers",
            "--pg-role",
            &role.name,
        ])
        .assert_code(0);
    }
    let mut grant = vec!["store", "grant"];
    grant.extend(roles.iter().map(|r| r.name.as_str()));
    env.run(&grant).assert_code(0);
    let run = two_of_the_racers(&env);
    let as_role = |role: &Role| {
        let mut c = env.command(&["approve", &run]);
        c.env("MASTRA_ASK_DB", role.url(&db));
        c
    };
    let first = env.run_with(as_role(&roles[0]));
    first.assert_code(75);
    assert!(
        first.stderr.contains("1 of 2 approvals: rev0 approved"),
        "{}",
        first.stderr
    );

    let children = roles[1..]
        .iter()
        .enumerate()
        .map(|(n, role)| gated(&env, n, as_role(role)))
        .collect();
    let outs = race(&env, children);
    assert_decided_once(&env, &run, "rev0", &outs);
}
