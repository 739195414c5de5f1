//! The one HTTP client of all connectors: descriptive User-Agent, 15 s timeouts, and at most
//! `max_retries` retries on 429/5xx with backoff, honouring `Retry-After` up to a cap (SUPPLEMENT 1.16).

use std::time::Duration;

use bytes::Bytes;
use reqwest::{header::HeaderMap, Method, StatusCode};
use url::Url;

use crate::{
    transport::{redact, Transport},
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
}

impl Http {
    pub fn new(transport: Transport, retry: RetryPolicy) -> Result<Self, SourceError> {
        let client = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(Duration::from_secs(15))
            .timeout(Duration::from_secs(60))
            .read_timeout(Duration::from_secs(15))
            .build()
            .map_err(|e| SourceError::Transport { url: String::new(), detail: e.to_string() })?;
        Ok(Http { client, transport, retry })
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
            let resp = result.map_err(|e| transport_error(url, &e))?;
            let status = resp.status();
            let content_type = resp
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let body = resp.bytes().await.map_err(|e| transport_error(url, &e))?;
            return Ok(Reply { status, content_type, body });
        }
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

/// A failed exchange; a timeout says so first (reqwest's message may not).
fn transport_error(url: &Url, e: &reqwest::Error) -> SourceError {
    let detail = if e.is_timeout() { format!("timed out: {e}") } else { e.to_string() };
    SourceError::Transport { url: redact(url), detail }
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
