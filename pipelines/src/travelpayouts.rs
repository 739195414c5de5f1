//! Travelpayouts Data API (SUPPLEMENT 2.1.10): cached fares for SearchFlightPrices — `v3/prices_for_dates`
//! first, `v2/prices/month-matrix` when it has no rows. The token travels in `X-Access-Token`.

use chrono::DateTime;
use reqwest::{
    header::{HeaderMap, HeaderValue},
    Method,
};
use serde::Deserialize;
use url::Url;

use crate::{http::Http, SourceError};

pub const V3_URL: &str = "https://api.travelpayouts.com/v3/prices_for_dates";
pub const MONTH_MATRIX_URL: &str = "https://api.travelpayouts.com/v2/prices/month-matrix";

/// One fare, whichever endpoint it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Fare {
    pub origin: String,
    pub destination: String,
    pub departure_date: String,
    pub return_date: String,
    pub airline: String,
    pub price: f64,
    pub stops: i32,
    pub duration_minutes: i32,
    /// Path under https://www.aviasales.com, or "".
    pub link: String,
    /// Epoch ms, 0 = unknown.
    pub expires_at: i64,
    /// The fare's trip class (month-matrix); `None` = the one asked for (v3).
    pub trip_class: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct Answer<T> {
    #[serde(default)]
    success: bool,
    #[serde(default)]
    currency: Option<String>,
    #[serde(default = "Vec::new")]
    data: Vec<T>,
}

#[derive(Debug, Deserialize)]
struct V3Row {
    origin: String,
    destination: String,
    price: f64,
    #[serde(default)]
    airline: String,
    departure_at: String,
    #[serde(default)]
    return_at: Option<String>,
    #[serde(default)]
    transfers: i32,
    #[serde(default)]
    duration_to: i32,
    #[serde(default)]
    duration_back: i32,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    expires_at: Option<String>,
}

#[derive(Debug, Deserialize)]
struct MonthRow {
    value: f64,
    depart_date: String,
    #[serde(default)]
    return_date: Option<String>,
    #[serde(default)]
    number_of_changes: i32,
    #[serde(default)]
    duration: i32,
    #[serde(default)]
    trip_class: Option<i64>,
}

fn date_part(s: &str) -> String {
    s.chars().take(10).collect()
}

/// An answer of either endpoint; `success: false` is a failure.
fn answer<T: serde::de::DeserializeOwned>(body: &[u8], what: &str) -> Result<Answer<T>, SourceError> {
    let a: Answer<T> = serde_json::from_slice(body).map_err(|e| SourceError::parse(what, e))?;
    if !a.success {
        return Err(SourceError::Upstream("travelpayouts: success false".into()));
    }
    Ok(a)
}

/// The fares of a v3 answer and its currency.
pub fn parse_v3(body: &[u8]) -> Result<(Vec<Fare>, Option<String>), SourceError> {
    let a: Answer<V3Row> = answer(body, "travelpayouts v3")?;
    let fares = a
        .data
        .into_iter()
        .map(|r| Fare {
            departure_date: date_part(&r.departure_at),
            return_date: r.return_at.as_deref().map(date_part).unwrap_or_default(),
            origin: r.origin,
            destination: r.destination,
            airline: r.airline,
            price: r.price,
            stops: r.transfers,
            duration_minutes: r.duration_to + r.duration_back,
            link: r.link.unwrap_or_default(),
            expires_at: r
                .expires_at
                .as_deref()
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.timestamp_millis())
                .unwrap_or(0),
            trip_class: None,
        })
        .collect();
    Ok((fares, a.currency))
}

/// The fares of a month-matrix answer for a route.
pub fn parse_month_matrix(
    body: &[u8],
    origin: &str,
    destination: &str,
) -> Result<(Vec<Fare>, Option<String>), SourceError> {
    let a: Answer<MonthRow> = answer(body, "travelpayouts month-matrix")?;
    let fares = a
        .data
        .into_iter()
        .map(|r| Fare {
            origin: origin.to_string(),
            destination: destination.to_string(),
            departure_date: r.depart_date,
            return_date: r.return_date.unwrap_or_default(),
            airline: String::new(),
            price: r.value,
            stops: r.number_of_changes,
            duration_minutes: r.duration,
            link: String::new(),
            expires_at: 0,
            trip_class: r.trip_class,
        })
        .collect();
    Ok((fares, a.currency))
}

async fn get(http: &Http, token: &str, base: &str, query: &[(&str, &str)]) -> Result<bytes::Bytes, SourceError> {
    let mut url = Url::parse(base).map_err(|e| SourceError::parse("travelpayouts url", e))?;
    url.query_pairs_mut().extend_pairs(query);
    let mut headers = HeaderMap::new();
    headers.insert("x-access-token", HeaderValue::from_str(token).map_err(|e| SourceError::parse("token", e))?);
    let reply = http.send(Method::GET, &url, headers, None, None).await?;
    Ok(crate::http::ensure_ok(&url, reply)?.body)
}

pub async fn prices_for_dates(
    http: &Http,
    token: &str,
    query: &[(&str, &str)],
) -> Result<(Vec<Fare>, Option<String>), SourceError> {
    parse_v3(&get(http, token, V3_URL, query).await?)
}

pub async fn month_matrix(
    http: &Http,
    token: &str,
    query: &[(&str, &str)],
    origin: &str,
    destination: &str,
) -> Result<(Vec<Fare>, Option<String>), SourceError> {
    parse_month_matrix(&get(http, token, MONTH_MATRIX_URL, query).await?, origin, destination)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_answer_shapes() {
        let (fares, currency) = parse_v3(br#"{"success":true,"currency":"usd","data":[{"origin":"IST","destination":"LHR","price":123,
            "airline":"PC","flight_number":"1169","departure_at":"2026-07-01T06:25:00+03:00","return_at":"","transfers":0,
            "duration_to":245,"duration_back":0,"link":"/search/IST0107LHR1","expires_at":"2026-06-01T10:00:00Z"}]}"#)
        .unwrap();
        assert_eq!(currency.as_deref(), Some("usd"));
        assert_eq!((fares[0].departure_date.as_str(), fares[0].return_date.as_str()), ("2026-07-01", ""));
        assert_eq!((fares[0].duration_minutes, fares[0].expires_at), (245, 1_780_308_000_000));
        assert!(parse_v3(br#"{"success":false,"data":[],"error":"unauthorized"}"#).is_err());
        let (fares, _) = parse_month_matrix(br#"{"success":true,"data":[{"value":118,"depart_date":"2026-07-03","return_date":"",
            "number_of_changes":1,"duration":380,"trip_class":0,"gate":"x","found_at":"2026-06-01T08:00:00","actual":true}]}"#, "IST", "LHR")
        .unwrap();
        assert_eq!((fares[0].price, fares[0].stops, fares[0].trip_class), (118.0, 1, Some(0)));
    }
}
