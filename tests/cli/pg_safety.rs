//! What a store location or a store can do wrong, and what the program then says: a
//! PostgreSQL server or network that falls silent in the middle of a command (a relay that
//! goes dark, a stopped backend), a libpq keyword string given as the store, a corrupt
//! schema version, a role without the privileges first use needs, and the password file.
//! Every wait here has a deadline; no password is ever shown.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::assert_shown;
use crate::common::{assert_one_line_error, assert_same_store, finish_within, Env, Out};
use crate::db::TestDb;

/// The test server's admin URL, when the suite runs against PostgreSQL.
pub fn server() -> Option<String> {
    std::env::var("MASTRA_ASK_TEST_POSTGRES")
        .ok()
        .filter(|s| !s.is_empty())
}

/// `host:port` of a URL.
pub fn host_port(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split_once('@').map_or(rest, |(_, r)| r);
    rest.split(['/', '?']).next().unwrap().to_string()
}

/// The database of this test's PostgreSQL store.
pub fn database(env: &Env) -> String {
    match &env.store {
        TestDb::Postgres { name, .. } => name.clone(),
        TestDb::Sqlite(_) => unreachable!("a PostgreSQL store"),
    }
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().unwrap()
}

/// Forwards each connection to `target` for `after`, then forwards nothing and keeps both
/// sockets open (no FIN, no RST): a network path gone dark.
struct Relay {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Relay {
    fn start(target: String, after: Duration) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        let (target, stopped) = (target.clone(), stopped.clone());
                        std::thread::spawn(move || relay(client, &target, after, &stopped));
                    }
                    Err(_) => sleep(Duration::from_millis(10)),
                }
            }
        });
        Relay { port, stop }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn relay(client: TcpStream, target: &str, after: Duration, stop: &AtomicBool) {
    let Ok(server) = TcpStream::connect(target) else {
        return;
    };
    let started = Instant::now();
    let tick = Some(Duration::from_millis(10));
    client.set_nonblocking(false).unwrap();
    client.set_read_timeout(tick).unwrap();
    server.set_read_timeout(tick).unwrap();
    let mut buf = [0u8; 65536];
    while started.elapsed() < after && !stop.load(Ordering::Relaxed) {
        for (mut from, mut to) in [(&client, &server), (&server, &client)] {
            match from.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        return;
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => return,
            }
        }
    }
    // Dark: both sockets stay open, nothing passes.
    while !stop.load(Ordering::Relaxed) {
        sleep(Duration::from_millis(20));
    }
}

/// Another session's `ACCESS EXCLUSIVE` lock on the runs table, until dropped.
fn lock_runs(env: &Env) -> postgres::Client {
    let mut holder = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
    holder
        .batch_execute("BEGIN; LOCK TABLE mastra_ask.runs IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    holder
}

/// The store URL of `env` reached at `host_port`, with a statement_timeout of 3 s (so the
/// read deadline is 8 s).
fn url_at(env: &Env, host_port: &str) -> String {
    format!(
        "postgres://mastra@{host_port}/{}?options=-c%20statement_timeout%3D3s",
        database(env)
    )
}

const SILENCE: &str =
    "the server sent nothing for 8s (the read deadline: statement_timeout plus 5s)";

#[track_caller]
fn assert_silence(out: &Out) {
    assert_eq!(out.code, 1, "{out:?}");
    assert_one_line_error(out, SILENCE);
    assert!(out
        .stderr
        .contains("hint: the server, or the network to it, stopped answering"));
}

#[test]
fn a_network_that_goes_dark_while_a_command_waits_for_a_lock_ends_the_command() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let run = env.run(&["ask", "Locked?"]).stdout.trim().to_string();
    let before = env.dump();
    let holder = lock_runs(&env);
    let relay = Relay::start(host_port(&admin), Duration::from_secs(1));
    let url = url_at(&env, &format!("127.0.0.1:{}", relay.port));
    for args in [vec!["pending"], vec!["answer", &run, "yes"]] {
        let mut cmd = env.command(&args);
        cmd.env("MASTRA_ASK_DB", &url);
        assert_silence(&finish_within(
            spawn(cmd),
            "the command",
            Duration::from_secs(40),
        ));
    }
    drop(holder);
    assert_same_store(&env.dump(), &before);
    env.run(&["answer", &run, "yes"]).assert_code(0);
}

