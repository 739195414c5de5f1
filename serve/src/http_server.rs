//! The public listener: HTTP/1.1 connections served by hyper under deadlines of our own. poem's
//! server gives hyper no timer, and hyper without one reads headers with no time limit, so a
//! socket that sends its request one byte a minute (slowloris) was held for ever. Here:
//!
//! - **header read** (hyper's own timer): from the start of a connection, and from the end of each
//!   response, to the end of the next request's headers. Slow headers and idle keep-alive
//!   connections are closed when it runs out.
//! - **body read**: from the end of the headers to the end of the body; a body still arriving
//!   then fails its read, and the request is refused as an unreadable body.
//! - **send rate** (`send_rate`): a response the client does not take at a minimum rate (after a
//!   grace) fails its connection, and its body is dropped.
//! - **connections**: at most `max_connections` open at once; one more is closed as soon as it is
//!   accepted (a refusal that costs an accept and a close).
//!
//! The per-request deadline and load shedding are the application's outer layer (`app`).
//! HTTP/1.1 only: TLS and HTTP/2 end at the deployment's proxy (no client here speaks h2c).

use std::{
    future::Future,
    io,
    net::SocketAddr,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use poem::{
    endpoint::BoxEndpoint,
    http::uri::Scheme,
    web::{LocalAddr, RemoteAddr},
    Endpoint,
};
use tokio::{net::TcpListener, sync::Semaphore};

use crate::send_rate::{MinSendRate, SendRate};

/// The listener's deadlines and its connection cap.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub header_read: Duration,
    pub body_read: Duration,
    pub max_connections: usize,
    /// How fast a client must take its responses (`send_rate`).
    pub send_rate: SendRate,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(30),
            max_connections: 4096,
            send_rate: SendRate::default(),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then lets open connections finish their
/// request for up to `grace`.
pub async fn serve(
    listener: TcpListener,
    app: BoxEndpoint<'static>,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()> {
    let local = listener.local_addr()?;
    let app = Arc::new(app);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (stopping, stop) = tokio::sync::watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (socket, remote) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A connection its client gave up before it was taken: the next one at once.
                Err(e) if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::Interrupted
                ) => continue,
                Err(e) => {
                    // Out of descriptors or memory: wait a moment rather than spin on the error.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            drop(socket);
            continue;
        };
        let _ = socket.set_nodelay(true);
        let (app, mut stop) = (app.clone(), stop.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |req| {
                let app = app.clone();
                async move { Ok::<_, std::convert::Infallible>(answer(&app, req, local, remote, limits.body_read).await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read).keep_alive(true);
            let conn = builder.serve_connection(TokioIo::new(MinSendRate::new(socket, limits.send_rate)), service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = stop.wait_for(|stopping| *stopping) => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(grace, conn).await;
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    // Every connection gives its slot back when it has ended.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(grace + Duration::from_secs(1), slots.acquire_many(all)).await;
    Ok(())
}

/// One request through the application, its body (if it has one) read under the body deadline.
async fn answer(
    app: &BoxEndpoint<'static>,
    req: hyper::Request<Incoming>,
    local: SocketAddr,
    remote: SocketAddr,
    body_read: Duration,
) -> hyper::Response<BoxBody<Bytes, io::Error>> {
    let has_body = !req.body().is_end_stream();
    let mut req: poem::Request = (req, LocalAddr(local.into()), RemoteAddr(remote.into()), Scheme::HTTP).into();
    if has_body {
        let body: BoxBody<Bytes, io::Error> = req.take_body().into();
        let deadline = Box::pin(tokio::time::sleep(body_read));
        req.set_body(poem::Body::from(BoxBody::new(BodyWithDeadline { body, deadline })));
    }
    app.get_response(req).await.into()
}

/// A request body that fails once its deadline has passed before its end arrived.
struct BodyWithDeadline {
    body: BoxBody<Bytes, io::Error>,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl HttpBody for BodyWithDeadline {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Pending if this.deadline.as_mut().poll(cx).is_ready() => Poll::Ready(Some(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the request body did not arrive within its deadline",
            )))),
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
