//! TrackAircraft (SUPPLEMENT 2.1.8): positions in a viewport, or of one aircraft or callsign, from
//! Wingbits (and OpenSky when `OPENSKY_REDISTRIBUTION=on`) through the read-through cache: 120 s,
//! callsign queries 60 s, empty answers 10 s, failures 30 s.

use poem::Request;
use sitrep_pipelines::positions::{
    opensky_states, opensky_token, regional_areas, tiles, viewport, wingbits, GeoBox, OpenSkyQuery, Position,
};

use super::{
    model::{AircraftPosition, TrackAircraftResponse, TrackSource},
    params::{CALLSIGN, ICAO24, NE_LAT, NE_LON, SW_LAT, SW_LON},
    queries,
};
use sitrep_pipelines::config::bbox_key;
use sitrep_platform::kit::wire_name::WireName;

use crate::read_through::{Fresh, ReadThrough};
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{dataset_get, live_get, Answer},
        canonical::{opt, Canonical, LiveKey},
        dataset_read,
        parse::{parse_with, Parsed},
    },
    registry::Operation,
};

const TTL: i64 = 120;
const CALLSIGN_TTL: i64 = 60;
const EMPTY_TTL: i64 = 10;
const FAILURE_TTL: i64 = 30;
const MAX_POSITIONS: usize = 1000;

/// What was asked: any of a viewport, an aircraft, a callsign.
struct Query {
    boxes: Option<Vec<GeoBox>>,
    icao24: Option<String>,
    callsign: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Provider {
    Wingbits,
    OpenSky,
}

impl Query {
    /// What the answer is a function of: the boxes (none and no box differ), the aircraft, the callsign.
    fn canonical(&self) -> Canonical {
        let boxes = self.boxes.iter().flatten().map(|b| format!("{},{},{},{}", b.south, b.west, b.north, b.east));
        Canonical::new(vec![("icao24", opt(&self.icao24)), ("callsign", opt(&self.callsign))])
            .with("viewport", self.boxes.is_some().to_string())
            .with_list("boxes", boxes.collect())
    }

    /// Providers to try, in order (2.1.8 "Strategy"), before their configuration is checked.
    fn providers(&self, opensky_enabled: bool) -> &'static [Provider] {
        match (&self.boxes, &self.icao24) {
            (Some(_), _) => &[Provider::Wingbits, Provider::OpenSky],
            (None, Some(_)) if opensky_enabled => &[Provider::OpenSky],
            _ => &[Provider::Wingbits],
        }
    }

    fn keeps(&self, p: &Position) -> bool {
        self.boxes.as_ref().is_none_or(|b| b.iter().any(|b| b.contains(p.lat, p.lon)))
            && self.icao24.as_ref().is_none_or(|h| &p.icao24 == h)
            && self.callsign.as_ref().is_none_or(|c| p.callsign.to_ascii_uppercase().contains(c.as_str()))
    }
}

/// An OpenSky access token, cached for `expires_in` − 60 s.
async fn opensky_bearer(state: &AppState, rt: &ReadThrough, id: &str, secret: &str) -> Option<String> {
    let (token, _) = rt
        .get_or_fetch(
            &LiveKey::fixed("opensky-token"),
            || state.clock.now(),
            || async {
                match opensky_token(&rt.http, id, secret).await {
                    Ok(t) => {
                        let ttl = (t.expires_in.unwrap_or(300) - 60).max(1);
                        Fresh { value: Some(t.access_token), ttl_seconds: ttl }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "opensky token request failed");
                        Fresh { value: None, ttl_seconds: FAILURE_TTL }
                    }
                }
            },
        )
        .await;
    token
}

async fn ask(state: &AppState, q: &Query, provider: Provider) -> Option<Result<Vec<Position>, String>> {
    let rt = &crate::context(state).read_through;
    match provider {
        Provider::Wingbits => {
            let key = rt.config.wingbits_api_key.as_deref()?;
            let areas = match &q.boxes {
                Some(boxes) => tiles(boxes),
                None => regional_areas(),
            };
            Some(wingbits(&rt.http, key, &areas).await.map_err(|e| e.to_string()))
        }
        Provider::OpenSky => {
            let (id, secret) = rt.config.opensky.as_ref()?;
            let Some(token) = opensky_bearer(state, rt, id, secret).await else {
                return Some(Err("opensky token".into()));
            };
            let mut out = Vec::new();
            let queries: Vec<OpenSkyQuery> = match (&q.boxes, &q.icao24) {
                (Some(boxes), _) => boxes.iter().map(|b| OpenSkyQuery::Box(*b)).collect(),
                (None, Some(hex)) => vec![OpenSkyQuery::Icao24(hex)],
                (None, None) => return None,
            };
            for query in queries {
                match opensky_states(&rt.http, &token, query).await {
                    Ok(p) => out.extend(p),
                    Err(e) => return Some(Err(e.to_string())),
                }
            }
            Some(Ok(out))
        }
    }
}

