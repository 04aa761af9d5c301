//! The PostgreSQL mode (`-- --postgres URL`): the same figures with every store a fresh
//! database on that server, created by the bench and dropped after it (unless `--keep`).
//!
//! Sizes are the sum of `pg_total_relation_size` (heap, indexes, TOAST, free space and
//! visibility maps) over the tables of the store's schema, after a `VACUUM` such as
//! autovacuum would run; `VACUUM FULL` gives the size of the live rows alone, packed.
//!
//! Seeding copies real runs as `seed.rs` does for SQLite, in SQL: one row per new run
//! from `generate_series` (a time-ordered UUIDv7-like id, a template run, a time shift),
//! then the template's rows of every table with a `run_id` column, with the new id.

use postgres::{Client, NoTls};

use crate::seed::TIME_COLUMNS;

/// The store's schema (src/store/postgres.rs).
const SCHEMA: &str = "mastra_ask";

/// A server the bench may create databases on, and the databases it created.
pub struct Server {
    /// The URL given, naming a database to connect to for `CREATE DATABASE`.
    admin: String,
    created: Vec<String>,
    keep: bool,
}

/// How much space to reclaim before measuring a store.
#[derive(Clone, Copy)]
pub enum Vacuum {
    /// Dead rows made reusable (what autovacuum does); files hardly shrink.
    Plain,
    /// Every table and index rewritten: the live rows alone.
    Full,
}

fn connect(url: &str) -> Result<Client, String> {
    let config: postgres::Config = url
        .parse()
        .map_err(|e| format!("{} is not a PostgreSQL URL: {e}", redact(url)))?;
    config
        .connect(NoTls)
        .map_err(|e| format!("connecting to {}: {}", redact(url), text(&e)))
}

/// The error with its causes (the server's message, the refused connection).
fn text(e: &postgres::Error) -> String {
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        out.push_str(&format!(": {c}"));
        cause = c.source();
    }
    out
}

fn sql(what: &str) -> impl Fn(postgres::Error) -> String + '_ {
    move |e| format!("{what}: {}", text(&e))
}

/// `url` without its password.
pub fn redact(url: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, ""), |(b, _)| (b, "?…"));
    match base.split_once("://").zip(base.rsplit_once('@')) {
        Some(((scheme, rest), (_, host))) => {
            let user = rest.split([':', '@']).next().unwrap_or_default();
            format!("{scheme}://{user}@{host}{query}")
        }
        None => format!("{base}{query}"),
    }
}

/// `url` naming the database `name` instead of its own.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let authority = base.find("://").map_or(0, |i| i + 3);
    let cut = base[authority..]
        .find('/')
        .map_or(base.len(), |i| authority + i);
    let mut out = format!("{}/{name}", &base[..cut]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

impl Server {
    /// Checks that `url` reaches a server on which this role may create databases.
    pub fn new(url: &str, keep: bool) -> Result<Server, String> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(format!(
                "--postgres needs a postgres:// URL, not {}",
                redact(url)
            ));
        }
        let mut c = connect(url)?;
        let row = c
            .query_one(
                "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user",
                &[],
            )
            .map_err(sql("reading the role"))?;
        if !row.try_get::<_, bool>(0).unwrap_or(false) {
            return Err(format!(
                "the role of {} may not create databases (CREATEDB)",
                redact(url)
            ));
        }
        Ok(Server {
            admin: url.to_string(),
            created: Vec::new(),
            keep,
        })
    }

    /// Creates an empty database for one store and returns its URL.
    pub fn create(&mut self, label: &str) -> Result<String, String> {
        let name = format!(
            "mastra_ask_bench_{}_{}",
            std::process::id(),
            label.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        // The store's session settings on the database too, as docs/teams-postgresql.md
        // says for a pooler (which drops the connection's own): the bench then runs through
        // one unchanged.
        let mut admin = connect(&self.admin)?;
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .map_err(sql(&format!("creating the database {name}")))?;
        admin
            .batch_execute(&format!(
                "ALTER DATABASE {name} SET search_path = {SCHEMA}; \
                 ALTER DATABASE {name} SET statement_timeout = '60s'; \
                 ALTER DATABASE {name} SET lock_timeout = '10s'"
            ))
            .map_err(sql(&format!("setting up the database {name}")))?;
        self.created.push(name.clone());
        Ok(with_database(&self.admin, &name))
    }

    /// The server's version and the settings that decide what a commit costs.
    pub fn describe(&self) -> Vec<String> {
        let Ok(mut c) = connect(&self.admin) else {
            return Vec::new();
        };
        let show = |c: &mut Client, what: &str| {
            c.query_one(&format!("SHOW {what}"), &[])
                .ok()
                .and_then(|r| r.try_get::<_, String>(0).ok())
                .unwrap_or_else(|| "?".into())
        };
        let settings = [
            "fsync",
            "synchronous_commit",
            "wal_sync_method",
            "full_page_writes",
            "shared_buffers",
        ]
        .map(|s| format!("{s}={}", show(&mut c, s)))
        .join(", ");
        vec![
            format!(
                "PostgreSQL: {} at {}",
                show(&mut c, "server_version"),
                redact(&self.admin)
            ),
            format!("server settings: {settings}"),
            format!("server data directory: {}", show(&mut c, "data_directory")),
        ]
    }

    /// The databases created, as URLs without the password.
    pub fn kept(&self) -> Vec<String> {
        self.created
            .iter()
            .map(|n| redact(&with_database(&self.admin, n)))
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.keep || self.created.is_empty() {
            return;
        }
        let mut c = match connect(&self.admin) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("bench: could not drop {}: {e}", self.created.join(", "));
                return;
            }
        };
        // `FORCE` (PostgreSQL 13 and later): a pooler in front keeps server sessions on them.
        for name in &self.created {
            if let Err(e) = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            {
                eprintln!("bench: dropping {name}: {}", text(&e));
            }
        }
    }
}

