//! ACLED (Armed Conflict Location & Event Data) → `armed-events`.
//!
//! Upstream: `GET https://acleddata.com/api/acled/read` with a bearer token, paged by `limit`/`page`
//! until a page returns fewer than `limit` rows (cap `max_rows`). Scheduled runs fetch whole months
//! from the month containing (as-of − 90 days) to the as-of date, so every partition they replace is
//! complete; backfill fetches one calendar month per request.

mod parse;
mod token;

use chrono::Duration;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use sitrep_schemas::DatasetId;
use url::Url;

pub use parse::{normalise, parse_page, AcledPage};
pub use token::TokenCache;

use crate::{http::ensure_ok, time::YearMonth, FetchContext, Fetched, Scope, Source, SourceError, Window};

pub const DEFAULT_BASE: &str = "https://acleddata.com";
const EVENT_TYPES: &str = "Battles|Explosions/Remote violence|Violence against civilians";

pub struct AcledSource {
    pub base: String,
    pub page_size: usize,
    pub max_rows: usize,
    tokens: TokenCache,
}

/// Rows per `read` page (SUPPLEMENT 2.3.1: `limit=5000`).
pub const PAGE_SIZE: usize = 5000;

impl Default for AcledSource {
    fn default() -> Self {
        AcledSource::new(DEFAULT_BASE, PAGE_SIZE, 20_000)
    }
}

impl AcledSource {
    pub fn new(base: &str, page_size: usize, max_rows: usize) -> Self {
        AcledSource { base: base.trim_end_matches('/').to_string(), page_size, max_rows, tokens: TokenCache::default() }
    }

    fn read_url(&self, from: chrono::NaiveDate, to: chrono::NaiveDate, page: usize) -> Result<Url, SourceError> {
        let mut url = Url::parse(&format!("{}/api/acled/read", self.base))
            .map_err(|e| SourceError::parse("acled base url", e))?;
        url.query_pairs_mut()
            .append_pair("_format", "json")
            .append_pair("event_type", EVENT_TYPES)
            .append_pair("event_date", &format!("{from}|{to}"))
            .append_pair("event_date_where", "BETWEEN")
            .append_pair("limit", &self.page_size.to_string())
            .append_pair("page", &page.to_string());
        Ok(url)
    }

    /// Raw pages of one date window, as the upstream sent them.
    pub async fn fetch_pages(
        &self,
        ctx: &FetchContext,
        from: chrono::NaiveDate,
        to: chrono::NaiveDate,
    ) -> Result<Vec<bytes::Bytes>, SourceError> {
        let token = self.tokens.token(ctx, &self.base).await?;
        let mut headers = HeaderMap::new();
        let bearer = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| SourceError::NotConfigured("ACLED token is not a valid header value".into()))?;
        headers.insert(AUTHORIZATION, bearer);
        let mut pages = Vec::new();
        let mut rows = 0;
        for page in 1.. {
            let url = self.read_url(from, to, page)?;
            let reply = ensure_ok(&url, ctx.http.send(reqwest::Method::GET, &url, headers.clone(), None, None).await?)?;
            let n = parse_page(&reply.body)?.data.len();
            pages.push(reply.body);
            rows += n;
            if n < self.page_size || rows >= self.max_rows {
                break;
            }
        }
        Ok(pages)
    }
}

#[async_trait::async_trait]
impl Source for AcledSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::ARMED_EVENTS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["acled"]
    }

    fn supports_backfill(&self) -> bool {
        true
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        let today = ctx.now.date_naive();
        let (from, to, months) = match window {
            Window::Scheduled => {
                let first = YearMonth::of(today - Duration::days(90));
                (first.first_day(), today, YearMonth::range(first, YearMonth::of(today)))
            }
            Window::Month(m) => (m.first_day(), m.last_day().min(today), vec![m]),
        };
        let pages = self.fetch_pages(ctx, from, to).await?;
        let parsed = pages.iter().map(|p| parse_page(p)).collect::<Result<Vec<_>, _>>()?;
        let batch = normalise(parsed.iter().flat_map(|p| p.data.iter()), self.max_rows)?;
        Ok(Fetched { partial_error: None, batch, scope: Scope::Months(months), as_of: ctx.now, upstream_version: None })
    }
}
