//! Connecting to a PostgreSQL store as libpq would, bounded. The URL's `connect_timeout`
//! (seconds, as libpq; 10 by default) bounds the whole exchange — name lookup, TCP, TLS,
//! startup and authentication, every host and retry — and every session gets a
//! `statement_timeout` (60 s) and a `lock_timeout` (10 s) unless the URL's `options` set
//! them. The socket has TCP keepalive and a `TCP_USER_TIMEOUT`, and the session a read
//! deadline (`session.rs`), so a server or network that falls silent later ends the
//! command too. `sslmode` is tried as libpq tries it (`allow`: plain, then TLS; `prefer`:
//! TLS, then plain). The user comes from the URL, else `PGUSER`, else the OS user; the
//! password from the URL, `PGPASSWORD` or the password file (`pgpass.rs`), and never
//! appears in a message.

use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::tls::{MakeTlsConnect, TlsConnect};
use tokio_postgres::NoTls;

use super::errors::classify;
use super::pgpass;
use super::session::{Client, Messages, Watch, Watched};
use super::settings::{self, Settings};
use super::tls::{self, Mode};
use crate::store::location::{is_url, keywords};
use crate::store::{redact, Cause, Engine, Error, Result, Wait};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The schema every statement's table names resolve to (the session's `search_path`).
pub(super) const SCHEMA: &str = "mastra_ask";
pub(super) const STATEMENT_TIMEOUT: &str = "60s";
pub(super) const LOCK_TIMEOUT: &str = "10s";
/// How much longer than its `statement_timeout` a session may wait for a server that
/// says nothing: the time for the server's cancellation to arrive.
const READ_MARGIN: Duration = Duration::from_secs(5);
/// libpq's port.
const DEFAULT_PORT: u16 = 5432;

/// The session options: the URL's, then the store's schema and the default bounds the URL
/// does not set.
fn options(given: Option<&str>) -> String {
    let given = given.unwrap_or_default();
    let mut options = vec![given.to_string(), format!("-c search_path={SCHEMA}")];
    if !given.contains("statement_timeout") {
        options.push(format!("-c statement_timeout={STATEMENT_TIMEOUT}"));
    }
    if !given.contains("lock_timeout") {
        options.push(format!("-c lock_timeout={LOCK_TIMEOUT}"));
    }
    options.retain(|o| !o.is_empty());
    options.join(" ")
}

/// Who connects to what, as the password file and the error hints need it.
#[derive(Clone, Debug)]
pub struct Identity {
    pub user: String,
    pub database: String,
}

/// A connection to the server `url` names, with who it is connected as.
pub fn connect(url: &str) -> Result<(Client, Identity)> {
    if let Some(pairs) = keywords(url).filter(|_| !is_url(url)) {
        return Err(Error::Keywords {
            keys: pairs.into_iter().map(|(k, _)| k).collect(),
        });
    }
    let shown = redact(url);
    let (driver_url, settings) = settings::split(url)?;
    let mut config: tokio_postgres::Config = driver_url
        .parse()
        .map_err(|e| Error::usage(format!("the store URL {shown} is not valid: {e}")))?;
    let timeout = config
        .get_connect_timeout()
        .copied()
        .filter(|t| !t.is_zero())
        .unwrap_or(CONNECT_TIMEOUT);
    if config.get_user().is_none() {
        // libpq's default: `PGUSER`, else the user this program runs as (so a command
        // pasted from another person's output, whose URL names no user, connects as you).
        let user = std::env::var("PGUSER").ok().filter(|u| !u.is_empty());
        if let Some(me) = user.or_else(|| whoami::username().ok()) {
            config.user(me);
        }
    }
    let user = config.get_user().unwrap_or_default().to_string();
    let identity = Identity {
        database: config.get_dbname().unwrap_or(&user).to_string(),
        user,
    };
    if config.get_password().is_none() {
        if let Some(pw) = std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()) {
            config.password(pw);
        }
    }
    config.application_name("mastra-ask");
    let options = options(config.get_options());
    let silence = settings::statement_timeout(Some(&options)).map(|t| t + READ_MARGIN);
    config.options(&options);
    let doing = format!("connecting to the store at {shown}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io(doing.clone(), e))?;
    let watch = Watch::new(silence);
    let attempt = Attempts {
        config: &config,
        settings: &settings,
        identity: &identity,
        silence,
        watch: &watch,
    };
    let outcome = runtime.block_on(async { tokio::time::timeout(timeout, attempt.run()).await });
    match outcome {
        Ok(Ok((client, connection))) => {
            Ok((Client::new(runtime, client, connection, watch), identity))
        }
        Ok(Err(failure)) => {
            // A name lookup may still run on a thread of the runtime: it is left behind.
            runtime.shutdown_background();
            Err(failure.into_error(&doing, settings.sslmode))
        }
        Err(_) => {
            runtime.shutdown_background();
            Err(Error::Timeout(
                Wait::Connect,
                Cause {
                    engine: Engine::Postgres,
                    doing,
                    detail: format!(
                        "the server did not answer within {}s ({})",
                        timeout.as_secs_f64(),
                        Wait::Connect.setting()
                    ),
                    source: None,
                },
            ))
        }
    }
}