/// The store's size in bytes: its tables with their indexes, TOAST and maps, after
/// `vacuum`.
pub fn size(url: &str, vacuum: Vacuum) -> Result<u64, String> {
    let mut c = connect(url)?;
    let command = match vacuum {
        Vacuum::Plain => "VACUUM",
        Vacuum::Full => "VACUUM FULL",
    };
    c.batch_execute(command).map_err(sql(command))?;
    let row = c
        .query_one(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relkind = 'r'",
            &[&SCHEMA],
        )
        .map_err(sql("measuring the store"))?;
    let bytes: i64 = row.try_get(0).map_err(sql("measuring the store"))?;
    Ok(bytes.max(0) as u64)
}

/// Adds runs to the store at `url` until it holds `total` runs, `pending` of them waiting,
/// as `seed::seed` does for SQLite; then `VACUUM ANALYZE`, as autovacuum would after it.
pub fn seed(url: &str, total: usize, pending: usize) -> Result<(), String> {
    let mut c = connect(url)?;
    inner(&mut c, total as i64, pending as i64).map_err(sql("seeding the store"))?;
    c.batch_execute("VACUUM ANALYZE")
        .map_err(sql("VACUUM ANALYZE"))
}

/// The number a query of one row and one column (`count(*)`) gives.
pub fn count(url: &str, query: &str) -> Result<i64, String> {
    connect(url)?
        .query_one(query, &[])
        .and_then(|row| row.try_get(0))
        .map_err(sql("counting"))
}

