//! SearchProviderFlights and SearchProviderDates (SUPPLEMENT 2.1.12): the configurable flight
//! search provider through the read-through cache (600 s; failures 30 s). A 429 starts a 120 s
//! cool-down during which calls answer `provider_cooldown`; date ranges go out in chunks of at
//! most 61 days, at most 6 (366 days).

use std::time::Instant;

use chrono::NaiveDate;
use poem::Request;
use sitrep_pipelines::flight_search::{self, ProviderError};

use super::{
    model::{DatePrice, Itinerary, Leg, SearchProviderDatesResponse, SearchProviderFlightsResponse},
    params::{
        AIRLINES, CABIN_CLASS, DEPARTURE_WINDOW, END_DATE, IS_ROUND_TRIP, MAX_STOPS, PASSENGERS,
        PROVIDER_DEPARTURE_DATE, PROVIDER_DESTINATION, PROVIDER_ORIGIN, PROVIDER_RETURN_DATE, SORT_BY, SORT_BY_PRICE,
        START_DATE, TRIP_DURATION,
    },
};
use crate::read_through::Fresh;
use sitrep_platform::{
    app_state::AppState,
    edge::rate_limit::{self, Policy},
    kit::{
        answer::{live_get, Answer},
        canonical::Canonical,
        error::Violations,
        params::RawQuery,
        parse::{parse_with, Parsed},
    },
    registry::Operation,
};

const TTL: i64 = 600;
const FAILURE_TTL: i64 = 30;
const COOLDOWN_SECONDS: i64 = 120;
const CHUNK_DAYS: i64 = 61;
const MAX_RANGE_DAYS: i64 = 366;

/// The seven shared parameters (1.6), in the provider's encodings.
#[derive(Debug, Clone, Default)]
struct Shared {
    origin: Option<String>,
    destination: Option<String>,
    cabin: u8,
    stops: u8,
    departure_window: Option<String>,
    airlines: Vec<String>,
    passengers: i32,
}

impl Shared {
    fn parse(q: &RawQuery, v: &mut Violations) -> Shared {
        let upper = |s: Option<String>| s.map(|s| s.to_ascii_uppercase());
        let origin = upper(PROVIDER_ORIGIN.checked(q, v));
        let destination = upper(PROVIDER_DESTINATION.checked(q, v));
        let cabin = match CABIN_CLASS.one_of(q, v) {
            Some("PREMIUM_ECONOMY") => 2,
            Some("BUSINESS") => 3,
            Some("FIRST") => 4,
            _ => 1,
        };
        let stops = match MAX_STOPS.one_of(q, v) {
            Some("NON_STOP") => 1,
            Some("ONE_STOP") => 2,
            Some("TWO_PLUS_STOPS") => 3,
            _ => 0,
        };
        let departure_window = DEPARTURE_WINDOW.checked(q, v).filter(|w| {
            let (a, b) = w.split_once('-').unwrap_or_default();
            let ordered = a.parse::<u32>().ok() < b.parse::<u32>().ok();
            if !ordered {
                v.push("departureWindow", "string must match pattern ^([01]?[0-9]|2[0-3])-([01]?[0-9]|2[0-4])$");
            }
            ordered
        });
        let airlines: Vec<String> = AIRLINES.repeated(q, v).into_iter().map(|a| a.to_ascii_uppercase()).collect();
        for (i, a) in airlines.iter().enumerate() {
            if a.chars().count() != 2 {
                v.push(&format!("airlines[{i}]"), "string length must be exactly 2");
            }
        }
        Shared { origin, destination, cabin, stops, departure_window, airlines, passengers: PASSENGERS.int32(q, v) }
    }

    /// The encodings every provider call carries (after its own parameters).
    fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = vec![("cabin", self.cabin.to_string()), ("stops", self.stops.to_string())];
        if let Some(w) = &self.departure_window {
            q.push(("departure_window", w.clone()));
        }
        q.push(("passengers", self.passengers.to_string()));
        q.extend(self.airlines.iter().map(|a| ("airlines", a.clone())));
        q
    }
}

/// Why there is no answer: not configured, cooling down, or the provider failed.
fn provider_error(e: &ProviderError, state: &AppState) -> &'static str {
    match e {
        ProviderError::RateLimited => {
            crate::context(state).read_through.cool_down(state.clock.now() + COOLDOWN_SECONDS);
            "provider_cooldown"
        }
        ProviderError::Failed(e) => {
            tracing::warn!(error = %e, "flight search provider failed");
            "upstream_error"
        }
    }
}

/// Whether `caller` may make `calls` more uncached provider calls this minute. The provider's
/// rate is everyone's: without a share per account, one account's distinct searches would make it
/// answer 429 and cool it down for all. Past its share an account alone is answered
/// `provider_cooldown` (never kept for others); a limiter that cannot be asked lets the call go,
/// as the default policy does.
async fn within_share(state: &AppState, caller: &str, calls: usize) -> bool {
    let max = crate::context(state).settings.flight_search_account_per_minute;
    let window = format!("flight-search {caller}");
    for _ in 0..calls {
        let counted = rate_limit::hit(state.limiter.as_ref(), Policy::Default, max, &window, Instant::now()).await;
        if counted.is_ok_and(|d| !d.allowed) {
            return false;
        }
    }
    true
}

