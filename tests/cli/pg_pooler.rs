//! Behind a connection pooler that drops a connection's start-up options (PgBouncer from
//! Debian's packages, session pooling, `ignore_startup_parameters = options`): the store's
//! search path and timeouts never reach the server, so the program refuses with one line and
//! creates nothing; with the same settings on the database, a run goes through the pooler
//! from its start to its end. Runs against PostgreSQL (`MASTRA_ASK_TEST_POSTGRES`); with `CI`
//! set a missing `pgbouncer` fails it, elsewhere it is skipped.

use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{assert_one_line_error, Env};
use crate::pg_safety::{database, host_port, server};
use crate::pg_tls::free_port;

const PGBOUNCER: &str = "/usr/sbin/pgbouncer";

/// A PgBouncer in front of the test server, stopped when dropped.
struct Pooler {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Pooler {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The user of a `postgres://user@host...` URL.
fn user_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let user = rest.split_once('@').map_or("", |(u, _)| u);
    user.split(':').next().unwrap_or(user)
}

fn pooler(server: &str) -> Option<Pooler> {
    if !Path::new(PGBOUNCER).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{PGBOUNCER} is not installed (apt-get install pgbouncer)"
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let (host, server_port) = host_port(server)
        .rsplit_once(':')
        .map(|(h, p)| (h.to_string(), p.to_string()))
        .unwrap();
    let ini = dir.path().join("pgbouncer.ini");
    let users = dir.path().join("users.txt");
    std::fs::write(&users, format!("\"{}\" \"\"\n", user_of(server))).unwrap();
    std::fs::write(
        &ini,
        format!(
            "[databases]\n* = host={host} port={server_port}\n\n[pgbouncer]\n\
             listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
             auth_type = trust\nauth_file = {}\npool_mode = session\n\
             ignore_startup_parameters = options\n",
            users.display()
        ),
    )
    .unwrap();
    // PgBouncer will not run as root; it switches to the server's user there.
    for (path, mode) in [(dir.path(), 0o755), (ini.as_path(), 0o644), (&users, 0o644)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let mut cmd = Command::new(PGBOUNCER);
    if rustix::process::geteuid().is_root() {
        cmd.args(["-u", "mastra-pg"]);
    }
    let child = cmd
        .arg(&ini)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pooler = Pooler {
        child,
        port,
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "PgBouncer did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some(pooler)
}

fn admin(env: &Env) -> postgres::Client {
    postgres::Client::connect(&env.store.url(), postgres::NoTls).unwrap()
}

#[test]
fn behind_a_pooler_that_drops_the_session_options_the_store_refuses_until_the_database_has_them() {
    let Some(server) = server() else { return };
    // Two databases: PgBouncer keeps a server connection with the settings it started with.
    let (bare, set) = (Env::new(), Env::new());
    let Some(pooler) = pooler(&server) else {
        return;
    };
    let through = |env: &Env| {
        format!(
            "postgres://{}@127.0.0.1:{}/{}",
            user_of(&server),
            pooler.port,
            database(env)
        )
    };
    let steps = json!([
        {"toolCalls": [{"id": "q", "name": "ask_user", "args": {"question": "Ship it?"}}]},
        {"text": "shipped"}
    ]);

    let agent = bare.agent(steps.clone());
    let url = through(&bare);
    let out = bare
        .cmd(&["--db", &url, "run", "--agent", &agent, "go"])
        .code(2);
    assert_one_line_error(
        &out,
        "error: the PostgreSQL server did not apply this connection's session settings (its \
         search_path is \"$user\", public, not mastra_ask): a connection pooler such as \
         PgBouncer drops them; set them on the role or the database instead",
    );
    let schemas: i64 = admin(&bare)
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname = 'mastra_ask'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(schemas, 0, "nothing is created");
    // A store that exists (made directly) is refused the same way through the pooler,
    // before any of its tables is named.
    bare.run(&["run", "--agent", &agent, "go"]).assert_code(75);
    let out = bare.cmd(&["--db", &url, "pending"]).code(2);
    assert_one_line_error(&out, "did not apply this connection's session settings");

    admin(&set)
        .batch_execute(&format!(
            "ALTER DATABASE {db} SET search_path = mastra_ask; \
             ALTER DATABASE {db} SET statement_timeout = '60s'; \
             ALTER DATABASE {db} SET lock_timeout = '10s'",
            db = database(&set)
        ))
        .unwrap();
    let agent = set.agent(steps);
    let url = through(&set);
    let out = set
        .cmd(&["--db", &url, "run", "-q", "--agent", &agent, "go"])
        .code(75);
    let run = out.stdout.trim().to_string();
    set.cmd(&["--db", &url, "answer", &run, "yes"]).code(0);
    let out = set.cmd(&["--db", &url, "-o", "json", "show", &run]).code(0);
    let shown: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(shown["status"], "completed", "{}", out.stdout);
}
