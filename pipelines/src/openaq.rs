//! OpenAQ v3 (SUPPLEMENT 2.2.5) → `air-quality`: PM2.5 locations and latest values, paged, joined
//! by location, kept when measured in the last two hours, with the US EPA PM2.5 AQI.

use std::collections::HashMap;

use chrono::DateTime;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::Deserialize;
use sitrep_schemas::{climate::RiskLevel, numbers::round_to, DatasetId};
use url::Url;

use crate::{
    arrow_util::{batch, f64s, finish, i32s, instants, strings},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

const BASE: &str = "https://api.openaq.org/v3";
const MAX_PAGES: u32 = 20;
const WINDOW_MS: i64 = 2 * 3600 * 1000;
const FUTURE_MS: i64 = 5 * 60 * 1000;

#[derive(Debug, Deserialize)]
struct Envelope<T> {
    meta: Meta,
    #[serde(default = "Vec::new")]
    results: Vec<T>,
}

#[derive(Debug, Deserialize)]
struct Meta {
    #[serde(default)]
    limit: Option<u64>,
    /// A count, or a string such as `">1000"` when OpenAQ does not count exactly.
    #[serde(default)]
    found: Option<serde_json::Value>,
}

impl Meta {
    fn found(&self) -> Option<u64> {
        match self.found.as_ref()? {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) if s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Location {
    pub id: i64,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub locality: Option<String>,
    #[serde(default)]
    pub country: Option<Country>,
    #[serde(default)]
    pub coordinates: Option<Coordinates>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Country {
    #[serde(default)]
    pub code: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Coordinates {
    pub latitude: f64,
    pub longitude: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Latest {
    pub datetime: Datetime,
    pub value: f64,
    #[serde(default)]
    pub coordinates: Option<Coordinates>,
    #[serde(rename = "locationsId")]
    pub locations_id: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Datetime {
    pub utc: String,
}

/// One station of the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Station {
    pub city: String,
    pub country_code: String,
    pub lat: f64,
    pub lng: f64,
    pub pm25: f64,
    pub aqi: i32,
    pub risk_level: RiskLevel,
    pub measured_at: i64,
}

/// US EPA PM2.5 AQI: the concentration truncated to 0.1 µg/m³, linear within its breakpoint band,
/// rounded, clamped to 0–500.
pub fn aqi(pm25: f64) -> i32 {
    const BANDS: [(f64, f64, f64, f64); 7] = [
        (0.0, 12.0, 0.0, 50.0),
        (12.1, 35.4, 51.0, 100.0),
        (35.5, 55.4, 101.0, 150.0),
        (55.5, 150.4, 151.0, 200.0),
        (150.5, 250.4, 201.0, 300.0),
        (250.5, 350.4, 301.0, 400.0),
        (350.5, 500.4, 401.0, 500.0),
    ];
    let c = (pm25.max(0.0) * 10.0 + 1e-9).floor() / 10.0;
    let Some(&(c_lo, c_hi, i_lo, i_hi)) = BANDS.iter().find(|(lo, hi, ..)| c >= *lo && c <= *hi + 1e-9) else {
        return 500;
    };
    ((i_hi - i_lo) / (c_hi - c_lo) * (c - c_lo) + i_lo).round().clamp(0.0, 500.0) as i32
}

pub fn risk_level(aqi: i32) -> RiskLevel {
    match aqi {
        ..=50 => RiskLevel::Good,
        51..=100 => RiskLevel::Moderate,
        101..=300 => RiskLevel::Unhealthy,
        _ => RiskLevel::Hazardous,
    }
}

/// The stations of a run: per location the freshest reading inside the window (ties: the higher
/// value), joined to its location; ordered by AQI descending, then newest.
pub fn stations(locations: &[Location], latest: &[Latest], now_ms: i64) -> Vec<Station> {
    let by_id: HashMap<i64, &Location> = locations.iter().map(|l| (l.id, l)).collect();
    let mut freshest: HashMap<i64, (i64, f64, Option<Coordinates>)> = HashMap::new();
    for m in latest {
        let Some(at) = DateTime::parse_from_rfc3339(&m.datetime.utc).ok().map(|t| t.timestamp_millis()) else {
            continue;
        };
        if at < now_ms - WINDOW_MS || at > now_ms + FUTURE_MS || !m.value.is_finite() || m.value < 0.0 {
            continue;
        }
        let entry = freshest.entry(m.locations_id).or_insert((at, m.value, m.coordinates));
        if (at, m.value) > (entry.0, entry.1) {
            *entry = (at, m.value, m.coordinates);
        }
    }
    let mut out: Vec<Station> = freshest
        .into_iter()
        .filter_map(|(id, (at, value, coordinates))| {
            let l = by_id.get(&id)?;
            let c = l.coordinates.or(coordinates)?;
            let country = l.country.as_ref().and_then(|c| c.code.clone()).unwrap_or_default();
            let nonempty = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
            let city = nonempty(&l.locality).or_else(|| nonempty(&l.name)).unwrap_or_else(|| country.clone());
            let aqi = aqi(value);
            Some(Station {
                city,
                country_code: country,
                lat: round_to(c.latitude, 4),
                lng: round_to(c.longitude, 4),
                pm25: round_to(value, 1),
                aqi,
                risk_level: risk_level(aqi),
                measured_at: at,
            })
        })
        .collect();
    out.sort_by(|a, b| b.aqi.cmp(&a.aqi).then(b.measured_at.cmp(&a.measured_at)).then(a.city.cmp(&b.city)));
    out
}

/// Every page of `path` (at most 20): stops at a short page or when `meta.found` rows are read.
async fn pages<T: serde::de::DeserializeOwned>(
    ctx: &FetchContext,
    key: &str,
    path: &str,
    query: &[(&str, &str)],
) -> Result<Vec<T>, SourceError> {
    let mut out = Vec::new();
    for page in 1..=MAX_PAGES {
        let mut url = Url::parse(&format!("{BASE}/{path}")).map_err(|e| SourceError::parse("openaq url", e))?;
        url.query_pairs_mut().extend_pairs(query).append_pair("page", &page.to_string());
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_str(key).map_err(|e| SourceError::parse("openaq key", e))?);
        let reply = ctx.http.get_ok(&url, headers).await?;
        let envelope: Envelope<T> = serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse(path, e))?;
        let short =
            envelope.meta.limit.is_some_and(|l| (envelope.results.len() as u64) < l) || envelope.results.is_empty();
        out.extend(envelope.results);
        if short || envelope.meta.found().is_some_and(|f| out.len() as u64 >= f) {
            break;
        }
    }
    Ok(out)
}

#[derive(Default)]
pub struct OpenAqSource;

#[async_trait::async_trait]
impl Source for OpenAqSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::AIR_QUALITY
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["openaq"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("air-quality keeps only the latest readings".into()));
        }
        let key = ctx
            .config
            .openaq_api_key
            .as_deref()
            .ok_or_else(|| SourceError::NotConfigured("OPENAQ_API_KEY is not set".into()))?;
        let (locations, latest) = tokio::try_join!(
            pages::<Location>(ctx, key, "locations", &[("parameters_id", "2"), ("limit", "1000")]),
            pages::<Latest>(ctx, key, "parameters/2/latest", &[("limit", "1000")]),
        )?;
        let found = stations(&locations, &latest, ctx.now.timestamp_millis());
        Ok(Fetched {
            partial_error: None,
            batch: rows(&found)?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
        })
    }
}

fn rows(stations: &[Station]) -> Result<arrow::array::RecordBatch, SourceError> {
    let n = stations.len();
    let (mut position, mut city, mut country, mut lat, mut lng) = (i32s(n), strings(n), strings(n), f64s(n), f64s(n));
    let (mut pm25, mut aqi, mut risk, mut pollutant, mut measured, mut source) =
        (f64s(n), i32s(n), strings(n), strings(n), instants(n), strings(n));
    for (i, s) in stations.iter().enumerate() {
        position.append_value(i as i32);
        city.append_value(&s.city);
        country.append_value(&s.country_code);
        lat.append_value(s.lat);
        lng.append_value(s.lng);
        pm25.append_value(s.pm25);
        aqi.append_value(s.aqi);
        risk.append_value(s.risk_level.as_str());
        pollutant.append_value("pm25");
        measured.append_value(s.measured_at);
        source.append_value("OpenAQ");
    }
    batch(
        DatasetId::AIR_QUALITY,
        vec![
            finish(position),
            finish(city),
            finish(country),
            finish(lat),
            finish(lng),
            finish(pm25),
            finish(aqi),
            finish(risk),
            finish(pollutant),
            finish(measured),
            finish(source),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aqi_at_every_breakpoint() {
        let cases = [
            (0.0, 0),
            (12.0, 50),
            (12.05, 50), // truncated to 12.0
            (12.1, 51),
            (35.4, 100),
            (35.5, 101),
            (55.4, 150),
            (55.5, 151),
            (150.4, 200),
            (150.5, 201),
            (250.4, 300),
            (250.5, 301),
            (350.4, 400),
            (350.5, 401),
            (500.4, 500),
            (900.0, 500),
            (-3.0, 0),
        ];
        for (c, expected) in cases {
            assert_eq!(aqi(c), expected, "PM2.5 {c}");
        }
        assert_eq!(aqi(23.75), 75, "23.7: (100 − 51) / (35.4 − 12.1) × (23.7 − 12.1) + 51 = 75.39");
        assert_eq!(
            [risk_level(50), risk_level(51), risk_level(100), risk_level(101), risk_level(300), risk_level(301)],
            {
                use RiskLevel::*;
                [Good, Moderate, Moderate, Unhealthy, Unhealthy, Hazardous]
            }
        );
    }
}
