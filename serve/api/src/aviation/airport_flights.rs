//! ListAirportFlights and GetCarrierOps (SUPPLEMENT 2.1.5, 2.1.6; PRO). An airport's page in a
//! direction comes from the watch list of the current generation when it holds a fetched page
//! (1.8 step 1), else from AviationStack through the read-through cache (900 s; failures 30 s),
//! each live call paid from the live and the monthly budgets. Both operations share the pages.

use sitrep_schemas::numbers::round_to;
use std::sync::Arc;

use poem::Request;
use sitrep_pipelines::airport_flights::{fetch_page, Direction};

use super::{
    model::{Carrier, CarrierOps, Flight, FlightDataSource, GetCarrierOpsResponse, ListAirportFlightsResponse},
    params::{AIRPORT, CARRIER_AIRPORTS, DIRECTION, LIMIT, MIN_FLIGHTS},
    queries,
};
use crate::read_through::Fresh;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_platform::{
    app_state::AppState,
    kit::{
        answer::{dataset_get, live_get, Answer},
        canonical::Canonical,
        dataset_read,
        error::ApiError,
        parse::{parse_with, Parsed},
    },
    registry::Operation,
    snapshot::DatasetDb,
};

const TTL: i64 = 900;
const FAILURE_TTL: i64 = 30;
/// GetCarrierOps's airports when none are given, and how many it looks at.
const DEFAULT_CARRIER_AIRPORTS: [&str; 3] = ["IST", "ESB", "SAW"];
const MAX_CARRIER_AIRPORTS: usize = 6;

/// One airport's flights in one direction, and when they were fetched (epoch ms).
#[derive(Debug, Clone)]
pub struct Page {
    pub flights: Vec<Flight>,
    pub updated_at: i64,
}

/// A page, or the degraded `source` that replaces it: none, budget or error.
type PageResult = Result<Page, FlightDataSource>;

fn is_iata(code: &str) -> bool {
    code.len() == 3 && code.bytes().all(|b| b.is_ascii_uppercase())
}

fn scheduled(direction: Direction, f: &Flight) -> i64 {
    match direction {
        Direction::Departure => f.scheduled_departure,
        Direction::Arrival => f.scheduled_arrival,
    }
}

/// The watch list's page, when the current generation holds one that was fetched.
async fn watch_page(
    db: &Option<Arc<DatasetDb>>,
    airport: &str,
    direction: Direction,
) -> Result<Option<Page>, ApiError> {
    let Some(db) = db else { return Ok(None) };
    let (table, airport) = (db.table().to_string(), airport.to_string());
    let page = db.query(move |c| queries::watch_page(c, &table, &airport, direction.as_str())).await?;
    Ok(page.filter(|p| p.ok).map(|p| Page { flights: p.flights, updated_at: p.fetched_at }))
}

/// The live page through the read-through cache.
async fn live_page(state: &AppState, req: &Request, airport: &str, direction: Direction) -> PageResult {
    let rt = &crate::context(state).read_through;
    let Some(key) = rt.config.aviationstack_key.clone() else { return Err(FlightDataSource::None) };
    let cache_key = Canonical::new(vec![("airport", airport.into()), ("direction", direction.as_str().into())])
        .live_key("aviationstack-airport-flights");
    let (page, _) = rt
        .get_or_fetch(
            &cache_key,
            || state.clock.now(),
            || async {
                let now = state.clock.now();
                let caller = crate::context::caller(state, req);
                let reserved = crate::context(state).reserve_aviationstack_call(&state.store, &caller, now).await;
                if let Some(ttl_seconds) = reserved.refusal_kept_for(FAILURE_TTL) {
                    return Fresh { value: Err(FlightDataSource::Budget), ttl_seconds };
                }
                match fetch_page(&rt.http, &key, airport, direction).await {
                    Ok(records) => {
                        let updated_at = now * 1000;
                        let flights = records.into_iter().map(|r| Flight::of_record(r, updated_at)).collect();
                        Fresh { value: Ok(Page { flights, updated_at }), ttl_seconds: TTL }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, airport, "aviationstack airport page failed");
                        Fresh { value: Err(FlightDataSource::Error), ttl_seconds: FAILURE_TTL }
                    }
                }
            },
        )
        .await;
    page
}

