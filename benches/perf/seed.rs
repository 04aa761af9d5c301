//! Building a big store fast and honestly: every seeded run is a row-for-row copy of a
//! real run that the binary made (completed runs of the example agent, and runs waiting
//! at each of its four items), with a new time-ordered id and its times shifted into the
//! past. Copies follow whatever tables the store has: any table with a `run_id` column
//! (the run's id) or a `run` column (the run's integer key) is copied along.

use std::path::Path;

use rusqlite::{params, Connection};

/// Columns holding a time (Unix ms), shifted with the copy.
pub const TIME_COLUMNS: [&str; 7] = [
    "created_at",
    "updated_at",
    "at",
    "resolved_at",
    "expires_at",
    "heartbeat_at",
    "lease_expires_at",
];

/// One run to add: a copy of `template`, created `age_ms` before the template was.
struct Copy {
    id: String,
    template: String,
    shift: i64,
}

/// Adds runs to the store at `db` until it holds `total` runs, `pending` of them waiting
/// for a person. Finished copies are spread evenly over the last 90 days, and one in
/// `total / pending` of them is a waiting one.
pub fn seed(db: &Path, total: usize, pending: usize) -> Result<(), String> {
    let conn = Connection::open(db).map_err(|e| e.to_string())?;
    inner(&conn, total, pending).map_err(|e| format!("seeding the store: {e}"))
}

fn ids(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<(String, i64)>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

fn inner(conn: &Connection, total: usize, pending: usize) -> rusqlite::Result<()> {
    let finished = ids(
        conn,
        "SELECT id, created_at FROM runs WHERE status = 'completed' ORDER BY id",
    )?;
    let waiting = ids(
        conn,
        "SELECT id, created_at FROM runs WHERE status = 'suspended' ORDER BY id",
    )?;
    let have: usize = conn.query_row("SELECT count(*) FROM runs", [], |r| {
        r.get::<_, i64>(0).map(|n| n as usize)
    })?;
    let copies = total.saturating_sub(have);
    let waiting_copies = pending.saturating_sub(waiting.len()).min(copies);
    if finished.is_empty() || waiting.is_empty() || copies == 0 {
        return Ok(());
    }
    let now = finished.iter().map(|(_, t)| *t).min().unwrap_or(0);
    let span: i64 = 90 * 24 * 3600 * 1000;
    let every = (copies / waiting_copies.max(1)).max(1);
    let mut plan = Vec::with_capacity(copies);
    let mut w = 0;
    for i in 0..copies {
        let created = now - span + span * i as i64 / copies as i64;
        let (template, t0) = if i % every == every - 1 && w < waiting_copies {
            w += 1;
            &waiting[w % waiting.len()]
        } else {
            &finished[i % finished.len()]
        };
        let secs = created.div_euclid(1000) as u64;
        let nanos = (created.rem_euclid(1000) * 1_000_000) as u32;
        let ts = uuid::Timestamp::from_unix(uuid::NoContext, secs, nanos);
        plan.push(Copy {
            id: uuid::Uuid::new_v7(ts).to_string(),
            template: template.clone(),
            shift: created - t0,
        });
    }

    conn.execute_batch(
        "PRAGMA journal_mode = DELETE; PRAGMA synchronous = OFF; PRAGMA cache_size = -200000;",
    )?;
    conn.execute_batch("BEGIN")?;
    conn.execute_batch(
        "CREATE TEMP TABLE seed_map (new_id TEXT PRIMARY KEY, tmpl_id TEXT NOT NULL, \
         shift INTEGER NOT NULL, new_key INTEGER, tmpl_key INTEGER)",
    )?;
    {
        let mut stmt =
            conn.prepare("INSERT INTO seed_map (new_id, tmpl_id, shift) VALUES (?1, ?2, ?3)")?;
        for c in &plan {
            stmt.execute(params![c.id, c.template, c.shift])?;
        }
    }
    copy_runs(conn)?;
    for table in child_tables(conn)? {
        copy_children(conn, &table)?;
    }
    conn.execute_batch("DROP TABLE seed_map; COMMIT; PRAGMA journal_mode = WAL;")?;
    Ok(())
}

fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?;
    let rows = stmt.query_map([], |r| r.get(0))?;
    rows.collect()
}

fn shifted(col: &str) -> String {
    if TIME_COLUMNS.contains(&col) {
        format!("t.{col} + m.shift")
    } else {
        format!("t.{col}")
    }
}

fn copy_runs(conn: &Connection) -> rusqlite::Result<()> {
    let cols: Vec<String> = columns(conn, "runs")?
        .into_iter()
        .filter(|c| c != "key")
        .collect();
    let exprs: Vec<String> = cols
        .iter()
        .map(|c| match c.as_str() {
            "id" => "m.new_id".to_string(),
            other => shifted(other),
        })
        .collect();
    conn.execute(
        &format!(
            "INSERT INTO runs ({}) SELECT {} FROM seed_map m JOIN runs t ON t.id = m.tmpl_id \
             ORDER BY m.new_id",
            cols.join(", "),
            exprs.join(", ")
        ),
        [],
    )?;
    if columns(conn, "runs")?.iter().any(|c| c == "key") {
        conn.execute_batch(
            "UPDATE seed_map SET new_key = (SELECT key FROM runs WHERE id = new_id), \
             tmpl_key = (SELECT key FROM runs WHERE id = tmpl_id)",
        )?;
    }
    Ok(())
}

/// Tables whose rows belong to a run.
fn child_tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         AND name <> 'runs' ORDER BY name",
    )?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for n in names {
        let cols = columns(conn, &n)?;
        if cols.iter().any(|c| c == "run_id" || c == "run") {
            out.push(n);
        }
    }
    Ok(out)
}

fn copy_children(conn: &Connection, table: &str) -> rusqlite::Result<()> {
    let cols = columns(conn, table)?;
    let by_key = cols.iter().any(|c| c == "run");
    let exprs: Vec<String> = cols
        .iter()
        .map(|c| match c.as_str() {
            "run_id" => "m.new_id".to_string(),
            "run" => "m.new_key".to_string(),
            other => shifted(other),
        })
        .collect();
    let join = if by_key {
        "t.run = m.tmpl_key"
    } else {
        "t.run_id = m.tmpl_id"
    };
    conn.execute(
        &format!(
            "INSERT INTO {table} ({}) SELECT {} FROM seed_map m JOIN {table} t ON {join} \
             ORDER BY m.new_id",
            cols.join(", "),
            exprs.join(", ")
        ),
        [],
    )?;
    Ok(())
}
