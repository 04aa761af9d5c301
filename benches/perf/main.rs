//! The performance benchmark of SPEC §10, on the real release binary with the scripted
//! model: `cargo bench --bench perf` (add `-- --quick` for a smaller store).
//!
//! It measures, in order:
//! 1. runs of the example release agent (three questions and a plan) taken to completion
//!    in batches: `run` to the first suspension, `answer` to the next one, `review` to the
//!    end, wall time and peak RSS of each whole process; and the store's growth per run;
//!    on SQLite, beside them, the floor of a leg (floor.rs runs floor.c, a small C program
//!    that opens the store and commits as a leg must); and `run` of the README's example
//!    agent, whose command tools' schemas are checked;
//! 2. the same growth with a 4 KiB plan (how the size scales with the plan);
//! 3. a store seeded to 100,000 runs, 1,000 of them waiting: `pending`, `runs`, `show`;
//! 4. 8 processes at a time answering those 1,000 items;
//! 5. with node and the Mastra server fixture installed, `pending` and `answer` with
//!    `--server` against it, beside curl making the same requests (`-- --server-only`
//!    measures only these);
//! 6. `serve` (serve.rs; SQLite only): answers through its API driven by `--drive`, the
//!    inbox of a big store, 64 clients answering at once, 500 event streams held
//!    (`-- --serve-only` measures only these);
//! 7. reach (reach.rs): a new item to its notification, a tap to its decision, a decision to
//!    its waiter going on; on PostgreSQL two serves answering through both (`-- --reach-only`
//!    measures only these, on SQLite and, with `--postgres`, on PostgreSQL too).
//!
//! It prints a Markdown table and the machine it ran on. Nothing here is asserted by
//! tests: speed is measured, never tested.
//!
//! The stores are SQLite files; with `-- --postgres URL` they are fresh databases on that
//! PostgreSQL server instead (pg.rs), and every figure is measured the same way.

mod concurrent;
mod floor;
mod lifecycle;
mod pg;
mod phases;
mod reach;
mod report;
mod seed;
mod serve;
mod server;
mod spawn;
mod timeline;
mod wire;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lifecycle::{lifecycles, partial, pending, prepare, store_size, Samples};
use pg::Vacuum;
use report::{cost, mib, ms, peak_rss_kib, quantile, timing, Table};
use spawn::{Runner, Sample};

struct Options {
    /// Runs taken through their whole life for the timings and the growth.
    runs: usize,
    /// Runs open at once while they are answered.
    batch: usize,
    /// Runs in the big store, and how many of them wait.
    store_runs: usize,
    store_pending: usize,
    /// Processes answering at once.
    workers: usize,
    /// Where the stores go (a temporary directory inside it).
    dir: PathBuf,
    /// The binary measured: this build's release binary unless `--bin` names another
    /// (to compare builds on the same machine at the same time).
    bin: PathBuf,
    /// A PostgreSQL server to measure instead of SQLite: the URL of a database there,
    /// as a role that may create databases.
    postgres: Option<String>,
    keep: bool,
    /// Only the `--server` figures (against the Mastra server fixture).
    server_only: bool,
    /// Only `serve`'s figures.
    serve_only: bool,
    /// Only the phases of a leg (with `--postgres`: the wire's phases too).
    phases_only: bool,
    /// Only the reach figures (SQLite, and PostgreSQL with `--postgres`).
    reach_only: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        runs: 200,
        batch: 20,
        store_runs: 100_000,
        store_pending: 1_000,
        workers: 8,
        dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        bin: PathBuf::from(env!("CARGO_BIN_EXE_mastra-ask")),
        postgres: None,
        keep: false,
        server_only: false,
        serve_only: false,
        phases_only: false,
        reach_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bench" => {}
            "--quick" => {
                o.runs = 60;
                o.store_runs = 10_000;
            }
            "--keep" => o.keep = true,
            "--server-only" => o.server_only = true,
            "--serve-only" => o.serve_only = true,
            "--phases-only" => o.phases_only = true,
            "--reach-only" => o.reach_only = true,
            "--dir" => o.dir = PathBuf::from(args.next().ok_or("--dir needs a directory")?),
            "--bin" => o.bin = PathBuf::from(args.next().ok_or("--bin needs a path")?),
            "--postgres" => {
                o.postgres = Some(
                    args.next()
                        .ok_or("--postgres needs a URL (postgres://USER@HOST:PORT/DB)")?,
                )
            }
            "--store-runs" => {
                o.store_runs = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--store-runs needs a number")?
            }
            other => {
                return Err(format!(
                    "unknown option {other}; try --quick, --dir DIR, --store-runs N, --bin PATH, \
                     --postgres URL, --keep, --server-only, --serve-only, --phases-only, --reach-only"
                ))
            }
        }
    }
    Ok(o)
}

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "--spawn") {
        spawn::helper(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "--resume-mastra") {
        server::helper(&args[1..]);
    }
    if let Err(e) = bench() {
        eprintln!("bench: {e}");
        std::process::exit(1);
    }
}

