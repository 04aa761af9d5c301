//! One PostgreSQL session that cannot hang: a blocking client over tokio-postgres, whose
//! every call ends. While a call waits for the server, a server that sends nothing for the
//! read deadline (the session's `statement_timeout` plus a margin: by then the server
//! itself would have answered, if only with a cancellation) ends the call and the session
//! with `Silent`, whatever it waited for (a lock, a statement, a commit). Waiting for a
//! notification is silent on purpose and has its own bound, the caller's timeout.
//!
//! This is the `postgres` crate's blocking client cut down to what the store calls, with
//! that deadline added (the crate has no way to add it), and with fewer round trips, since
//! every command is a new process on a new connection where nothing prepared survives:
//!
//! - a statement is sent unprepared with the types of its parameters (parse, bind and
//!   execute in one message: one round trip, where preparing first takes two);
//! - a transaction's `BEGIN` (with, for one whose commit need not wait for the disk,
//!   `SET LOCAL synchronous_commit = off` in the same message), and the writes whose
//!   outcome nothing reads before the commit (`Transaction::write`), wait and go out with
//!   its next statement or its `COMMIT`, in one flight. The server runs them in order, as
//!   if each had been sent alone; the first error among them is the flight's error (the
//!   later statements of the transaction fail only because of it, and its `COMMIT` rolls
//!   back).
//!
//! It knows no SQL of the store's and no store error: its errors are the driver's, a
//! silence among them as an I/O error whose source is `Silent` (see `errors.rs`).

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
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{AsyncMessage, Error, Notification, Row};

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

/// A statement's parameter, with the type it is sent as (statements are not prepared, so
/// the server is told the types rather than asked for them).
pub trait Param: Sync {
    fn sql(&self) -> &(dyn ToSql + Sync);
    fn pg_type(&self) -> Type;
    /// An owned copy, for a write that is sent later.
    fn owned(&self) -> Box<dyn Param + Send>;
}

/// A Rust type that is sent as one PostgreSQL type.
pub trait Typed: ToSql + Sync {
    type Owned: Typed + Send + 'static;
    fn pg_type() -> Type;
    fn to_owned_param(&self) -> Self::Owned;
}

impl<T: Typed> Param for T {
    fn sql(&self) -> &(dyn ToSql + Sync) {
        self
    }

    fn pg_type(&self) -> Type {
        T::pg_type()
    }

    fn owned(&self) -> Box<dyn Param + Send> {
        Box::new(self.to_owned_param())
    }
}

macro_rules! typed {
    ($rust:ty, $pg:ident, $owned:ty, |$v:ident| $to_owned:expr) => {
        impl Typed for $rust {
            type Owned = $owned;
            fn pg_type() -> Type {
                Type::$pg
            }
            fn to_owned_param(&self) -> $owned {
                let $v = self;
                $to_owned
            }
        }
    };
}

typed!(i64, INT8, i64, |v| *v);
typed!(bool, BOOL, bool, |v| *v);
typed!(String, TEXT, String, |v| v.clone());
typed!(&str, TEXT, String, |v| v.to_string());
typed!(Vec<&str>, TEXT_ARRAY, Vec<String>, |v| v
    .iter()
    .map(|s| s.to_string())
    .collect());
typed!(Vec<String>, TEXT_ARRAY, Vec<String>, |v| v.clone());

impl<T: Typed> Typed for Option<T> {
    type Owned = Option<T::Owned>;
    fn pg_type() -> Type {
        T::pg_type()
    }
    fn to_owned_param(&self) -> Self::Owned {
        self.as_ref().map(T::to_owned_param)
    }
}