#[test]
fn a_network_that_goes_dark_while_a_waiter_listens_ends_the_waiter() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let run = env.run(&["ask", "Anyone?"]).stdout.trim().to_string();
    let relay = Relay::start(host_port(&admin), Duration::from_secs(1));
    let mut cmd = env.command(&["wait", &run]);
    cmd.env(
        "MASTRA_ASK_DB",
        url_at(&env, &format!("127.0.0.1:{}", relay.port)),
    );
    assert_silence(&finish_within(
        spawn(cmd),
        "the command",
        Duration::from_secs(40),
    ));
    env.run(&["answer", &run, "yes"]).assert_code(0);
}

/// Continues a stopped process when dropped.
struct Stopped(i32);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

#[test]
fn a_stopped_server_process_ends_the_command_that_waits_for_it() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let run = env.run(&["ask", "Frozen?"]).stdout.trim().to_string();
    let before = env.dump();
    let holder = lock_runs(&env);
    let mut cmd = env.command(&["answer", &run, "yes"]);
    cmd.env("MASTRA_ASK_DB", url_at(&env, &host_port(&admin)));
    let child = spawn(cmd);
    // The backend serving the command, once it waits for the lock.
    let mut watcher = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
    let name = database(&env);
    let mut pid = None;
    env.poll("the command's backend waiting for the lock", || {
        pid = watcher
            .query_opt(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1 \
                 AND application_name = 'mastra-ask' AND wait_event_type = 'Lock'",
                &[&name],
            )
            .unwrap()
            .map(|r| r.get::<_, i32>(0));
        pid.is_some()
    });
    let pid = pid.unwrap();
    let stopped = Stopped(pid);
    assert!(Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    assert_silence(&finish_within(
        child,
        "the command",
        Duration::from_secs(40),
    ));
    drop(stopped);
    drop(holder);
    assert_same_store(&env.dump(), &before);
    env.run(&["answer", &run, "yes"]).assert_code(0);
}

#[test]
fn a_libpq_keyword_string_is_refused_never_a_file_and_its_password_never_shown() {
    let env = Env::new();
    let given = "host=127.0.0.1 port=54393 user=tester password=Kpw-KKK111 dbname=t3b";
    for (how, args) in [
        ("--db", vec!["--db", given, "ask", "Q?"]),
        ("--db", vec!["--db", given, "pending"]),
        ("MASTRA_ASK_DB", vec!["ask", "Q?"]),
        ("MASTRA_ASK_DB", vec!["-o", "json", "pending"]),
    ] {
        let mut cmd = env.command(&args);
        if how == "MASTRA_ASK_DB" {
            cmd.env("MASTRA_ASK_DB", "dbname=x user=y  password='Kpw KKK222'");
        }
        let out = env.run_with(cmd);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        for secret in ["Kpw-KKK111", "KKK222"] {
            assert!(
                !out.stderr.contains(secret) && !out.stdout.contains(secret),
                "{out:?}"
            );
        }
        if args[0] == "-o" {
            let line: serde_json::Value = serde_json::from_str(out.stderr.trim()).unwrap();
            assert_eq!(line["error"]["code"], "USAGE");
            continue;
        }
        let keys = if how == "--db" {
            "host, port, user, password, dbname"
        } else {
            "dbname, user, password"
        };
        assert_one_line_error(
            &out,
            &format!(
                "the store location (--db or MASTRA_ASK_DB) is a libpq keyword/value string \
                 ({keys}), not a postgres:// URL"
            ),
        );
        assert!(
            out.stderr.contains("hint: write it as a URL, postgres://"),
            "{}",
            out.stderr
        );
    }
    // Nothing became a file.
    assert_eq!(std::fs::read_dir(env.work()).unwrap().count(), 0);
    assert!(!env.has_store());
}

