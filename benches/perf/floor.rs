//! The floor of a leg on SQLite: what starting a small process, opening the store and
//! committing as a leg must cost here, whatever the program does besides; the lifecycle's
//! legs are shown against it.
//!
//! The floor is `floor.c`, built here by the C compiler the product's build needs (`cc`, or
//! `$CC`) and linked with the SQLite of that build (the static library the `libsqlite3-sys`
//! build script left beside this bench), so it runs the same SQLite code on the same store
//! format, with no other code: the dynamic loader, the C library, SQLite. Without a C
//! compiler or that library the bench says so and goes on without these rows.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::lifecycle::Samples;
use crate::report::{cost, ms, quantile, timing, Table};
use crate::spawn::Runner;

const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/perf/floor.c");

/// Measures the floor of a `run` and of an `answer`, `n` times each with `/bin/true` beside
/// them, on a store of its own in `r`'s directory, and sets the lifecycle's legs (`legs`)
/// against it.
pub fn rows(table: &mut Table, r: &Runner, legs: &Samples, n: usize) -> Result<(), String> {
    let program = match build(&r.cwd) {
        Ok(p) => p,
        Err(why) => {
            crate::progress(&format!("skipping the floor of a leg: {why}"));
            return Ok(());
        }
    };
    let db = r.cwd.join("leg-floor.db");
    let db_arg = db.to_str().ok_or("the bench's directory is not UTF-8")?;
    // A store the product made, holding one run, and a table for the floor to write.
    let mut start = vec!["--db", db_arg];
    start.extend(crate::lifecycle::RUN);
    r.output(&start, 75)?;
    let conn = rusqlite::Connection::open(&db).map_err(|e| e.to_string())?;
    conn.execute_batch("CREATE TABLE leg_floor (at INTEGER NOT NULL)")
        .map_err(|e| e.to_string())?;
    drop(conn);
    let (mut run, mut answer, mut any) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        run.push(r.measure_program(&program, &[db_arg, "run"], 0)?);
        answer.push(r.measure_program(&program, &[db_arg, "answer"], 0)?);
        any.push(r.floor()?);
    }
    table.row(
        "the floor of a `run`: a C program linked with the same SQLite that opens the \
         store and commits as a `run` does (once handed to the OS, once durably; floor.c)",
        "",
        format!(
            "{}; {}; `/bin/true` beside it {}",
            timing(&run),
            cost(&run),
            ms(quantile(&any, 0.5)),
        ),
        None,
    );
    table.row(
        "the floor of an `answer`: the same, committing durably twice",
        "",
        format!("{}; {}", timing(&answer), cost(&answer)),
        None,
    );
    for (name, leg, floor) in [("run", &legs.run, &run), ("answer", &legs.answer, &answer)] {
        let (l, f) = (quantile(leg, 0.5), quantile(floor, 0.5));
        table.row(
            &format!("`{name}` against its floor, medians"),
            "≤ 2.5×",
            format!("{:.2}× ({} above it)", ratio(l, f), ms(l.saturating_sub(f))),
            Some(ratio(l, f) <= 2.5),
        );
    }
    Ok(())
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

/// Builds `floor.c` into `dir`: the program's path, or why it cannot be built here.
fn build(dir: &Path) -> Result<PathBuf, String> {
    let library = sqlite_library()?;
    let out = dir.join("leg-floor");
    let cc = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
    let built = Command::new(&cc)
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(SOURCE)
        .arg(&library)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cc.to_string_lossy()))?;
    if !built.status.success() {
        return Err(format!(
            "{} failed: {}",
            cc.to_string_lossy(),
            String::from_utf8_lossy(&built.stderr).trim()
        ));
    }
    Ok(out)
}

/// The static SQLite library of this build: `libsqlite3.a` in the newest
/// `build/libsqlite3-sys-*/out/` of this bench's profile directory.
fn sqlite_library() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    // target/<profile>/deps/perf-HASH
    let build = me
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("build"))
        .ok_or("the bench is not in a cargo target directory")?;
    let entries = std::fs::read_dir(&build).map_err(|e| format!("{}: {e}", build.display()))?;
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("libsqlite3-sys-")
        })
        .map(|e| e.path().join("out/libsqlite3.a"))
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .ok_or_else(|| {
            format!(
                "no libsqlite3-sys-*/out/libsqlite3.a in {}",
                build.display()
            )
        })
}