/// The parameters as the driver takes them.
fn typed<'a>(params: &'a [&'a dyn Param]) -> Vec<(&'a (dyn ToSql + Sync), Type)> {
    params.iter().map(|p| (p.sql(), p.pg_type())).collect()
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

    pub fn query(&mut self, query: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error> {
        let params = typed(params);
        self.driver.call(self.client.query_typed(query, &params))
    }

    pub fn query_one(&mut self, query: &str, params: &[&dyn Param]) -> Result<Row, Error> {
        let params = typed(params);
        self.driver
            .call(self.client.query_typed_one(query, &params))
    }

    pub fn query_opt(&mut self, query: &str, params: &[&dyn Param]) -> Result<Option<Row>, Error> {
        let params = typed(params);
        self.driver
            .call(self.client.query_typed_opt(query, &params))
    }

    /// Statements without parameters, in one round trip (the simple query protocol).
    pub fn batch_execute(&mut self, query: &str) -> Result<(), Error> {
        self.driver.call(self.client.batch_execute(query))
    }

    /// Queries in one round trip, each run after the one before as if sent alone.
    pub fn queries(&mut self, list: &[(&str, &[&dyn Param])]) -> Result<Vec<Vec<Row>>, Error> {
        let typed: Vec<_> = list.iter().map(|(_, p)| typed(p)).collect();
        self.driver.call(in_order(&self.client, list, &typed))
    }

    /// A transaction; its `BEGIN` goes out with its first statement. `flushed`: its commit
    /// waits for the server's log to reach the disk; without, the commit returns once the
    /// server has it (`synchronous_commit = off` for this transaction alone), and the log,
    /// flushed in order, takes it to the disk with the next commit that waits (or within
    /// the server's `wal_writer_delay`, three times over at most).
    pub fn transaction(&mut self, flushed: bool) -> Transaction<'_> {
        Transaction {
            client: self,
            pending: Pending::default(),
            begun: false,
            open: true,
            flushed,
        }
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

/// A write waiting for the transaction's next flight.
struct Queued {
    query: String,
    params: Vec<Box<dyn Param + Send>>,
}

/// What a transaction has not sent yet: its `BEGIN`, and writes.
#[derive(Default)]
struct Pending {
    begin: Option<&'static str>,
    writes: Vec<Queued>,
}

/// The opening of a transaction whose commit waits for the disk, and of one that does not.
const BEGIN: &str = "BEGIN";
const BEGIN_UNFLUSHED: &str = "BEGIN; SET LOCAL synchronous_commit = off";

type Sent<'a> = Pin<Box<dyn Future<Output = Result<(), Error>> + 'a>>;

impl Pending {
    fn params(&self) -> Vec<Vec<(&(dyn ToSql + Sync), Type)>> {
        self.writes
            .iter()
            .map(|w| w.params.iter().map(|p| (p.sql(), p.pg_type())).collect())
            .collect()
    }

    /// The futures that send them, in order.
    fn futures<'a>(
        &'a self,
        client: &'a tokio_postgres::Client,
        params: &'a [Vec<(&'a (dyn ToSql + Sync), Type)>],
    ) -> Vec<Sent<'a>> {
        let mut sent: Vec<Sent<'a>> = Vec::with_capacity(self.writes.len() + 1);
        if let Some(begin) = self.begin {
            sent.push(Box::pin(client.batch_execute(begin)));
        }
        for (w, p) in self.writes.iter().zip(params) {
            sent.push(Box::pin(async move {
                client.execute_typed(&w.query, p).await.map(|_| ())
            }));
        }
        sent
    }
}

/// Polls `before`, then `last`, each in turn (so that their messages go out in that order,
/// in one flight), until all of them are done. The first error among them is the result.
async fn together<T>(
    mut before: Vec<Sent<'_>>,
    last: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    let mut last = pin!(last);
    let mut done = vec![false; before.len()];
    let mut first_error = None;
    let mut out = None;
    poll_fn(|cx| {
        for (f, d) in before.iter_mut().zip(done.iter_mut()) {
            if !*d {
                if let Poll::Ready(r) = f.as_mut().poll(cx) {
                    *d = true;
                    if let Err(e) = r {
                        first_error.get_or_insert(e);
                    }
                }
            }
        }
        if out.is_none() {
            if let Poll::Ready(r) = last.as_mut().poll(cx) {
                out = Some(r);
            }
        }
        if done.iter().all(|d| *d) {
            if let Some(r) = out.take() {
                return Poll::Ready(match first_error.take() {
                    Some(e) => Err(e),
                    None => r,
                });
            }
        }
        Poll::Pending
    })
    .await
}

/// An open transaction: its statements, then `commit`, or a rollback when dropped.
pub struct Transaction<'c> {
    client: &'c mut Client,
    pending: Pending,
    /// `BEGIN` has gone out.
    begun: bool,
    open: bool,
    /// The commit waits for the log's flush.
    flushed: bool,
}

