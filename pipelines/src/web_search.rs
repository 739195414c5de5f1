//! Company monitoring's SEARCH provider (SUPPLEMENT 4.8, a Decision): our web-search contract
//! (`POST {url}` with `{query, since, until, limit}`), a SearXNG instance (`GET {url}/search`
//! with `format=json`), with an optional bearer token, GDELT's DOC 2.0 API (keyless, titles
//! only, one request every 5 s), or Exa's search API (`POST {url}`, the key in `x-api-key`).
//! Each query answers its results, whether they were capped, and whether the provider answered
//! only in part; or the reasonCode of 4.8.

use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};
use reqwest::{
    header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE},
    Method,
};
use serde::Deserialize;
use url::Url;

use crate::{http::Http, SourceError};

/// The most results a query asks for.
pub const LIMIT: u32 = 25;
/// How long one query may take.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The most articles a GDELT query asks for.
const GDELT_MAX_RECORDS: usize = 75;
/// GDELT asks for at most one request every 5 s.
pub const GDELT_PACE: Duration = Duration::from_secs(5);

/// Which API the provider speaks (`SEARCH_PROVIDER_KIND`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Contract,
    Searxng,
    Gdelt,
    Exa,
}

impl Kind {
    /// `contract` (the default), `searxng`, `gdelt` or `exa`.
    pub fn parse(value: &str) -> Option<Kind> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "contract" => Some(Kind::Contract),
            "searxng" => Some(Kind::Searxng),
            "gdelt" => Some(Kind::Gdelt),
            "exa" => Some(Kind::Exa),
            _ => None,
        }
    }

    /// How long apart its requests must start, across this process (`None`: no pacing).
    fn pace(self) -> Option<Duration> {
        (self == Kind::Gdelt).then_some(GDELT_PACE)
    }
}

pub use crate::pace::Pacer;

/// A query's failure, by the reasonCode of 4.8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("authentication_failed")]
    AuthenticationFailed,
    #[error("rate_limited")]
    RateLimited,
    #[error("provider_unavailable")]
    ProviderUnavailable,
    #[error("timeout")]
    Timeout,
    #[error("request_rejected")]
    RequestRejected,
    #[error("malformed")]
    Malformed,
    #[error("invalid_empty")]
    InvalidEmpty,
}

impl Failure {
    pub fn reason_code(self) -> &'static str {
        match self {
            Failure::AuthenticationFailed => "authentication_failed",
            Failure::RateLimited => "rate_limited",
            Failure::ProviderUnavailable => "provider_unavailable",
            Failure::Timeout => "timeout",
            Failure::RequestRejected => "request_rejected",
            Failure::Malformed => "malformed",
            Failure::InvalidEmpty => "invalid_empty",
        }
    }
}

/// One result as the provider reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub url: String,
    pub title: String,
    pub snippet: String,
    /// Epoch ms; `None` when the provider gave no date.
    pub published_at: Option<i64>,
    pub publisher: String,
}

/// One query's answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Answer {
    pub results: Vec<Found>,
    /// The provider had more than it returned.
    pub capped: bool,
    /// Some of the provider's engines did not answer (SearXNG's `unresponsive_engines`).
    pub partial: bool,
}

/// A configured SEARCH provider.
#[derive(Debug, Clone)]
pub struct SearchProvider {
    pub url: String,
    pub api_key: Option<String>,
    pub kind: Kind,
    pub timeout: Duration,
    /// The turns of a paced provider (GDELT), shared by every clone of it.
    pub pacer: std::sync::Arc<Pacer>,
}

impl SearchProvider {
    pub fn new(url: String, api_key: Option<String>, kind: Kind, timeout: Duration) -> Self {
        SearchProvider { url, api_key, kind, timeout, pacer: Default::default() }
    }

    /// The provider taking its turns from `pacer` (shared by every worker through Redis).
    pub fn with_pacer(mut self, pacer: Pacer) -> Self {
        self.pacer = std::sync::Arc::new(pacer);
        self
    }
}

/// GDELT's `artlist` answer: `articles` is absent when nothing matched.
#[derive(Deserialize)]
struct GdeltBody {
    #[serde(default)]
    articles: Vec<GdeltArticle>,
}

