//! GDACS's event list (GeoJSON): orange and red tropical cyclones, floods, volcanoes, wildfires
//! and droughts.

use chrono::{DateTime, NaiveDateTime};
use serde::Deserialize;
use url::Url;

use super::{natural_status, Disaster, Kind, Severity, Source as Origin};
use crate::{admin0::Admin0, FetchContext, SourceError};

const EVENTS: &str = "https://www.gdacs.org/gdacsapi/api/events/geteventlist/MAP";
const MAX_FEATURES: usize = 100;

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    features: Vec<Feature>,
}

#[derive(Deserialize)]
struct Feature {
    geometry: Option<Geometry>,
    properties: Properties,
}

#[derive(Deserialize)]
struct Geometry {
    #[serde(rename = "type")]
    kind: String,
    coordinates: serde_json::Value,
}

#[derive(Deserialize)]
struct Properties {
    eventtype: String,
    eventid: serde_json::Value,
    #[serde(default)]
    name: String,
    #[serde(default)]
    alertlevel: String,
    #[serde(default)]
    fromdate: String,
    #[serde(default)]
    iscurrent: Option<serde_json::Value>,
    #[serde(default)]
    url: Option<Links>,
}

#[derive(Deserialize)]
struct Links {
    #[serde(default)]
    report: Option<String>,
}

fn kind(eventtype: &str) -> Option<Kind> {
    Some(match eventtype {
        "TC" => Kind::Cyclone,
        "FL" => Kind::Flood,
        "VO" => Kind::Volcano,
        "WF" => Kind::Wildfire,
        "DR" => Kind::Drought,
        _ => return None,
    })
}

/// GDACS writes UTC times without a zone (`2026-11-17T00:00:00`); an explicit zone is honoured.
fn instant(s: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.timestamp_millis())
        .ok()
        .or_else(|| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S").ok().map(|t| t.and_utc().timestamp_millis()))
}

pub fn parse(body: &[u8], admin0: &Admin0) -> Result<Vec<Disaster>, SourceError> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| SourceError::parse("gdacs events", e))?;
    let mut out = Vec::new();
    for f in answer.features.into_iter().take(MAX_FEATURES) {
        let p = f.properties;
        let Some(kind) = kind(&p.eventtype) else { continue };
        let severity = match p.alertlevel.to_ascii_lowercase().as_str() {
            "red" => Severity::Red,
            "orange" => Severity::Orange,
            _ => continue,
        };
        let Some((lng, lat)) = f
            .geometry
            .filter(|g| g.kind == "Point")
            .and_then(|g| Some((g.coordinates.get(0)?.as_f64()?, g.coordinates.get(1)?.as_f64()?)))
        else {
            continue;
        };
        let Some(started_at) = instant(&p.fromdate) else { continue };
        let event_id = p.eventid.as_str().map(str::to_string).unwrap_or_else(|| p.eventid.to_string());
        let closed = p.iscurrent.as_ref().is_some_and(|v| v == "false" || v == &serde_json::Value::Bool(false));
        let country = admin0.locate(lng, lat);
        out.push(Disaster {
            id: format!("gdacs-{}-{event_id}", p.eventtype),
            kind,
            name: super::without_leading_emoji(&p.name),
            country: country.map(|c| c.name.clone()).unwrap_or_default(),
            country_code: country.map(|c| c.iso2.clone()).unwrap_or_default(),
            lat,
            lng,
            severity,
            started_at,
            status: natural_status(closed, severity),
            source: Origin::Gdacs,
            source_url: p.url.and_then(|u| u.report).unwrap_or_default(),
        });
    }
    Ok(out)
}

pub async fn fetch(ctx: &FetchContext, admin0: &Admin0) -> Result<Vec<Disaster>, SourceError> {
    let url = Url::parse(EVENTS).map_err(|e| SourceError::parse("gdacs url", e))?;
    let reply = ctx.http.get_ok(&url, Default::default()).await?;
    parse(&reply.body, admin0)
}