fn ids(c: &mut Client, status: &str) -> Result<(Vec<String>, Option<i64>), postgres::Error> {
    let row = c.query_one(
        "SELECT coalesce(array_agg(id ORDER BY id), '{}'), min(created_at) \
         FROM mastra_ask.runs WHERE status = $1",
        &[&status],
    )?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

fn inner(c: &mut Client, total: i64, pending: i64) -> Result<(), postgres::Error> {
    let (finished, first) = ids(c, "completed")?;
    let (waiting, _) = ids(c, "suspended")?;
    let have: i64 = c
        .query_one("SELECT count(*) FROM mastra_ask.runs", &[])?
        .try_get(0)?;
    let copies = (total - have).max(0);
    let waiting_copies = (pending - waiting.len() as i64).max(0).min(copies);
    let Some(now) = first else { return Ok(()) };
    if waiting.is_empty() || copies == 0 {
        return Ok(());
    }
    let span: i64 = 90 * 24 * 3600 * 1000;
    let every = (copies / waiting_copies.max(1)).max(1);

    let mut tx = c.transaction()?;
    tx.batch_execute(
        "SET LOCAL search_path = mastra_ask; \
         CREATE TEMP TABLE seed_map (new_id TEXT COLLATE \"C\" PRIMARY KEY, \
         tmpl_id TEXT COLLATE \"C\" NOT NULL, shift BIGINT NOT NULL) ON COMMIT DROP",
    )?;
    // Copy i is created at $1 + $2 * i / $3 (spread over the 90 days before the first
    // real run); one in $4 is a copy of a waiting run, up to $5 of them, the others of
    // finished runs. Its id is a UUIDv7: the creation time in ms, 7, random bits.
    tx.execute(
        "INSERT INTO seed_map (new_id, tmpl_id, shift) \
         SELECT (lpad(to_hex(s.created), 12, '0') || '7' || substr(s.r, 1, 3) \
                 || substr('89ab', 1 + (s.i % 4)::int, 1) || substr(s.r, 4, 15))::uuid::text, \
                s.tmpl, s.created - t.created_at \
         FROM (SELECT g.i, $1::bigint + $2::bigint * g.i / $3::bigint AS created, \
                 md5(g.i::text || random()::text) AS r, \
                 CASE WHEN g.i % $4::bigint = $4::bigint - 1 \
                       AND (g.i + 1) / $4::bigint <= $5::bigint \
                      THEN ($6::text[])[((g.i + 1) / $4::bigint) % cardinality($6::text[]) + 1] \
                      ELSE ($7::text[])[g.i % cardinality($7::text[]) + 1] END AS tmpl \
               FROM generate_series(0::bigint, $3::bigint - 1) AS g(i)) s \
         JOIN runs t ON t.id = s.tmpl",
        &[
            &(now - span),
            &span,
            &copies,
            &every,
            &waiting_copies,
            &waiting,
            &finished,
        ],
    )?;
    let tables: Vec<String> = tx
        .query(
            "SELECT table_name::text FROM information_schema.columns \
             WHERE table_schema = $1 AND column_name = 'run_id' ORDER BY 1",
            &[&SCHEMA],
        )?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    copy(&mut tx, "runs", "id")?;
    for t in &tables {
        copy(&mut tx, t, "run_id")?;
    }
    tx.commit()
}

/// Copies the templates' rows of `table` for every new run; `key` holds the run's id.
fn copy(tx: &mut postgres::Transaction, table: &str, key: &str) -> Result<(), postgres::Error> {
    let cols: Vec<String> = tx
        .query(
            "SELECT column_name::text FROM information_schema.columns \
             WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
            &[&SCHEMA, &table],
        )?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    let exprs: Vec<String> = cols
        .iter()
        .map(|c| {
            if c == key {
                "m.new_id".to_string()
            } else if TIME_COLUMNS.contains(&c.as_str()) {
                format!("t.\"{c}\" + m.shift")
            } else {
                format!("t.\"{c}\"")
            }
        })
        .collect();
    let names: Vec<String> = cols.iter().map(|c| format!("\"{c}\"")).collect();
    tx.batch_execute(&format!(
        "INSERT INTO \"{table}\" ({}) SELECT {} FROM seed_map m \
         JOIN \"{table}\" t ON t.\"{key}\" = m.tmpl_id ORDER BY m.new_id",
        names.join(", "),
        exprs.join(", ")
    ))
}

/// Counters of the server, read over one connection kept open (so that reading them starts
/// no backend of its own).
pub struct Counters {
    client: Client,
    /// The postmaster, when the server runs on this machine: its reaped children's CPU time
    /// is what the server spent on connections that ended.
    postmaster: Option<u32>,
}

impl Counters {
    pub fn open(url: &str) -> Result<Counters, String> {
        let mut client = connect(url)?;
        let backend: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .and_then(|r| r.try_get(0))
            .map_err(sql("reading the backend's pid"))?;
        // Field 4 of /proc/PID/stat is the parent: the postmaster forked this backend. A
        // server elsewhere, or another pid namespace, gives none.
        let postmaster = stat_fields(backend as u32)
            .and_then(|f| f.get(1)?.parse().ok())
            .filter(|&pid: &u32| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|c| c.trim() == "postgres")
            });
        Ok(Counters { client, postmaster })
    }

    /// The server's WAL flushes so far (`pg_stat_wal.wal_sync`, all its processes).
    pub fn wal_syncs(&mut self) -> Result<i64, String> {
        self.client
            .query_one("SELECT wal_sync FROM pg_stat_wal", &[])
            .and_then(|r| r.try_get(0))
            .map_err(sql("reading pg_stat_wal"))
    }

    /// The CPU time (user and system) of the postmaster's ended children so far: every
    /// backend of a closed connection, and the server's other reaped workers.
    pub fn children_cpu(&self) -> Option<std::time::Duration> {
        let f = stat_fields(self.postmaster?)?;
        // cutime and cstime: fields 16 and 17 of the file, 14 and 15 after the name.
        let ticks: u64 = f.get(13)?.parse::<u64>().ok()? + f.get(14)?.parse::<u64>().ok()?;
        // SAFETY: sysconf reads a constant of the system.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        Some(std::time::Duration::from_micros(ticks * 1_000_000 / hz))
    }
}

/// The fields of `/proc/PID/stat` after the process's name (state, ppid, ...).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// Opens and closes `n` connections, each asking `SELECT 1`: what a new connection costs
/// the server.
pub fn connections(url: &str, n: usize) -> Result<(), String> {
    for _ in 0..n {
        connect(url)?
            .simple_query("SELECT 1")
            .map_err(sql("SELECT 1"))?;
    }
    Ok(())
}