/// Why an attempt failed.
enum Failure {
    /// The socket could not be opened or connected.
    Io(io::Error),
    /// The driver's error: the server's answer, TLS, the protocol.
    Pg {
        error: tokio_postgres::Error,
        /// A TLS handshake was begun.
        tls: bool,
    },
    Store(Error),
}

impl Failure {
    fn into_error(self, doing: &str, mode: Mode) -> Error {
        match self {
            Failure::Store(e) => e,
            Failure::Io(e) => Error::Unreachable(Cause {
                engine: Engine::Postgres,
                doing: doing.to_string(),
                detail: e.to_string(),
                source: Some(Box::new(e)),
            }),
            Failure::Pg { error, tls } => match classify(doing, error) {
                Error::Lost(cause) | Error::Unreachable(cause)
                    if tls || refused_without_tls(&cause, mode) =>
                {
                    Error::Tls(cause)
                }
                Error::Lost(cause) => Error::Unreachable(cause),
                other => other,
            },
        }
    }

    /// The server refused a connection without TLS (pg_hba.conf's "no encryption").
    fn wants_tls(&self) -> bool {
        matches!(self, Failure::Pg { error, .. }
            if error.as_db_error().is_some_and(|d| d.message().contains("no encryption")))
    }

    /// Whether the server itself said no (so that another way of asking may succeed).
    fn answered(&self) -> bool {
        matches!(self, Failure::Pg { error, .. } if error.as_db_error().is_some())
    }
}

/// A server that takes this connection only over TLS, asked without it.
fn refused_without_tls(cause: &Cause, mode: Mode) -> bool {
    // The message is the server's (pg_hba.conf), which the cause's detail carries.
    matches!(mode, Mode::Disable | Mode::Allow) && cause.detail.contains("no encryption")
}

/// The hosts to try, each with its attempts.
struct Attempts<'a> {
    config: &'a tokio_postgres::Config,
    settings: &'a Settings,
    identity: &'a Identity,
    silence: Option<Duration>,
    watch: &'a Watch,
}

/// Where one host is reached.
struct Target {
    /// The host as the URL names it (for TLS and the password file).
    name: String,
    port: u16,
    address: Address,
}

enum Address {
    Tcp(String),
    Unix(PathBuf),
}

/// The socket directory libpq builds use when the URL names no host (Debian's, then
/// upstream's).
fn default_socket_dir() -> PathBuf {
    ["/var/run/postgresql", "/tmp"]
        .iter()
        .map(PathBuf::from)
        .find(|d| d.join(format!(".s.PGSQL.{DEFAULT_PORT}")).exists())
        .unwrap_or_else(|| PathBuf::from("/tmp"))
}

type Connected = (tokio_postgres::Client, Box<dyn Messages>);