/// Sends what the transaction has pending and then `$call` (an expression over `$c`, the
/// driver's client), in one flight.
macro_rules! flight {
    ($tx:expr, |$c:ident| $call:expr) => {{
        let pending = $tx.take_pending();
        let params = pending.params();
        let Client { client, driver } = &mut *$tx.client;
        let $c: &tokio_postgres::Client = client;
        let before = pending.futures($c, &params);
        driver.call(together(before, $call))
    }};
}

impl Transaction<'_> {
    fn take_pending(&mut self) -> Pending {
        let mut pending = std::mem::take(&mut self.pending);
        let opening = if self.flushed { BEGIN } else { BEGIN_UNFLUSHED };
        pending.begin = (!std::mem::replace(&mut self.begun, true)).then_some(opening);
        pending
    }

    /// Commits what was sent and what waits, in one flight; nothing at all when the
    /// transaction did nothing.
    pub fn commit(mut self) -> Result<(), Error> {
        self.open = false;
        if !self.begun && self.pending.writes.is_empty() {
            return Ok(());
        }
        flight!(self, |c| c.batch_execute("COMMIT"))
    }

    /// A write whose outcome nothing reads before the commit: it goes out with the next
    /// statement or with the `COMMIT`, and its error (if any) is theirs.
    pub fn write(&mut self, query: &str, params: &[&dyn Param]) {
        self.pending.writes.push(Queued {
            query: query.to_string(),
            params: params.iter().map(|p| p.owned()).collect(),
        });
    }

    /// One statement (after what waits); how many rows it changed.
    pub fn execute(&mut self, query: &str, params: &[&dyn Param]) -> Result<u64, Error> {
        let typed = typed(params);
        flight!(self, |c| c.execute_typed(query, &typed))
    }

    pub fn query(&mut self, query: &str, params: &[&dyn Param]) -> Result<Vec<Row>, Error> {
        let typed = typed(params);
        flight!(self, |c| c.query_typed(query, &typed))
    }

    pub fn query_one(&mut self, query: &str, params: &[&dyn Param]) -> Result<Row, Error> {
        let typed = typed(params);
        flight!(self, |c| c.query_typed_one(query, &typed))
    }

    pub fn query_opt(&mut self, query: &str, params: &[&dyn Param]) -> Result<Option<Row>, Error> {
        let typed = typed(params);
        flight!(self, |c| c.query_typed_opt(query, &typed))
    }

    /// Statements without parameters (the simple query protocol), after what waits.
    pub fn batch_execute(&mut self, query: &str) -> Result<(), Error> {
        flight!(self, |c| c.batch_execute(query))
    }

    /// Queries in one flight (after what waits), each run after the one before as if sent
    /// alone: a later one sees what an earlier one waited for (a lock, say).
    pub fn queries(&mut self, list: &[(&str, &[&dyn Param])]) -> Result<Vec<Vec<Row>>, Error> {
        let typed: Vec<_> = list.iter().map(|(_, p)| typed(p)).collect();
        flight!(self, |c| in_order(c, list, &typed))
    }
}

/// The parameters of each query, typed.
type Args<'a> = Vec<(&'a (dyn ToSql + Sync), Type)>;

/// Sends `list` in order (each query's messages go out before the next one's) and waits
/// for every answer; the first error among them is the result.
async fn in_order(
    c: &tokio_postgres::Client,
    list: &[(&str, &[&dyn Param])],
    typed: &[Args<'_>],
) -> Result<Vec<Vec<Row>>, Error> {
    type Query<'a> = Pin<Box<dyn Future<Output = Result<Vec<Row>, Error>> + 'a>>;
    let mut sent: Vec<Query> = list
        .iter()
        .zip(typed)
        .map(|((q, _), p)| Box::pin(c.query_typed(q, p)) as Query)
        .collect();
    let mut answers: Vec<Option<Result<Vec<Row>, Error>>> = sent.iter().map(|_| None).collect();
    poll_fn(|cx| {
        for (f, a) in sent.iter_mut().zip(answers.iter_mut()) {
            if a.is_none() {
                if let Poll::Ready(r) = f.as_mut().poll(cx) {
                    *a = Some(r);
                }
            }
        }
        match answers.iter().all(Option::is_some) {
            true => Poll::Ready(answers.iter_mut().filter_map(Option::take).collect()),
            false => Poll::Pending,
        }
    })
    .await
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        // What never went out is dropped with it; what did is rolled back.
        if self.open && self.begun {
            let _ = self.client.batch_execute("ROLLBACK");
        }
    }
}
