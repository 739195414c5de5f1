//! `airport-flights` (SUPPLEMENT 2.1.5, 1.8 step 1): the watch list's departure and arrival pages
//! from AviationStack every 15 minutes, so ListAirportFlights and GetCarrierOps answer watched
//! airports from the lake instead of a live call. Every call is paid from the monthly budget.

use arrow::array::{BooleanBuilder, RecordBatch};
use futures::StreamExt;
use sitrep_schemas::DatasetId;

use crate::{
    arrow_util::{batch, finish, i32s, instants, string_lists, strings},
    aviationstack::{self, FlightRecord},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

/// The default `AVIATION_WATCH_AIRPORTS` (2.1.5).
pub const DEFAULT_WATCH_AIRPORTS: [&str; 6] = ["IST", "ESB", "SAW", "LHR", "FRA", "CDG"];
const PARALLELISM: usize = 6;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Departure,
    Arrival,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Departure => "DEPARTURE",
            Direction::Arrival => "ARRIVAL",
        }
    }

    /// The AviationStack query parameter selecting the airport's side.
    pub fn query_key(self) -> &'static str {
        match self {
            Direction::Departure => "dep_iata",
            Direction::Arrival => "arr_iata",
        }
    }

    /// The scheduled time a page of this direction is ordered by.
    pub fn scheduled(self, f: &FlightRecord) -> i64 {
        match self {
            Direction::Departure => f.scheduled_departure,
            Direction::Arrival => f.scheduled_arrival,
        }
    }
}

/// One airport's page in one direction: its flights ordered by scheduled time, or why it failed.
#[derive(Debug, Clone)]
pub struct FlightPage {
    pub airport: String,
    pub direction: Direction,
    pub fetched_at: i64,
    pub result: Result<Vec<FlightRecord>, String>,
}

/// `GET /v1/flights?access_key=…&<dep|arr>_iata=<IATA>&limit=100`, ordered as 2.1.5 says.
pub async fn fetch_page(
    http: &crate::http::Http,
    key: &str,
    airport: &str,
    direction: Direction,
) -> Result<Vec<FlightRecord>, SourceError> {
    let query = [(direction.query_key(), airport), ("limit", "100")];
    let rows = aviationstack::flights(http, aviationstack::BASE, key, &query, None).await?;
    let mut flights: Vec<FlightRecord> = rows.iter().map(aviationstack::record).collect();
    flights.sort_by_key(|f| direction.scheduled(f));
    Ok(flights)
}

#[derive(Default)]
pub struct AirportFlightsSource;

#[async_trait::async_trait]
impl Source for AirportFlightsSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::AIRPORT_FLIGHTS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["aviationstack"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("airport-flights has no history to backfill".into()));
        }
        let key = ctx.config.aviationstack_key.as_deref().ok_or_else(|| {
            SourceError::NotConfigured("AVIATIONSTACK_API is not set: the airport watch list is not fetched".into())
        })?;
        let budget = ctx.budget.as_deref().ok_or_else(|| {
            SourceError::NotConfigured("no budget store (SITREP_STATE): AviationStack calls are not made".into())
        })?;
        let now_ms = ctx.now.timestamp_millis();
        let asks: Vec<(String, Direction)> = ctx
            .config
            .aviation_watch_airports
            .iter()
            .flat_map(|a| [(a.clone(), Direction::Departure), (a.clone(), Direction::Arrival)])
            .collect();
        let calls: Vec<_> = asks
            .into_iter()
            .map(|(airport, direction)| async move {
                let result = if ctx.config.aviationstack_budget.reserve_scheduled(budget, ctx.now).await {
                    fetch_page(&ctx.http, key, &airport, direction).await.map_err(|e| e.brief())
                } else {
                    Err("budget".to_string())
                };
                FlightPage { airport, direction, fetched_at: now_ms, result }
            })
            .collect();
        let pages: Vec<FlightPage> = futures::stream::iter(calls).buffered(PARALLELISM).collect().await;
        if !pages.is_empty() && pages.iter().all(|p| p.result.is_err()) {
            let why: Vec<&str> = pages.iter().filter_map(|p| p.result.as_ref().err()).map(String::as_str).collect();
            return Err(SourceError::Upstream(format!("every watch-list page failed ({})", why.join(", "))));
        }
        Ok(Fetched {
            partial_error: None,
            batch: rows(&pages)?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
        })
    }
}

/// One dataset row: a page's status row, or one of its flights at a position.
enum Row<'a> {
    Page(&'a FlightPage),
    Flight(&'a FlightPage, i32, &'a FlightRecord),
}

