//! The one HTTP client of all connectors: descriptive User-Agent, 15 s timeouts, and at most
//! `max_retries` retries on 429/5xx with backoff, honouring `Retry-After` up to a cap (SUPPLEMENT 1.16).

use std::time::Duration;

use bytes::Bytes;
use reqwest::{header::HeaderMap, Method, StatusCode};
use url::Url;

use crate::{
    transport::{error_text, redact, Transport},
    SourceError,
};

pub const USER_AGENT: &str = concat!("sitrep/", env!("CARGO_PKG_VERSION"), " (+https://sitrep.example)");

#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { max_retries: 2, base_delay: Duration::from_millis(500), max_retry_after: Duration::from_secs(60) }
    }
}

/// A finished exchange: the final status and body after retries.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub content_type: String,
    pub body: Bytes,
}

impl Reply {
    pub fn is_html(&self) -> bool {
        self.content_type.contains("html")
    }
}

/// A request body: a form (OAuth token requests) or raw bytes (JSON).
enum Body<'a> {
    Form(&'a [(&'a str, &'a str)]),
    Bytes(Vec<u8>),
}

#[derive(Debug, Clone)]
pub struct Http {
    client: reqwest::Client,
    transport: Transport,
    retry: RetryPolicy,
    /// Bytes an answer may have at most (its body is read up to here, then the read fails).
    max_body: usize,
}

/// What one upstream answer may weigh by default: the largest recorded (a Natural Earth archive,
/// ACLED's 5,000-row pages) are a few MB, so this only stops an upstream gone wrong or hostile
/// from filling the worker's memory.
pub const MAX_BODY: usize = 256 << 20;

/// Redirects followed at most; never from https to anything else (a downgrade would send the
/// request's credentials in the clear).
const MAX_REDIRECTS: usize = 5;

fn redirect_policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| match redirect_refused(attempt.previous(), attempt.url()) {
        Some(why) => attempt.error(why),
        None => attempt.follow(),
    })
}

/// Why a redirect to `next` after `previous` (the request's URL and the redirects so far) is not
/// followed, if it is not.
fn redirect_refused(previous: &[Url], next: &Url) -> Option<&'static str> {
    if previous.iter().any(|u| u.scheme() == "https") && next.scheme() != "https" {
        Some("a redirect from https to another scheme")
    } else if previous.len() > MAX_REDIRECTS {
        Some("too many redirects")
    } else {
        None
    }
}

impl Http {
    pub fn new(transport: Transport, retry: RetryPolicy) -> Result<Self, SourceError> {
        let client = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(Duration::from_secs(15))
            .timeout(Duration::from_secs(60))
            .read_timeout(Duration::from_secs(15))
            .redirect(redirect_policy())
            .build()
            .map_err(|e| SourceError::Transport { url: String::new(), detail: e.to_string() })?;
        Ok(Http { client, transport, retry, max_body: MAX_BODY })
    }

    /// The same client, its answers cut off past `bytes` (a read-through call answering one
    /// request needs far less than a worker's download).
    pub fn with_max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Sends a request, retrying 429/5xx. Returns the final reply whatever its status: callers decide
    /// which statuses are data (UCDP's 404 for a missing release is an answer, not a failure).
    pub async fn send(
        &self,
        method: Method,
        url: &Url,
        headers: HeaderMap,
        form: Option<&[(&str, &str)]>,
        timeout: Option<Duration>,
    ) -> Result<Reply, SourceError> {
        self.exchange(method, url, headers, form.map(Body::Form), timeout).await
    }

    /// As [`Self::send`], with a raw request body (a JSON document; the caller sets its type).
    pub async fn send_body(
        &self,
        method: Method,
        url: &Url,
        headers: HeaderMap,
        body: Vec<u8>,
        timeout: Option<Duration>,
    ) -> Result<Reply, SourceError> {
        self.exchange(method, url, headers, Some(Body::Bytes(body)), timeout).await
    }

