//! Aircraft positions for TrackAircraft (SUPPLEMENT 2.1.8): Wingbits' area query and OpenSky's
//! state vectors, the viewport tiling (tiles of at most 30° — at most 1,800 nm, inside Wingbits'
//! 2,000 nm — and at most 36 areas) with the antimeridian split, and the mapping to one position
//! record.

use chrono::DateTime;
use reqwest::{
    header::{HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE},
    Method,
};
use serde::Deserialize;
use sitrep_schemas::aviation::PositionSource;
use url::Url;

use crate::{http::Http, SourceError};

pub const WINGBITS_URL: &str = "https://customer-api.wingbits.com/v1/flights";
pub const OPENSKY_STATES_URL: &str = "https://opensky-network.org/api/states/all";
pub const OPENSKY_TOKEN_URL: &str =
    "https://auth.opensky-network.org/auth/realms/opensky-network/protocol/openid-connect/token";
const MAX_TILE_DEG: f64 = 30.0;
const MAX_AREAS: usize = 36;
const NM_PER_DEG: f64 = 60.0;

/// A latitude/longitude box that does not cross the antimeridian (`west <= east`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoBox {
    pub south: f64,
    pub west: f64,
    pub north: f64,
    pub east: f64,
}

impl GeoBox {
    pub fn contains(&self, lat: f64, lon: f64) -> bool {
        (self.south..=self.north).contains(&lat) && (self.west..=self.east).contains(&lon)
    }
}

/// The boxes of a viewport: one, or two when `sw_lon > ne_lon` crosses the antimeridian.
pub fn viewport(sw_lat: f64, sw_lon: f64, ne_lat: f64, ne_lon: f64) -> Vec<GeoBox> {
    let (south, north) = (sw_lat.min(ne_lat), sw_lat.max(ne_lat));
    if sw_lon > ne_lon {
        vec![GeoBox { south, west: sw_lon, north, east: 180.0 }, GeoBox { south, west: -180.0, north, east: ne_lon }]
    } else {
        vec![GeoBox { south, west: sw_lon, north, east: ne_lon }]
    }
}

/// One Wingbits area: a box by centre and size in nautical miles.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Area {
    pub alias: String,
    pub by: &'static str,
    pub la: f64,
    pub lo: f64,
    pub w: f64,
    pub h: f64,
    pub unit: &'static str,
}

fn area(alias: usize, la: f64, lo: f64, w: f64, h: f64) -> Area {
    let round = |x: f64| (x * 1e4).round() / 1e4;
    Area { alias: format!("a{alias}"), by: "box", la: round(la), lo: round(lo), w: round(w), h: round(h), unit: "nm" }
}

/// The boxes cut into tiles of at most 30° a side, as Wingbits areas, at most 36 (the first ones
/// in south-to-north, west-to-east order).
pub fn tiles(boxes: &[GeoBox]) -> Vec<Area> {
    let mut out = Vec::new();
    for b in boxes {
        let (w, h) = (b.east - b.west, b.north - b.south);
        let (cols, rows) = ((w / MAX_TILE_DEG).ceil().max(1.0) as usize, (h / MAX_TILE_DEG).ceil().max(1.0) as usize);
        let (tw, th) = (w / cols as f64, h / rows as f64);
        for r in 0..rows {
            for c in 0..cols {
                let la = b.south + th * (r as f64 + 0.5);
                let lo = b.west + tw * (c as f64 + 0.5);
                // Width shrinks with latitude: measure it at the tile's widest parallel.
                let widest = (la.abs() - th / 2.0).max(0.0).to_radians().cos();
                out.push(area(out.len(), la, lo, tw * NM_PER_DEG * widest, th * NM_PER_DEG));
            }
        }
    }
    out.truncate(MAX_AREAS);
    out
}

/// The three 2,000 nm regional boxes searched when only an icao24 or a callsign is given.
pub fn regional_areas() -> Vec<Area> {
    vec![
        area(0, 38.0, -95.0, 2000.0, 2000.0), // Americas
        area(1, 40.0, 20.0, 2000.0, 2000.0),  // Europe, Africa, Middle East
        area(2, 25.0, 115.0, 2000.0, 2000.0), // Asia-Pacific
    ]
}

/// One aircraft position (AircraftPosition of 2.1.8).
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub icao24: String,
    pub callsign: String,
    pub lat: f64,
    pub lon: f64,
    pub altitude_m: f64,
    pub ground_speed_kts: f64,
    pub track_deg: f64,
    pub vertical_rate: f64,
    pub on_ground: bool,
    pub source: PositionSource,
    pub observed_at: i64,
}

#[derive(Debug, Deserialize)]
struct WingbitsArea {
    #[serde(default)]
    data: Vec<WingbitsAircraft>,
}

