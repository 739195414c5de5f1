//! adsb.lol squawk feeds → `aircraft-emergencies` (SUPPLEMENT 2.1.1): `GET {base}/v2/sqk/{code}`
//! for 7500, 7600 and 7700 (readsb v2 JSON), one observation per reported aircraft, and one feed
//! row per squawk saying whether it could be read. A run in which no feed answers fails (the last
//! good version keeps serving); a partial answer is published with the failed feeds marked.

use arrow::record_batch::RecordBatch;
use chrono::{DateTime, Utc};
use reqwest::{header::HeaderMap, Method};
use serde::Deserialize;
use sitrep_schemas::DatasetId;
use url::Url;

use crate::{
    arrow_util::{batch, finish, instants, strings},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

pub const DEFAULT_BASE: &str = "https://api.adsb.lol";
pub use sitrep_schemas::aviation::SQUAWKS;
use sitrep_schemas::aviation::{FeedStatus, MilitaryFlag};
const SOURCE: &str = "adsb.lol";

#[derive(Default)]
pub struct AdsbSource;

/// The readsb v2 answer (only what the mapping reads).
#[derive(Debug, Deserialize)]
pub struct SquawkPage {
    #[serde(default)]
    pub ac: Vec<Aircraft>,
    /// Epoch ms (values below 10^12 are seconds).
    pub now: f64,
}

#[derive(Debug, Deserialize)]
pub struct Aircraft {
    #[serde(default)]
    pub hex: String,
    #[serde(default)]
    pub flight: Option<String>,
    #[serde(default)]
    pub t: Option<String>,
    #[serde(default)]
    pub desc: Option<String>,
    /// Seconds before `now` the aircraft was last seen.
    #[serde(default)]
    pub seen: Option<f64>,
    #[serde(default, rename = "dbFlags")]
    pub db_flags: Option<i64>,
}

/// One observation of 2.1.1's mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub address: String,
    pub callsign: String,
    pub description: String,
    pub squawk: String,
    pub observed_at_ms: i64,
    pub military_flag: &'static str,
}

/// One feed's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Feed {
    pub squawk: String,
    pub available: bool,
    pub message: String,
    pub fetched_at_ms: i64,
}

pub fn parse_page(body: &[u8]) -> Result<SquawkPage, SourceError> {
    serde_json::from_slice(body).map_err(|e| SourceError::parse("adsb.lol squawk page", e))
}

/// The page's aircraft as observations of `squawk`.
pub fn observations(page: &SquawkPage, squawk: &str) -> Vec<Observation> {
    let now_ms = if page.now < 1e12 { page.now * 1000.0 } else { page.now }.round() as i64;
    page.ac
        .iter()
        .filter(|a| !a.hex.trim().is_empty())
        .map(|a| Observation {
            address: a.hex.trim().trim_start_matches('~').to_ascii_lowercase(),
            callsign: a.flight.as_deref().unwrap_or("").trim().to_string(),
            description: a.desc.clone().filter(|d| !d.is_empty()).or_else(|| a.t.clone()).unwrap_or_default(),
            squawk: squawk.to_string(),
            observed_at_ms: now_ms - (a.seen.unwrap_or(0.0) * 1000.0).round() as i64,
            military_flag: if a.db_flags.unwrap_or(0) & 1 == 1 {
                MilitaryFlag::Military
            } else {
                MilitaryFlag::Unknown
            }
            .as_str(),
        })
        .collect()
}

/// The dataset rows: feed rows in squawk order, then observations (squawk ascending, newest first).
pub fn normalise(feeds: &[Feed], mut obs: Vec<Observation>) -> Result<RecordBatch, SourceError> {
    obs.sort_by(|a, b| {
        a.squawk.cmp(&b.squawk).then(b.observed_at_ms.cmp(&a.observed_at_ms)).then(a.address.cmp(&b.address))
    });
    let n = feeds.len() + obs.len();
    let (mut kind, mut squawk, mut source, mut status, mut message, mut fetched) =
        (strings(n), strings(n), strings(n), strings(n), strings(n), instants(n));
    let (mut address, mut callsign, mut description, mut observed, mut military) =
        (strings(n), strings(n), strings(n), instants(n), strings(n));
    for f in feeds {
        kind.append_value("feed");
        squawk.append_value(&f.squawk);
        source.append_value(SOURCE);
        status.append_value(if f.available { FeedStatus::Available } else { FeedStatus::Unavailable }.as_str());
        message.append_value(&f.message);
        fetched.append_value(f.fetched_at_ms);
        address.append_null();
        callsign.append_null();
        description.append_null();
        observed.append_null();
        military.append_null();
    }
    for o in &obs {
        kind.append_value("observation");
        squawk.append_value(&o.squawk);
        source.append_value(SOURCE);
        status.append_null();
        message.append_null();
        fetched.append_null();
        address.append_value(&o.address);
        callsign.append_value(&o.callsign);
        description.append_value(&o.description);
        observed.append_value(o.observed_at_ms);
        military.append_value(o.military_flag);
    }
    batch(
        DatasetId::AIRCRAFT_EMERGENCIES,
        vec![
            finish(kind),
            finish(squawk),
            finish(source),
            finish(status),
            finish(message),
            finish(fetched),
            finish(address),
            finish(callsign),
            finish(description),
            finish(observed),
            finish(military),
        ],
    )
}

