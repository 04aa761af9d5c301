//! PostgreSQL's write guards after migration 10 (SPEC §14): one function guards every table
//! only some roles write, told by its trigger's argument who may, with each refusal's words
//! as before; what a runner's role may not write stays refused; after migration 11 the
//! store's owner passes them without calling PL/pgSQL. Runs only against PostgreSQL
//! (`MASTRA_ASK_TEST_POSTGRES`).

use crate::common::Env;
use crate::pg_safety::{database, server, Role};

#[test]
fn one_guard_function_refuses_each_table_s_writers_as_before() {
    let Some(admin) = server() else { return };
    let runner = Role::new(&admin, None);
    let env = Env::new();
    let db = database(&env);
    env.run(&["reviewer", "add", "bob"]).assert_code(0);
    env.run(&["store", "grant", &runner.name]).assert_code(0);
    let mut owner = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
    let guards: Vec<(String, String)> = owner
        .query(
            "SELECT c.relname::text, p.proname::text FROM pg_trigger t \
             JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = 'mastra_ask' AND NOT t.tgisinternal ORDER BY 1, 2",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let functions: std::collections::BTreeSet<&str> =
        guards.iter().map(|(_, f)| f.as_str()).collect();
    assert_eq!(
        functions.into_iter().collect::<Vec<_>>(),
        // guard_minimum: an agent's minimum policy on new runs (migration 16).
        ["guard_calls", "guard_minimum", "guard_runs", "guard_writes"],
        "{guards:?}"
    );
    let mut c = postgres::Client::connect(&runner.url(&db), postgres::NoTls).unwrap();
    c.batch_execute("SET search_path = mastra_ask").unwrap();
    let refused = |c: &mut postgres::Client, sql: &str| {
        let e = c.batch_execute(sql).unwrap_err();
        let d = e.as_db_error().expect("a refusal of the store");
        (d.code().code().to_string(), d.message().to_string())
    };
    let name = &runner.name;
    // Even with every privilege on every table, the guards refuse.
    let mut all = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
    all.batch_execute(&format!(
        "GRANT ALL ON ALL TABLES IN SCHEMA mastra_ask TO {name}"
    ))
    .unwrap();
    assert_eq!(
        refused(&mut c, "DELETE FROM reviewers"),
        (
            "MA403".to_string(),
            format!("the role {name} may not write reviewers: only the store's owner does")
        )
    );
    assert_eq!(
        refused(&mut c, "TRUNCATE sessions"),
        (
            "MA403".to_string(),
            format!(
                "the role {name} may not write sessions: only the store's owner and its serve roles do"
            )
        )
    );
    assert_eq!(env.count("SELECT count(*) FROM reviewers", &[]), 1);
}

/// Migration 11: a command of the store's owner calls no PL/pgSQL unless it is refused (a new
/// server process would load the language and compile each function): the function calls of
/// an `answer`'s server process, counted by `track_functions`, are SQL functions only.
#[test]
fn an_owner_s_answer_calls_no_pl_pgsql() {
    if server().is_none() {
        return;
    }
    let env = Env::new();
    let db = database(&env);
    env.write(
        "work/script.json",
        &serde_json::json!({"steps": [
            {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Ship it?"}}]},
            {"text": "shipped"}
        ]})
        .to_string(),
    );
    let agent = env.write(
        "work/agent.json",
        &serde_json::json!({"id": "a", "instructions": "Ask.", "model": "script:script.json"})
            .to_string(),
    );
    env.run(&["run", "--agent", agent.to_str().unwrap(), "Go"])
        .assert_code(75);
    let run = env.latest_run().unwrap();
    let mut owner = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
    owner
        .batch_execute(&format!("ALTER DATABASE {db} SET track_functions = 'all'"))
        .unwrap();
    env.run(&["answer", &run, "yes"]).assert_code(0);
    // A server process reports its counts as it exits, after the command has.
    let calls = "SELECT f.funcname::text, l.lanname::text FROM pg_stat_user_functions f \
        JOIN pg_proc p ON p.oid = f.funcid JOIN pg_language l ON l.oid = p.prolang \
        WHERE f.schemaname = 'mastra_ask' ORDER BY 1";
    let mut called: Vec<(String, String)> = Vec::new();
    for _ in 0..1000 {
        called = owner
            .query(calls, &[])
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        if called.iter().any(|(f, _)| f == "resolve_item") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        called.iter().any(|(f, _)| f == "resolve_item"),
        "the answer's function calls were never reported: {called:?}"
    );
    let pl: Vec<&(String, String)> = called.iter().filter(|(_, l)| l != "sql").collect();
    assert!(pl.is_empty(), "an owner's answer called {pl:?}");
}
