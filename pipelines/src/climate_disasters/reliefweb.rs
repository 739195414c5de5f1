//! ReliefWeb's disasters API (v2, POST): country-level disasters of the five climate types that
//! are on alert or ongoing, placed at their country's label point.

use chrono::DateTime;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use serde::Deserialize;
use sitrep_schemas::countries;
use url::Url;

use super::{Disaster, Kind, Severity, Source as Origin, Status};
use crate::{admin0::Admin0, http::ensure_ok, FetchContext, SourceError};

const DISASTERS: &str = "https://api.reliefweb.int/v2/disasters";

/// The query of 2.2.2, as sent.
pub fn query_body() -> serde_json::Value {
    serde_json::json!({
        "limit": 250,
        "sort": ["date.event:desc"],
        "fields": {"include": ["name", "country", "primary_country", "primary_type", "type", "date", "glide", "status", "url"]},
        "filter": {"operator": "AND", "conditions": [
            {"field": "status", "value": ["alert", "current", "ongoing"]},
            {"field": "type.code", "value": ["FL", "TC", "DR", "HT", "WF"]}
        ]}
    })
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    id: serde_json::Value,
    fields: Fields,
}

#[derive(Deserialize)]
struct Fields {
    #[serde(default)]
    name: String,
    #[serde(default)]
    glide: Option<String>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    date: Option<Dates>,
    #[serde(default)]
    primary_country: Option<Country>,
    #[serde(default)]
    primary_type: Option<Type>,
}

#[derive(Deserialize)]
struct Dates {
    #[serde(default)]
    event: Option<String>,
    #[serde(default)]
    created: Option<String>,
}

#[derive(Deserialize)]
struct Country {
    #[serde(default)]
    iso3: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    location: Option<Location>,
}

#[derive(Deserialize, Clone, Copy)]
struct Location {
    lat: f64,
    lon: f64,
}

#[derive(Deserialize)]
struct Type {
    code: String,
}

fn kind(code: &str) -> Option<Kind> {
    Some(match code {
        "FL" => Kind::Flood,
        "TC" => Kind::Cyclone,
        "DR" => Kind::Drought,
        "HT" => Kind::Heatwave,
        "WF" => Kind::Wildfire,
        _ => return None,
    })
}

/// The disasters of one answer: the five types, alert or ongoing, with a start date.
pub fn parse(body: &[u8], admin0: &Admin0) -> Result<Vec<Disaster>, SourceError> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| SourceError::parse("reliefweb disasters", e))?;
    let mut out = Vec::new();
    for item in answer.data {
        let f = item.fields;
        let Some(kind) = f.primary_type.as_ref().and_then(|t| kind(&t.code)) else { continue };
        let status = match f.status.as_str() {
            "alert" => Status::Alert,
            "current" | "ongoing" => Status::Ongoing,
            _ => continue,
        };
        let dates = f.date.as_ref();
        let started = dates.and_then(|d| d.event.as_deref()).or_else(|| dates.and_then(|d| d.created.as_deref()));
        let Some(started_at) = started.and_then(|s| DateTime::parse_from_rfc3339(s).ok()).map(|t| t.timestamp_millis())
        else {
            continue;
        };
        let id = match f.glide.as_deref().map(str::trim).filter(|g| !g.is_empty()) {
            Some(glide) => format!("reliefweb-{glide}"),
            None => {
                format!("reliefweb-{}", item.id.as_str().map(str::to_string).unwrap_or_else(|| item.id.to_string()))
            }
        };
        let pc = f.primary_country.as_ref();
        let code = pc.and_then(|c| countries::alpha2_from_alpha3(&c.iso3)).unwrap_or("");
        let country = countries::name_of(code).map(str::to_string).or_else(|| pc.map(|c| c.name.clone()));
        // The country's label point; ReliefWeb's own point where the boundaries have no such country.
        let point =
            admin0.by_iso2(code).map(|c| c.label).or_else(|| pc.and_then(|c| c.location).map(|l| (l.lon, l.lat)));
        let Some((lng, lat)) = point else { continue };
        out.push(Disaster {
            id,
            kind,
            name: super::without_leading_emoji(&f.name),
            country: country.unwrap_or_default(),
            country_code: code.to_string(),
            lat,
            lng,
            severity: if status == Status::Alert { Severity::High } else { Severity::Medium },
            started_at,
            status,
            source: Origin::ReliefWeb,
            source_url: f.url.unwrap_or_default(),
        });
    }
    Ok(out)
}

pub async fn fetch(ctx: &FetchContext, appname: &str, admin0: &Admin0) -> Result<Vec<Disaster>, SourceError> {
    let mut url = Url::parse(DISASTERS).map_err(|e| SourceError::parse("reliefweb url", e))?;
    url.query_pairs_mut().append_pair("appname", appname);
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let body = serde_json::to_vec(&query_body()).map_err(|e| SourceError::parse("reliefweb query", e))?;
    let reply = ctx.http.send_body(reqwest::Method::POST, &url, headers, body, None).await?;
    parse(&ensure_ok(&url, reply)?.body, admin0)
}
