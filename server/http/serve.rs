//! The HTTP/1.1 server: our own accept loop over hyper, because `axum::serve` cannot bound
//! what a client may hold. Without bounds, a client that opens connections and sends nothing,
//! half a request head, or a body a byte a minute keeps a task and a socket forever.
//!
//! Per connection, a watchdog follows what the connection is doing:
//! - **head**: from the accept, or from the first byte of a next request, the whole request
//!   head must arrive within [`HttpLimits::header_timeout`], else the connection is dropped;
//! - **busy**: a request is being served; its body must arrive within
//!   [`HttpLimits::body_timeout`] of its head (the reader then gets [`BodyTimedOut`], which the
//!   API answers with 408 and `Connection: close`);
//! - **idle**: a keep-alive connection between requests is closed after
//!   [`HttpLimits::idle_timeout`].
//!
//! At most [`HttpLimits::max_connections`] connections are served at once; further ones wait
//! in the listen backlog, unread, until one closes. On shutdown the loop stops accepting, idle
//! connections close, and requests under way finish.
//!
//! `main.rs` and the real-socket tests serve through [`serve`], so tests run what production runs.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

/// Bounds on what one client may hold; defaults suit a service behind a load balancer.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Time to send a whole request head (`--header-timeout`).
    pub header_timeout: Duration,
    /// Time a keep-alive connection may sit between requests (`--idle-timeout`).
    pub idle_timeout: Duration,
    /// Time for a request body to arrive after its head (`--body-timeout`).
    pub body_timeout: Duration,
    /// Connections served at once (`--max-connections`).
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
        }
    }
}

/// The error a request body gives when it did not arrive within the body timeout.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {after:?}")]
pub struct BodyTimedOut {
    pub after: Duration,
}

/// Serve `app` on every listener (a host name listens on each address it resolves to) until
/// `shutdown` completes; returns when all of them have let their requests finish.
pub async fn serve_all(
    listeners: Vec<TcpListener>,
    app: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let (stop, stopping) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop.send(true);
    });
    let mut serving = tokio::task::JoinSet::new();
    for listener in listeners {
        let mut asked = stopping.clone();
        serving.spawn(serve(listener, app.clone(), limits.clone(), async move {
            let _ = asked.wait_for(|stop| *stop).await;
        }));
    }
    let mut outcome = Ok(());
    while let Some(done) = serving.join_next().await {
        match done {
            Ok(Ok(())) => {}
            Ok(Err(e)) => outcome = Err(e),
            Err(e) => outcome = Err(io::Error::other(e)),
        }
    }
    outcome
}

