//! `airport-delays` (SUPPLEMENT 2.1.2): three components fetched independently — FAA NAS Status,
//! AviationStack's 56 hubs (refetched at most hourly and paid from the monthly budget) and ICAO
//! NOTAM — and merged into one alert per registry airport. A component that fails keeps the last
//! good one where the spec says so (AviationStack, NOTAM), read back from the current version;
//! the run fails (and the last good version keeps serving) only when no component has data.

pub mod faa;
pub mod hubs;
pub mod merge;
pub mod notam;
mod rows;

use std::time::Duration;

use futures::StreamExt;
use reqwest::{
    header::{HeaderMap, HeaderValue, ACCEPT},
    Method,
};
use sitrep_schemas::{airports, DatasetId};
use url::Url;

use self::{
    faa::FaaEntry,
    hubs::{HubStats, HubStatus},
    merge::Components,
    notam::AirportNotam,
    rows::Previous,
};
use crate::{aviationstack, http::ensure_ok, FetchContext, Fetched, Scope, Source, SourceError, Window};

/// How long a fetched AviationStack component is reused before the hubs are asked again.
const HUB_REFRESH_MS: i64 = 60 * 60 * 1000;
const HUB_PARALLELISM: usize = 10;
const HUB_TIMEOUT: Duration = Duration::from_secs(10);
const NOTAM_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Default)]
pub struct AirportDelaysSource;

/// A component's outcome in this run, recorded as its `component` row.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentState {
    pub name: &'static str,
    /// `ok`, `reused` or `failed`.
    pub status: &'static str,
    pub message: String,
    /// Fetch time of the data the component carries (0 = none).
    pub updated_at: i64,
}

impl ComponentState {
    fn new(name: &'static str, status: &'static str, message: impl Into<String>, updated_at: i64) -> Self {
        ComponentState { name, status, message: message.into(), updated_at }
    }
}

async fn fetch_faa(ctx: &FetchContext) -> Result<Vec<FaaEntry>, SourceError> {
    let url = Url::parse(faa::URL).map_err(|e| SourceError::parse("faa url", e))?;
    let mut headers = HeaderMap::new();
    headers.insert(ACCEPT, HeaderValue::from_static("application/xml"));
    let reply = ensure_ok(&url, ctx.http.send(Method::GET, &url, headers, None, None).await?)?;
    Ok(faa::strongest_per_airport(faa::parse(&reply.body)?))
}

/// One hub: a unit of the monthly budget, then today's departures.
async fn fetch_hub(ctx: &FetchContext, key: &str, iata: &'static str, date: &str, now_ms: i64) -> HubStats {
    let failed = |message: String| HubStats {
        iata: iata.into(),
        status: HubStatus::Failed,
        total_flights: 0,
        cancelled_flights: 0,
        delayed_flights_pct: 0.0,
        avg_delay_minutes: 0,
        fetched_at: now_ms,
        message,
    };
    let Some(budget) = ctx.budget.as_deref() else { return failed("no budget store".into()) };
    if !ctx.config.aviationstack_budget.reserve_scheduled(budget, ctx.now).await {
        return failed("budget".into());
    }
    let query = [("dep_iata", iata), ("flight_date", date), ("limit", "100")];
    match aviationstack::flights(&ctx.http, aviationstack::BASE, key, &query, Some(HUB_TIMEOUT)).await {
        Ok(rows) => hubs::stats(iata, &rows, now_ms),
        Err(e) => failed(e.brief()),
    }
}

