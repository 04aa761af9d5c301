//! PostgreSQL TLS as libpq does it, against a real server: a private CA and a server
//! certificate (for `localhost` only) made here with the `openssl` command, and a second
//! PostgreSQL server started once per test run in a temporary directory, on a port of its
//! own, with `ssl=on` and only `hostssl` lines for TCP. It stops and its directory goes
//! when the test process ends (its watcher reads EOF on a pipe this process holds), so two
//! runs at once never meet. The shared test server is never touched.
//!
//! The tests run whenever the suite runs against PostgreSQL (`MASTRA_ASK_TEST_POSTGRES`,
//! which CI sets for its second pass), and then fail if the server cannot be started;
//! elsewhere they run when PostgreSQL's binaries are installed.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use crate::assert_shown;
use crate::common::{assert_one_line_error, Env, Out};
use crate::pg_safety::server;

struct TlsServer {
    port: u16,
    certs: PathBuf,
    /// The socket directory, for the tests' own set-up as the superuser.
    dir: PathBuf,
    /// Closing it (at process exit) stops the server and removes its directory.
    _watcher: Mutex<ChildStdin>,
}

/// The directory of PostgreSQL's server binaries (initdb, pg_ctl), newest version first.
fn binaries() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|b| b.join("initdb").exists())
        .collect();
    found.sort_by_key(|p| {
        p.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop()
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// `program args` as the server's user (`mastra-pg` when running as root), which must
/// succeed.
fn as_server_user(program: &Path, args: &[&str]) {
    let mut cmd = if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "mastra-pg", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    let out = cmd.args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the openssl command");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA (`NAME.crt`, `NAME.key`) in `dir`.
fn make_ca(dir: &Path, name: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            &format!("/CN={name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.crt"),
        ],
    );
}

/// `ca.crt`, `other-ca.crt` (a CA the server's certificate does not come from) and
/// `server.crt`/`server.key` for the name `localhost` only.
fn make_certificates(dir: &Path) {
    make_ca(dir, "ca");
    make_ca(dir, "other-ca");
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-set_serial",
            "2",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ],
    );
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The TLS server, started at the first call; `None` when the tests do not run here.
fn tls_server() -> Option<&'static TlsServer> {
    static SERVER: OnceLock<Option<TlsServer>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let bin = binaries();
            if server().is_none() && bin.is_none() {
                eprintln!("skipped: no PostgreSQL binaries under /usr/lib/postgresql");
                return None;
            }
            let bin = bin.expect("PostgreSQL's binaries under /usr/lib/postgresql");
            Some(start(&bin))
        })
        .as_ref()
}