/// The page of one airport and direction: the watch list's, else the live one.
async fn page(
    state: &AppState,
    req: &Request,
    db: &Option<Arc<DatasetDb>>,
    airport: &str,
    direction: Direction,
) -> Result<PageResult, ApiError> {
    Ok(match watch_page(db, airport, direction).await? {
        Some(page) => Ok(page),
        None => live_page(state, req, airport, direction).await,
    })
}

/// The flights of the requested directions, ordered by the scheduled time of each flight's
/// direction, cut to `limit`.
fn flights_answer(pages: Vec<(Direction, Page)>, limit: usize) -> ListAirportFlightsResponse {
    let updated_at = pages.iter().map(|(_, p)| p.updated_at).min().unwrap_or(0);
    let mut all: Vec<(i64, Flight)> =
        pages.into_iter().flat_map(|(d, p)| p.flights.into_iter().map(move |f| (scheduled(d, &f), f))).collect();
    all.sort_by_key(|(t, _)| *t);
    let total_available = all.len() as i32;
    ListAirportFlightsResponse {
        flights: all.into_iter().take(limit).map(|(_, f)| f).collect(),
        total_available,
        source: WireName(FlightDataSource::Aviationstack),
        updated_at,
    }
}

fn flights_degraded(source: FlightDataSource, updated_at: i64) -> ListAirportFlightsResponse {
    ListAirportFlightsResponse { flights: Vec::new(), total_available: 0, source: WireName(source), updated_at }
}

