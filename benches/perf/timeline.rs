//! Where a PostgreSQL command's wall time goes, phase by phase, read from the wire: a proxy
//! between the command and the server timestamps every read either way, and one command's
//! life (spawn to exit) is cut at those timestamps into the time before it speaks, the
//! connection's start-up, each flight of statements (the server's time to its last answer,
//! and the client's time before it sends the next), and the time after the last answer.
//! A flight that ends in `COMMIT` is a commit (its wait includes the WAL flush); the flights
//! are the round trips (a flight of messages from the client after the server last spoke).
//! The proxy adds a few microseconds to each flight; these runs are not the timed ones.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One read from a side of the connection.
struct Chunk {
    at: Instant,
    from_client: bool,
    bytes: Vec<u8>,
}

type Log = Arc<Mutex<Vec<Chunk>>>;

/// A proxy to `upstream` that logs what goes through it, for one connection at a time.
pub struct Recorder {
    pub addr: SocketAddr,
    log: Log,
}

impl Recorder {
    pub fn start(upstream: SocketAddr) -> io::Result<Recorder> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let log: Log = Arc::default();
        let kept = log.clone();
        // Left running until the bench ends.
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                    continue;
                };
                let (a, b) = (kept.clone(), kept.clone());
                std::thread::spawn(move || copy(client, s2, true, a));
                std::thread::spawn(move || copy(server, c2, false, b));
            }
        });
        Ok(Recorder { addr, log })
    }

    /// What was logged since the last call.
    fn take(&self) -> Vec<Chunk> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Runs `run` (which spawns one command and waits for its exit) and cuts its life into
    /// phases.
    pub fn phases(&self, run: impl FnOnce() -> Result<(), String>) -> Result<Phases, String> {
        self.take();
        let start = Instant::now();
        run()?;
        let end = Instant::now();
        // The relay threads may log the last reads a moment after the exit.
        std::thread::sleep(Duration::from_millis(20));
        Ok(cut(start, end, &self.take()))
    }
}

