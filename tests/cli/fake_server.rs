//! A tiny HTTP server for the provider and Mastra-server tests, on the loopback interface
//! only: each connection gets the next canned reply (then, when a handler is set, the reply
//! the handler makes for the request), and every request is recorded (headers and JSON
//! body) so tests can assert what went over the wire and how many attempts were made. It can
//! misbehave on cue: stay silent, drip bytes, fall silent mid-stream, flood.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

/// How an event stream ends.
#[derive(Clone, Debug)]
pub enum End {
    /// `data: [DONE]`, then the end of the body.
    Done,
    /// The end of the body without `[DONE]`.
    Close,
    /// The connection is reset in the middle of the body.
    Reset,
}

#[derive(Clone, Debug)]
pub enum Reply {
    /// A JSON body with a status and extra headers.
    Json {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// An event stream: each item is the data of one frame (a whole frame when it starts
    /// with `event:` or `:`), sent as its own chunk.
    Sse { frames: Vec<String>, end: End },
    /// Read the request, then reset the connection without answering.
    Reset,
    /// Read the request, then say nothing for this long.
    Silent(Duration),
    /// A 200 status line and headers with this content type, then one byte of body every
    /// `every`, for as long as the client listens.
    Drip {
        content_type: &'static str,
        every: Duration,
    },
    /// An event stream: these frames, then nothing for `silence` (the connection held open).
    SseThenSilent {
        frames: Vec<String>,
        silence: Duration,
    },
    /// An event stream of `count` frames made by `frame(i)`, written as fast as the client
    /// reads, then `data: [DONE]`.
    SseFlood {
        count: usize,
        frame: fn(usize) -> String,
    },
}

/// Makes the reply to a request once the canned ones are used up.
pub type Handler = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

impl Reply {
    pub fn ok(body: Value) -> Reply {
        Reply::status(200, body)
    }
    pub fn status(status: u16, body: Value) -> Reply {
        Reply::Json {
            status,
            headers: vec![],
            body: body.to_string(),
        }
    }
    pub fn sse(frames: Vec<String>) -> Reply {
        Reply::Sse {
            frames,
            end: End::Done,
        }
    }
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub struct FakeServer {
    port: u16,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    handler: Arc<Mutex<Option<Handler>>>,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
}

impl FakeServer {
    pub fn start(replies: Vec<Reply>) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = FakeServer {
            port,
            replies: Arc::new(Mutex::new(replies.into())),
            handler: Arc::new(Mutex::new(None)),
            requests: Arc::new(Mutex::new(Vec::new())),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (replies, requests, stop, handler) = (
            server.replies.clone(),
            server.requests.clone(),
            server.stop.clone(),
            server.handler.clone(),
        );
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let requests = requests.clone();
                let replies = replies.clone();
                let handler = handler.lock().unwrap().clone();
                std::thread::spawn(move || serve(conn, &replies, &requests, handler));
            }
        });
        server
    }

    /// The base URL, as `OPENAI_BASE_URL` takes it.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// A server that answers every request with what `handler` makes of it.
    pub fn serving(handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> FakeServer {
        let server = FakeServer::start(vec![]);
        server.handle(handler);
        server
    }

    /// From now on, once the canned replies are used up, `handler` makes each reply.
    pub fn handle(&self, handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) {
        *self.handler.lock().unwrap() = Some(Arc::new(handler));
    }

    /// The URL of the server's root (the Mastra tests add their own prefix).
    pub fn root_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// More replies, e.g. after "fixing" the server.
    pub fn push(&self, replies: Vec<Reply>) {
        self.replies.lock().unwrap().extend(replies);
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// A loopback port that refuses connections: bound (so no other test can take it) but
/// not listening, for as long as this lives.
pub struct DeadPort {
    _fd: std::os::fd::OwnedFd,
    port: u16,
}

impl DeadPort {
    pub fn new() -> DeadPort {
        use std::os::fd::FromRawFd;
        // SAFETY: plain socket calls on a descriptor we own; the structs are sized for them.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            assert!(fd >= 0, "socket");
            let fd = std::os::fd::OwnedFd::from_raw_fd(fd);
            let mut addr: libc::sockaddr_in = std::mem::zeroed();
            addr.sin_family = libc::AF_INET as libc::sa_family_t;
            addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
            let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            let raw = std::os::fd::AsRawFd::as_raw_fd(&fd);
            let sa = &mut addr as *mut libc::sockaddr_in as *mut libc::sockaddr;
            assert_eq!(libc::bind(raw, sa, len), 0, "bind");
            let mut got = len;
            assert_eq!(libc::getsockname(raw, sa, &mut got), 0, "getsockname");
            DeadPort {
                _fd: fd,
                port: u16::from_be(addr.sin_port),
            }
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

fn serve(
    conn: TcpStream,
    replies: &Mutex<VecDeque<Reply>>,
    requests: &Mutex<Vec<Recorded>>,
    handler: Option<Handler>,
) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let Some(mut request) = read_request(&mut reader) else {
        return;
    };
    if request.method == "CONNECT" {
        // A proxy's tunnel: the request that matters comes through it.
        requests.lock().unwrap().push(request);
        let mut c = &conn;
        let _ = c.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
        let Some(tunneled) = read_request(&mut reader) else {
            return;
        };
        request = tunneled;
    }
    // Recorded before the reply is popped and sent, so a client never sees an answer
    // to a request the test cannot see.
    let reply = {
        let mut recorded = requests.lock().unwrap();
        let reply = replies.lock().unwrap().pop_front();
        let reply = reply.or_else(|| handler.as_ref().map(|h| h(&request)));
        recorded.push(request);
        reply
    };
    let reply = reply.unwrap_or_else(|| {
        Reply::status(
            500,
            serde_json::json!({"error": {"message": "the fake server has no reply left"}}),
        )
    });
    let mut conn = conn;
    match reply {
        Reply::Json {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                reason(status),
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(body.as_bytes());
        }
        Reply::Sse { frames, end } => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            let _ = conn.write_all(head.as_bytes());
            for frame in frames {
                let text = if frame.starts_with("event:") || frame.starts_with(':') {
                    format!("{frame}\n\n")
                } else {
                    format!("data: {frame}\n\n")
                };
                let _ = chunk(&mut conn, &text);
                std::thread::sleep(Duration::from_millis(2));
            }
            match end {
                End::Done => {
                    let _ = chunk(&mut conn, "data: [DONE]\n\n");
                    let _ = conn.write_all(b"0\r\n\r\n");
                }
                End::Close => {
                    let _ = conn.write_all(b"0\r\n\r\n");
                }
                End::Reset => reset(conn),
            }
        }
        Reply::Reset => reset(conn),
        Reply::Silent(d) => std::thread::sleep(d),
        Reply::Drip {
            content_type,
            every,
        } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
            );
            let _ = conn.write_all(head.as_bytes());
            // At most 10 minutes: long past any deadline a test waits for.
            for _ in 0..(600_000 / every.as_millis().max(1)) {
                if conn.write_all(b" ").and_then(|_| conn.flush()).is_err() {
                    return;
                }
                std::thread::sleep(every);
            }
        }
        Reply::SseThenSilent { frames, silence } => {
            let _ = conn.write_all(SSE_HEAD.as_bytes());
            for frame in frames {
                let _ = chunk(&mut conn, &format!("data: {frame}\n\n"));
            }
            std::thread::sleep(silence);
        }
        Reply::SseFlood { count, frame } => {
            let _ = conn.write_all(SSE_HEAD.as_bytes());
            let mut out = std::io::BufWriter::with_capacity(256 * 1024, &conn);
            for i in 0..count {
                let text = format!("data: {}\n\n", frame(i));
                let written = write!(out, "{:x}\r\n{text}\r\n", text.len());
                if written.is_err() {
                    return;
                }
            }
            let done = "data: [DONE]\n\n";
            let _ = write!(out, "{:x}\r\n{done}\r\n0\r\n\r\n", done.len());
            let _ = out.flush();
        }
    }
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

fn chunk(conn: &mut TcpStream, text: &str) -> std::io::Result<()> {
    conn.write_all(format!("{:x}\r\n{text}\r\n", text.len()).as_bytes())?;
    conn.flush()
}

/// Closes with a TCP reset (SO_LINGER 0) instead of an orderly close.
fn reset(conn: TcpStream) {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket descriptor and a correctly sized linger struct.
    unsafe {
        libc::setsockopt(
            conn.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            &linger as *const libc::linger as *const libc::c_void,
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    drop(conn);
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Recorded> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let method = line.split_whitespace().next()?.to_string();
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (name, value) = h.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let text = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Some(Recorded {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}