impl AdsbSource {
    async fn feed(ctx: &FetchContext, base: &str, squawk: &str) -> Result<SquawkPage, SourceError> {
        let url = Url::parse(&format!("{}/v2/sqk/{squawk}", base.trim_end_matches('/')))
            .map_err(|e| SourceError::parse("adsb base url", e))?;
        let reply = ctx.http.send(Method::GET, &url, HeaderMap::new(), None, None).await?;
        let reply = crate::http::ensure_ok(&url, reply)?;
        parse_page(&reply.body)
    }
}

#[async_trait::async_trait]
impl Source for AdsbSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::AIRCRAFT_EMERGENCIES
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["adsb"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("aircraft-emergencies has no history to backfill".into()));
        }
        let base = ctx.config.adsb_base_url.clone().unwrap_or_else(|| DEFAULT_BASE.to_string());
        let answers = futures::future::join_all(SQUAWKS.map(|s| Self::feed(ctx, &base, s))).await;
        let fetched_at: DateTime<Utc> = ctx.now;
        let mut feeds = Vec::new();
        let mut obs = Vec::new();
        let mut failures = Vec::new();
        for (squawk, answer) in SQUAWKS.iter().zip(answers) {
            match answer {
                Ok(page) => {
                    let found = observations(&page, squawk);
                    feeds.push(Feed {
                        squawk: squawk.to_string(),
                        available: true,
                        message: format!("{} aircraft", found.len()),
                        fetched_at_ms: fetched_at.timestamp_millis(),
                    });
                    obs.extend(found);
                }
                Err(e) => {
                    feeds.push(Feed {
                        squawk: squawk.to_string(),
                        available: false,
                        message: e.brief(),
                        fetched_at_ms: fetched_at.timestamp_millis(),
                    });
                    failures.push(e);
                }
            }
        }
        if failures.len() == SQUAWKS.len() {
            // Nothing was read: fail the run rather than publish three empty feeds.
            return Err(failures.remove(0));
        }
        Ok(Fetched {
            partial_error: None,
            batch: normalise(&feeds, obs)?,
            scope: Scope::All,
            as_of: fetched_at,
            upstream_version: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mapping_of_2_1_1() {
        let page = parse_page(br#"{"ac":[
            {"hex":"~A1B2C3","flight":"UAL123  ","t":"B738","desc":"BOEING 737-800","squawk":"7700","alt_baro":"ground","seen":0.4,"dbFlags":0},
            {"hex":"ae1234","flight":"RCH451  ","t":"C17","seen":2,"dbFlags":1},
            {"hex":"","flight":"GHOST"}
        ],"now":1717200000000,"total":3,"msg":"No error"}"#)
        .unwrap();
        let obs = observations(&page, "7700");
        assert_eq!(obs.len(), 2, "a row without an address is no observation");
        assert_eq!(obs[0].address, "a1b2c3");
        assert_eq!(obs[0].callsign, "UAL123");
        assert_eq!(obs[0].description, "BOEING 737-800");
        assert_eq!(obs[0].observed_at_ms, 1_717_200_000_000 - 400);
        assert_eq!(obs[0].military_flag, "unknown");
        assert_eq!((obs[1].description.as_str(), obs[1].military_flag), ("C17", "military"));
        // `now` in seconds.
        let secs = parse_page(br#"{"ac":[{"hex":"abc123","seen":1}],"now":1717200000}"#).unwrap();
        assert_eq!(observations(&secs, "7500")[0].observed_at_ms, 1_717_199_999_000);
        assert!(parse_page(b"<html>").is_err());
    }
}