fn progress(what: &str) {
    eprintln!("bench: {what}");
}

fn bench() -> Result<(), String> {
    let o = options()?;
    let bin = o.bin.clone();
    std::fs::create_dir_all(&o.dir).map_err(|e| e.to_string())?;
    let tmp = tempfile::Builder::new()
        .prefix("mastra-ask-bench-")
        .tempdir_in(&o.dir)
        .map_err(|e| e.to_string())?;
    let root = if o.keep {
        tmp.keep()
    } else {
        tmp.path().to_path_buf()
    };
    let mut backend = match &o.postgres {
        None => Backend::Sqlite,
        Some(url) => Backend::Postgres(pg::Server::new(url, o.keep)?),
    };
    let load_before = report::load_average();
    let mut table = Table::new();
    if o.server_only {
        server_rows(&mut backend, &bin, &root, &mut table)?;
        table.print();
        return Ok(());
    }
    if o.phases_only {
        let a = backend.runner(&bin, &root, "phases")?;
        prepare(&a, None)?;
        lifecycles(&a, 2, 2)?; // creates the store
        phase_rows(&mut table, &mut backend, &bin, &root, &a)?;
        table.print();
        return Ok(());
    }
    if o.serve_only {
        serve::measure(&mut table, &bin, &root, &serve_load(&o))?;
        table.print();
        return Ok(());
    }
    if o.reach_only {
        reach::measure(&mut table, &mut Backend::Sqlite, &bin, &root, &reach_load())?;
        if let Backend::Postgres(_) = backend {
            reach::measure(&mut table, &mut backend, &bin, &root, &reach_load())?;
        }
        table.print();
        println!();
        println!(
            "- load average (1, 5, 15 min) before: {load_before}; after: {}",
            report::load_average()
        );
        return Ok(());
    }

    // 1. Lifecycles of the example agent.
    progress(&format!(
        "{} runs of the example agent, {} at a time",
        o.runs, o.batch
    ));
    let a = backend.runner(&bin, &root, "lifecycles")?;
    prepare(&a, None)?;
    lifecycles(&a, 10, 10)?; // warm-up; creates the store
    let (s, growth) = growing(&backend, &a, o.runs, o.batch)?;
    lifecycle_rows(&mut table, &s, &growth);
    if let Backend::Sqlite = backend {
        floor::rows(&mut table, &a, &s, 50)?;
    }
    mastra_rows(&mut backend, &bin, &root, &mut table, &s.answer)?;
    // The binary's own start-up, beside what any process costs here.
    let version = repeat(&a, &["--version"], 50)?;
    table.row(
        "for scale: `mastra-ask --version` (start-up and argument parsing, no store)",
        "",
        format!("{}; {}", timing(&version), cost(&version)),
        None,
    );
    example_rows(&mut table, &mut backend, &bin, &root)?;
    phase_rows(&mut table, &mut backend, &bin, &root, &a)?;

    // 2. The growth with a bigger plan.
    progress("the growth with a 4 KiB plan");
    let b = backend.runner(&bin, &root, "big-plan")?;
    prepare(&b, Some(4096))?;
    lifecycles(&b, 10, 10)?;
    let (_, big) = growing(&backend, &b, (o.runs / 4).max(10), o.batch)?;
    table.row(
        "store growth per run, with a 4 KiB plan instead",
        "",
        big.to_string(),
        None,
    );

    // 3. A big store.
    progress(&format!(
        "seeding a store of {} runs, {} waiting",
        o.store_runs, o.store_pending
    ));
    for stage in 0..4 {
        partial(&a, stage)?;
    }
    let start = std::time::Instant::now();
    backend.seed(&a, o.store_runs, o.store_pending)?;
    progress(&format!("seeded in {:.1} s", start.elapsed().as_secs_f64()));
    let size = backend.size(&a, Vacuum::Plain)?;
    let items = pending(&a)?;
    let label = format!(
        "{} runs, {} pending",
        thousands(o.store_runs),
        thousands(items.len())
    );
    let (p, floor) = beside_floor(&a, &["pending"], 20)?;
    table.row(
        &format!("`pending` ({label})"),
        "< 50 ms",
        format!(
            "{}; {}; peak RSS {}; `/bin/true` beside it {} median",
            timing(&p),
            cost(&p),
            mib(peak_rss_kib(&p)),
            ms(quantile(&floor, 0.5))
        ),
        Some(quantile(&p, 0.5).as_millis() < 50),
    );
    let pj = repeat(&a, &["pending", "-o", "json"], 20)?;
    table.row(
        &format!("`pending -o json` ({label})"),
        "",
        timing(&pj),
        None,
    );
    let r = repeat(&a, &["runs"], 20)?;
    table.row(&format!("`runs` ({label})"), "", timing(&r), None);
    let show = items.first().map(|i| i.run.clone()).unwrap_or_default();
    let sh = repeat(&a, &["show", &show], 20)?;
    table.row(&format!("`show RUN` ({label})"), "", timing(&sh), None);
    table.row(
        "store size",
        "",
        format!(
            "{:.0} MiB ({} bytes per run)",
            size as f64 / 1048576.0,
            size / o.store_runs.max(1) as u64
        ),
        None,
    );

    // 4. Many answering processes at once.
    progress(&format!(
        "{} processes answering {} items",
        o.workers,
        items.len()
    ));
    let out = concurrent::answer_all(&a, items, o.workers);
    for e in out.other_errors.iter().take(5) {
        eprintln!("bench: answer failed: {e}");
    }
    table.row(
        &format!(
            "{} processes answering {} different items at once ({label})",
            o.workers,
            thousands(out.items)
        ),
        "all succeed, no lock errors",
        format!(
            "{}/{} succeeded, {} lock errors, {:.2} s in all ({:.1} ms per answer)",
            out.succeeded,
            out.items,
            out.lock_errors,
            out.elapsed.as_secs_f64(),
            out.elapsed.as_secs_f64() * 1000.0 / out.items.max(1) as f64
        ),
        Some(out.succeeded == out.items && out.lock_errors == 0),
    );

    // An older build (`--bin`) may have no `--server`: its rows are this build's only.
    if o.bin == Path::new(env!("CARGO_BIN_EXE_mastra-ask")) {
        server_rows(&mut backend, &bin, &root, &mut table)?;
        match backend {
            Backend::Sqlite => serve::measure(&mut table, &bin, &root, &serve_load(&o))?,
            Backend::Postgres(_) => progress("skipping serve's figures: SQLite only"),
        }
        reach::measure(&mut table, &mut backend, &bin, &root, &reach_load())?;
    } else {
        progress("skipping the --server and serve figures for another build (--bin)");
    }

    println!();
    println!("Store: {}", backend.name());
    println!();
    table.print();
    println!();
    println!("Machine:");
    for line in report::machine(&root) {
        println!("- {line}");
    }
    if let Backend::Postgres(server) = &backend {
        for line in server.describe() {
            println!("- {line}");
        }
    }
    println!(
        "- load average (1, 5, 15 min) before: {load_before}; after: {}",
        report::load_average()
    );
    if let Some(f) = report::fsync_latency(&root) {
        println!(
            "- one 4 KiB write + fdatasync on that disk: {} median",
            ms(f)
        );
    }
    println!("- binary: {} ({:.1} MiB)", bin.display(), file_mib(&bin));
    if o.keep {
        println!("- stores kept in {}", root.display());
        if let Backend::Postgres(server) = &backend {
            println!("- databases kept: {}", server.kept().join(", "));
        }
    }
    Ok(())
}