/// The AviationStack component: reused while younger than an hour (its component row carried as it
/// was, so an unchanged run publishes no new version), else refetched; a refetch that cannot be
/// published (too many failed or empty hubs, no key, no budget) keeps the last good one.
async fn hub_component(ctx: &FetchContext, previous: &Previous) -> (Option<Vec<HubStats>>, ComponentState) {
    let now_ms = ctx.now.timestamp_millis();
    let reuse = |why: String| match &previous.hubs {
        Some((hubs, last)) => {
            (Some(hubs.clone()), ComponentState::new("aviationstack", "reused", why, last.updated_at))
        }
        None => (None, ComponentState::new("aviationstack", "failed", why, 0)),
    };
    if let Some((hubs, last)) = &previous.hubs {
        if (0..HUB_REFRESH_MS).contains(&(now_ms - last.updated_at)) {
            return (Some(hubs.clone()), last.clone());
        }
    }
    let Some(key) = ctx.config.aviationstack_key.as_deref() else {
        return reuse("missing_credentials: AVIATIONSTACK_API is not set".into());
    };
    let date = ctx.now.format("%Y-%m-%d").to_string();
    let calls: Vec<_> =
        airports::AVIATIONSTACK_HUBS.iter().map(|iata| fetch_hub(ctx, key, iata, &date, now_ms)).collect();
    let hubs: Vec<HubStats> = futures::stream::iter(calls).buffered(HUB_PARALLELISM).collect().await;
    let covered = hubs.iter().filter(|h| h.status.covered()).count();
    if hubs::publishable(&hubs) {
        let message = format!("{covered} of {} hubs answered", hubs.len());
        return (Some(hubs), ComponentState::new("aviationstack", "ok", message, now_ms));
    }
    let mut reasons: Vec<&str> = hubs.iter().map(|h| h.message.as_str()).filter(|m| !m.is_empty()).collect();
    reasons.sort_unstable();
    reasons.dedup();
    reuse(format!("only {covered} of {} hubs answered ({})", hubs.len(), reasons.join(", ")))
}

async fn fetch_notams(ctx: &FetchContext, key: &str) -> Result<Vec<AirportNotam>, SourceError> {
    let mut url = Url::parse(notam::URL).map_err(|e| SourceError::parse("notam url", e))?;
    url.query_pairs_mut()
        .append_pair("api_key", key)
        .append_pair("format", "json")
        .append_pair("locations", &airports::notam_icaos().join(","));
    let reply = ctx.http.send(Method::GET, &url, HeaderMap::new(), None, Some(NOTAM_TIMEOUT)).await?;
    let reply = ensure_ok(&url, reply)?;
    notam::parse(&reply.body, ctx.now.timestamp())
}

/// The NOTAM component; a failure keeps the last good one.
async fn notam_component(
    ctx: &FetchContext,
    previous: &Previous,
) -> (Option<(Vec<AirportNotam>, i64)>, ComponentState) {
    let result = match ctx.config.icao_api_key.as_deref() {
        Some(key) => fetch_notams(ctx, key).await.map_err(|e| e.brief()),
        None => Err("missing_credentials: ICAO_API_KEY is not set".to_string()),
    };
    let now_ms = ctx.now.timestamp_millis();
    match (result, &previous.notams) {
        (Ok(n), _) => {
            let message = format!("{} airports closed or restricted", n.len());
            (Some((n, now_ms)), ComponentState::new("notam", "ok", message, now_ms))
        }
        (Err(why), Some((n, last))) => {
            (Some((n.clone(), last.updated_at)), ComponentState::new("notam", "reused", why, last.updated_at))
        }
        (Err(why), None) => (None, ComponentState::new("notam", "failed", why, 0)),
    }
}

#[async_trait::async_trait]
impl Source for AirportDelaysSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::AIRPORT_DELAYS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["faa", "aviationstack", "icao-notam"]
    }

    fn reads_previous(&self) -> bool {
        true
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("airport-delays has no history to backfill".into()));
        }
        let previous = rows::previous(ctx.previous.as_ref())?;
        let now_ms = ctx.now.timestamp_millis();
        let (faa, (hubs, hub_state), (notams, notam_state)) =
            tokio::join!(fetch_faa(ctx), hub_component(ctx, &previous), notam_component(ctx, &previous));
        let faa_state = match &faa {
            Ok(entries) => ComponentState::new("faa", "ok", format!("{} airports with delays", entries.len()), now_ms),
            Err(e) => ComponentState::new("faa", "failed", e.brief(), 0),
        };
        let states = [faa_state, hub_state, notam_state];
        if faa.is_err() && hubs.is_none() && notams.is_none() {
            let why: Vec<String> = states.iter().map(|s| format!("{}: {}", s.name, s.message)).collect();
            return Err(SourceError::Upstream(format!("every airport-delays component failed ({})", why.join("; "))));
        }
        let faa = faa.ok();
        let components = Components {
            faa: faa.as_deref().map(|e| (e, now_ms)),
            hubs: hubs.as_deref(),
            notams: notams.as_ref().map(|(n, at)| (n.as_slice(), *at)),
            now: now_ms,
        };
        let alerts = merge::merge(&components);
        let batch = rows::batch(&alerts, hubs.as_deref().unwrap_or(&[]), components.notams, &states)?;
        Ok(Fetched { partial_error: None, batch, scope: Scope::All, as_of: ctx.now, upstream_version: None })
    }
}