impl Attempts<'_> {
    fn targets(&self) -> Vec<Target> {
        let hosts = self.config.get_hosts();
        let addrs = self.config.get_hostaddrs();
        let ports = self.config.get_ports();
        let port = |i: usize| {
            ports
                .get(i)
                .or_else(|| (ports.len() == 1).then(|| &ports[0]))
                .copied()
                .unwrap_or(DEFAULT_PORT)
        };
        let n = hosts.len().max(addrs.len()).max(1);
        (0..n)
            .map(|i| {
                let (name, address) = match (hosts.get(i), addrs.get(i)) {
                    (Some(Host::Tcp(h)), Some(a)) => (h.clone(), Address::Tcp(a.to_string())),
                    (None, Some(a)) => (a.to_string(), Address::Tcp(a.to_string())),
                    (Some(Host::Tcp(h)), None) => (h.clone(), Address::Tcp(h.clone())),
                    (Some(Host::Unix(p)), _) => (p.display().to_string(), Address::Unix(p.clone())),
                    (None, None) => {
                        let dir = default_socket_dir();
                        (dir.display().to_string(), Address::Unix(dir))
                    }
                };
                Target {
                    name,
                    port: port(i),
                    address,
                }
            })
            .collect()
    }

    async fn run(&self) -> std::result::Result<Connected, Failure> {
        let mut last = None;
        for target in self.targets() {
            match self.host(&target).await {
                Ok(c) => return Ok(c),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(Failure::Io(io::Error::other("no host to connect to"))))
    }

    /// libpq's order of tries for the `sslmode` (sockets on this machine never use TLS).
    async fn host(&self, target: &Target) -> std::result::Result<Connected, Failure> {
        let mode = match target.address {
            Address::Unix(_) => Mode::Disable,
            Address::Tcp(_) => self.settings.sslmode,
        };
        let mut config = self.config.clone();
        self.password(&mut config, target);
        match mode {
            Mode::Disable => self.once(&config, target, SslMode::Disable).await,
            Mode::Allow => match self.once(&config, target, SslMode::Disable).await {
                Err(e) if e.answered() => self.once(&config, target, SslMode::Require).await,
                other => other,
            },
            Mode::Prefer => match self.once(&config, target, SslMode::Prefer).await {
                // Over TLS and refused: again without, as libpq does. When that is refused
                // for want of TLS, what went wrong is what the first try was told.
                Err(first @ Failure::Pg { tls: true, .. }) => {
                    match self.once(&config, target, SslMode::Disable).await {
                        Err(e) if e.wants_tls() => Err(first),
                        other => other,
                    }
                }
                other => other,
            },
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => {
                self.once(&config, target, SslMode::Require).await
            }
        }
    }

    /// The password file's password, when nothing else gave one.
    fn password(&self, config: &mut tokio_postgres::Config, target: &Target) {
        if config.get_password().is_some() {
            return;
        }
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from);
        let Some(file) = pgpass::location(self.settings.passfile.as_deref(), home.as_deref())
        else {
            return;
        };
        let port = target.port.to_string();
        let key = pgpass::Key {
            host: &target.name,
            port: &port,
            database: &self.identity.database,
            user: &self.identity.user,
        };
        let (password, warning) = pgpass::lookup(&file, &key);
        if let Some(w) = warning {
            warn_once(&w);
        }
        if let Some(pw) = password {
            config.password(pw);
        }
    }

    /// One try: a socket, then the driver's startup over it with TLS as `ssl` says.
    async fn once(
        &self,
        config: &tokio_postgres::Config,
        target: &Target,
        ssl: SslMode,
    ) -> std::result::Result<Connected, Failure> {
        let stream = Watched::new(self.socket(target).await?, self.watch.clone());
        let mut config = config.clone();
        config.ssl_mode(ssl);
        if ssl == SslMode::Disable {
            let (client, connection) = config
                .connect_raw(stream, NoTls)
                .await
                .map_err(|error| Failure::Pg { error, tls: false })?;
            return Ok((client, Box::new(connection)));
        }
        let mode = match ssl {
            // Tried as `prefer` or `allow` would: nothing checked.
            SslMode::Prefer => Mode::Prefer,
            _ => self.settings.sslmode,
        };
        let mut make = tls::client(mode, &self.settings.sslrootcert).map_err(Failure::Store)?;
        let used = Arc::new(AtomicBool::new(false));
        let tls = Tracked {
            inner: MakeTlsConnect::<Watched<Transport>>::make_tls_connect(&mut make, &target.name)
                .map_err(|e| Failure::Io(io::Error::other(e)))?,
            used: used.clone(),
        };
        match config.connect_raw(stream, tls).await {
            Ok((client, connection)) => Ok((client, Box::new(connection))),
            Err(error) => Err(Failure::Pg {
                error,
                tls: used.load(Ordering::Relaxed),
            }),
        }
    }

    /// A connected socket to `target`, with keepalive and a user timeout for TCP.
    async fn socket(&self, target: &Target) -> std::result::Result<Transport, Failure> {
        let host = match &target.address {
            Address::Unix(dir) => {
                let path = dir.join(format!(".s.PGSQL.{}", target.port));
                return UnixStream::connect(&path)
                    .await
                    .map(Transport::Unix)
                    .map_err(|e| {
                        Failure::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
                    });
            }
            Address::Tcp(host) => host,
        };
        let mut last = io::Error::other(format!("{host} has no address"));
        let addresses = tokio::net::lookup_host((host.as_str(), target.port))
            .await
            .map_err(|e| Failure::Io(io::Error::new(e.kind(), format!("{host}: {e}"))))?;
        for address in addresses {
            match self.tcp(address).await {
                Ok(s) => return Ok(Transport::Tcp(s)),
                Err(e) => last = io::Error::new(e.kind(), format!("{address}: {e}")),
            }
        }
        Err(Failure::Io(last))
    }

    async fn tcp(&self, address: std::net::SocketAddr) -> io::Result<TcpStream> {
        use socket2::{Domain, Protocol, Socket, TcpKeepalive, Type};
        let socket = Socket::new(
            Domain::for_address(address),
            Type::STREAM,
            Some(Protocol::TCP),
        )?;
        socket.set_nonblocking(true)?;
        socket.set_tcp_nodelay(true)?;
        let s = self.settings;
        if s.keepalives {
            socket.set_tcp_keepalive(
                &TcpKeepalive::new()
                    .with_time(s.keepalives_idle)
                    .with_interval(s.keepalives_interval)
                    .with_retries(s.keepalives_count),
            )?;
        }
        // Sent data unacknowledged (or keepalive probes unanswered) this long ends the
        // connection: a network that went away, where no read deadline is running.
        let user_timeout = s
            .tcp_user_timeout
            .or(self.silence)
            .unwrap_or(settings::STATEMENT_TIMEOUT + READ_MARGIN);
        socket.set_tcp_user_timeout(Some(user_timeout))?;
        let socket = tokio::net::TcpSocket::from_std_stream(std::net::TcpStream::from(socket));
        socket.connect(address).await
    }
}