/// Serve `app` on `listener` until `shutdown` completes, then let requests under way finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (stop, stopping) = watch::channel(false);
    let limits = Arc::new(limits);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // A slot first, then the accept: over the cap, connections wait in the backlog.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: wait rather than spin.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let limits = limits.clone();
        let stopping = stopping.clone();
        tokio::spawn(async move {
            connection(stream, peer, app, &limits, stopping).await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection holds a slot until it ends: having them all back means all are done.
    let _ = slots.acquire_many(max as u32).await;
    Ok(())
}

/// One connection, from accept to close. Each request carries the peer's address
/// (`ConnectInfo`), for limits per client address.
async fn connection(
    stream: TcpStream,
    peer: std::net::SocketAddr,
    app: Router,
    limits: &HttpLimits,
    mut stopping: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let body_timeout = limits.body_timeout;
    let service_activity = activity.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let guard = service_activity.request_started();
        let mut request = request.map(|body| Body::new(Deadline::new(body, body_timeout)));
        request
            .extensions_mut()
            .insert(axum::extract::ConnectInfo(peer));
        let app = app.clone();
        async move {
            let response = app.oneshot(request).await?;
            Ok::<_, Infallible>(response.map(|body| {
                Body::new(Finishing {
                    inner: body,
                    _guard: guard,
                })
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    // Our watchdog times heads; hyper's own timer would also cut idle keep-alive connections.
    builder.header_read_timeout(None);
    let conn = builder.serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let mut draining = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!("connection ended: {e}");
                }
                return;
            }
            changed = stopping.changed(), if !draining => {
                draining = true;
                if changed.is_ok() {
                    conn.as_mut().graceful_shutdown();
                }
            }
            () = activity.expired(limits) => {
                // Dropping the connection closes the socket.
                return;
            }
        }
    }
}

/// What a connection is doing, as far as the timeouts care.
struct Activity {
    state: Mutex<Phase>,
    changed: Notify,
}

#[derive(Clone, Copy)]
struct Phase {
    /// Requests whose response has not been fully written.
    in_flight: usize,
    /// When the head of the next request started (the accept, for a new connection).
    head_since: Option<Instant>,
    /// When the connection last became idle.
    idle_since: Instant,
}

impl Activity {
    fn new() -> Self {
        let now = Instant::now();
        Activity {
            state: Mutex::new(Phase {
                in_flight: 0,
                head_since: Some(now),
                idle_since: now,
            }),
            changed: Notify::new(),
        }
    }

    fn update(&self, change: impl FnOnce(&mut Phase) -> bool) {
        let changed = change(&mut self.state.lock().expect("activity lock"));
        if changed {
            self.changed.notify_waiters();
        }
    }

    /// Bytes arrived: between requests, they start the head of the next one. (Bytes read
    /// while a request is served are its body, or a pipelined request that then counts as
    /// idle until hyper reads its head.)
    fn read_some(&self) {
        self.update(|phase| {
            if phase.in_flight == 0 && phase.head_since.is_none() {
                phase.head_since = Some(Instant::now());
                true
            } else {
                false
            }
        });
    }

    /// A head was read whole and the request handed to the app.
    fn request_started(self: &Arc<Self>) -> InFlight {
        self.update(|phase| {
            phase.in_flight += 1;
            phase.head_since = None;
            true
        });
        InFlight(self.clone())
    }

    /// When the connection should be closed as things stand; `None` while serving.
    fn deadline(&self, limits: &HttpLimits) -> Option<Instant> {
        let phase = *self.state.lock().expect("activity lock");
        if phase.in_flight > 0 {
            None
        } else if let Some(since) = phase.head_since {
            Some(since + limits.header_timeout)
        } else {
            Some(phase.idle_since + limits.idle_timeout)
        }
    }

    /// Completes once the connection has been silent, or slow to send a head, for too long.
    async fn expired(&self, limits: &HttpLimits) {
        loop {
            // Registered before reading the state, so no change between the two is missed.
            let changed = self.changed.notified();
            match self.deadline(limits) {
                None => changed.await,
                Some(deadline) => {
                    tokio::select! {
                        () = changed => {}
                        () = tokio::time::sleep_until(deadline) => {
                            if self.deadline(limits).is_some_and(|d| d <= Instant::now()) {
                                return;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Held while a response is being written; its drop (the body sent or abandoned) makes the
/// connection idle again.
struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.update(|phase| {
            phase.in_flight -= 1;
            if phase.in_flight == 0 {
                phase.idle_since = Instant::now();
            }
            true
        });
    }
}

/// The socket, telling the watchdog when bytes arrive.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read_some();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// A request body that fails with [`BodyTimedOut`] when it has not all arrived in time.
struct Deadline {
    inner: Incoming,
    timer: Pin<Box<Sleep>>,
    after: Duration,
}

impl Deadline {
    fn new(inner: Incoming, after: Duration) -> Self {
        Deadline {
            inner,
            timer: Box::pin(tokio::time::sleep(after)),
            after,
        }
    }
}

impl HttpBody for Deadline {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(frame) => Poll::Ready(frame.map(|f| f.map_err(Into::into))),
            Poll::Pending => match self.timer.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    Poll::Ready(Some(Err(Box::new(BodyTimedOut { after: self.after }))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that keeps its request counted as in flight until it is dropped.
struct Finishing {
    inner: Body,
    _guard: InFlight,
}

impl HttpBody for Finishing {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