    async fn exchange(
        &self,
        method: Method,
        url: &Url,
        headers: HeaderMap,
        body: Option<Body<'_>>,
        timeout: Option<Duration>,
    ) -> Result<Reply, SourceError> {
        let target = self.transport.resolve(url);
        let mut attempt = 0;
        loop {
            let mut req = self.client.request(method.clone(), target.clone()).headers(headers.clone());
            match &body {
                Some(Body::Form(form)) => req = req.form(form),
                Some(Body::Bytes(bytes)) => req = req.body(bytes.clone()),
                None => {}
            }
            if let Some(t) = timeout {
                req = req.timeout(t);
            }
            let result = req.send().await;
            let retry_wait = match &result {
                Ok(resp) if resp.status() == StatusCode::TOO_MANY_REQUESTS || resp.status().is_server_error() => {
                    Some(self.retry_after(resp.headers(), attempt))
                }
                Ok(_) => None,
                Err(e) if e.is_timeout() || e.is_connect() => Some(self.backoff(attempt)),
                Err(_) => None,
            };
            if let Some(wait) = retry_wait {
                if attempt < self.retry.max_retries {
                    attempt += 1;
                    tracing::debug!(url = %redact(url), attempt, ?wait, "retrying upstream request");
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            let resp = result.map_err(|e| transport_error(url, e))?;
            let status = resp.status();
            let content_type = resp
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let body = self.read_body(url, resp).await?;
            return Ok(Reply { status, content_type, body });
        }
    }

    /// The answer's body, up to `max_body` bytes: a longer one (announced or arriving) is an
    /// error, and what was read of it is dropped.
    async fn read_body(&self, url: &Url, mut resp: reqwest::Response) -> Result<Bytes, SourceError> {
        let too_large = || SourceError::Transport {
            url: redact(url),
            detail: format!("the answer is larger than {} bytes", self.max_body),
        };
        if resp.content_length().is_some_and(|n| n > self.max_body as u64) {
            return Err(too_large());
        }
        let mut body = bytes::BytesMut::new();
        while let Some(chunk) = resp.chunk().await.map_err(|e| transport_error(url, e))? {
            if body.len() + chunk.len() > self.max_body {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.freeze())
    }

    /// GET that must answer 2xx with a non-HTML body.
    pub async fn get_ok(&self, url: &Url, headers: HeaderMap) -> Result<Reply, SourceError> {
        let reply = self.send(Method::GET, url, headers, None, None).await?;
        ensure_ok(url, reply)
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let jitter = Duration::from_millis(rand::random::<u64>() % 100);
        self.retry.base_delay * 2u32.pow(attempt) + jitter
    }

    fn retry_after(&self, headers: &HeaderMap, attempt: u32) -> Duration {
        headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(|s| Duration::from_secs(s).min(self.retry.max_retry_after))
            .unwrap_or_else(|| self.backoff(attempt))
    }
}

/// A failed exchange; a timeout says so first (reqwest's message may not). Neither part carries
/// the query: some upstreams take their key there (AviationStack's `access_key`).
fn transport_error(url: &Url, e: reqwest::Error) -> SourceError {
    SourceError::Transport { url: redact(url), detail: error_text(e) }
}

/// A 2xx reply whose body is not an HTML error page; anything else becomes a `SourceError`.
pub fn ensure_ok(url: &Url, reply: Reply) -> Result<Reply, SourceError> {
    if reply.is_html() {
        return Err(status_error(url, &reply));
    }
    ensure_success(url, reply)
}

/// A 2xx reply of any type (a directory listing is HTML by nature).
pub fn ensure_success(url: &Url, reply: Reply) -> Result<Reply, SourceError> {
    if !reply.status.is_success() {
        return Err(status_error(url, &reply));
    }
    Ok(reply)
}

fn status_error(url: &Url, reply: &Reply) -> SourceError {
    let snippet: String = String::from_utf8_lossy(&reply.body).chars().take(160).collect();
    SourceError::Status { url: redact(url), status: reply.status.as_u16(), snippet }
}

#[cfg(test)]
mod tests {
    use std::{
        io::Write,
        sync::{Arc, Mutex},
    };

    use super::*;

    /// Every log line written while it is the thread's subscriber (debug and up).
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A local server answering every connection with `answer` (a whole HTTP/1.1 response).
    async fn answering(answer: String) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let answer = answer.clone();
                tokio::spawn(async move {
                    use tokio::io::{AsyncReadExt, AsyncWriteExt};
                    let mut buf = [0u8; 4096];
                    let _ = socket.read(&mut buf).await;
                    let _ = socket.write_all(answer.as_bytes()).await;
                });
            }
        });
        base
    }

    #[tokio::test]
    async fn answers_past_the_byte_limit_are_refused() {
        let http = Http::new(Transport::Live, RetryPolicy { max_retries: 0, ..RetryPolicy::default() })
            .unwrap()
            .with_max_body(1_000);
        let url = |base: &str| Url::parse(&format!("{base}/big")).unwrap();
        let announced = answering(format!("HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n{}", "a".repeat(5000))).await;
        let e = http.get_ok(&url(&announced), HeaderMap::new()).await.unwrap_err();
        assert!(e.to_string().contains("larger than 1000 bytes"), "{e}");
        // Unannounced (to the end of the connection): cut off as it arrives.
        let streamed = answering(format!("HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{}", "a".repeat(5000))).await;
        let e = http.get_ok(&url(&streamed), HeaderMap::new()).await.unwrap_err();
        assert!(e.to_string().contains("larger than 1000 bytes"), "{e}");
        let small = answering("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}".into()).await;
        assert_eq!(&http.get_ok(&url(&small), HeaderMap::new()).await.unwrap().body[..], b"{}");
    }

    #[test]
    fn redirects_never_leave_https() {
        let u = |s: &str| Url::parse(s).unwrap();
        let (https, http) = (u("https://api.example/v1"), u("http://api.example/v1"));
        assert_eq!(
            redirect_refused(std::slice::from_ref(&https), &http),
            Some("a redirect from https to another scheme")
        );
        assert!(redirect_refused(&[https.clone(), u("https://cdn.example/a")], &http).is_some());
        assert_eq!(redirect_refused(std::slice::from_ref(&https), &u("https://cdn.example/a")), None);
        assert_eq!(
            redirect_refused(std::slice::from_ref(&http), &u("http://other.example/")),
            None,
            "plain http may move"
        );
        assert_eq!(
            redirect_refused(&vec![https; MAX_REDIRECTS + 1], &u("https://x.example/")),
            Some("too many redirects")
        );
    }

    /// An upstream that takes its key in the query and never answers: neither the error nor
    /// anything logged on the way (the retry, the caller's warning of the error) names the key.
    #[tokio::test]
    async fn a_timeout_never_names_the_query_key() {
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        // Accepts and holds every connection without a byte of answer.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", silent.local_addr().unwrap());
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = silent.accept().await {
                open.push(socket);
            }
        });
        let retry = RetryPolicy { max_retries: 1, base_delay: Duration::from_millis(1), ..RetryPolicy::default() };
        let http = Http::new(Transport::Live, retry).unwrap();
        let secret = "0123456789abcdef0123456789abcdef";
        let query = [("flight_iata", "TK2120")];
        let timeout = Some(Duration::from_millis(200));
        let e = crate::aviationstack::flights(&http, &base, secret, &query, timeout).await.unwrap_err();
        tracing::warn!(error = %e, "aviationstack flight status failed");
        held.abort();
        let (text, debug) = (e.to_string(), format!("{e:?}"));
        assert!(text.contains("timed out") && text.contains("/v1/flights"), "{text}");
        let logged = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
        assert!(logged.contains("retrying upstream request") && logged.contains("timed out"), "{logged}");
        for shown in [&text, &debug, &logged] {
            assert!(!shown.contains(secret) && !shown.contains("access_key"), "the key is shown: {shown}");
        }
    }
}