/// Prints a warning once per process (a command may connect more than once).
fn warn_once(message: &str) {
    static WARNED: AtomicBool = AtomicBool::new(false);
    if !WARNED.swap(true, Ordering::Relaxed) {
        let json = crate::output::usage::json_requested(
            std::env::args_os(),
            std::env::var_os("MASTRA_ASK_OUTPUT"),
        );
        crate::output::Out::new(json).warn(message);
    }
}

/// A TCP or a Unix socket.
pub enum Transport {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl AsyncRead for Transport {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Transport::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Transport {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Transport::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_flush(cx),
            Transport::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Transport::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// A TLS connector that records whether a handshake was begun (the server said yes to
/// TLS), which decides whether `prefer` tries again without it.
struct Tracked<T> {
    inner: T,
    used: Arc<AtomicBool>,
}

impl<S, T: TlsConnect<S>> TlsConnect<S> for Tracked<T> {
    type Stream = T::Stream;
    type Error = T::Error;
    type Future = T::Future;

    fn connect(self, stream: S) -> T::Future {
        self.used.store(true, Ordering::Relaxed);
        self.inner.connect(stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_options_are_kept_and_the_missing_bounds_added() {
        assert_eq!(
            options(None),
            "-c search_path=mastra_ask -c statement_timeout=60s -c lock_timeout=10s"
        );
        assert_eq!(
            options(Some("-c lock_timeout=1s")),
            "-c lock_timeout=1s -c search_path=mastra_ask -c statement_timeout=60s"
        );
    }
}
