//! The minimum send rate of a connection: the request deadline and the in-flight cap end when a
//! response exists, before its body is sent, so a client that never reads would keep a response
//! (a batch answer is up to 20 MB) in memory for as long as TCP keeps the socket open. Here a
//! write that cannot go on starts a spell; the spell must end (everything buffered handed to the
//! socket) within `grace` plus the time its bytes take at `min_rate`, or the connection fails
//! and its response is dropped. A client that reads at the minimum rate or faster never meets it.

use std::{
    future::Future,
    io,
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How fast a client must take what it asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendRate {
    /// How long a spell may last before its bytes count.
    pub grace: Duration,
    /// Bytes a second, on average over a spell.
    pub min_rate: u64,
}

impl Default for SendRate {
    fn default() -> Self {
        SendRate { grace: Duration::from_secs(10), min_rate: 64 * 1024 }
    }
}

/// A socket whose writes fail once a spell outlasts its time.
pub struct MinSendRate<S> {
    inner: S,
    rate: SendRate,
    /// The end of the current spell's time, while one lasts.
    spell: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> MinSendRate<S> {
    pub fn new(inner: S, rate: SendRate) -> Self {
        MinSendRate { inner, rate, spell: None }
    }

    /// What a write of the inner socket came to: bytes taken give the spell the time they take at
    /// the minimum rate; a write that must wait starts or continues a spell.
    fn written(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        match polled {
            Poll::Ready(Ok(n)) => {
                if let Some(deadline) = &mut self.spell {
                    let taken = Duration::from_secs_f64(n as f64 / self.rate.min_rate.max(1) as f64);
                    let later = deadline.deadline() + taken;
                    deadline.as_mut().reset(later);
                }
                Poll::Ready(Ok(n))
            }
            Poll::Pending => self.waiting(cx),
            failed => failed,
        }
    }

    /// The inner write is waiting for the client: a spell starts, or goes on if it has time left.
    fn waiting<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let grace = self.rate.grace;
        let deadline = self.spell.get_or_insert_with(|| Box::pin(tokio::time::sleep(grace)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not take the response at the minimum send rate",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for MinSendRate<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for MinSendRate<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.written(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.written(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    /// Everything buffered has been handed to the socket: the spell is over.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(Ok(())) => {
                this.spell = None;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => this.waiting(cx),
            failed => failed,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    const RATE: SendRate = SendRate { grace: Duration::from_millis(200), min_rate: 64 * 1024 };

    /// A response of `len` bytes through a 4 KB pipe to a client reading `per_tick` bytes every
    /// 10 ms (none: never): whether it was all sent, and when the writer stopped.
    async fn send(len: usize, per_tick: Option<usize>) -> (io::Result<()>, Duration) {
        let (server, mut client) = tokio::io::duplex(4096);
        let reader = tokio::spawn(async move {
            let Some(n) = per_tick else { return std::future::pending::<()>().await };
            let mut buf = vec![0u8; n];
            loop {
                match client.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => tokio::time::sleep(Duration::from_millis(10)).await,
                }
            }
        });
        let started = Instant::now();
        let mut socket = MinSendRate::new(server, RATE);
        let sent = async {
            socket.write_all(&vec![7u8; len]).await?;
            socket.flush().await
        }
        .await;
        reader.abort();
        (sent, started.elapsed())
    }

    #[tokio::test]
    async fn a_client_that_never_reads_is_let_go_after_the_grace() {
        let (sent, after) = send(1 << 20, None).await;
        assert_eq!(sent.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(after >= RATE.grace && after < Duration::from_secs(2), "{after:?}");
    }

    #[tokio::test]
    async fn a_client_that_reads_too_slowly_is_let_go() {
        // 256 bytes every 10 ms (under 26 KB/s) of 2 MB: the spell's time grows by 4 ms a tick
        // while 10 ms pass, so it runs out about half a second in, long before the end.
        let (sent, _) = send(2 << 20, Some(256)).await;
        assert_eq!(sent.unwrap_err().kind(), io::ErrorKind::TimedOut);
    }

    #[tokio::test]
    async fn a_client_that_reads_is_sent_everything() {
        let (sent, _) = send(1 << 20, Some(64 * 1024)).await;
        sent.unwrap();
    }
}