#[derive(Deserialize)]
struct GdeltArticle {
    url: String,
    #[serde(default)]
    title: String,
    /// `YYYYMMDDThhmmssZ`, when GDELT first saw the article.
    #[serde(default)]
    seendate: String,
    #[serde(default)]
    domain: String,
}

/// GDELT's `seendate` (`20261118T091200Z`) as epoch ms.
fn gdelt_time(text: &str) -> Option<i64> {
    NaiveDateTime::parse_from_str(text.trim(), "%Y%m%dT%H%M%SZ").ok().map(|t| t.and_utc().timestamp_millis())
}

/// Exa's `/search` answer.
#[derive(Deserialize)]
struct ExaBody {
    results: Vec<ExaResult>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExaResult {
    url: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    published_date: Option<String>,
    #[serde(default)]
    highlights: Vec<String>,
}

#[derive(Deserialize)]
struct ContractBody {
    results: Vec<ContractResult>,
    #[serde(default)]
    truncated: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContractResult {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    snippet: String,
    #[serde(default)]
    published_at: Option<String>,
    #[serde(default)]
    publisher: String,
}

#[derive(Deserialize)]
struct SearxngBody {
    results: Vec<SearxngResult>,
    #[serde(default)]
    number_of_results: f64,
    #[serde(default)]
    unresponsive_engines: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearxngResult {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    published_date: Option<String>,
}

/// An RFC 3339 time, or one without a zone (taken as UTC, as SearXNG writes them).
fn epoch_ms(text: &str) -> Option<i64> {
    let text = text.trim();
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .ok()
        .or_else(|| {
            NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f").ok().map(|t| t.and_utc().timestamp_millis())
        })
        .or_else(|| {
            NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f").ok().map(|t| t.and_utc().timestamp_millis())
        })
}

/// A failed exchange by its reasonCode: a timeout, else an unreachable provider.
pub(crate) fn transport_failure(e: &SourceError) -> Failure {
    match e {
        SourceError::Transport { detail, .. } if detail.contains("timed out") || detail.contains("timeout") => {
            Failure::Timeout
        }
        _ => Failure::ProviderUnavailable,
    }
}

impl SearchProvider {
    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(value) = self.api_key.as_ref().and_then(|k| HeaderValue::from_str(&format!("Bearer {k}")).ok()) {
            headers.insert(AUTHORIZATION, value);
        }
        headers
    }