/// What serve's figures ask of it (SPEC §10).
fn serve_load(o: &Options) -> serve::Load {
    serve::Load {
        answers: 30,
        store_runs: o.store_runs,
        store_pending: o.store_pending,
        clients: 64,
        streams: 500,
    }
}

/// What the reach figures ask (SPEC §10, §17).
fn reach_load() -> reach::Load {
    reach::Load {
        items: 150,
        waiters: 30,
        items_two_serves: 1_000,
        clients: 64,
    }
}

/// The `--server` figures against the Mastra server fixture, beside curl (skipped, saying
/// why, where the fixture cannot run).
fn server_rows(
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    table: &mut Table,
) -> Result<(), String> {
    if let Some(why) = server::unavailable() {
        progress(&format!("skipping the --server figures: {why}"));
        return Ok(());
    }
    progress("`pending` and `answer` against the Mastra server fixture, and curl");
    let r = backend.runner(bin, root, "server")?;
    let data = root.join("server-data");
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    server::measure(table, &r, &data, 30)
}

/// Mastra's own cost per process (a cold server that boots and resumes one suspended run),
/// beside this build's `answer`, and the ratio of their medians.
fn mastra_rows(
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    table: &mut Table,
    answer: &[Sample],
) -> Result<(), String> {
    if let Some(why) = server::unavailable() {
        progress(&format!("skipping Mastra's per-process figure: {why}"));
        return Ok(());
    }
    progress("Mastra per process: cold servers, each resuming one suspended run");
    let r = backend.runner(bin, root, "mastra")?;
    let data = root.join("mastra-data");
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    let m = server::per_process(&r, &data, 10)?;
    let ratio = quantile(&m, 0.5).as_secs_f64() / quantile(answer, 0.5).as_secs_f64().max(1e-9);
    table.row(
        "Mastra per process: `node server.mjs` boots and resumes one suspended run to its end (LibSQL)",
        "",
        format!("{}; {}; peak RSS {}", timing(&m), cost(&m), mib(peak_rss_kib(&m))),
        None,
    );
    table.row(
        "Mastra per process / `answer` (medians)",
        "≥ 150×",
        format!("{ratio:.0}×"),
        Some(ratio >= 150.0),
    );
    Ok(())
}

