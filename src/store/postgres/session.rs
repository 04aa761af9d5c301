//! One PostgreSQL session that cannot hang: a blocking client over tokio-postgres, whose
//! every call ends. While a call waits for the server, a server that sends nothing for the
//! read deadline (the session's `statement_timeout` plus a margin: by then the server
//! itself would have answered, if only with a cancellation) ends the call and the session
//! with `Silent`, whatever it waited for (a lock, a statement, a commit). Waiting for a
//! notification is silent on purpose and has its own bound, the caller's timeout.
//!
//! This is the `postgres` crate's blocking client cut down to what the store calls, with
//! that deadline added (the crate has no way to add it). It knows no SQL of the store's and
//! no store error: its errors are the driver's, a silence among them as an I/O error whose
//! source is `Silent` (see `errors.rs`).

use std::collections::VecDeque;
use std::fmt;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::runtime::Runtime;
use tokio::time::{Instant, Sleep};
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, Error, Notification, Row, Statement, ToStatement};

/// The server sent nothing for this long while a call waited for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Silent(pub Duration);

impl fmt::Display for Silent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the server sent nothing for {}s", self.0.as_secs_f64())
    }
}

impl std::error::Error for Silent {}

/// What a call's stream and the session share: whether a call waits (and since when the
/// server last said something), and how long it may stay silent.
#[derive(Debug)]
struct Deadline {
    /// `None` while no call waits for the server.
    since: Option<Instant>,
    /// `None`: no read deadline (`statement_timeout=0`).
    silence: Option<Duration>,
}

#[derive(Clone, Debug)]
pub struct Watch(Arc<Mutex<Deadline>>);

impl Watch {
    pub fn new(silence: Option<Duration>) -> Watch {
        Watch(Arc::new(Mutex::new(Deadline {
            since: None,
            silence,
        })))
    }

    fn with<T>(&self, f: impl FnOnce(&mut Deadline) -> T) -> T {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn arm(&self, on: bool) {
        self.with(|d| d.since = on.then(Instant::now));
    }

    fn heard(&self) {
        self.with(|d| {
            if d.since.is_some() {
                d.since = Some(Instant::now());
            }
        });
    }

    /// When the armed deadline passes, with the silence it allows.
    fn due(&self) -> Option<(Instant, Duration)> {
        self.with(|d| Some((d.since? + d.silence?, d.silence?)))
    }
}

/// A byte stream to the server whose reads and writes fail with `Silent` once the server
/// has said nothing past the deadline of a waiting call.
pub struct Watched<S> {
    inner: S,
    watch: Watch,
    timer: Option<Pin<Box<Sleep>>>,
}

impl<S> Watched<S> {
    pub fn new(inner: S, watch: Watch) -> Watched<S> {
        Watched {
            inner,
            watch,
            timer: None,
        }
    }

    /// Called where the stream would wait: `Ready` with the error once the deadline passed,
    /// else `Pending` with a wake-up set for it.
    fn pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let Some((at, silence)) = self.watch.due() else {
            return Poll::Pending;
        };
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(at)));
        if timer.deadline() != at {
            timer.as_mut().reset(at);
        }
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                Silent(silence),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    this.watch.heard();
                }
                Poll::Ready(r)
            }
            Poll::Pending => this.pending(cx),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Pending => this.pending(cx),
            ready => ready,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Pending => this.pending(cx),
            ready => ready,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// The driver's connection, whatever its stream: it yields the server's messages.
pub trait Messages: Send {
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<AsyncMessage, Error>>>;
}

impl<S, T> Messages for tokio_postgres::Connection<S, T>
where
    S: AsyncRead + AsyncWrite + Unpin + Send,
    T: AsyncRead + AsyncWrite + Unpin + Send,
{
    fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<AsyncMessage, Error>>> {
        tokio_postgres::Connection::poll_message(self, cx)
    }
}

/// A connected session.
pub struct Client {
    client: tokio_postgres::Client,
    driver: Driver,
}

/// What runs the calls: the runtime, the connection it drives, the notifications it kept.
struct Driver {
    runtime: Runtime,
    connection: Box<dyn Messages>,
    notifications: VecDeque<Notification>,
    watch: Watch,
    /// The connection ended or failed: it is not polled again.
    closed: bool,
}

impl Client {
    pub fn new(
        runtime: Runtime,
        client: tokio_postgres::Client,
        connection: Box<dyn Messages>,
        watch: Watch,
    ) -> Client {
        Client {
            client,
            driver: Driver {
                runtime,
                connection,
                notifications: VecDeque::new(),
                watch,
                closed: false,
            },
        }
    }

