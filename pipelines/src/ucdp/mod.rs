//! UCDP Georeferenced Event Dataset → `violence-events`.
//!
//! The newest annual release (`<yy>.1`, probing back two years) is read from its last page
//! downward (newest `annual_pages` pages), then monthly candidate releases (`<yy>.0.<m>` for the
//! as-of month and the 4 before, probed in parallel) are merged on top (up to `candidate_pages`
//! pages). Each run replaces the whole dataset: it is a rolling 365-day view.

mod parse;

use std::time::Duration;

use bytes::Bytes;
use chrono::Datelike;
use reqwest::{
    header::{HeaderMap, HeaderName, HeaderValue},
    Method, StatusCode,
};
use sitrep_schemas::DatasetId;
use url::Url;

pub use parse::{merge, parse_page, UcdpPage, UcdpRow};

use crate::{http::ensure_ok, time::YearMonth, FetchContext, Fetched, Scope, Source, SourceError, Window};

pub const DEFAULT_BASE: &str = "https://ucdpapi.pcr.uu.se";

pub struct UcdpSource {
    pub base: String,
    pub page_size: usize,
    pub annual_pages: usize,
    pub candidate_pages: usize,
}

impl Default for UcdpSource {
    fn default() -> Self {
        UcdpSource { base: DEFAULT_BASE.into(), page_size: 1000, annual_pages: 6, candidate_pages: 3 }
    }
}

/// One release's pages, newest page first.
pub struct Release {
    pub version: String,
    pub pages: Vec<Bytes>,
}

impl UcdpSource {
    fn url(&self, version: &str, page: usize) -> Result<Url, SourceError> {
        let mut url = Url::parse(&format!("{}/api/gedevents/{version}", self.base.trim_end_matches('/')))
            .map_err(|e| SourceError::parse("ucdp base url", e))?;
        url.query_pairs_mut()
            .append_pair("pagesize", &self.page_size.to_string())
            .append_pair("page", &page.to_string());
        Ok(url)
    }

    /// Page 0 of a release: `Ok(None)` when the release does not exist (404) or is empty.
    async fn probe(
        &self,
        ctx: &FetchContext,
        headers: &HeaderMap,
        version: &str,
        timeout: Option<Duration>,
    ) -> Result<Option<(Bytes, usize)>, SourceError> {
        let url = self.url(version, 0)?;
        let reply = ctx.http.send(Method::GET, &url, headers.clone(), None, timeout).await?;
        if reply.status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        let reply = ensure_ok(&url, reply)?;
        let page = parse_page(&reply.body)?;
        if page.result.is_empty() {
            return Ok(None);
        }
        let total_pages = page.total_pages.max(1) as usize;
        Ok(Some((reply.body, total_pages)))
    }

    /// The newest `max_pages` pages of a release whose page 0 is already known.
    async fn newest_pages(
        &self,
        ctx: &FetchContext,
        headers: &HeaderMap,
        version: &str,
        page0: Bytes,
        total_pages: usize,
        max_pages: usize,
    ) -> Result<Vec<Bytes>, SourceError> {
        let last = total_pages - 1;
        let mut pages = Vec::new();
        for p in (last.saturating_sub(max_pages.saturating_sub(1))..=last).rev() {
            if p == 0 {
                pages.push(page0.clone());
            } else {
                let url = self.url(version, p)?;
                pages.push(ensure_ok(&url, ctx.http.send(Method::GET, &url, headers.clone(), None, None).await?)?.body);
            }
        }
        Ok(pages)
    }

    pub async fn fetch_releases(&self, ctx: &FetchContext) -> Result<(Option<Release>, Vec<Release>), SourceError> {
        let token = ctx
            .config
            .ucdp_access_token
            .as_deref()
            .ok_or_else(|| SourceError::NotConfigured("set UCDP_ACCESS_TOKEN".into()))?;
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("x-ucdp-access-token"),
            HeaderValue::from_str(token)
                .map_err(|_| SourceError::NotConfigured("UCDP token is not a valid header value".into()))?,
        );

        let yy = ctx.now.year() % 100;
        let mut annual = None;
        for y in [yy, yy - 1, yy - 2] {
            let version = format!("{y}.1");
            if let Some((page0, total)) = self.probe(ctx, &headers, &version, None).await? {
                let pages = self.newest_pages(ctx, &headers, &version, page0, total, self.annual_pages).await?;
                annual = Some(Release { version, pages });
                break;
            }
        }

        // Candidate releases are best-effort: a failed probe only means fewer fresh rows.
        let mut month = YearMonth::of(ctx.now.date_naive());
        let mut versions = Vec::new();
        for _ in 0..5 {
            versions.push(format!("{}.0.{}", month.year % 100, month.month));
            month = month.prev();
        }
        let probes = futures::future::join_all(
            versions.iter().map(|v| self.probe(ctx, &headers, v, Some(Duration::from_secs(15)))),
        )
        .await;
        let mut candidates = Vec::new();
        let mut budget = self.candidate_pages;
        for (version, probe) in versions.into_iter().zip(probes) {
            match probe {
                Ok(Some((page0, total))) if budget > 0 => {
                    let take = budget.min(total);
                    match self.newest_pages(ctx, &headers, &version, page0, total, take).await {
                        Ok(pages) => {
                            budget -= pages.len();
                            candidates.push(Release { version, pages });
                        }
                        Err(e) => tracing::warn!(%version, error = %e, "ucdp candidate release skipped"),
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(%version, error = %e, "ucdp candidate probe failed"),
            }
        }
        Ok((annual, candidates))
    }
}

#[async_trait::async_trait]
impl Source for UcdpSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::VIOLENCE_EVENTS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["ucdp"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported(
                "violence-events is a rolling 365-day view; backfill is not offered".into(),
            ));
        }
        let (annual, candidates) = self.fetch_releases(ctx).await?;
        let mut version_label: Vec<&str> = annual.iter().map(|r| r.version.as_str()).collect();
        version_label.extend(candidates.first().map(|r| r.version.as_str()));
        let upstream_version = (!version_label.is_empty()).then(|| version_label.join("+"));
        let batch = merge(annual.as_ref(), &candidates)?;
        Ok(Fetched { partial_error: None, batch, scope: Scope::All, as_of: ctx.now, upstream_version })
    }
}