/// Where the measured stores live.
enum Backend {
    /// A SQLite file per store, in the bench's directory.
    Sqlite,
    /// A fresh database per store on a PostgreSQL server, dropped when the bench ends.
    Postgres(pg::Server),
}

impl Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres(_) => "PostgreSQL",
        }
    }

    /// A runner in `root/name` with a store of its own.
    fn runner(&mut self, bin: &Path, root: &Path, name: &str) -> Result<Runner, String> {
        let r = Runner::new(bin, &root.join(name)).map_err(|e| e.to_string())?;
        Ok(match self {
            Backend::Sqlite => r,
            Backend::Postgres(server) => r.with_store(server.create(name)?),
        })
    }

    /// The size of a runner's store: the SQLite file once checkpointed, or the PostgreSQL
    /// tables after `vacuum`.
    fn size(&self, r: &Runner, vacuum: Vacuum) -> Result<u64, String> {
        match self {
            Backend::Sqlite => store_size(Path::new(&r.store)),
            Backend::Postgres(_) => pg::size(url(r)?, vacuum),
        }
    }

    /// Seeds a runner's store to `total` runs, `pending` of them waiting.
    fn seed(&self, r: &Runner, total: usize, pending: usize) -> Result<(), String> {
        match self {
            Backend::Sqlite => seed::seed(Path::new(&r.store), total, pending),
            Backend::Postgres(_) => pg::seed(url(r)?, total, pending),
        }
    }
}