/// What `args` print on a store whose schema version was set to `version`.
fn on_corrupt_version(env: &Env, version: i64, args: &[&str]) -> Out {
    let out = env.run(args);
    assert!(out.stderr.len() < 400, "{}", out.stderr);
    assert!(!out.stderr.contains("CREATE"), "{}", out.stderr);
    assert_eq!(out.code, 1, "{version}: {out:?}");
    out
}

#[test]
fn a_corrupt_schema_version_is_one_short_line_without_the_migration_sql() {
    let env = Env::new();
    env.run(&["ask", "Q?"]).assert_code(75);
    let set = |version: i64| match &env.store {
        TestDb::Sqlite(_) => env
            .conn()
            .execute_batch(&format!("PRAGMA user_version = {version}"))
            .unwrap(),
        TestDb::Postgres { .. } => {
            let mut c = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
            c.batch_execute(&format!(
                "DELETE FROM mastra_ask.schema_version; \
                 INSERT INTO mastra_ask.schema_version VALUES ({version})"
            ))
            .unwrap();
        }
    };
    set(-1);
    let before = env.dump();
    for args in [&["pending"][..], &["ask", "Again?"]] {
        let out = on_corrupt_version(&env, -1, args);
        assert_one_line_error(&out, "its schema version is -1, which no mastra-ask writes");
        assert!(out.stderr.contains("hint: "), "{}", out.stderr);
    }
    assert_same_store(&env.dump(), &before);
    // A version older than the tables: the first migration fails on a table that exists.
    set(0);
    let out = on_corrupt_version(&env, 0, &["ask", "Again?"]);
    assert_one_line_error(&out, "applying migration 1: ");
    assert!(out.stderr.contains("already exists"), "{}", out.stderr);
}

#[test]
fn pending_says_nothing_is_pending_before_any_store_exists() {
    let env = Env::new();
    let out = env.cmd(&["pending"]).code(0);
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str()),
        ("", env.nothing_pending().as_str())
    );
    assert!(!env.has_store());
}

/// A role of the test server that is dropped (with what it owns) at the end.
pub struct Role {
    admin: String,
    pub name: String,
}

impl Role {
    pub fn new(admin: &str, password: Option<&str>) -> Role {
        let name = format!("r_{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let password = password
            .map(|p| format!(" PASSWORD '{p}'"))
            .unwrap_or_default();
        postgres::Client::connect(admin, postgres::NoTls)
            .unwrap()
            .batch_execute(&format!("CREATE ROLE {name} LOGIN{password}"))
            .unwrap();
        Role {
            admin: admin.to_string(),
            name,
        }
    }

    /// The URL of database `db` as this role.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{}@{}/{db}", self.name, host_port(&self.admin))
    }
}

impl Drop for Role {
    fn drop(&mut self) {
        if let Ok(mut c) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP ROLE IF EXISTS {}", self.name));
        }
    }
}