    /// Searches for `query` published between `since` and `until`.
    pub async fn search(
        &self,
        http: &Http,
        query: &str,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Answer, Failure> {
        if let Some(every) = self.kind.pace() {
            self.pacer.turn(every).await;
        }
        let asked = async {
            match self.kind {
                Kind::Contract => self.contract(http, query, since, until).await,
                Kind::Searxng => self.searxng(http, query, since, until).await,
                Kind::Gdelt => self.gdelt(http, query, since, until).await,
                Kind::Exa => self.exa(http, query, since, until).await,
            }
        };
        // `timeout` bounds the whole query, retries and their waits included (a 429's
        // Retry-After may ask for a minute): a scan's queries fit in its lease.
        tokio::time::timeout(self.timeout, asked).await.unwrap_or(Err(Failure::Timeout))
    }

    /// A reply's JSON answer, or its failure by reasonCode (`forbidden`: what a 403 means for
    /// this API): the status, then an empty body, then JSON that is not the answer's shape.
    pub(crate) fn answer<T: serde::de::DeserializeOwned>(
        reply: &crate::http::Reply,
        forbidden: Failure,
    ) -> Result<T, Failure> {
        match reply.status.as_u16() {
            200..=299 => {}
            401 => return Err(Failure::AuthenticationFailed),
            403 => return Err(forbidden),
            429 => return Err(Failure::RateLimited),
            500..=599 => return Err(Failure::ProviderUnavailable),
            _ => return Err(Failure::RequestRejected),
        }
        if reply.body.iter().all(u8::is_ascii_whitespace) {
            return Err(Failure::InvalidEmpty);
        }
        serde_json::from_slice(&reply.body).map_err(|_| Failure::Malformed)
    }

    async fn contract(
        &self,
        http: &Http,
        query: &str,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Answer, Failure> {
        let url = Url::parse(&self.url).map_err(|_| Failure::RequestRejected)?;
        let body = serde_json::json!({
            "query": query,
            "since": since.to_rfc3339_opts(SecondsFormat::Secs, true),
            "until": until.to_rfc3339_opts(SecondsFormat::Secs, true),
            "limit": LIMIT,
        });
        let mut headers = self.headers();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let reply = http
            .send_body(Method::POST, &url, headers, body.to_string().into_bytes(), Some(self.timeout))
            .await
            .map_err(|e| transport_failure(&e))?;
        let parsed: ContractBody = Self::answer(&reply, Failure::AuthenticationFailed)?;
        let capped = parsed.truncated || parsed.results.len() >= LIMIT as usize;
        let results = parsed
            .results
            .into_iter()
            .take(LIMIT as usize)
            .map(|r| Found {
                published_at: r.published_at.as_deref().and_then(epoch_ms),
                url: r.url,
                title: r.title,
                snippet: r.snippet,
                publisher: r.publisher,
            })
            .collect();
        Ok(Answer { results, capped, partial: false })
    }

    async fn searxng(
        &self,
        http: &Http,
        query: &str,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Answer, Failure> {
        let mut url =
            Url::parse(&format!("{}/search", self.url.trim_end_matches('/'))).map_err(|_| Failure::RequestRejected)?;
        url.query_pairs_mut()
            .append_pair("q", query)
            .append_pair("format", "json")
            .append_pair("categories", "news")
            .append_pair("time_range", "week")
            .append_pair("pageno", "1");
        let reply = http
            .send(Method::GET, &url, self.headers(), None, Some(self.timeout))
            .await
            .map_err(|e| transport_failure(&e))?;
        // An instance whose settings leave JSON output off answers 403.
        let parsed: SearxngBody = Self::answer(&reply, Failure::RequestRejected)?;
        let returned = parsed.results.len();
        let window = since.timestamp_millis()..=until.timestamp_millis();
        let results: Vec<Found> = parsed
            .results
            .into_iter()
            .filter_map(|r| {
                // Results without a date, or outside the window, are dropped.
                let published_at = r.published_date.as_deref().and_then(epoch_ms).filter(|t| window.contains(t))?;
                let publisher = Url::parse(&r.url).ok()?.host_str()?.to_ascii_lowercase();
                Some(Found {
                    url: r.url,
                    title: r.title,
                    snippet: r.content,
                    published_at: Some(published_at),
                    publisher,
                })
            })
            .collect();
        // "No result came back" is judged on what the instance returned, before the undated and
        // out-of-window results are dropped: results that came back make the query partial.
        let unresponsive = !parsed.unresponsive_engines.is_empty();
        if unresponsive && returned == 0 {
            return Err(Failure::ProviderUnavailable);
        }
        Ok(Answer { capped: parsed.number_of_results > returned as f64, partial: unresponsive, results })
    }

    async fn exa(
        &self,
        http: &Http,
        query: &str,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Answer, Failure> {
        let url = Url::parse(&self.url).map_err(|_| Failure::RequestRejected)?;
        let stamp = |t: DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
        let body = serde_json::json!({
            "query": query,
            "numResults": LIMIT,
            "startPublishedDate": stamp(since),
            "endPublishedDate": stamp(until),
            "category": "news",
            "contents": {"highlights": true},
        });
        let reply = http
            .send_body(Method::POST, &url, self.exa_headers(), body.to_string().into_bytes(), Some(self.timeout))
            .await
            .map_err(|e| transport_failure(&e))?;
        let parsed: ExaBody = Self::answer(&reply, Failure::AuthenticationFailed)?;
        let capped = parsed.results.len() >= LIMIT as usize;
        let window = since.timestamp_millis()..=until.timestamp_millis();
        let results = parsed
            .results
            .into_iter()
            .take(LIMIT as usize)
            .filter_map(|r| {
                let published_at = r.published_date.as_deref().and_then(epoch_ms);
                // Exa filters by date already; one it dates outside the window is dropped.
                if published_at.is_some_and(|t| !window.contains(&t)) {
                    return None;
                }
                let publisher = Url::parse(&r.url).ok()?.host_str()?.to_ascii_lowercase();
                Some(Found {
                    snippet: r.highlights.into_iter().next().unwrap_or_default(),
                    title: r.title.unwrap_or_default(),
                    url: r.url,
                    published_at,
                    publisher,
                })
            })
            .collect();
        Ok(Answer { results, capped, partial: false })
    }

    /// Exa's key goes in `x-api-key`, not as a bearer token.
    fn exa_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(value) = self.api_key.as_ref().and_then(|k| HeaderValue::from_str(k).ok()) {
            headers.insert("x-api-key", value);
        }
        headers
    }

    async fn gdelt(
        &self,
        http: &Http,
        query: &str,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Answer, Failure> {
        let mut url = Url::parse(&self.url).map_err(|_| Failure::RequestRejected)?;
        let stamp = |t: DateTime<Utc>| t.format("%Y%m%d%H%M%S").to_string();
        url.query_pairs_mut()
            .append_pair("query", query)
            .append_pair("mode", "artlist")
            .append_pair("format", "json")
            .append_pair("maxrecords", &GDELT_MAX_RECORDS.to_string())
            .append_pair("sort", "datedesc")
            .append_pair("startdatetime", &stamp(since))
            .append_pair("enddatetime", &stamp(until));
        // Keyless: no bearer, whatever SEARCH_PROVIDER_API_KEY says.
        let reply = http
            .send(Method::GET, &url, HeaderMap::new(), None, Some(self.timeout))
            .await
            .map_err(|e| transport_failure(&e))?;
        let parsed: Result<GdeltBody, Failure> = Self::answer(&reply, Failure::AuthenticationFailed);
        // GDELT answers its errors (a phrase too short, a bad date) as plain text with status 200.
        if matches!(parsed, Err(Failure::Malformed)) {
            let first_line = String::from_utf8_lossy(&reply.body)
                .lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(200)
                .collect::<String>();
            tracing::warn!(first_line, "GDELT answered something other than JSON");
        }
        let parsed = parsed?;
        let capped = parsed.articles.len() >= GDELT_MAX_RECORDS;
        let window = since.timestamp_millis()..=until.timestamp_millis();
        let results = parsed
            .articles
            .into_iter()
            .filter_map(|a| {
                let published_at = gdelt_time(&a.seendate).filter(|t| window.contains(t))?;
                Some(Found {
                    url: a.url,
                    title: a.title,
                    snippet: String::new(),
                    published_at: Some(published_at),
                    publisher: a.domain,
                })
            })
            .collect();
        Ok(Answer { results, capped, partial: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{http::RetryPolicy, replay::FixtureServer};

    /// The provider of `kind` over the recordings of `scenario`, with a 1 s timeout and no retries.
    async fn provider(scenario: &str, kind: Kind) -> (FixtureServer, Http, SearchProvider) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/fixtures/web-search").join(scenario);
        let server = FixtureServer::start_dirs(&[dir]).await.unwrap();
        let http = Http::new(server.transport(), RetryPolicy { max_retries: 0, ..RetryPolicy::default() }).unwrap();
        let url = match kind {
            Kind::Contract => "https://search.provider.example/v1/search",
            Kind::Searxng => "https://searxng.provider.example",
            Kind::Gdelt => "https://api.gdeltproject.org/api/v2/doc/doc",
            Kind::Exa => "https://api.exa.ai/search",
        };
        let provider = SearchProvider::new(url.into(), Some("REDACTED".into()), kind, Duration::from_secs(1));
        (server, http, provider)
    }

    fn window() -> (DateTime<Utc>, DateTime<Utc>) {
        let until = DateTime::parse_from_rfc3339("2026-11-20T06:00:00Z").unwrap().with_timezone(&Utc);
        (until - chrono::Duration::days(7), until)
    }

    async fn search(scenario: &str, kind: Kind, query: &str) -> Result<Answer, Failure> {
        let (_server, http, p) = provider(scenario, kind).await;
        let (since, until) = window();
        p.search(&http, query, since, until).await
    }

    /// The name's query of `kind` over the recordings of `scenario` fails with `failure`.
    async fn fails_with(kind: Kind, scenario: &str, failure: Failure) {
        assert_eq!(search(scenario, kind, "\"Ashgrove Pharma\"").await, Err(failure), "{scenario}");
    }

    #[tokio::test]
    async fn the_contract_answers_each_query() {
        let answer = search("normal", Kind::Contract, "\"Ashgrove Pharma\"").await.unwrap();
        assert_eq!((answer.results.len(), answer.capped, answer.partial), (4, false, false));
        assert_eq!(answer.results[0].publisher, "PharmaTimes");
        assert_eq!(answer.results[0].published_at, Some(1_794_993_120_000));
        let other = search("normal", Kind::Contract, "\"ashgrovepharma.co.uk\"").await.unwrap();
        assert!(other.results.is_empty());
        assert!(search("capped", Kind::Contract, "\"Ashgrove Pharma\"").await.unwrap().capped);
    }

    #[tokio::test]
    async fn every_failure_has_its_reason_code() {
        for (scenario, failure) in [
            ("unauthorized", Failure::AuthenticationFailed),
            ("rate-limited", Failure::RateLimited),
            ("server-error", Failure::ProviderUnavailable),
            ("rejected", Failure::RequestRejected),
            ("timeout", Failure::Timeout),
            ("malformed", Failure::Malformed),
            ("empty", Failure::InvalidEmpty),
        ] {
            fails_with(Kind::Contract, scenario, failure).await;
        }
        let unreachable = SearchProvider::new("http://127.0.0.1:9/v1/search".into(), None, Kind::Contract, TIMEOUT);
        let http =
            Http::new(crate::transport::Transport::Live, RetryPolicy { max_retries: 0, ..RetryPolicy::default() })
                .unwrap();
        let (since, until) = window();
        assert_eq!(unreachable.search(&http, "x", since, until).await, Err(Failure::ProviderUnavailable));
    }

    /// Issue 46: a provider answering 429 with `Retry-After: 60` to every request made a query
    /// wait two minutes between its retries; the query's timeout now covers its retries.
    #[tokio::test]
    async fn a_query_never_waits_past_its_timeout_retries_included() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    let _ = s.read(&mut buf).await;
                    let busy = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 60\r\nContent-Length: 0\r\n\r\n";
                    let _ = s.write_all(busy.as_bytes()).await;
                });
            }
        });
        let provider = SearchProvider::new(
            format!("http://127.0.0.1:{port}/v1/search"),
            None,
            Kind::Contract,
            Duration::from_secs(1),
        );
        // The default policy: two retries, each waiting what Retry-After asks (up to 60 s).
        let http = Http::new(crate::transport::Transport::Live, RetryPolicy::default()).unwrap();
        let (since, until) = window();
        let started = std::time::Instant::now();
        let answer = tokio::time::timeout(Duration::from_secs(10), provider.search(&http, "x", since, until)).await;
        assert_eq!(answer, Ok(Err(Failure::Timeout)), "the query outlived its timeout");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    /// GDELT's DOC API (4.8): `artlist` articles mapped (titles only, `seendate`, `domain`), those
    /// outside the window dropped; no match is `{}`; its plain-text errors are `malformed`.
    #[tokio::test]
    async fn gdelt_articles_are_mapped_and_windowed_and_its_text_errors_malformed() {
        let answer = search("gdelt-normal", Kind::Gdelt, "\"Ashgrove Pharma\"").await.unwrap();
        assert_eq!(answer.results.len(), 4, "the article seen before the window is dropped");
        assert!(!answer.capped && !answer.partial);
        let first = &answer.results[0];
        assert_eq!(
            (first.publisher.as_str(), first.published_at, first.snippet.as_str()),
            ("pharmatimes.example", Some(1_794_993_120_000), "")
        );
        assert_eq!(first.title, "Ashgrove Pharma sued over inhaler patent");
        assert_eq!(search("gdelt-empty", Kind::Gdelt, "\"Ashgrove Pharma\"").await, Ok(Answer::default()));
        assert_eq!(search("gdelt-error", Kind::Gdelt, "\"Ashgrove Pharma\"").await, Err(Failure::Malformed));
        assert_eq!(search("gdelt-busy", Kind::Gdelt, "\"Ashgrove Pharma\"").await, Err(Failure::RateLimited));
        assert_eq!(search("gdelt-down", Kind::Gdelt, "\"Ashgrove Pharma\"").await, Err(Failure::ProviderUnavailable));
    }

    /// GDELT asks for one request every 5 s: a provider's queries, and its clones', take turns
    /// (the k-th turn starts k intervals after the first could; here 50 ms for 5 s).
    #[tokio::test]
    async fn paced_requests_take_turns_an_interval_apart() {
        let p = SearchProvider::new("https://api.gdeltproject.org/api/v2/doc/doc".into(), None, Kind::Gdelt, TIMEOUT);
        assert!(std::sync::Arc::ptr_eq(&p.pacer, &p.clone().pacer), "clones share the turns");
        assert_eq!((Kind::Gdelt.pace(), Kind::Contract.pace()), (Some(GDELT_PACE), None));
        let every = Duration::from_millis(50);
        let started = tokio::time::Instant::now();
        let mut starts: Vec<tokio::time::Instant> = futures::future::join_all((0..3).map(|_| async {
            p.pacer.turn(every).await;
            tokio::time::Instant::now()
        }))
        .await;
        starts.sort();
        // The k-th turn starts no earlier than k intervals after the first could.
        for (k, start) in starts.iter().enumerate() {
            assert!(*start - started >= every * k as u32, "turn {k} after {:?}", *start - started);
        }
    }

    /// Exa (4.8): results mapped (snippet the first highlight, publisher the URL's host, a
    /// result dated outside the window dropped, an undated one kept), capped at 25, each fault
    /// by its reasonCode; the key travels as `x-api-key`, never as a bearer token.
    #[tokio::test]
    async fn exa_results_are_mapped_windowed_and_each_failure_has_its_reason_code() {
        let answer = search("exa-normal", Kind::Exa, "\"Ashgrove Pharma\"").await.unwrap();
        assert_eq!(answer.results.len(), 5, "the result dated before the window is dropped");
        assert!(!answer.capped);
        let first = &answer.results[0];
        assert_eq!(
            (first.publisher.as_str(), first.published_at, first.title.as_str()),
            ("www.pharmatimes.example", Some(1_794_993_120_000), "Ashgrove Pharma sued over inhaler patent")
        );
        assert!(first.snippet.starts_with("A rival drugmaker"), "{}", first.snippet);
        assert!(answer.results.iter().any(|r| r.published_at.is_none()), "an undated result is kept");
        assert!(search("exa-capped", Kind::Exa, "\"Ashgrove Pharma\"").await.unwrap().capped);
        for (scenario, failure) in [
            ("exa-unauthorized", Failure::AuthenticationFailed),
            ("exa-rate-limited", Failure::RateLimited),
            ("exa-down", Failure::ProviderUnavailable),
            ("exa-timeout", Failure::Timeout),
            ("exa-malformed", Failure::Malformed),
            ("exa-rejected", Failure::RequestRejected),
        ] {
            fails_with(Kind::Exa, scenario, failure).await;
        }
        let p = SearchProvider::new("https://api.exa.ai/search".into(), Some("k".into()), Kind::Exa, TIMEOUT);
        let headers = p.exa_headers();
        assert_eq!(
            (headers.get("x-api-key").unwrap(), headers.get(AUTHORIZATION)),
            (&HeaderValue::from_static("k"), None)
        );
        assert_eq!(Kind::parse("Exa"), Some(Kind::Exa));
    }

    #[tokio::test]
    async fn searxng_results_are_mapped_dated_and_windowed() {
        let answer = search("searxng-normal", Kind::Searxng, "\"Ashgrove Pharma\"").await.unwrap();
        assert_eq!(answer.results.len(), 4, "the undated and the old result are dropped");
        assert!(answer.capped, "40 known, 6 returned");
        let first = &answer.results[0];
        assert_eq!(
            (first.publisher.as_str(), first.published_at),
            ("www.pharmatimes.example", Some(1_794_993_120_000))
        );
        assert!(first.snippet.starts_with("A rival drugmaker"));
        let partial = search("searxng-unresponsive", Kind::Searxng, "\"Ashgrove Pharma\"").await.unwrap();
        assert!(partial.partial && partial.results.len() == 2);
        // Issue 46: results came back (all dropped: undated or too old), so partial, not failed.
        let stale = search("searxng-unresponsive-stale", Kind::Searxng, "\"Ashgrove Pharma\"").await.unwrap();
        assert!(stale.partial && stale.results.is_empty());
        assert_eq!(
            search("searxng-down", Kind::Searxng, "\"Ashgrove Pharma\"").await,
            Err(Failure::ProviderUnavailable)
        );
        assert_eq!(
            search("searxng-forbidden", Kind::Searxng, "\"Ashgrove Pharma\"").await,
            Err(Failure::RequestRejected)
        );
        assert_eq!(Kind::parse(" SearXNG "), Some(Kind::Searxng));
        assert_eq!(Kind::parse(""), Some(Kind::Contract));
        assert_eq!(Kind::parse("bing"), None);
    }
}
