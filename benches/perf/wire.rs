//! The PostgreSQL phases of a connection, by the bench's own client: what connecting costs
//! (TCP, then the server's start-up and authentication, to its first ReadyForQuery), what a
//! round trip and a durable commit cost on their own. (A command's own phases and round
//! trips are read at the wire: timeline.rs.)

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Where `url` (postgres://USER@HOST:PORT/DB) connects, with its user and database.
pub struct Target {
    pub addr: SocketAddr,
    pub user: String,
    pub database: String,
}

pub fn target(url: &str) -> Result<Target, String> {
    let config: postgres::Config = url.parse().map_err(|e| format!("{e}"))?;
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        _ => return Err("the phases need a TCP host in the URL".into()),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let addr = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("the host has no address")?;
    Ok(Target {
        addr,
        user: config.get_user().unwrap_or("postgres").to_string(),
        database: config.get_dbname().unwrap_or("postgres").to_string(),
    })
}

/// `url` with its host and port replaced by `addr`.
pub fn via(url: &str, addr: SocketAddr) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let (auth, path) = rest.split_once('/').unwrap_or((rest, ""));
    let user = auth
        .rsplit_once('@')
        .map(|(u, _)| format!("{u}@"))
        .unwrap_or_default();
    format!("{scheme}://{user}{addr}/{path}")
}

/// Medians of the connection's phases and of one round trip and one durable commit.
pub struct Phases {
    pub tcp: Duration,
    pub startup: Duration,
    pub round_trip: Duration,
    pub commit: Duration,
}

/// Measures `n` connections to `t` and `n` statements on one of them, speaking the protocol
/// directly (no client library between). The commits insert into a table of the bench's
/// own in that database.
pub fn phases(t: &Target, n: usize) -> Result<Phases, String> {
    let mut tcp = Vec::new();
    let mut startup = Vec::new();
    let mut kept = None;
    for _ in 0..n {
        let start = Instant::now();
        let mut s = TcpStream::connect(t.addr).map_err(|e| e.to_string())?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        tcp.push(start.elapsed());
        let start = Instant::now();
        startup_message(&mut s, t).map_err(|e| e.to_string())?;
        startup.push(start.elapsed());
        kept = Some(s);
    }
    let mut s = kept.ok_or("no connection")?;
    let mut query = |sql: &str| -> Result<Duration, String> {
        let start = Instant::now();
        simple_query(&mut s, sql).map_err(|e| format!("{sql}: {e}"))?;
        Ok(start.elapsed())
    };
    query("CREATE TABLE IF NOT EXISTS public.bench_commit (x int)")?;
    let round_trip = (0..n)
        .map(|_| query("SELECT 1"))
        .collect::<Result<Vec<_>, _>>()?;
    let commit = (0..n)
        .map(|_| query("INSERT INTO public.bench_commit VALUES (1)"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Phases {
        tcp: median(tcp),
        startup: median(startup),
        round_trip: median(round_trip),
        commit: median(commit),
    })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// The start-up message, then the server's messages up to ReadyForQuery; a server that asks
/// for a password is refused (the phases are measured with trust authentication).
fn startup_message(s: &mut TcpStream, t: &Target) -> io::Result<()> {
    let mut body = Vec::new();
    body.extend_from_slice(&196608u32.to_be_bytes());
    for (k, v) in [("user", &t.user), ("database", &t.database)] {
        body.extend_from_slice(k.as_bytes());
        body.push(0);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut msg = ((body.len() + 4) as u32).to_be_bytes().to_vec();
    msg.extend_from_slice(&body);
    s.write_all(&msg)?;
    until_ready(s)
}

fn simple_query(s: &mut TcpStream, sql: &str) -> io::Result<()> {
    let mut msg = vec![b'Q'];
    msg.extend_from_slice(&((sql.len() + 5) as u32).to_be_bytes());
    msg.extend_from_slice(sql.as_bytes());
    msg.push(0);
    s.write_all(&msg)?;
    until_ready(s)
}

/// Reads messages up to ReadyForQuery; an error response or a password request fails.
fn until_ready(s: &mut TcpStream) -> io::Result<()> {
    loop {
        let mut head = [0u8; 5];
        s.read_exact(&mut head)?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len.saturating_sub(4)];
        s.read_exact(&mut body)?;
        match head[0] {
            b'Z' => return Ok(()),
            b'E' => {
                return Err(io::Error::other(
                    String::from_utf8_lossy(&body).replace('\0', " "),
                ))
            }
            b'R' if body.get(..4) != Some(&[0, 0, 0, 0]) => {
                return Err(io::Error::other(
                    "the server asks for a password; the phases need trust authentication",
                ))
            }
            _ => {}
        }
    }
}
