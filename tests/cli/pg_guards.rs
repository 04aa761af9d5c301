//! PostgreSQL's write guards after migration 10 (SPEC §14): one function guards every table
//! only some roles write, told by its trigger's argument who may, with each refusal's words
//! as before; what a runner's role may not write stays refused. Runs only against
//! PostgreSQL (`MASTRA_ASK_TEST_POSTGRES`).

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
        ["guard_calls", "guard_runs", "guard_writes"],
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
