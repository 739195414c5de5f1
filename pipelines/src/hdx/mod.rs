//! HDX HAPI conflict-event summaries → `humanitarian`.
//!
//! Primary: the HAPI v2 JSON API, paged by `offset` (about 1.1 s between pages). On failure the
//! connector falls back to the CKAN dataset `hdx-hapi-conflict-event` and its yearly CSV files.
//! Each run replaces the whole dataset (one row per country, newest reference period).

mod csv_fallback;
mod parse;

use std::time::Duration;

use chrono::{Datelike, NaiveDate};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use sitrep_schemas::DatasetId;
use url::Url;

pub use parse::{summarise, ConflictRow};

use crate::{time::YearMonth, FetchContext, Fetched, Scope, Source, SourceError, Window};

pub const DEFAULT_BASE: &str = "https://hapi.humdata.org";
pub const DEFAULT_CKAN_BASE: &str = "https://data.humdata.org";
const PAGE: usize = 10_000;

pub struct HdxSource {
    pub base: String,
    pub ckan_base: String,
    pub page_pause: Duration,
}

impl Default for HdxSource {
    fn default() -> Self {
        HdxSource {
            base: DEFAULT_BASE.into(),
            ckan_base: DEFAULT_CKAN_BASE.into(),
            page_pause: Duration::from_millis(1100),
        }
    }
}

/// First day of the month two months before the as-of month.
pub fn start_date(today: NaiveDate) -> NaiveDate {
    YearMonth::of(today).prev().prev().first_day()
}

impl HdxSource {
    async fn fetch_api(
        &self,
        ctx: &FetchContext,
        headers: &HeaderMap,
        start: NaiveDate,
    ) -> Result<Vec<ConflictRow>, SourceError> {
        let mut rows = Vec::new();
        for page in 0.. {
            if page > 0 {
                tokio::time::sleep(self.page_pause).await;
            }
            let mut url =
                Url::parse(&format!("{}/api/v2/coordination-context/conflict-events", self.base.trim_end_matches('/')))
                    .map_err(|e| SourceError::parse("hdx base url", e))?;
            url.query_pairs_mut()
                .append_pair("output_format", "json")
                .append_pair("admin_level", "0")
                .append_pair("start_date", &start.to_string())
                .append_pair("limit", &PAGE.to_string())
                .append_pair("offset", &(page * PAGE).to_string());
            let reply = ctx.http.get_ok(&url, headers.clone()).await?;
            let got = parse::parse_api_page(&reply.body)?;
            let n = got.len();
            rows.extend(got);
            if n < PAGE {
                break;
            }
        }
        Ok(rows)
    }
}

#[async_trait::async_trait]
impl Source for HdxSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::HUMANITARIAN
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["hdx"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported(
                "humanitarian keeps the newest period per country; backfill is not offered".into(),
            ));
        }
        let app = ctx
            .config
            .hdx_app_identifier
            .as_deref()
            .ok_or_else(|| SourceError::NotConfigured("set HDX_HAPI_APP_IDENTIFIER".into()))?;
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("x-hdx-hapi-app-identifier"),
            HeaderValue::from_str(app)
                .map_err(|_| SourceError::NotConfigured("HDX app identifier is not a valid header value".into()))?,
        );
        let start = start_date(ctx.now.date_naive());
        let (rows, upstream_version) = match self.fetch_api(ctx, &headers, start).await {
            Ok(rows) => (rows, "hapi-v2"),
            Err(api_error) => {
                tracing::warn!(error = %api_error, "hdx hapi failed; trying the CKAN CSV fallback");
                let years: Vec<i32> = (start.year()..=ctx.now.year()).collect();
                match csv_fallback::fetch(ctx, &self.ckan_base, &years).await {
                    Ok(rows) => (rows, "ckan-csv"),
                    Err(e) => return Err(SourceError::Upstream(format!("hapi: {api_error}; csv fallback: {e}"))),
                }
            }
        };
        let batch = summarise(&rows, ctx.now.timestamp_millis())?;
        Ok(Fetched {
            partial_error: None,
            batch,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: Some(upstream_version.into()),
        })
    }
}