pub async fn list(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListAirportFlightsResponse> {
    let Parsed { params: (airport, direction, limit), jmespath, .. } =
        match parse_with::<ListAirportFlightsResponse, _>(req, op, |q, v| {
            let airport = AIRPORT.checked(q, v).unwrap_or_default().to_ascii_uppercase();
            let direction = DIRECTION.enumerated(q, v).unwrap_or("DEPARTURE");
            let limit = LIMIT.int32(q, v);
            (airport, direction, limit)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let replay = crate::context(state).read_through.is_replay();
    let now_ms = state.clock.now() * 1000;
    if !is_iata(&airport) {
        return live_get(req, jmespath, &flights_degraded(FlightDataSource::Invalid, now_ms), true, replay);
    }
    let directions: &[Direction] = match direction {
        "ARRIVAL" => &[Direction::Arrival],
        "BOTH" => &[Direction::Departure, Direction::Arrival],
        _ => &[Direction::Departure],
    };
    let (provenance, db) = dataset_read::current(state, op.dataset());
    let mut watched = Vec::new();
    for &d in directions {
        match watch_page(&db, &airport, d).await {
            Ok(Some(p)) => watched.push((d, p)),
            Ok(None) => break,
            Err(e) => return e.into(),
        }
    }
    if let (true, Some(db)) = (watched.len() == directions.len(), &db) {
        let canonical =
            Canonical::new(vec![("airport", airport), ("direction", direction.into()), ("limit", limit.to_string())]);
        let key = canonical.answer_key(op.segment(), &[db.version as i64]);
        let answer = flights_answer(watched, limit as usize);
        return dataset_get(&state.cache, req, Some(key), jmespath, provenance, async { Ok(answer) }).await;
    }
    let mut pages = Vec::new();
    for &d in directions {
        match live_page(state, req, &airport, d).await {
            Ok(p) => pages.push((d, p)),
            Err(source) => return live_get(req, jmespath, &flights_degraded(source, now_ms), true, replay),
        }
    }
    live_get(req, jmespath, &flights_answer(pages, limit as usize), false, replay)
}

/// Departures grouped by (carrier, airport), as 2.1.6 says, for groups of at least `min_flights`.
pub fn carrier_ops(airport: &str, page: &Page, min_flights: i32) -> Vec<CarrierOps> {
    let mut groups: Vec<(Carrier, Vec<&Flight>)> = Vec::new();
    for f in &page.flights {
        let code = if f.operating_carrier.iata_code.is_empty() { "UNK" } else { &f.operating_carrier.iata_code };
        match groups.iter_mut().find(|(c, _)| c.iata_code == code) {
            Some((_, flights)) => flights.push(f),
            None => groups.push((Carrier { iata_code: code.into(), ..f.operating_carrier.clone() }, vec![f])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, flights)| flights.len() as i32 >= min_flights)
        .map(|(carrier, flights)| {
            let total = flights.len() as f64;
            let delays: Vec<i32> = flights.iter().map(|f| f.delay_minutes).filter(|d| *d > 0).collect();
            let cancelled = flights.iter().filter(|f| f.cancelled).count();
            let avg = if delays.is_empty() {
                0
            } else {
                (delays.iter().map(|d| *d as f64).sum::<f64>() / delays.len() as f64).round() as i32
            };
            CarrierOps {
                carrier,
                airport: airport.to_string(),
                total_flights: flights.len() as i32,
                delayed_count: delays.len() as i32,
                cancelled_count: cancelled as i32,
                avg_delay_minutes: avg,
                delay_pct: round_to(delays.len() as f64 * 100.0 / total, 1),
                cancellation_rate: round_to(cancelled as f64 * 100.0 / total, 1),
                updated_at: page.updated_at,
            }
        })
        .collect()
}

pub async fn carriers(state: &AppState, req: &Request, op: &'static Operation) -> Answer<GetCarrierOpsResponse> {
    let Parsed { params: (mut codes, min_flights), jmespath, .. } =
        match parse_with::<GetCarrierOpsResponse, _>(req, op, |q, v| {
            let mut codes: Vec<String> = Vec::new();
            for code in CARRIER_AIRPORTS.repeated(q, v) {
                let code = code.to_ascii_uppercase();
                if !codes.contains(&code) {
                    codes.push(code);
                }
            }
            let min_flights = MIN_FLIGHTS.int32(q, v);
            (codes, min_flights)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    if codes.is_empty() {
        codes = DEFAULT_CARRIER_AIRPORTS.iter().map(|c| c.to_string()).collect();
    }
    codes.truncate(MAX_CARRIER_AIRPORTS);
    let replay = crate::context(state).read_through.is_replay();
    let now_ms = state.clock.now() * 1000;
    let degraded =
        |source| GetCarrierOpsResponse { carriers: Vec::new(), source: WireName(source), updated_at: now_ms };
    if !codes.iter().all(|c| is_iata(c)) {
        return live_get(req, jmespath, &degraded(FlightDataSource::Invalid), true, replay);
    }
    let (_, db) = dataset_read::current(state, op.dataset());
    let mut carriers = Vec::new();
    let (mut answered, mut failure, mut updated_at) = (0, None, i64::MAX);
    for code in &codes {
        match page(state, req, &db, code, Direction::Departure).await {
            Ok(Ok(p)) => {
                answered += 1;
                updated_at = updated_at.min(p.updated_at);
                carriers.extend(carrier_ops(code, &p, min_flights));
            }
            Ok(Err(source)) => failure = failure.or(Some(source)),
            Err(e) => return e.into(),
        }
    }
    let answer = match (answered, failure) {
        (0, failure) => degraded(failure.unwrap_or(FlightDataSource::Error)),
        (_, failure) => {
            carriers.sort_by(|a, b| {
                b.cancellation_rate
                    .total_cmp(&a.cancellation_rate)
                    .then(b.delay_pct.total_cmp(&a.delay_pct))
                    .then_with(|| a.airport.cmp(&b.airport))
                    .then_with(|| a.carrier.iata_code.cmp(&b.carrier.iata_code))
            });
            let source = if failure.is_some() { FlightDataSource::Partial } else { FlightDataSource::Aviationstack };
            GetCarrierOpsResponse { carriers, source: WireName(source), updated_at }
        }
    };
    let degraded = answer.source.0 != FlightDataSource::Aviationstack;
    live_get(req, jmespath, &answer, degraded, replay)
}
