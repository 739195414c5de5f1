//! The flight search provider (SUPPLEMENT 2.1.12, a Decision): a configurable service answering
//! `/search` (itineraries) and `/search-dates` (cheapest fare per date) over a small JSON contract,
//! with an optional bearer token. A 429 is reported apart so the caller can cool down.

use reqwest::{
    header::{HeaderMap, HeaderValue, AUTHORIZATION},
    Method, StatusCode,
};
use serde::Deserialize;
use url::Url;

use crate::{http::Http, SourceError};

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("the provider is rate limiting (429)")]
    RateLimited,
    #[error("{0}")]
    Failed(#[from] SourceError),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Leg {
    #[serde(default)]
    pub airline_code: String,
    #[serde(default)]
    pub flight_number: String,
    #[serde(default)]
    pub departure_airport: String,
    #[serde(default)]
    pub arrival_airport: String,
    #[serde(default)]
    pub departure_datetime: String,
    #[serde(default)]
    pub arrival_datetime: String,
    #[serde(default)]
    pub duration_minutes: i32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Itinerary {
    pub price: f64,
    #[serde(default)]
    pub duration_minutes: i32,
    #[serde(default)]
    pub legs: Vec<Leg>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatePrice {
    pub date: String,
    #[serde(default)]
    pub return_date: Option<String>,
    #[serde(default)]
    pub price: Option<f64>,
}

#[derive(Deserialize)]
struct Flights {
    #[serde(default)]
    flights: Vec<Itinerary>,
}

#[derive(Deserialize)]
struct Dates {
    #[serde(default)]
    dates: Vec<DatePrice>,
}

async fn get(
    http: &Http,
    base: &str,
    token: Option<&str>,
    path: &str,
    query: &[(&str, String)],
) -> Result<bytes::Bytes, ProviderError> {
    let mut url = Url::parse(&format!("{}/{path}", base.trim_end_matches('/')))
        .map_err(|e| SourceError::parse("flight search provider url", e))?;
    url.query_pairs_mut().extend_pairs(query.iter().map(|(k, v)| (k, v.as_str())));
    let mut headers = HeaderMap::new();
    if let Some(t) = token {
        let bearer =
            HeaderValue::from_str(&format!("Bearer {t}")).map_err(|e| SourceError::parse("provider token", e))?;
        headers.insert(AUTHORIZATION, bearer);
    }
    let reply = http.send(Method::GET, &url, headers, None, None).await?;
    if reply.status == StatusCode::TOO_MANY_REQUESTS {
        return Err(ProviderError::RateLimited);
    }
    Ok(crate::http::ensure_ok(&url, reply)?.body)
}

/// `GET {base}/search?…`.
pub async fn search(
    http: &Http,
    base: &str,
    token: Option<&str>,
    query: &[(&str, String)],
) -> Result<Vec<Itinerary>, ProviderError> {
    let body = get(http, base, token, "search", query).await?;
    let f: Flights = serde_json::from_slice(&body).map_err(|e| SourceError::parse("provider flights", e))?;
    Ok(f.flights)
}

/// `GET {base}/search-dates?…`.
pub async fn search_dates(
    http: &Http,
    base: &str,
    token: Option<&str>,
    query: &[(&str, String)],
) -> Result<Vec<DatePrice>, ProviderError> {
    let body = get(http, base, token, "search-dates", query).await?;
    let d: Dates = serde_json::from_slice(&body).map_err(|e| SourceError::parse("provider dates", e))?;
    Ok(d.dates)
}