fn start(bin: &Path) -> TlsServer {
    if is_root()
        && Command::new("id")
            .arg("mastra-pg")
            .output()
            .map_or(true, |o| !o.status.success())
    {
        let _ = Command::new("useradd")
            .args(["--system", "--no-create-home", "mastra-pg"])
            .status();
    }
    let base = tempfile::Builder::new()
        .prefix("mastra-ask-tls-")
        .tempdir()
        .unwrap()
        .keep();
    let certs = base.join("certs");
    let data = base.join("data");
    std::fs::create_dir(&certs).unwrap();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&certs, std::fs::Permissions::from_mode(0o755)).unwrap();
    make_certificates(&certs);
    for f in ["ca.crt", "other-ca.crt", "server.crt"] {
        std::fs::set_permissions(certs.join(f), std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    if is_root() {
        let chown = |p: &Path| {
            assert!(Command::new("chown")
                .args(["mastra-pg"])
                .arg(p)
                .status()
                .unwrap()
                .success())
        };
        chown(&base);
        chown(&certs.join("server.key"));
    }
    std::fs::set_permissions(
        certs.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let data_s = data.to_str().unwrap();
    as_server_user(
        &bin.join("initdb"),
        &["-D", data_s, "-U", "mastra", "--auth=trust", "-E", "UTF8"],
    );
    let port = free_port();
    // TCP only over TLS; the tests' own set-up goes through the socket.
    let hba = "local all all trust\n\
               hostssl all tls_pw 127.0.0.1/32 scram-sha-256\n\
               hostssl all all 127.0.0.1/32 trust\n";
    let conf = format!(
        "port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{}'\n\
         ssl = on\nssl_cert_file = '{}'\nssl_key_file = '{}'\nfsync = off\nmax_connections = 40\n",
        base.display(),
        certs.join("server.crt").display(),
        certs.join("server.key").display()
    );
    let hba_path = data.join("pg_hba.conf");
    let conf_path = data.join("postgresql.conf");
    let mut all = std::fs::read_to_string(&conf_path).unwrap();
    all.push_str(&conf);
    std::fs::write(&conf_path, all).unwrap();
    std::fs::write(&hba_path, hba).unwrap();
    // The watcher starts the server, then waits for EOF on its stdin (this process's end)
    // to stop it and remove its directory.
    let run_as = if is_root() {
        "runuser -u mastra-pg -- "
    } else {
        ""
    };
    let pg_ctl = bin.join("pg_ctl");
    let script = format!(
        "trap '' INT TERM HUP\n\
         {run_as}'{ctl}' -D '{data_s}' -l '{log}' -w start >/dev/null || exit 1\n\
         echo ready\n\
         cat >/dev/null\n\
         {run_as}'{ctl}' -D '{data_s}' -m immediate -w stop >/dev/null 2>&1\n\
         rm -rf '{base}'\n",
        ctl = pg_ctl.display(),
        log = base.join("server.log").display(),
        base = base.display(),
    );
    // Never waited for: the watcher outlives this process, which is what stops the server.
    #[allow(clippy::zombie_processes)]
    let mut watcher = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    // pg_ctl -w gives up on its own (60 s).
    BufReader::new(watcher.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(
        line,
        "ready\n",
        "the TLS server did not start: {}",
        std::fs::read_to_string(base.join("server.log")).unwrap_or_default()
    );
    let server = TlsServer {
        port,
        certs,
        dir: base,
        _watcher: Mutex::new(watcher.stdin.take().unwrap()),
    };
    server
        .admin("postgres")
        .batch_execute("CREATE ROLE tls_pw LOGIN PASSWORD 'tls-password'")
        .unwrap();
    server
}

impl TlsServer {
    /// The superuser, over the socket.
    fn admin(&self, db: &str) -> postgres::Client {
        postgres::Config::new()
            .host_path(&self.dir)
            .port(self.port)
            .user("mastra")
            .dbname(db)
            .connect(postgres::NoTls)
            .unwrap()
    }

    /// A new database for one test, owned by `owner`.
    fn database(&self, owner: &str) -> String {
        let name = format!("tls_{}", uuid::Uuid::new_v4().simple());
        self.admin("postgres")
            .batch_execute(&format!("CREATE DATABASE {name} OWNER {owner}"))
            .unwrap();
        name
    }

    fn cert(&self, name: &str) -> String {
        self.certs.join(name).display().to_string()
    }
}

/// `args` with the store at `url` (and the environment `extra`).
fn with_store(env: &Env, url: &str, extra: &[(&str, &str)], args: &[&str]) -> Out {
    let mut cmd = env.command(args);
    cmd.env("MASTRA_ASK_DB", url);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    env.run_with(cmd)
}

#[test]
fn verify_full_with_the_teams_ca_connects_and_a_wrong_ca_fails_with_a_tls_hint() {
    let Some(tls) = tls_server() else { return };
    let env = Env::sqlite();
    let db = tls.database("mastra");
    let url =
        |host: &str, query: &str| format!("postgres://mastra@{host}:{}/{db}?{query}", tls.port);
    let ca = tls.cert("ca.crt");
    let other = tls.cert("other-ca.crt");
    let full = url(
        "localhost",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    let out = with_store(&env, &full, &[], &["ask", "Over TLS?"]);
    out.assert_code(75);
    let run = out.stdout.trim().to_string();
    let out = with_store(&env, &full, &[], &["pending", "-q"]);
    out.assert_code(0);
    assert!(out.stdout.starts_with(&run), "{}", out.stdout);
    // SSL_CERT_FILE is the trust store when the URL names none.
    with_store(
        &env,
        &url("localhost", "sslmode=verify-full"),
        &[("SSL_CERT_FILE", &ca)],
        &["pending"],
    )
    .assert_code(0);
    // A CA that did not sign the server's certificate.
    for (query, extra) in [
        (format!("sslmode=verify-full&sslrootcert={other}"), vec![]),
        (
            "sslmode=verify-ca".to_string(),
            vec![("SSL_CERT_FILE", other.as_str())],
        ),
        // libpq: require checks the chain when a root certificate is given.
        (format!("sslmode=require&sslrootcert={other}"), vec![]),
    ] {
        let out = with_store(&env, &url("localhost", &query), &extra, &["pending"]);
        assert_eq!(out.code, 1, "{query}: {out:?}");
        assert_one_line_error(&out, "UnknownIssuer");
        assert!(
            out.stderr
                .contains("hint: the server's certificate is not signed by a CA trusted here"),
            "{}",
            out.stderr
        );
    }
    // The certificate is for localhost, not 127.0.0.1: verify-full refuses the name,
    // verify-ca checks the chain only.
    let out = with_store(
        &env,
        &url(
            "127.0.0.1",
            &format!("sslmode=verify-full&sslrootcert={ca}"),
        ),
        &[],
        &["pending"],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("hint: the server's certificate is not for the host named"),
        "{}",
        out.stderr
    );
    with_store(
        &env,
        &url("127.0.0.1", &format!("sslmode=verify-ca&sslrootcert={ca}")),
        &[],
        &["pending"],
    )
    .assert_code(0);
    // A root file that is not there is an error for the modes that verify.
    let out = with_store(
        &env,
        &url(
            "localhost",
            "sslmode=verify-ca&sslrootcert=/nonexistent/ca.crt",
        ),
        &[],
        &["pending"],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert_one_line_error(&out, "sslrootcert /nonexistent/ca.crt does not exist");
}

#[test]
fn sslmodes_mean_what_they_mean_in_libpq_against_a_tls_only_server() {
    let Some(tls) = tls_server() else { return };
    let env = Env::sqlite();
    let db = tls.database("mastra");
    let url = |mode: &str| format!("postgres://mastra@127.0.0.1:{}/{db}{mode}", tls.port);
    // No certificate is checked by these (and none was given): all connect, over TLS.
    for mode in ["", "?sslmode=prefer", "?sslmode=require", "?sslmode=allow"] {
        let out = with_store(&env, &url(mode), &[], &["pending"]);
        assert_eq!(out.code, 0, "{mode}: {out:?}");
    }
    // disable against hostssl-only: refused, and the hint says TLS.
    let out = with_store(&env, &url("?sslmode=disable"), &[], &["pending"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_one_line_error(&out, "no encryption");
    assert!(
        out.stderr.contains(
            "hint: the server takes this connection only over TLS (a hostssl line in pg_hba.conf)"
        ),
        "{}",
        out.stderr
    );
    let out = with_store(&env, &url("?sslmode=verify-everything"), &[], &["pending"]);
    assert_eq!(out.code, 2, "{out:?}");
}

#[test]
fn require_against_a_server_without_tls_names_tls() {
    let Some(admin) = server() else { return };
    // The shared test server has ssl off.
    let env = Env::new();
    let out = with_store(
        &env,
        &format!("{}?sslmode=require", env.store.url()),
        &[],
        &["pending"],
    );
    assert_eq!(out.code, 1, "{admin}: {out:?}");
    assert_shown!(env, out.stderr, @"
        error: connecting to the store at [STORE]?sslmode=require: error performing TLS handshake: server does not support TLS
        hint: the server does not accept TLS: turn ssl on in the server, or use sslmode=prefer (TLS when the server offers it) in the store URL
        ");
    assert_shown!(env, out.stderr, @"
        error: connecting to the store at [STORE]?sslmode=require: error performing TLS handshake: server does not support TLS
        hint: the server does not accept TLS: turn ssl on in the server, or use sslmode=prefer (TLS when the server offers it) in the store URL
        ");
}

#[test]
fn the_password_file_works_over_tls() {
    let Some(tls) = tls_server() else { return };
    let env = Env::sqlite();
    let db = tls.database("tls_pw");
    let pgpass = env.write(
        "home/.pgpass",
        &format!("localhost:{}:{db}:tls_pw:tls-password\n", tls.port),
    );
    std::fs::set_permissions(&pgpass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let url = format!(
        "postgres://tls_pw@localhost:{}/{db}?sslmode=verify-full&sslrootcert={}",
        tls.port,
        tls.cert("ca.crt")
    );
    with_store(&env, &url, &[], &["ask", "Password from the file?"]).assert_code(75);
    // Without it, the login fails and the hint is the usual one.
    std::fs::remove_file(&pgpass).unwrap();
    let out = with_store(&env, &url, &[], &["pending"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!out.stderr.contains("TLS"), "{}", out.stderr);
    // prefer tries again without TLS, as libpq does; a TLS-only server refuses that, and
    // what is reported is why the TLS try failed.
    let prefer = format!("postgres://tls_pw@127.0.0.1:{}/{db}", tls.port);
    let out = with_store(&env, &prefer, &[("PGPASSWORD", "not-it")], &["pending"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_one_line_error(&out, "password authentication failed for user \"tls_pw\"");
}