fn url(r: &Runner) -> Result<&str, String> {
    r.store
        .to_str()
        .ok_or_else(|| "the store URL is not UTF-8".to_string())
}

/// A store's growth per run, in bytes; on PostgreSQL also once `VACUUM FULL` packed it
/// (the live rows alone, no room left by updates).
struct Growth {
    bytes: f64,
    packed: Option<f64>,
}

impl std::fmt::Display for Growth {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "{:.0} bytes ({:.2} KiB)",
            self.bytes,
            self.bytes / 1024.0
        )?;
        if let Some(p) = self.packed {
            write!(f, "; {:.2} KiB after `VACUUM FULL`", p / 1024.0)?;
        }
        Ok(())
    }
}

/// Takes `n` runs through their lives, `batch` at a time, and measures how the store grew.
/// PostgreSQL starts packed (`VACUUM FULL`) and ends vacuumed, as autovacuum leaves it.
fn growing(
    backend: &Backend,
    r: &Runner,
    n: usize,
    batch: usize,
) -> Result<(Samples, Growth), String> {
    let before = backend.size(r, Vacuum::Full)? as f64;
    let s = lifecycles(r, n, batch)?;
    let bytes = (backend.size(r, Vacuum::Plain)? as f64 - before) / n as f64;
    let packed = match backend {
        Backend::Sqlite => None,
        Backend::Postgres(_) => Some((backend.size(r, Vacuum::Full)? as f64 - before) / n as f64),
    };
    Ok((s, Growth { bytes, packed }))
}

fn lifecycle_rows(table: &mut Table, s: &Samples, growth: &Growth) {
    let rss = peak_rss_kib(&s.run).max(peak_rss_kib(&s.answer));
    table.row(
        "for scale: `/bin/true` (any process here), once after each command below",
        "",
        format!("{}; {}", timing(&s.floor), cost(&s.floor)),
        None,
    );
    let target = "≤ 2.5× its floor (below)";
    table.row(
        "`run` to the first suspension",
        target,
        format!("{}; {}", timing(&s.run), cost(&s.run)),
        None,
    );
    table.row(
        "`answer` to the next suspension",
        target,
        format!("{}; {}", timing(&s.answer), cost(&s.answer)),
        None,
    );
    table.row(
        "peak RSS of those `run` and `answer` processes",
        "< 15 MiB",
        format!("{} (largest of {})", mib(rss), s.run.len() + s.answer.len()),
        Some(rss < 15 * 1024),
    );
    table.row(
        "`review --approve` to the end of the run",
        "",
        timing(&s.review),
        None,
    );
    table.row(
        "store growth per run of three questions and a plan (example agent)",
        "< 8 KiB",
        growth.to_string(),
        Some(growth.bytes < 8192.0),
    );
}

/// Where a leg's time goes besides its CPU: on SQLite its durable commits (`fsync`s counted
/// by strace) beside what one costs on this disk; on PostgreSQL the connection's phases,
/// a round trip, a durable commit, and the round trips of a `run` and an `answer`.
fn phase_rows(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    r: &Runner,
) -> Result<(), String> {
    if let Backend::Postgres(_) = backend {
        return pg_phase_rows(table, backend, bin, root, r);
    }
    let Some((run, answer)) = phases::leg_syncs(r, 20)? else {
        progress("skipping the fsync counts: strace is not installed");
        return Ok(());
    };
    let latency = report::fsync_latency(root)
        .map(|f| {
            format!(
                "; one 4 KiB write + fdatasync on this disk: {} median",
                ms(f)
            )
        })
        .unwrap_or_default();
    table.row(
        "durable commits of a leg: `fsync`s per `run`, per `answer` (strace, 20 of each, checkpoints included; not timed)",
        "",
        format!("`run` {run:.2}, `answer` {answer:.2}{latency}"),
        None,
    );
    Ok(())
}

