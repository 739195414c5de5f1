//! The two optional read-through watch lists as scheduled datasets (SUPPLEMENT 1.8 step 1):
//! `flight-price-watch` (`AVIATION_WATCH_ROUTES`, Travelpayouts, the next 60 days, every 6 h) and
//! `aircraft-watch` (`AVIATION_WATCH_BBOXES`, Wingbits, every 2 min). An empty list publishes an
//! empty version; a route month or a box that fails is recorded as failed, and the operation then
//! answers that query live.

use arrow::array::{BooleanBuilder, RecordBatch};
use chrono::{Datelike, Duration, NaiveDate};
use sitrep_schemas::{airports::default_market, DatasetId};

use crate::{
    arrow_util::{batch, dates, days_since_epoch, f64s, finish, i32s, instants, strings},
    config::bbox_key,
    positions::{self, Position},
    travelpayouts::{self, Fare},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

/// Days ahead the route watch list covers.
pub const ROUTE_WINDOW_DAYS: i64 = 60;

/// The `YYYY-MM` months a window touches.
pub fn months(start: NaiveDate, end: NaiveDate) -> Vec<String> {
    let mut out = Vec::new();
    let mut d = start.with_day(1).unwrap_or(start);
    while d <= end {
        out.push(d.format("%Y-%m").to_string());
        d = if d.month() == 12 {
            NaiveDate::from_ymd_opt(d.year() + 1, 1, 1)
        } else {
            NaiveDate::from_ymd_opt(d.year(), d.month() + 1, 1)
        }
        .unwrap_or(end + Duration::days(1));
    }
    out
}

/// One (route, month) answer.
struct MonthFares {
    origin: String,
    destination: String,
    month: String,
    result: Result<(Vec<Fare>, String), String>,
}

#[derive(Default)]
pub struct FlightPriceWatchSource;

#[async_trait::async_trait]
impl Source for FlightPriceWatchSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::FLIGHT_PRICE_WATCH
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["travelpayouts"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("flight-price-watch has no history to backfill".into()));
        }
        let routes = &ctx.config.aviation_watch_routes;
        let token = match (&ctx.config.travelpayouts_token, routes.is_empty()) {
            (_, true) => String::new(),
            (Some(t), false) => t.clone(),
            (None, false) => return Err(SourceError::NotConfigured("TRAVELPAYOUTS_API_TOKEN is not set".into())),
        };
        let start = ctx.now.date_naive();
        let end = start + Duration::days(ROUTE_WINDOW_DAYS);
        let mut answers = Vec::new();
        for (origin, destination) in routes {
            for month in months(start, end) {
                let market = default_market(origin);
                let query = [
                    ("origin", origin.as_str()),
                    ("destination", destination.as_str()),
                    ("departure_at", month.as_str()),
                    ("one_way", "true"),
                    ("direct", "false"),
                    ("currency", "usd"),
                    ("market", market),
                    ("trip_class", "0"),
                    ("sorting", "price"),
                    ("limit", "1000"),
                ];
                let result = travelpayouts::prices_for_dates(&ctx.http, &token, &query)
                    .await
                    .map(|(fares, currency)| {
                        let fares = fares
                            .into_iter()
                            .filter(|f| {
                                NaiveDate::parse_from_str(&f.departure_date, "%Y-%m-%d")
                                    .is_ok_and(|d| d >= start && d <= end)
                            })
                            .collect();
                        (fares, currency.unwrap_or_else(|| "usd".into()))
                    })
                    .map_err(|e| e.brief());
                answers.push(MonthFares { origin: origin.clone(), destination: destination.clone(), month, result });
            }
        }
        if !answers.is_empty() && answers.iter().all(|a| a.result.is_err()) {
            return Err(SourceError::Upstream("every watched route month failed".into()));
        }
        let batch = price_rows(&answers, ctx.now.timestamp_millis(), start, end)?;
        Ok(Fetched { partial_error: None, batch, scope: Scope::All, as_of: ctx.now, upstream_version: None })
    }
}

