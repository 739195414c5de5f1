//! NASA EONET v3 open events: floods, recent wildfires, volcanoes, droughts and tropical storms,
//! each at its latest point.

use chrono::DateTime;
use serde::Deserialize;
use url::Url;

use super::{natural_status, Disaster, Kind, Severity, Source as Origin};
use crate::{admin0::Admin0, FetchContext, SourceError};

const EVENTS: &str = "https://eonet.gsfc.nasa.gov/api/v3/events?status=open&days=30";
/// A wildfire whose latest point is older than this is left out.
const WILDFIRE_MAX_AGE_MS: i64 = 48 * 3600 * 1000;
const TROPICAL: [&str; 5] = ["tropical", "cyclone", "hurricane", "typhoon", "depression"];

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    events: Vec<Event>,
}

#[derive(Deserialize)]
struct Event {
    id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    closed: Option<String>,
    #[serde(default)]
    categories: Vec<Category>,
    #[serde(default)]
    sources: Vec<Reference>,
    #[serde(default)]
    geometry: Vec<Geometry>,
}

#[derive(Deserialize)]
struct Category {
    id: String,
}

#[derive(Deserialize)]
struct Reference {
    #[serde(default)]
    url: Option<String>,
}

#[derive(Deserialize)]
struct Geometry {
    date: String,
    #[serde(rename = "type")]
    kind: String,
    coordinates: serde_json::Value,
}

/// The event's type, or `None` for categories 2.2.2 leaves out.
fn kind(category: &str, title: &str) -> Option<Kind> {
    Some(match category {
        "floods" => Kind::Flood,
        "wildfires" => Kind::Wildfire,
        "volcanoes" => Kind::Volcano,
        "drought" => Kind::Drought,
        "severeStorms" if TROPICAL.iter().any(|w| title.to_lowercase().contains(w)) => Kind::Cyclone,
        _ => return None,
    })
}

pub fn parse(body: &[u8], now_ms: i64, admin0: &Admin0) -> Result<Vec<Disaster>, SourceError> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| SourceError::parse("eonet events", e))?;
    let mut out = Vec::new();
    for event in answer.events {
        let Some(kind) = event.categories.iter().find_map(|c| kind(&c.id, &event.title)) else { continue };
        let points: Vec<(i64, f64, f64)> = event
            .geometry
            .iter()
            .filter(|g| g.kind == "Point")
            .filter_map(|g| {
                let at = DateTime::parse_from_rfc3339(&g.date).ok()?.timestamp_millis();
                let c = g.coordinates.as_array()?;
                Some((at, c.first()?.as_f64()?, c.get(1)?.as_f64()?))
            })
            .collect();
        let (Some(&(latest_at, lng, lat)), Some(started_at)) =
            (points.iter().max_by_key(|p| p.0), points.iter().map(|p| p.0).min())
        else {
            continue;
        };
        if kind == Kind::Wildfire && now_ms - latest_at > WILDFIRE_MAX_AGE_MS {
            continue;
        }
        let country = admin0.locate(lng, lat);
        let source_url = event.sources.iter().find_map(|s| s.url.clone()).or(event.link).unwrap_or_default();
        out.push(Disaster {
            id: format!("eonet-{}", event.id),
            kind,
            name: super::without_leading_emoji(&event.title),
            country: country.map(|c| c.name.clone()).unwrap_or_default(),
            country_code: country.map(|c| c.iso2.clone()).unwrap_or_default(),
            lat,
            lng,
            severity: Severity::Green,
            started_at,
            status: natural_status(event.closed.is_some(), Severity::Green),
            source: Origin::Eonet,
            source_url,
        });
    }
    Ok(out)
}

pub async fn fetch(ctx: &FetchContext, admin0: &Admin0) -> Result<Vec<Disaster>, SourceError> {
    let url = Url::parse(EVENTS).map_err(|e| SourceError::parse("eonet url", e))?;
    let reply = ctx.http.get_ok(&url, Default::default()).await?;
    parse(&reply.body, ctx.now.timestamp_millis(), admin0)
}