fn pg_phase_rows(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
    r: &Runner,
) -> Result<(), String> {
    let target = wire::target(url(r)?)?;
    let p = wire::phases(&target, 30)?;
    table.row(
        "PostgreSQL phases: TCP connect; server start-up and authentication; one round trip (`SELECT 1`); one durable commit (`INSERT`, autocommit)",
        "",
        format!(
            "{}; {}; {}; {} (medians of 30)",
            ms(p.tcp),
            ms(p.startup),
            ms(p.round_trip),
            ms(p.commit)
        ),
        None,
    );
    let recorder = timeline::Recorder::start(target.addr).map_err(|e| e.to_string())?;
    let direct = backend.runner(bin, root, "round-trips")?;
    let through = wire::via(url(&direct)?, recorder.addr);
    let counted = direct.with_store(through);
    prepare(&counted, None)?;
    partial(&counted, 0)?; // creates the store: its migration is not counted
    let id = partial(&counted, 0)?;
    let run = recorder
        .phases(|| counted.output(&lifecycle::RUN, 75).map(drop))?
        .flights
        .len();
    let answer = recorder
        .phases(|| counted.output(&["answer", &id, "2.0.0"], 75).map(drop))?
        .flights
        .len();
    table.row(
        "PostgreSQL round trips of a `run`, of an `answer` (connection start-up included; counted by a recording proxy, not timed)",
        "",
        format!("`run` {run}, `answer` {answer}"),
        None,
    );
    let c = server_counts(r, 20)?;
    table.row(
        "PostgreSQL WAL flushes per `run`, per `answer` (`pg_stat_wal.wal_sync`, the server's background writer included; 20 of each, not timed)",
        "",
        format!("`run` {:.2}, `answer` {:.2}", c.wal.0, c.wal.1),
        None,
    );
    match c.cpu {
        Some((connection, run, answer)) => table.row(
            "PostgreSQL server CPU per new connection (`SELECT 1`), per `run`, per `answer` (the CPU time of its ended processes, autovacuum workers included; 20 of each; the server is on this machine)",
            "",
            format!("{}; {}; {}", ms(connection), ms(run), ms(answer)),
            None,
        ),
        None => progress("skipping the server's CPU: its postmaster is not on this machine"),
    }
    wire_phase_rows(table, &target, r)
}

/// What `n` `run`s, then their `n` `answer`s, cost the server, each: WAL flushes, and the
/// CPU time of the server processes that served them (with that of `n` bare connections,
/// for scale) when the server runs here. Each count is read a moment after the last exit
/// (a backend reports, and is reaped, at its end).
struct ServerCounts {
    wal: (f64, f64),
    cpu: Option<(Duration, Duration, Duration)>,
}

fn server_counts(r: &Runner, n: usize) -> Result<ServerCounts, String> {
    let settle = || std::thread::sleep(Duration::from_millis(1500));
    let store = url(r)?;
    let mut counters = pg::Counters::open(store)?;
    let mut read = || -> Result<(i64, Option<Duration>), String> {
        settle();
        Ok((counters.wal_syncs()?, counters.children_cpu()))
    };
    let start = read()?;
    pg::connections(store, n)?;
    let bare = read()?;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(partial(r, 0)?);
    }
    let runs = read()?;
    for id in &ids {
        r.output(&["answer", id, "2.0.0"], 75)?;
    }
    let answers = read()?;
    let wal = |a: (i64, _), b: (i64, _)| (b.0 - a.0) as f64 / n as f64;
    let cpu = |a: Option<Duration>, b: Option<Duration>| Some(b?.saturating_sub(a?) / n as u32);
    Ok(ServerCounts {
        wal: (wal(bare, runs), wal(runs, answers)),
        cpu: cpu(start.1, bare.1)
            .zip(cpu(bare.1, runs.1))
            .zip(cpu(runs.1, answers.1))
            .map(|((c, r), a)| (c, r, a)),
    })
}