/// The first configured provider's answer (a failure moves on to the next), filtered and sorted.
async fn locate(state: &AppState, q: &Query, now_ms: i64) -> Fresh<TrackAircraftResponse> {
    let opensky_enabled = crate::context(state).read_through.config.opensky.is_some();
    for &provider in q.providers(opensky_enabled) {
        match ask(state, q, provider).await {
            None => continue,
            Some(Err(e)) => tracing::warn!(error = %e, "aircraft position provider failed"),
            Some(Ok(found)) => {
                let mut positions: Vec<AircraftPosition> =
                    found.into_iter().filter(|p| q.keeps(p)).map(AircraftPosition::from).collect();
                positions.sort_by(|a, b| a.icao24.cmp(&b.icao24));
                positions.truncate(MAX_POSITIONS);
                let source = if provider == Provider::Wingbits { TrackSource::Wingbits } else { TrackSource::Opensky };
                let ttl = match () {
                    _ if positions.is_empty() => EMPTY_TTL,
                    _ if q.callsign.is_some() && q.boxes.is_none() && q.icao24.is_none() => CALLSIGN_TTL,
                    _ => TTL,
                };
                return Fresh {
                    value: TrackAircraftResponse { positions, source: WireName(source), updated_at: now_ms },
                    ttl_seconds: ttl,
                };
            }
        }
    }
    Fresh { value: none(now_ms), ttl_seconds: FAILURE_TTL }
}

/// The watch list's answer (1.8 step 1) when the box is a watched one and was fetched.
async fn watched(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
    jmespath: Option<&str>,
    query: &Query,
    corners: [Option<f64>; 4],
) -> Option<Answer<TrackAircraftResponse>> {
    let [Some(a), Some(b), Some(c), Some(d)] = corners else { return None };
    query.boxes.as_ref()?;
    let bbox = bbox_key(&[a, b, c, d]);
    let (provenance, db) = dataset_read::current(state, op.dataset());
    let db = db?;
    let key = bbox.clone();
    let found = match db.query_table(move |conn, table| queries::watched_aircraft(conn, table, &key)).await {
        Ok(found) => found?,
        Err(e) => return Some(sitrep_platform::kit::error::ApiError::from(e).into()),
    };
    let (fetched_at, positions) = found;
    let positions: Vec<AircraftPosition> = positions
        .into_iter()
        .filter(|p| query.icao24.as_ref().is_none_or(|h| &p.icao24 == h))
        .filter(|p| query.callsign.as_ref().is_none_or(|c| p.callsign.to_ascii_uppercase().contains(c.as_str())))
        .take(MAX_POSITIONS)
        .collect();
    let answer = TrackAircraftResponse { positions, source: WireName(TrackSource::Wingbits), updated_at: fetched_at };
    let cache_key = query.canonical().with("watched_box", bbox).answer_key(op.segment(), &[db.version as i64]);
    Some(dataset_get(&state.cache, req, Some(cache_key), jmespath, provenance, async { Ok(answer) }).await)
}

fn none(now_ms: i64) -> TrackAircraftResponse {
    TrackAircraftResponse { positions: Vec::new(), source: WireName(TrackSource::None), updated_at: now_ms }
}

pub async fn answer(state: &AppState, req: &Request, op: &'static Operation) -> Answer<TrackAircraftResponse> {
    let Parsed { params: (corners, query), jmespath, .. } =
        match parse_with::<TrackAircraftResponse, _>(req, op, |q, v| {
            let corners = [SW_LAT, SW_LON, NE_LAT, NE_LON].map(|p| p.double(q, v));
            let text = |raw: Option<&str>| raw.map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
            let query = Query {
                boxes: match corners {
                    [Some(sw_lat), Some(sw_lon), Some(ne_lat), Some(ne_lon)]
                        if (sw_lat, sw_lon) != (ne_lat, ne_lon) =>
                    {
                        Some(viewport(sw_lat, sw_lon, ne_lat, ne_lon))
                    }
                    _ => None,
                },
                icao24: text(ICAO24.raw(q)).map(|h| h.to_ascii_lowercase()),
                callsign: text(CALLSIGN.raw(q)).map(|c| c.to_ascii_uppercase()),
            };
            (corners, query)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    if let Some(answer) = watched(state, req, op, jmespath, &query, corners).await {
        return answer;
    }
    let rt = &crate::context(state).read_through;
    let replay = rt.is_replay();
    let now_ms = state.clock.now() * 1000;
    if query.boxes.is_none() && query.icao24.is_none() && query.callsign.is_none() {
        return live_get(req, jmespath, &none(now_ms), true, replay);
    }
    let (answer, lease) = rt
        .get_or_fetch(&query.canonical().live_key("track"), || state.clock.now(), || locate(state, &query, now_ms))
        .await;
    let degraded = answer.source.0 == TrackSource::None;
    rt.answer(state, req, jmespath, &answer, degraded, lease)
}