fn price_rows(
    answers: &[MonthFares],
    fetched_at: i64,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<RecordBatch, SourceError> {
    let n: usize = answers.iter().map(|a| 1 + a.result.as_ref().map(|(f, _)| f.len()).unwrap_or(0)).sum();
    let (mut kind, mut origin, mut destination, mut month) = (strings(n), strings(n), strings(n), strings(n));
    let (mut position, mut fetched, mut status, mut message) = (i32s(n), instants(n), strings(n), strings(n));
    let (mut window_start, mut window_end, mut departure) = (dates(n), dates(n), dates(n));
    let (mut airline, mut price, mut currency, mut transfers) = (strings(n), f64s(n), strings(n), i32s(n));
    let (mut duration, mut link, mut expires) = (i32s(n), strings(n), instants(n));
    for a in answers {
        let rows: Vec<Option<&Fare>> = std::iter::once(None)
            .chain(a.result.as_ref().map(|(f, _)| f.iter().map(Some).collect::<Vec<_>>()).unwrap_or_default())
            .collect();
        for (i, fare) in rows.into_iter().enumerate() {
            kind.append_value(if fare.is_some() { "fare" } else { "month" });
            origin.append_value(&a.origin);
            destination.append_value(&a.destination);
            month.append_value(&a.month);
            position.append_value(i.saturating_sub(1) as i32);
            fetched.append_value(fetched_at);
            let month_row = fare.is_none();
            status.append_option(month_row.then(|| if a.result.is_ok() { "ok" } else { "failed" }));
            message.append_option(month_row.then(|| match &a.result {
                Ok((f, _)) => format!("{} fares", f.len()),
                Err(e) => e.clone(),
            }));
            window_start.append_option(month_row.then(|| days_since_epoch(start)));
            window_end.append_option(month_row.then(|| days_since_epoch(end)));
            departure.append_option(
                fare.and_then(|f| NaiveDate::parse_from_str(&f.departure_date, "%Y-%m-%d").ok()).map(days_since_epoch),
            );
            airline.append_option(fare.map(|f| f.airline.as_str()));
            price.append_option(fare.map(|f| f.price));
            currency.append_option(fare.and(a.result.as_ref().ok()).map(|(_, c)| c.as_str()));
            transfers.append_option(fare.map(|f| f.stops));
            duration.append_option(fare.map(|f| f.duration_minutes));
            link.append_option(fare.map(|f| f.link.as_str()));
            expires.append_option(fare.map(|f| f.expires_at).filter(|t| *t != 0));
        }
    }
    batch(
        DatasetId::FLIGHT_PRICE_WATCH,
        vec![
            finish(kind),
            finish(origin),
            finish(destination),
            finish(month),
            finish(position),
            finish(fetched),
            finish(status),
            finish(message),
            finish(window_start),
            finish(window_end),
            finish(departure),
            finish(airline),
            finish(price),
            finish(currency),
            finish(transfers),
            finish(duration),
            finish(link),
            finish(expires),
        ],
    )
}

#[derive(Default)]
pub struct AircraftWatchSource;

#[async_trait::async_trait]
impl Source for AircraftWatchSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::AIRCRAFT_WATCH
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["wingbits"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("aircraft-watch has no history to backfill".into()));
        }
        let boxes = &ctx.config.aviation_watch_bboxes;
        let key = match (&ctx.config.wingbits_api_key, boxes.is_empty()) {
            (_, true) => String::new(),
            (Some(k), false) => k.clone(),
            (None, false) => return Err(SourceError::NotConfigured("WINGBITS_API_KEY is not set".into())),
        };
        let mut answers = Vec::new();
        for b in boxes {
            let view = positions::viewport(b[0], b[1], b[2], b[3]);
            let result = positions::wingbits(&ctx.http, &key, &positions::tiles(&view))
                .await
                .map(|found| {
                    let mut inside: Vec<Position> =
                        found.into_iter().filter(|p| view.iter().any(|v| v.contains(p.lat, p.lon))).collect();
                    inside.sort_by(|a, b| a.icao24.cmp(&b.icao24));
                    inside
                })
                .map_err(|e| e.brief());
            answers.push((bbox_key(b), result));
        }
        if !answers.is_empty() && answers.iter().all(|(_, r)| r.is_err()) {
            return Err(SourceError::Upstream("every watched box failed".into()));
        }
        let batch = aircraft_rows(&answers, ctx.now.timestamp_millis())?;
        Ok(Fetched { partial_error: None, batch, scope: Scope::All, as_of: ctx.now, upstream_version: None })
    }
}

type BoxAnswer = (String, Result<Vec<Position>, String>);

fn aircraft_rows(answers: &[BoxAnswer], fetched_at: i64) -> Result<RecordBatch, SourceError> {
    let n: usize = answers.iter().map(|(_, r)| 1 + r.as_ref().map(Vec::len).unwrap_or(0)).sum();
    let (mut kind, mut key, mut fetched, mut status, mut message) =
        (strings(n), strings(n), instants(n), strings(n), strings(n));
    let (mut icao24, mut callsign, mut source) = (strings(n), strings(n), strings(n));
    let mut numbers: Vec<_> = (0..6).map(|_| f64s(n)).collect();
    let (mut on_ground, mut observed) = (BooleanBuilder::with_capacity(n), instants(n));
    for (b, result) in answers {
        let rows: Vec<Option<&Position>> = std::iter::once(None)
            .chain(result.as_ref().map(|p| p.iter().map(Some).collect::<Vec<_>>()).unwrap_or_default())
            .collect();
        for p in rows {
            kind.append_value(if p.is_some() { "position" } else { "box" });
            key.append_value(b);
            fetched.append_value(fetched_at);
            status.append_option(p.is_none().then(|| if result.is_ok() { "ok" } else { "failed" }));
            message.append_option(p.is_none().then(|| match result {
                Ok(found) => format!("{} aircraft", found.len()),
                Err(e) => e.clone(),
            }));
            icao24.append_option(p.map(|p| p.icao24.as_str()));
            callsign.append_option(p.map(|p| p.callsign.as_str()));
            let values = p.map(|p| [p.lat, p.lon, p.altitude_m, p.ground_speed_kts, p.track_deg, p.vertical_rate]);
            for (i, b) in numbers.iter_mut().enumerate() {
                b.append_option(values.map(|v| v[i]));
            }
            on_ground.append_option(p.map(|p| p.on_ground));
            source.append_option(p.map(|p| p.source.as_str()));
            observed.append_option(p.map(|p| p.observed_at));
        }
    }
    let mut columns = vec![finish(kind), finish(key), finish(fetched), finish(status), finish(message)];
    columns.extend([finish(icao24), finish(callsign)]);
    columns.extend(numbers.into_iter().map(finish));
    columns.extend([finish(on_ground), finish(source), finish(observed)]);
    batch(DatasetId::AIRCRAFT_WATCH, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_months_of_a_60_day_window() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(months(d("2026-11-20"), d("2027-01-19")), ["2026-11", "2026-12", "2027-01"]);
        assert_eq!(months(d("2026-06-01"), d("2026-07-31")), ["2026-06", "2026-07"]);
    }
}
