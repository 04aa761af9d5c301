//! The store as the tests see it: a SQLite file by default, or a fresh PostgreSQL database
//! per test when `MASTRA_ASK_TEST_POSTGRES` names a server (`.ci/postgres.sh` starts one).
//! Queries are written once, for SQLite (`?1` parameters), and every value comes back as
//! text, so the same assertions hold for both backends.

use std::path::{Path, PathBuf};

use postgres::types::Type;

pub enum TestDb {
    Sqlite(PathBuf),
    Postgres { admin: String, name: String },
}

/// A row of text values (NULL is `None`).
pub type Row = Vec<Option<String>>;

fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let cut = base
        .rfind('/')
        .filter(|&i| i > "postgres://".len())
        .unwrap_or(base.len());
    let mut out = format!("{}/{name}", &base[..cut]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

fn pg_connect(url: &str) -> postgres::Client {
    let mut config: postgres::Config = url.parse().expect("a PostgreSQL URL");
    config.options("-c search_path=mastra_ask");
    config
        .connect(postgres::NoTls)
        .expect("connecting to the test PostgreSQL")
}

impl TestDb {
    pub fn new(dir: &Path) -> TestDb {
        match std::env::var("MASTRA_ASK_TEST_POSTGRES")
            .ok()
            .filter(|s| !s.is_empty())
        {
            None => TestDb::Sqlite(dir.join("store.db")),
            Some(admin) => {
                let name = format!("t_{}", uuid::Uuid::new_v4().simple());
                pg_connect(&admin)
                    .batch_execute(&format!("CREATE DATABASE {name}"))
                    .expect("creating a test database");
                TestDb::Postgres { admin, name }
            }
        }
    }

    /// The value of `MASTRA_ASK_DB` for this store.
    pub fn url(&self) -> String {
        match self {
            TestDb::Sqlite(path) => path.to_string_lossy().into_owned(),
            TestDb::Postgres { admin, name } => with_database(admin, name),
        }
    }

    /// The store as a printed command names it (`--db`): a PostgreSQL URL without its user,
    /// so that whoever pastes the command connects as themselves.
    pub fn pasted(&self) -> String {
        match self {
            TestDb::Sqlite(path) => path.to_string_lossy().into_owned(),
            TestDb::Postgres { admin, name } => {
                let (scheme, rest) = admin.split_once("://").expect("a URL");
                let rest = rest.split_once('@').map_or(rest, |(_, host)| host);
                with_database(&format!("{scheme}://{rest}"), name)
            }
        }
    }

    /// The PostgreSQL role the suite connects as (`None` on SQLite): every test's person,
    /// as their `PGUSER`, so that a pasted command (its URL names no user) connects as it.
    pub fn role(&self) -> Option<String> {
        match self {
            TestDb::Sqlite(_) => None,
            TestDb::Postgres { admin, .. } => {
                let config: postgres::Config = admin.parse().unwrap();
                Some(config.get_user().unwrap_or("postgres").to_string())
            }
        }
    }

    /// Whether a store was created.
    pub fn exists(&self) -> bool {
        match self {
            TestDb::Sqlite(path) => path.exists(),
            TestDb::Postgres { .. } => {
                let row = pg_connect(&self.url())
                    .query_one("SELECT to_regclass('mastra_ask.runs') IS NOT NULL", &[])
                    .unwrap();
                row.get(0)
            }
        }
    }

    /// The store's tables (but its schema bookkeeping).
    pub fn tables(&self) -> Vec<String> {
        let sql = match self {
            TestDb::Sqlite(_) => {
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            }
            TestDb::Postgres { .. } => {
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = 'mastra_ask' AND table_name <> 'schema_version' ORDER BY 1"
            }
        };
        self.rows(sql, &[])
            .into_iter()
            .filter_map(|r| r[0].clone())
            .collect()
    }

    pub fn rows(&self, sql: &str, params: &[&str]) -> Vec<Row> {
        match self {
            TestDb::Sqlite(path) => {
                let conn = rusqlite::Connection::open(path).unwrap();
                let mut stmt = conn.prepare(sql).unwrap();
                let n = stmt.column_count();
                let params = rusqlite::params_from_iter(params.iter());
                stmt.query_map(params, |r| {
                    Ok((0..n)
                        .map(|i| match r.get_ref(i).unwrap() {
                            rusqlite::types::ValueRef::Null => None,
                            rusqlite::types::ValueRef::Integer(v) => Some(v.to_string()),
                            rusqlite::types::ValueRef::Real(v) => Some(v.to_string()),
                            rusqlite::types::ValueRef::Text(t)
                            | rusqlite::types::ValueRef::Blob(t) => {
                                Some(String::from_utf8_lossy(t).into_owned())
                            }
                        })
                        .collect())
                })
                .unwrap()
                .map(Result::unwrap)
                .collect()
            }
            TestDb::Postgres { .. } => {
                let sql = pg_sql(sql);
                let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params
                    .iter()
                    .map(|p| p as &(dyn postgres::types::ToSql + Sync))
                    .collect();
                let rows = pg_connect(&self.url()).query(&sql, &params).unwrap();
                rows.iter()
                    .map(|r| {
                        r.columns()
                            .iter()
                            .enumerate()
                            .map(|(i, c)| match *c.type_() {
                                Type::INT8 => r.get::<_, Option<i64>>(i).map(|v| v.to_string()),
                                Type::INT4 => r.get::<_, Option<i32>>(i).map(|v| v.to_string()),
                                Type::BOOL => {
                                    r.get::<_, Option<bool>>(i).map(|v| (v as i32).to_string())
                                }
                                _ => r.get::<_, Option<String>>(i),
                            })
                            .collect()
                    })
                    .collect()
            }
        }
    }

    pub fn exec(&self, sql: &str, params: &[&str]) {
        match self {
            TestDb::Sqlite(path) => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.execute(sql, rusqlite::params_from_iter(params.iter()))
                    .unwrap();
            }
            TestDb::Postgres { .. } => {
                let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params
                    .iter()
                    .map(|p| p as &(dyn postgres::types::ToSql + Sync))
                    .collect();
                pg_connect(&self.url())
                    .execute(&pg_sql(sql), &params)
                    .unwrap();
            }
        }
    }
}

/// `?1` parameters as PostgreSQL writes them (`$1`).
fn pg_sql(sql: &str) -> String {
    sql.replace('?', "$")
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let TestDb::Postgres { admin, name } = self {
            if let Ok(mut c) = std::panic::catch_unwind(|| pg_connect(admin)) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}