#[test]
fn first_use_by_an_ordinary_role_names_the_privilege_it_lacks() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let db = database(&env);
    let (runner, reviewer) = (Role::new(&admin, None), Role::new(&admin, None));
    let as_role = |role: &Role, args: &[&str]| {
        let mut cmd = env.command(args);
        cmd.env("MASTRA_ASK_DB", role.url(&db));
        env.run_with(cmd)
    };
    let out = as_role(&runner, &["ask", "Ship it?"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_one_line_error(
        &out,
        &format!(
            "permission denied for database {db}: the role {} needs CREATE on database {db} \
             to create the schema mastra_ask at first use",
            runner.name
        ),
    );
    assert_shown!(env, out.stderr, @"
        error: preparing the store at postgres://[ROLE]@127.0.0.1:[PORT]/[DB]: db error: ERROR: permission denied for database [DB]: the role [ROLE] needs CREATE on database [DB] to create the schema mastra_ask at first use
        hint: let the store's owner (an administrator's role: no policy binds it) run the first mastra-ask command, then mastra-ask store grant [ROLE]; or make [ROLE] the owner, as the database's owner: GRANT CREATE ON DATABASE [DB] TO [ROLE]
        ");
    assert!(!env.has_store());
    // The grant the hint names is all it takes.
    let mut superuser = postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap();
    superuser
        .batch_execute(&format!("GRANT CREATE ON DATABASE {db} TO {}", runner.name))
        .unwrap();
    let out = as_role(&runner, &["ask", "Ship it?"]);
    out.assert_code(75);
    let run = out.stdout.trim().to_string();
    // Another role finds the store, but may not read it.
    let out = as_role(&reviewer, &["pending"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_one_line_error(
        &out,
        &format!(
            "the role {} needs USAGE on schema mastra_ask",
            reviewer.name
        ),
    );
    assert_shown!(env, out.stderr, @"
        error: opening the store at postgres://[ROLE]@127.0.0.1:[PORT]/[DB]: db error: ERROR: permission denied for schema mastra_ask: the role [ROLE] needs USAGE on schema mastra_ask
        hint: as the schema's owner: GRANT USAGE ON SCHEMA mastra_ask TO [ROLE]; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA mastra_ask TO [ROLE]
        ");
    superuser
        .batch_execute(&format!(
            "GRANT USAGE ON SCHEMA mastra_ask TO {0}; \
             GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA mastra_ask TO {0}",
            reviewer.name
        ))
        .unwrap();
    let out = as_role(&reviewer, &["pending", "-q"]);
    out.assert_code(0);
    assert!(out.stdout.starts_with(&run), "{}", out.stdout);
    as_role(&reviewer, &["answer", &run, "yes"]).assert_code(0);
    drop(superuser);
    drop(env);
}

#[test]
fn the_password_file_is_read_as_libpq_reads_it() {
    let Some(admin) = server() else { return };
    let env = Env::new();
    let db = database(&env);
    let hp = host_port(&admin);
    let (host, port) = hp.rsplit_once(':').unwrap();
    let url = format!("postgres://mastra_pw@{hp}/{db}");
    // Escapes, a comment and a line for another database come first.
    let pgpass = env.write(
        "home/.pgpass",
        &format!(
            "# team store\n{host}:{port}:other:mastra_pw:wrong\n\
             {host}:{port}:*:mastra_pw:right-password\n"
        ),
    );
    let run = |extra: &[(&str, &str)], args: &[&str]| {
        let mut cmd = env.command(args);
        cmd.env("MASTRA_ASK_DB", &url);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        env.run_with(cmd)
    };
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    postgres::Client::connect(&env.store.url(), postgres::NoTls)
        .unwrap()
        .batch_execute(&format!("ALTER DATABASE {db} OWNER TO mastra_pw"))
        .unwrap();
    run(&[], &["ask", "Via pgpass?"]).assert_code(75);
    // PGPASSWORD comes first, as in libpq.
    let out = run(&[("PGPASSWORD", "not-it")], &["pending"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_shown!(env, out.stderr, @r#"
        error: connecting to the store at postgres://mastra_pw@127.0.0.1:[PORT]/[DB]: db error: FATAL: password authentication failed for user "mastra_pw"
        hint: check the store URL (host, port, user, password in PGPASSWORD) and that the server is up
        "#);
    // A file others may read is ignored, with libpq's warning.
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run(&[], &["pending"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.starts_with(&format!(
            "warning: password file \"{}\" has group or world access; permissions should be u=rw (0600) or less\n",
            pgpass.display()
        )),
        "{}",
        out.stderr
    );
    // PGPASSFILE names another file.
    let other = env.write(
        "elsewhere/pass",
        &format!("{host}:{port}:{db}:mastra_pw:right-password\n"),
    );
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(
        &[("PGPASSFILE", other.to_str().unwrap())],
        &["pending", "-q"],
    );
    out.assert_code(0);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
}