    pub fn execute<Q>(&mut self, query: &Q, params: &[&(dyn ToSql + Sync)]) -> Result<u64, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.driver.call(self.client.execute(query, params))
    }

    pub fn query<Q>(&mut self, query: &Q, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.driver.call(self.client.query(query, params))
    }

    pub fn query_one<Q>(&mut self, query: &Q, params: &[&(dyn ToSql + Sync)]) -> Result<Row, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.driver.call(self.client.query_one(query, params))
    }

    pub fn query_opt<Q>(
        &mut self,
        query: &Q,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.driver.call(self.client.query_opt(query, params))
    }

    pub fn prepare(&mut self, query: &str) -> Result<Statement, Error> {
        self.driver.call(self.client.prepare(query))
    }

    pub fn batch_execute(&mut self, query: &str) -> Result<(), Error> {
        self.driver.call(self.client.batch_execute(query))
    }

    /// `BEGIN`; the transaction rolls back when dropped uncommitted.
    pub fn transaction(&mut self) -> Result<Transaction<'_>, Error> {
        self.batch_execute("BEGIN")?;
        Ok(Transaction {
            client: self,
            open: true,
        })
    }

    /// The next notification, waiting at most `timeout` for one (`None` after it).
    pub fn notification(&mut self, timeout: Duration) -> Result<Option<Notification>, Error> {
        let d = &mut self.driver;
        if let Some(n) = d.notifications.pop_front() {
            return Ok(Some(n));
        }
        let deadline = Instant::now() + timeout;
        let connection = &mut *d.connection;
        let notifications = &mut d.notifications;
        let closed = &mut d.closed;
        d.runtime.block_on(async {
            let mut timer = pin!(tokio::time::sleep_until(deadline));
            poll_fn(|cx| {
                if !*closed {
                    match pump(connection, notifications, cx) {
                        Poll::Ready(Err(e)) => {
                            *closed = true;
                            return Poll::Ready(Err(e));
                        }
                        Poll::Ready(Ok(())) => *closed = true,
                        Poll::Pending => {}
                    }
                }
                if let Some(n) = notifications.pop_front() {
                    return Poll::Ready(Ok(Some(n)));
                }
                timer.as_mut().poll(cx).map(|()| Ok(None))
            })
            .await
        })
    }
}

impl Driver {
    /// Runs `future` to its end while the connection is driven, under the read deadline.
    /// A connection that fails fails the call with its error (a silence among them); one
    /// that ended lets the call see that it is closed.
    fn call<T>(&mut self, future: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
        self.watch.arm(true);
        let mut future = pin!(future);
        let connection = &mut *self.connection;
        let notifications = &mut self.notifications;
        let closed = &mut self.closed;
        let result = self.runtime.block_on(poll_fn(|cx| {
            // After its end the connection is not polled again; a call then fails at once,
            // as the driver's channel to it is closed.
            if !*closed {
                match pump(connection, notifications, cx) {
                    Poll::Ready(Err(e)) => {
                        *closed = true;
                        return Poll::Ready(Err(e));
                    }
                    Poll::Ready(Ok(())) => *closed = true,
                    Poll::Pending => {}
                }
            }
            future.as_mut().poll(cx)
        }));
        self.watch.arm(false);
        result
    }
}

/// Reads what the server sent (keeping notifications) until the connection would wait.
/// `Ready(Ok)` when the connection has ended; `Ready` is the connection's last word.
fn pump(
    connection: &mut dyn Messages,
    notifications: &mut VecDeque<Notification>,
    cx: &mut Context<'_>,
) -> Poll<Result<(), Error>> {
    loop {
        match connection.poll_message(cx) {
            Poll::Ready(Some(Ok(AsyncMessage::Notification(n)))) => notifications.push_back(n),
            Poll::Ready(Some(Ok(_))) => {}
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
            Poll::Ready(None) => return Poll::Ready(Ok(())),
            Poll::Pending => return Poll::Pending,
        }
    }
}

/// An open transaction: the client's calls, then `commit`, or a rollback when dropped.
pub struct Transaction<'c> {
    client: &'c mut Client,
    open: bool,
}

impl Transaction<'_> {
    pub fn commit(mut self) -> Result<(), Error> {
        self.open = false;
        self.client.batch_execute("COMMIT")
    }

    pub fn execute<Q>(&mut self, query: &Q, params: &[&(dyn ToSql + Sync)]) -> Result<u64, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.client.execute(query, params)
    }

    pub fn query<Q>(&mut self, query: &Q, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.client.query(query, params)
    }

    pub fn query_one<Q>(&mut self, query: &Q, params: &[&(dyn ToSql + Sync)]) -> Result<Row, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.client.query_one(query, params)
    }

    pub fn query_opt<Q>(
        &mut self,
        query: &Q,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, Error>
    where
        Q: ?Sized + ToStatement,
    {
        self.client.query_opt(query, params)
    }

    pub fn prepare(&mut self, query: &str) -> Result<Statement, Error> {
        self.client.prepare(query)
    }

    pub fn batch_execute(&mut self, query: &str) -> Result<(), Error> {
        self.client.batch_execute(query)
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}