#[derive(Debug, Deserialize)]
struct WingbitsAircraft {
    h: String,
    #[serde(default)]
    f: Option<String>,
    la: Option<f64>,
    lo: Option<f64>,
    #[serde(default)]
    ab: Option<f64>,
    #[serde(default)]
    gs: Option<f64>,
    #[serde(default)]
    th: Option<f64>,
    #[serde(default)]
    og: Option<bool>,
    #[serde(default)]
    ra: Option<String>,
}

/// A Wingbits answer's aircraft, de-duplicated by hex (the newest report wins).
pub fn parse_wingbits(body: &[u8]) -> Result<Vec<Position>, SourceError> {
    let areas: Vec<WingbitsArea> =
        serde_json::from_slice(body).map_err(|e| SourceError::parse("wingbits flights", e))?;
    let mut out: Vec<Position> = Vec::new();
    for a in areas.into_iter().flat_map(|a| a.data) {
        let (Some(lat), Some(lon)) = (a.la, a.lo) else { continue };
        let p = Position {
            icao24: a.h.trim().to_ascii_lowercase(),
            callsign: a.f.unwrap_or_default().trim().to_string(),
            lat,
            lon,
            altitude_m: a.ab.unwrap_or(0.0) * 0.3048,
            ground_speed_kts: a.gs.unwrap_or(0.0),
            track_deg: a.th.unwrap_or(0.0),
            vertical_rate: 0.0,
            on_ground: a.og.unwrap_or(false),
            source: PositionSource::Wingbits,
            observed_at: a
                .ra
                .as_deref()
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.timestamp_millis())
                .unwrap_or(0),
        };
        match out.iter_mut().find(|o| o.icao24 == p.icao24) {
            Some(o) if o.observed_at < p.observed_at => *o = p,
            Some(_) => {}
            None => out.push(p),
        }
    }
    Ok(out)
}

/// `POST` the areas to Wingbits.
pub async fn wingbits(http: &Http, api_key: &str, areas: &[Area]) -> Result<Vec<Position>, SourceError> {
    let url = Url::parse(WINGBITS_URL).map_err(|e| SourceError::parse("wingbits url", e))?;
    let mut headers = HeaderMap::new();
    headers.insert("x-api-key", HeaderValue::from_str(api_key).map_err(|e| SourceError::parse("wingbits key", e))?);
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    let body = serde_json::to_vec(areas).map_err(|e| SourceError::parse("wingbits areas", e))?;
    let reply = http.send_body(Method::POST, &url, headers, body, None).await?;
    let reply = crate::http::ensure_ok(&url, reply)?;
    parse_wingbits(&reply.body)
}

#[derive(Debug, Deserialize)]
struct States {
    #[serde(default)]
    states: Option<Vec<Vec<serde_json::Value>>>,
}

/// OpenSky's state vectors (indices of 2.1.8); rows without a position are dropped.
pub fn parse_opensky(body: &[u8]) -> Result<Vec<Position>, SourceError> {
    let states: States = serde_json::from_slice(body).map_err(|e| SourceError::parse("opensky states", e))?;
    let f = |row: &[serde_json::Value], i: usize| row.get(i).and_then(|v| v.as_f64());
    Ok(states
        .states
        .unwrap_or_default()
        .iter()
        .filter_map(|row| {
            let (lat, lon) = (f(row, 6)?, f(row, 5)?);
            Some(Position {
                icao24: row.first()?.as_str()?.trim().to_ascii_lowercase(),
                callsign: row.get(1).and_then(|v| v.as_str()).unwrap_or("").trim().to_string(),
                lat,
                lon,
                altitude_m: f(row, 7).unwrap_or(0.0),
                ground_speed_kts: f(row, 9).unwrap_or(0.0) * 1.943844,
                track_deg: f(row, 10).unwrap_or(0.0),
                vertical_rate: f(row, 11).unwrap_or(0.0),
                on_ground: row.get(8).and_then(|v| v.as_bool()).unwrap_or(false),
                source: PositionSource::Opensky,
                observed_at: f(row, 4).map(|s| (s * 1000.0) as i64).unwrap_or(0),
            })
        })
        .collect())
}

#[derive(Debug, Deserialize)]
pub struct Token {
    pub access_token: String,
    #[serde(default)]
    pub expires_in: Option<i64>,
}

/// OpenSky's client-credentials grant.
pub async fn opensky_token(http: &Http, client_id: &str, client_secret: &str) -> Result<Token, SourceError> {
    let url = Url::parse(OPENSKY_TOKEN_URL).map_err(|e| SourceError::parse("opensky token url", e))?;
    let form = [("grant_type", "client_credentials"), ("client_id", client_id), ("client_secret", client_secret)];
    let reply = http.send(Method::POST, &url, HeaderMap::new(), Some(&form), None).await?;
    let reply = crate::http::ensure_ok(&url, reply)?;
    serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("opensky token", e))
}