/// The provider's base URL and token, or the degraded error that replaces a call.
fn provider(state: &AppState) -> Result<(String, Option<String>), &'static str> {
    let rt = &crate::context(state).read_through;
    if rt.cooling_down(state.clock.now()) {
        return Err("provider_cooldown");
    }
    rt.config.flight_search_provider.clone().ok_or("provider_unavailable")
}

fn itinerary(i: flight_search::Itinerary) -> Itinerary {
    Itinerary {
        stops: (i.legs.len() as i32 - 1).max(0),
        price: i.price,
        duration_minutes: i.duration_minutes,
        legs: i
            .legs
            .into_iter()
            .map(|l| Leg {
                airline_code: l.airline_code,
                flight_number: l.flight_number,
                departure_airport: l.departure_airport,
                arrival_airport: l.arrival_airport,
                departure_datetime: l.departure_datetime,
                arrival_datetime: l.arrival_datetime,
                duration_minutes: l.duration_minutes,
            })
            .collect(),
    }
}

fn flights_degraded(error: &str) -> SearchProviderFlightsResponse {
    SearchProviderFlightsResponse { flights: Vec::new(), degraded: true, error: error.into() }
}

pub async fn flights(state: &AppState, req: &Request, op: &'static Operation) -> Answer<SearchProviderFlightsResponse> {
    let Parsed { params: (shared, departure_date, return_date, sort), jmespath, .. } =
        match parse_with::<SearchProviderFlightsResponse, _>(req, op, |q, v| {
            let shared = Shared::parse(q, v);
            let departure_date = PROVIDER_DEPARTURE_DATE.checked(q, v);
            let return_date = PROVIDER_RETURN_DATE.checked(q, v);
            let sort = match SORT_BY.one_of(q, v) {
                Some("CHEAPEST") => 2,
                Some("DEPARTURE_TIME") => 3,
                Some("ARRIVAL_TIME") => 4,
                Some("DURATION") => 5,
                _ => 0,
            };
            (shared, departure_date, return_date, sort)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let replay = crate::context(state).read_through.is_replay();
    let (Some(origin), Some(destination), Some(departure_date)) = (&shared.origin, &shared.destination, departure_date)
    else {
        let answer = flights_degraded("origin, destination, and departure_date are required");
        return live_get(req, jmespath, &answer, true, replay);
    };
    let (base, token) = match provider(state) {
        Ok(p) => p,
        Err(error) => return live_get(req, jmespath, &flights_degraded(error), true, replay),
    };
    let mut query = vec![("origin", origin.clone()), ("destination", destination.clone())];
    query.push(("departure_date", departure_date));
    if let Some(r) = return_date.filter(|r| r.len() == 10) {
        query.push(("return_date", r));
    }
    query.extend(shared.query());
    query.push(("sort", sort.to_string()));
    let rt = &crate::context(state).read_through;
    let key = Canonical::new(query.clone()).live_key("provider-flights");
    let caller = crate::context::caller(state, req);
    let (answer, lease) = rt
        .get_or_fetch(
            &key,
            || state.clock.now(),
            || async {
                if !within_share(state, &caller, 1).await {
                    return Fresh { value: flights_degraded("provider_cooldown"), ttl_seconds: 0 };
                }
                match flight_search::search(&rt.http, &base, token.as_deref(), &query).await {
                    Ok(found) => {
                        let flights = found.into_iter().map(itinerary).collect();
                        Fresh {
                            value: SearchProviderFlightsResponse { flights, degraded: false, error: String::new() },
                            ttl_seconds: TTL,
                        }
                    }
                    Err(e) => Fresh { value: flights_degraded(provider_error(&e, state)), ttl_seconds: FAILURE_TTL },
                }
            },
        )
        .await;
    let degraded = answer.degraded;
    rt.answer(state, req, jmespath, &answer, degraded, lease)
}

fn dates_degraded(error: &str) -> SearchProviderDatesResponse {
    SearchProviderDatesResponse { dates: Vec::new(), degraded: true, error: error.into() }
}

/// `start..=end` in chunks of at most 61 days.
pub fn chunks(start: NaiveDate, end: NaiveDate) -> Vec<(NaiveDate, NaiveDate)> {
    let mut out = Vec::new();
    let mut from = start;
    while from <= end {
        let to = (from + chrono::Duration::days(CHUNK_DAYS - 1)).min(end);
        out.push((from, to));
        from = to + chrono::Duration::days(1);
    }
    out
}

pub async fn dates(state: &AppState, req: &Request, op: &'static Operation) -> Answer<SearchProviderDatesResponse> {
    let Parsed { params: (shared, start, end, trip_duration, round_trip, by_price), jmespath, .. } =
        match parse_with::<SearchProviderDatesResponse, _>(req, op, |q, v| {
            let shared = Shared::parse(q, v);
            let start = START_DATE.checked(q, v);
            let end = END_DATE.checked(q, v);
            let trip_duration = TRIP_DURATION.int32(q, v);
            let round_trip = IS_ROUND_TRIP.boolean(q, v);
            let by_price = SORT_BY_PRICE.boolean(q, v);
            (shared, start, end, trip_duration, round_trip, by_price)
        }) {
            Ok(parsed) => parsed,
            Err(e) => return e.into(),
        };
    let jmespath = jmespath.as_deref();
    let replay = crate::context(state).read_through.is_replay();
    let day = |s: Option<String>| s.and_then(|s| NaiveDate::parse_from_str(&s, "%Y-%m-%d").ok());
    let (Some(origin), Some(destination), Some(start), Some(end)) =
        (&shared.origin, &shared.destination, day(start), day(end))
    else {
        let answer = dates_degraded("origin, destination, start_date, and end_date are required");
        return live_get(req, jmespath, &answer, true, replay);
    };
    if round_trip && trip_duration == 0 {
        let answer = dates_degraded("trip_duration is required for round-trip date searches");
        return live_get(req, jmespath, &answer, true, replay);
    }
    if (end - start).num_days() + 1 > MAX_RANGE_DAYS {
        return live_get(req, jmespath, &dates_degraded("date range exceeds 366 days"), true, replay);
    }
    let (base, token) = match provider(state) {
        Ok(p) => p,
        Err(error) => return live_get(req, jmespath, &dates_degraded(error), true, replay),
    };
    let rt = &crate::context(state).read_through;
    let mut asked = shared.query();
    asked.extend([("origin", origin.clone()), ("destination", destination.clone())]);
    asked.extend([("start_date", start.to_string()), ("end_date", end.to_string())]);
    asked.extend([("round_trip", round_trip.to_string()), ("trip_duration", trip_duration.to_string())]);
    asked.push(("by_price", by_price.to_string()));
    let key = Canonical::new(asked).live_key("provider-dates");
    let caller = crate::context::caller(state, req);
    let (answer, lease) = rt
        .get_or_fetch(
            &key,
            || state.clock.now(),
            || async {
                let mut found = Vec::new();
                let (mut failed, mut error) = (0, "upstream_error");
                let parts = chunks(start, end);
                if !within_share(state, &caller, parts.len()).await {
                    return Fresh { value: dates_degraded("provider_cooldown"), ttl_seconds: 0 };
                }
                for (from, to) in &parts {
                    let mut query = vec![("origin", origin.clone()), ("destination", destination.clone())];
                    query.extend([("start_date", from.to_string()), ("end_date", to.to_string())]);
                    query.push(("round_trip", round_trip.to_string()));
                    if round_trip {
                        query.push(("trip_duration", trip_duration.to_string()));
                    }
                    query.extend(shared.query());
                    match flight_search::search_dates(&rt.http, &base, token.as_deref(), &query).await {
                        Ok(rows) => found.extend(rows),
                        Err(e) => {
                            failed += 1;
                            error = provider_error(&e, state);
                        }
                    }
                }
                let mut dates: Vec<DatePrice> = found
                    .into_iter()
                    .filter_map(|d| {
                        let price = d.price?;
                        Some(DatePrice { date: d.date, return_date: d.return_date.unwrap_or_default(), price })
                    })
                    .collect();
                if by_price {
                    dates.sort_by(|a, b| a.price.total_cmp(&b.price).then_with(|| a.date.cmp(&b.date)));
                } else {
                    dates.sort_by(|a, b| a.date.cmp(&b.date));
                }
                let value = match failed {
                    0 => SearchProviderDatesResponse { dates, degraded: false, error: String::new() },
                    n if n == parts.len() => dates_degraded(error),
                    _ => SearchProviderDatesResponse {
                        dates,
                        degraded: true,
                        error: "partial results: one or more date chunks failed".into(),
                    },
                };
                let ttl = if value.degraded { FAILURE_TTL } else { TTL };
                Fresh { value, ttl_seconds: ttl }
            },
        )
        .await;
    let degraded = answer.degraded;
    rt.answer(state, req, jmespath, &answer, degraded, lease)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_go_out_in_chunks_of_61_days() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        let c = chunks(d("2026-01-01"), d("2026-12-31"));
        assert_eq!(c.len(), 6, "365 days → 6 chunks");
        assert_eq!(c[0], (d("2026-01-01"), d("2026-03-02")), "61 days inclusive");
        assert_eq!(c[1].0, d("2026-03-03"));
        assert_eq!(c[5].1, d("2026-12-31"));
        assert_eq!(chunks(d("2026-06-01"), d("2026-06-01")).len(), 1);
    }
}
