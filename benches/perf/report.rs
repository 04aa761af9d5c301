//! The results table (Markdown, ready for the README) and the machine it ran on.

use std::time::Duration;

use crate::spawn::Sample;

/// The value at quantile `q` (0.5 is the median) of `samples`' wall times.
pub fn quantile(samples: &[Sample], q: f64) -> Duration {
    let mut walls: Vec<Duration> = samples.iter().map(|s| s.wall).collect();
    walls.sort();
    if walls.is_empty() {
        return Duration::ZERO;
    }
    let i = ((walls.len() - 1) as f64 * q).round() as usize;
    walls[i]
}

/// The median of `f` over the samples.
fn median<T: Ord + Copy + Default>(samples: &[Sample], f: impl Fn(&Sample) -> T) -> T {
    let mut v: Vec<T> = samples.iter().map(f).collect();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// What a process costs besides its wall time: `CPU 1.23 ms, 345 page faults` (medians).
pub fn cost(samples: &[Sample]) -> String {
    format!(
        "CPU {}, {} page faults",
        ms(median(samples, |s| s.cpu)),
        median(samples, |s| s.faults)
    )
}

pub fn peak_rss_kib(samples: &[Sample]) -> u64 {
    samples.iter().map(|s| s.rss_kib).max().unwrap_or(0)
}

pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

pub fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// `median / p90 (n)` of the samples.
pub fn timing(samples: &[Sample]) -> String {
    format!(
        "{} median, {} p90 (n={})",
        ms(quantile(samples, 0.5)),
        ms(quantile(samples, 0.9)),
        samples.len()
    )
}

pub struct Table {
    rows: Vec<[String; 4]>,
}

impl Table {
    pub fn new() -> Table {
        Table { rows: Vec::new() }
    }

    /// A figure with its target (empty for information only) and whether it is met.
    pub fn row(&mut self, figure: &str, target: &str, result: String, met: Option<bool>) {
        let verdict = match met {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "",
        };
        self.rows.push([
            figure.to_string(),
            target.to_string(),
            result,
            verdict.to_string(),
        ]);
    }

    pub fn print(&self) {
        println!("| figure | target | result | |");
        println!("|---|---|---|---|");
        for r in &self.rows {
            println!("| {} | {} | {} | {} |", r[0], r[1], r[2], r[3]);
        }
    }
}

/// `nproc`, the CPU model, the kernel, and the file system the stores were on.
pub fn machine(dir: &std::path::Path) -> Vec<String> {
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .map(|l| l.trim().to_string())
        .unwrap_or_default();
    vec![
        format!("CPU: {model}, {cpus} CPUs (nproc)"),
        format!("memory: {mem}"),
        format!("kernel: Linux {}", kernel.trim()),
        format!("store on: {}", mount_of(dir)),
    ]
}

/// The device and file system type holding `dir`, from /proc/mounts.
fn mount_of(dir: &std::path::Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let best = mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 3 && dir.starts_with(f[1])).then(|| (f[1].len(), f[0], f[2], f[1]))
        })
        .max_by_key(|m| m.0);
    match best {
        Some((_, dev, fs, at)) => format!("{dev} ({fs}, mounted at {at}), {}", dir.display()),
        None => dir.display().to_string(),
    }
}

/// The median time of writing 4 KiB and `fdatasync`ing it in `dir`: what one durable
/// commit costs on this disk at least.
pub fn fsync_latency(dir: &std::path::Path) -> Option<Duration> {
    use std::io::Write;
    let path = dir.join("fsync-probe");
    let mut f = std::fs::File::create(&path).ok()?;
    let mut times = Vec::new();
    for _ in 0..50 {
        let start = std::time::Instant::now();
        f.write_all(&[7u8; 4096]).ok()?;
        f.sync_data().ok()?;
        times.push(start.elapsed());
    }
    let _ = std::fs::remove_file(&path);
    times.sort();
    times.get(times.len() / 2).copied()
}

/// The system's load average, as /proc/loadavg gives it: other work on the machine
/// slows every figure.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(", ")
}