fn copy(mut from: TcpStream, mut to: TcpStream, from_client: bool, log: Log) {
    let mut buf = [0u8; 16384];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let at = Instant::now();
                if let Ok(mut l) = log.lock() {
                    l.push(Chunk {
                        at,
                        from_client,
                        bytes: buf[..n].to_vec(),
                    });
                }
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

/// One command's wall time, cut at the wire.
#[derive(Clone, Debug, Default)]
pub struct Phases {
    /// Spawn to the first byte sent: process start-up, arguments, the agent, the runtime,
    /// TCP connect.
    pub before: Duration,
    /// The `SSLRequest` and the server's refusal (`sslmode=prefer` asks first).
    pub tls_ask: Duration,
    /// The start-up message to the server's first ReadyForQuery: its process, the
    /// authentication, the session's settings.
    pub startup: Duration,
    /// Flights of statements that do not commit: the server's time, and how many.
    pub statements: Duration,
    pub statement_flights: usize,
    /// Flights that end in `COMMIT`: the server's time (the WAL flush included).
    pub commits: Duration,
    pub commit_flights: usize,
    /// The client's time between an answer and its next flight.
    pub client: Duration,
    /// The last answer to the exit (printing, the `Terminate`, the exit itself).
    pub after: Duration,
    pub wall: Duration,
    /// Each flight: the client's time before it, the server's time, what it began with.
    pub flights: Vec<(Duration, Duration, String)>,
}

/// A flight: the client's bytes sent before the server answered, and when the answer ended.
struct Flight {
    sent: Instant,
    bytes: Vec<u8>,
    answered: Instant,
}

fn flights(chunks: &[Chunk]) -> Vec<Flight> {
    let mut out: Vec<Flight> = Vec::new();
    let mut last_was_server = true;
    for c in chunks {
        if c.from_client {
            if last_was_server {
                out.push(Flight {
                    sent: c.at,
                    bytes: Vec::new(),
                    answered: c.at,
                });
            }
            if let Some(f) = out.last_mut() {
                f.bytes.extend_from_slice(&c.bytes);
            }
            last_was_server = false;
        } else {
            if let Some(f) = out.last_mut() {
                f.answered = c.at;
            }
            last_was_server = true;
        }
    }
    out
}

/// The kinds of the flight's messages (`P`arse, `Q`uery, …) and, for the first statement,
/// its opening words.
fn label(bytes: &[u8]) -> (String, bool) {
    let mut kinds = String::new();
    let mut first = None;
    let mut commit = false;
    let mut i = 0;
    while i + 5 <= bytes.len() {
        let tag = bytes[i];
        let len = u32::from_be_bytes([bytes[i + 1], bytes[i + 2], bytes[i + 3], bytes[i + 4]]);
        let end = (i + 1 + len as usize).min(bytes.len());
        let body = &bytes[(i + 5).min(end)..end];
        if tag == b'P' || tag == b'Q' {
            // Parse: name, then the query; Query: the query.
            let text = if tag == b'P' {
                body.splitn(2, |b| *b == 0).nth(1).unwrap_or_default()
            } else {
                body
            };
            let text = String::from_utf8_lossy(text.split(|b| *b == 0).next().unwrap_or_default())
                .into_owned();
            commit |= tag == b'Q' && text.trim() == "COMMIT";
            first.get_or_insert(text);
        }
        if !matches!(tag, b'B' | b'D' | b'E' | b'S' | b'H') {
            kinds.push(tag as char);
        }
        i = end;
    }
    let words: String = first
        .unwrap_or_default()
        .split_whitespace()
        .take(6)
        .collect::<Vec<_>>()
        .join(" ");
    (format!("{kinds} {words}"), commit)
}

fn cut(start: Instant, end: Instant, chunks: &[Chunk]) -> Phases {
    let mut p = Phases {
        wall: end - start,
        ..Phases::default()
    };
    let flights = flights(chunks);
    let Some(first) = flights.first() else {
        p.before = p.wall;
        return p;
    };
    p.before = first.sent.saturating_duration_since(start);
    let mut previous = first.sent;
    for (i, f) in flights.iter().enumerate() {
        let waited = f.answered.saturating_duration_since(f.sent);
        let gap = f.sent.saturating_duration_since(previous);
        previous = f.answered;
        // The SSLRequest: 8 bytes, code 80877103.
        if i == 0 && f.bytes.len() == 8 && f.bytes[4..8] == 80877103u32.to_be_bytes() {
            p.tls_ask = waited;
            p.flights.push((gap, waited, "SSLRequest".into()));
            continue;
        }
        if p.startup.is_zero() && p.statement_flights == 0 && p.commit_flights == 0 {
            p.client += gap;
            p.startup = waited;
            p.flights.push((gap, waited, "StartupMessage".into()));
            continue;
        }
        let (what, commit) = label(&f.bytes);
        p.client += gap;
        if commit {
            p.commits += waited;
            p.commit_flights += 1;
        } else if what.starts_with('X') {
            // The Terminate: nothing answers it.
            previous = f.sent;
        } else {
            p.statements += waited;
            p.statement_flights += 1;
        }
        p.flights.push((gap, waited, what));
    }
    p.after = end.saturating_duration_since(previous);
    p
}

/// The median of each phase over `all` (and the flights of the run whose wall time is the
/// median, for the detail).
pub fn median(all: &[Phases]) -> Phases {
    let m = |f: &dyn Fn(&Phases) -> Duration| {
        let mut v: Vec<Duration> = all.iter().map(f).collect();
        v.sort();
        v.get(v.len() / 2).copied().unwrap_or_default()
    };
    let mut by_wall: Vec<&Phases> = all.iter().collect();
    by_wall.sort_by_key(|p| p.wall);
    let middle = by_wall.get(by_wall.len() / 2);
    Phases {
        before: m(&|p| p.before),
        tls_ask: m(&|p| p.tls_ask),
        startup: m(&|p| p.startup),
        statements: m(&|p| p.statements),
        statement_flights: middle.map_or(0, |p| p.statement_flights),
        commits: m(&|p| p.commits),
        commit_flights: middle.map_or(0, |p| p.commit_flights),
        client: m(&|p| p.client),
        after: m(&|p| p.after),
        wall: m(&|p| p.wall),
        flights: middle.map(|p| p.flights.clone()).unwrap_or_default(),
    }
}

impl Phases {
    /// One line: the phases in the order they happen.
    pub fn summary(&self) -> String {
        let ms = |d: Duration| format!("{:.2}", d.as_secs_f64() * 1000.0);
        format!(
            "{} ms in all: start to first byte {}; SSLRequest {}; server start-up and \
             authentication {}; {} statement flights {}; {} commits {}; client between flights {}; \
             last answer to exit {}",
            ms(self.wall),
            ms(self.before),
            ms(self.tls_ask),
            ms(self.startup),
            self.statement_flights,
            ms(self.statements),
            self.commit_flights,
            ms(self.commits),
            ms(self.client),
            ms(self.after)
        )
    }
}