/// What OpenSky is asked for: one box or one aircraft.
pub enum OpenSkyQuery<'a> {
    Box(GeoBox),
    Icao24(&'a str),
}

pub async fn opensky_states(http: &Http, token: &str, query: OpenSkyQuery<'_>) -> Result<Vec<Position>, SourceError> {
    let mut url = Url::parse(OPENSKY_STATES_URL).map_err(|e| SourceError::parse("opensky url", e))?;
    match query {
        OpenSkyQuery::Box(b) => {
            url.query_pairs_mut()
                .append_pair("lamin", &b.south.to_string())
                .append_pair("lomin", &b.west.to_string())
                .append_pair("lamax", &b.north.to_string())
                .append_pair("lomax", &b.east.to_string());
        }
        OpenSkyQuery::Icao24(hex) => {
            url.query_pairs_mut().append_pair("icao24", hex);
        }
    }
    let mut headers = HeaderMap::new();
    let bearer =
        HeaderValue::from_str(&format!("Bearer {token}")).map_err(|e| SourceError::parse("opensky token", e))?;
    headers.insert(AUTHORIZATION, bearer);
    let reply = crate::http::ensure_ok(&url, http.send(Method::GET, &url, headers, None, None).await?)?;
    parse_opensky(&reply.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_antimeridian_splits_a_viewport() {
        let boxes = viewport(-10.0, 170.0, 10.0, -170.0);
        assert_eq!(boxes.len(), 2);
        assert_eq!((boxes[0].west, boxes[0].east, boxes[1].west, boxes[1].east), (170.0, 180.0, -180.0, -170.0));
        assert!(boxes[1].contains(0.0, -175.0) && !boxes[0].contains(0.0, -175.0));
    }

    #[test]
    fn tiles_of_at_most_30_degrees_and_36_areas() {
        let one = tiles(&viewport(40.0, 20.0, 45.0, 30.0));
        assert_eq!(one.len(), 1);
        assert_eq!((one[0].la, one[0].lo, one[0].h), (42.5, 25.0, 300.0));
        assert!(one[0].w < 600.0 && one[0].w > 400.0, "10° of longitude near 40° N is about 440-460 nm");
        let europe = tiles(&viewport(30.0, -20.0, 70.0, 45.0));
        assert_eq!(europe.len(), 3 * 2, "65° wide → 3 columns, 40° high → 2 rows");
        assert!(europe.iter().all(|a| a.w <= 2000.0 && a.h <= 2000.0));
        assert_eq!(tiles(&viewport(-90.0, -180.0, 90.0, 180.0)).len(), 36, "the world is capped at 36 areas");
        assert_eq!(europe.iter().map(|a| a.alias.as_str()).collect::<Vec<_>>(), ["a0", "a1", "a2", "a3", "a4", "a5"]);
    }

    #[test]
    fn wingbits_and_opensky_rows() {
        let w = parse_wingbits(br#"[{"alias":"a0","data":[
            {"h":"4B1805","f":"THY7CX  ","la":41.27,"lo":28.75,"ab":35000,"gs":451.2,"th":92.3,"og":false,"ra":"2026-11-20T05:59:50Z","sq":"2011"},
            {"h":"4b1805","f":"THY7CX","la":41.28,"lo":28.80,"ab":35000,"gs":451.0,"th":92.0,"og":false,"ra":"2026-11-20T05:59:58Z"}]},
            {"alias":"a1","data":[{"h":"abc123","la":null,"lo":null}]}]"#)
        .unwrap();
        assert_eq!(w.len(), 1, "de-duplicated by hex; rows without a position dropped");
        assert_eq!((w[0].icao24.as_str(), w[0].callsign.as_str(), w[0].lon), ("4b1805", "THY7CX", 28.80));
        assert!((w[0].altitude_m - 10_668.0).abs() < 0.01);
        let o = parse_opensky(br#"{"time":1795154400,"states":[["4b1805","THY7CX  ","Turkey",1795154395,1795154399,28.7519,41.2753,10668.0,false,231.5,92.3,0.0,null,10980.4,"2011",false,0],
            ["aaaaaa","X","Y",1,2,null,null,null,true,0,0,0,null,null,null,false,0]]}"#)
        .unwrap();
        assert_eq!(o.len(), 1);
        assert_eq!((o[0].observed_at, o[0].lat), (1_795_154_399_000, 41.2753));
        assert!((o[0].ground_speed_kts - 450.0).abs() < 0.1);
    }
}