/// A `run` and an `answer` cut at the wire into their phases (timeline.rs), 10 of each.
fn wire_phase_rows(table: &mut Table, target: &wire::Target, r: &Runner) -> Result<(), String> {
    let recorder = timeline::Recorder::start(target.addr).map_err(|e| e.to_string())?;
    let timed = Runner::new(&r.bin, &r.cwd.with_file_name("phases"))
        .map_err(|e| e.to_string())?
        .with_store(wire::via(url(r)?, recorder.addr));
    prepare(&timed, None)?;
    let n = 10;
    let mut runs = Vec::with_capacity(n);
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        runs.push(recorder.phases(|| timed.output(&lifecycle::RUN, 75).map(drop))?);
        ids.push(lifecycle::latest_run(&timed)?);
    }
    let mut answers = Vec::with_capacity(n);
    for id in &ids {
        answers.push(recorder.phases(|| timed.output(&["answer", id, "2.0.0"], 75).map(drop))?);
    }
    for (what, all) in [("`run`", &runs), ("`answer`", &answers)] {
        let m = timeline::median(all);
        table.row(
            &format!("PostgreSQL phases of a {what}, at the wire (a recording proxy; medians of {n}, not timed)"),
            "",
            m.summary(),
            None,
        );
        progress(&format!(
            "the flights of the median {what} (client before; server):"
        ));
        for (gap, waited, label) in &m.flights {
            progress(&format!(
                "  {:>6.2} ms; {:>6.2} ms  {label}",
                gap.as_secs_f64() * 1000.0,
                waited.as_secs_f64() * 1000.0
            ));
        }
    }
    Ok(())
}

/// `run` of the README's example agent (`examples/release`): beside the human-input tools it
/// has two command tools, whose input schemas every `run` checks.
fn example_rows(
    table: &mut Table,
    backend: &mut Backend,
    bin: &Path,
    root: &Path,
) -> Result<(), String> {
    let r = backend.runner(bin, root, "example")?;
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/release");
    for f in [
        "agent.json",
        "script.json",
        "RELEASE_PLAN.md",
        "tag_release.sh",
    ] {
        std::fs::copy(example.join(f), r.cwd.join(f)).map_err(|e| format!("copying {f}: {e}"))?;
    }
    r.output(&lifecycle::RUN, 75)?; // creates the store
    let runs = (0..50)
        .map(|_| r.measure(&lifecycle::RUN, 75))
        .collect::<Result<Vec<_>, _>>()?;
    table.row(
        "`run` of the README's example agent to its first suspension (examples/release: two command tools, their input schemas checked)",
        "",
        format!("{}; {}", timing(&runs), cost(&runs)),
        None,
    );
    Ok(())
}

/// Measures `args` `n` times.
fn repeat(r: &Runner, args: &[&str], n: usize) -> Result<Vec<Sample>, String> {
    (0..n).map(|_| r.measure(args, 0)).collect()
}

/// Measures `args` `n` times, each followed by `/bin/true` (the floor under the same load).
fn beside_floor(r: &Runner, args: &[&str], n: usize) -> Result<(Vec<Sample>, Vec<Sample>), String> {
    let mut samples = Vec::with_capacity(n);
    let mut floor = Vec::with_capacity(n);
    for _ in 0..n {
        samples.push(r.measure(args, 0)?);
        floor.push(r.floor()?);
    }
    Ok((samples, floor))
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn file_mib(p: &std::path::Path) -> f64 {
    std::fs::metadata(p)
        .map(|m| m.len() as f64 / 1048576.0)
        .unwrap_or(0.0)
}