impl<'a> Row<'a> {
    fn page(&self) -> &'a FlightPage {
        match self {
            Row::Page(p) | Row::Flight(p, ..) => p,
        }
    }

    fn flight(&self) -> Option<&'a FlightRecord> {
        match self {
            Row::Page(_) => None,
            Row::Flight(_, _, f) => Some(f),
        }
    }
}

/// The dataset rows of a run's pages: each page's status row, then its flights in order.
pub fn rows(pages: &[FlightPage]) -> Result<RecordBatch, SourceError> {
    let rows: Vec<Row> = pages
        .iter()
        .flat_map(|p| {
            let flights = p.result.as_ref().map(|f| f.as_slice()).unwrap_or(&[]);
            std::iter::once(Row::Page(p))
                .chain(flights.iter().enumerate().map(move |(i, f)| Row::Flight(p, i as i32, f)))
        })
        .collect();
    let n = rows.len();
    let text = |value: &dyn Fn(&Row) -> Option<String>| {
        let mut b = strings(n);
        rows.iter().for_each(|r| b.append_option(value(r)));
        finish(b)
    };
    let flight_text = |value: fn(&FlightRecord) -> &str| text(&|r: &Row| r.flight().map(|f| value(f).to_string()));
    let time = |value: fn(&FlightRecord) -> i64| {
        let mut b = instants(n);
        rows.iter().for_each(|r| b.append_option(r.flight().map(value).filter(|t| *t != 0)));
        finish(b)
    };
    let flag = |value: fn(&FlightRecord) -> bool| {
        let mut b = BooleanBuilder::with_capacity(n);
        rows.iter().for_each(|r| b.append_option(r.flight().map(value)));
        finish(b)
    };
    let (mut position, mut fetched, mut total, mut delay) = (i32s(n), instants(n), i32s(n), i32s(n));
    let mut codeshares = string_lists(n);
    for r in &rows {
        position.append_value(match r {
            Row::Page(_) => 0,
            Row::Flight(_, i, _) => *i,
        });
        fetched.append_value(r.page().fetched_at);
        total.append_option(match r {
            Row::Page(p) => p.result.as_ref().ok().map(|f| f.len() as i32),
            Row::Flight(..) => None,
        });
        delay.append_option(r.flight().map(|f| f.delay_minutes.clamp(i32::MIN as i64, i32::MAX as i64) as i32));
        match r.flight() {
            Some(f) => {
                codeshares.values().extend(f.codeshare_flight_numbers.iter().map(Some));
                codeshares.append(true);
            }
            None => codeshares.append_null(),
        }
    }
    let page_status = |r: &Row| match r {
        Row::Page(p) => Some(if p.result.is_ok() { "ok".to_string() } else { "failed".to_string() }),
        Row::Flight(..) => None,
    };
    let page_message = |r: &Row| match r {
        Row::Page(p) => Some(match &p.result {
            Ok(f) => format!("{} flights", f.len()),
            Err(why) => why.clone(),
        }),
        Row::Flight(..) => None,
    };
    let columns = vec![
        text(&|r| Some(if r.flight().is_some() { "flight" } else { "page" }.to_string())),
        text(&|r| Some(r.page().airport.clone())),
        text(&|r| Some(r.page().direction.as_str().to_string())),
        finish(position),
        finish(fetched),
        text(&page_status),
        text(&page_message),
        finish(total),
        flight_text(|f| &f.flight_number),
        flight_text(|f| &f.date),
        flight_text(|f| &f.carrier.iata),
        flight_text(|f| &f.carrier.icao),
        flight_text(|f| &f.carrier.name),
        flight_text(|f| &f.origin.iata),
        flight_text(|f| &f.origin.icao),
        flight_text(|f| &f.origin.name),
        flight_text(|f| &f.origin.timezone),
        flight_text(|f| &f.destination.iata),
        flight_text(|f| &f.destination.icao),
        flight_text(|f| &f.destination.name),
        flight_text(|f| &f.destination.timezone),
        time(|f| f.scheduled_departure),
        time(|f| f.estimated_departure),
        time(|f| f.actual_departure),
        time(|f| f.scheduled_arrival),
        time(|f| f.estimated_arrival),
        time(|f| f.actual_arrival),
        flight_text(|f| f.status.as_str()),
        finish(delay),
        flag(|f| f.cancelled),
        flag(|f| f.diverted),
        flight_text(|f| &f.gate),
        flight_text(|f| &f.terminal),
        flight_text(|f| &f.aircraft_icao24),
        flight_text(|f| &f.aircraft_type),
        finish(codeshares),
    ];
    batch(DatasetId::AIRPORT_FLIGHTS, columns)
}
