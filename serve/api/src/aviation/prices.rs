//! SearchFlightPrices (SUPPLEMENT 2.1.10, PRO): Travelpayouts' cached fares through the
//! read-through cache — `prices_for_dates` (3,600 s), else the month matrix (7,200 s); failures
//! 30 s. No token → `missing_credentials`, or labelled demo quotes when `AVIATION_DEMO_PRICES=1`.

use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::{aviation::CabinClass, closed_set::ClosedSet};
use std::sync::Arc;

use poem::Request;
use sha2::{Digest, Sha256};
use sitrep_pipelines::travelpayouts::{self, Fare};
use sitrep_schemas::airports::default_market;

use super::{
    model::{Carrier, PriceError, PriceProvider, PriceQuote, SearchFlightPricesResponse},
    params::{
        ADULTS, CABIN, CURRENCY, DEPARTURE_DATE, MARKET, MAX_RESULTS, NONSTOP_ONLY, PRICE_DESTINATION, PRICE_ORIGIN,
        RETURN_DATE,
    },
    queries,
};
use crate::read_through::Fresh;
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

const TTL: i64 = 3_600;
const MONTH_MATRIX_TTL: i64 = 7_200;
const FAILURE_TTL: i64 = 30;
const PROVIDER: PriceProvider = PriceProvider::TravelpayoutsData;

/// A validated, normalised search.
#[derive(Debug, Clone)]
pub struct Search {
    pub origin: String,
    pub destination: String,
    pub departure_date: String,
    pub return_date: String,
    /// CabinClass suffix.
    pub cabin: &'static str,
    pub nonstop_only: bool,
    pub max_results: usize,
    /// Lower case.
    pub currency: String,
    pub market: String,
}

/// Travelpayouts' trip class of a cabin.
fn trip_class(cabin: &str) -> &'static str {
    match cabin {
        "BUSINESS" => "1",
        "FIRST" => "2",
        _ => "0",
    }
}

fn cabin_of_trip_class(class: i64) -> CabinClass {
    match class {
        1 => CabinClass::Business,
        2 => CabinClass::First,
        _ => CabinClass::Economy,
    }
}

/// The cabin a search asked for (its CabinClass suffix, validated by the parameter).
fn cabin_asked(s: &Search) -> CabinClass {
    CabinClass::from_wire_name(&format!("CABIN_CLASS_{}", s.cabin)).unwrap_or(CabinClass::Economy)
}

fn quote(s: &Search, fare: Fare, id: String, currency: &str, observed_at: i64) -> PriceQuote {
    let cabin = match fare.trip_class {
        Some(class) => cabin_of_trip_class(class),
        None => cabin_asked(s),
    };
    PriceQuote {
        id,
        origin: fare.origin,
        destination: fare.destination,
        departure_date: fare.departure_date,
        return_date: fare.return_date,
        carrier: Carrier { iata_code: fare.airline.clone(), icao_code: String::new(), name: fare.airline },
        price_amount: fare.price,
        currency: currency.to_ascii_uppercase(),
        cabin: WireName(cabin),
        stops: fare.stops,
        duration_minutes: fare.duration_minutes,
        booking_url: if fare.link.is_empty() {
            String::new()
        } else {
            format!("https://www.aviasales.com{}", fare.link)
        },
        provider: WireName(PROVIDER),
        is_indicative: true,
        observed_at,
        checkout_ref: String::new(),
        expires_at: fare.expires_at,
    }
}

fn answer_of(
    quotes: Vec<PriceQuote>,
    provider: PriceProvider,
    error: PriceError,
    updated_at: i64,
) -> SearchFlightPricesResponse {
    SearchFlightPricesResponse {
        degraded: error != PriceError::NoError || quotes.is_empty(),
        is_indicative: provider != PriceProvider::None,
        quotes,
        provider: WireName(provider),
        is_demo_mode: false,
        updated_at,
        error: WireName(error),
    }
}

impl Search {
    /// Whether the route watch list can answer: it holds one-way economy fares in USD at the
    /// origin's default market.
    fn watchable(&self) -> bool {
        self.return_date.is_empty()
            && self.cabin == "ECONOMY"
            && self.currency == "usd"
            && self.market == default_market(&self.origin)
    }

    /// Every field of the search: what both the answer and the upstream call are a function of.
    fn canonical(&self) -> Canonical {
        Canonical::new(vec![
            ("origin", self.origin.clone()),
            ("destination", self.destination.clone()),
            ("departure_date", self.departure_date.clone()),
            ("return_date", self.return_date.clone()),
            ("cabin", self.cabin.into()),
            ("nonstop_only", self.nonstop_only.to_string()),
            ("max_results", self.max_results.to_string()),
            ("currency", self.currency.clone()),
            ("market", self.market.clone()),
        ])
    }

    fn quote_id(&self, kind: &str, date: &str, n: usize) -> String {
        format!("tp-{kind}-{}-{}-{date}-{n}", self.origin, self.destination)
    }
}

/// The watch list's answer (1.8 step 1), when it covers the search and holds fares for it.
async fn watched(db: &Arc<DatasetDb>, s: &Search) -> Result<Option<SearchFlightPricesResponse>, ApiError> {
    let (table, origin, destination, date) =
        (db.table().to_string(), s.origin.clone(), s.destination.clone(), s.departure_date.clone());
    let found = db.query(move |c| queries::watched_fares(c, &table, &origin, &destination, &date)).await?;
    let Some((fetched_at, fares)) = found else { return Ok(None) };
    let quotes: Vec<PriceQuote> = fares
        .into_iter()
        .filter(|f| !s.nonstop_only || f.transfers == 0)
        .take(s.max_results)
        .enumerate()
        .map(|(n, f)| {
            let fare = Fare {
                origin: s.origin.clone(),
                destination: s.destination.clone(),
                departure_date: s.departure_date.clone(),
                return_date: String::new(),
                airline: f.airline,
                price: f.price,
                stops: f.transfers,
                duration_minutes: f.duration_minutes,
                link: f.link,
                expires_at: f.expires_at,
                trip_class: None,
            };
            quote(s, fare, s.quote_id("v3", &s.departure_date, n), &f.currency, fetched_at)
        })
        .collect();
    Ok((!quotes.is_empty()).then(|| answer_of(quotes, PROVIDER, PriceError::NoError, fetched_at)))
}

/// Deterministic synthetic quotes, labelled as such: only in demo mode, never with a token.
pub fn demo(s: &Search, now_ms: i64) -> SearchFlightPricesResponse {
    let seed = Sha256::digest(format!("{}-{}-{}", s.origin, s.destination, s.departure_date));
    let quotes = (0..s.max_results.min(3))
        .map(|n| {
            let stops = if s.nonstop_only { 0 } else { n as i32 % 2 };
            PriceQuote {
                id: format!("demo-{}-{}-{}-{n}", s.origin, s.destination, s.departure_date),
                origin: s.origin.clone(),
                destination: s.destination.clone(),
                departure_date: s.departure_date.clone(),
                return_date: s.return_date.clone(),
                carrier: Carrier::default(),
                price_amount: 80.0 + seed[n] as f64 + 40.0 * n as f64,
                currency: s.currency.to_ascii_uppercase(),
                cabin: WireName(cabin_asked(s)),
                stops,
                duration_minutes: 120 + 90 * stops + seed[n + 3] as i32 % 60,
                booking_url: String::new(),
                provider: WireName(PriceProvider::Demo),
                is_indicative: true,
                observed_at: now_ms,
                checkout_ref: String::new(),
                expires_at: 0,
            }
        })
        .collect();
    SearchFlightPricesResponse {
        quotes,
        provider: WireName(PriceProvider::Demo),
        is_demo_mode: true,
        updated_at: now_ms,
        is_indicative: true,
        degraded: true,
        error: WireName(PriceError::NoError),
    }
}

/// v3, then the month matrix when v3 has no rows.
async fn search(state: &AppState, s: &Search, token: &str, now_ms: i64) -> Fresh<SearchFlightPricesResponse> {
    let http = &crate::context(state).read_through.http;
    let (max, class) = (s.max_results.to_string(), trip_class(s.cabin));
    let mut v3 = vec![("origin", s.origin.as_str()), ("destination", s.destination.as_str())];
    v3.push(("departure_at", &s.departure_date));
    if !s.return_date.is_empty() {
        v3.push(("return_at", &s.return_date));
    }
    v3.extend([
        ("one_way", if s.return_date.is_empty() { "true" } else { "false" }),
        ("direct", if s.nonstop_only { "true" } else { "false" }),
        ("currency", &s.currency),
        ("market", &s.market),
        ("trip_class", class),
        ("sorting", "price"),
        ("limit", &max),
    ]);
    let failed = |e: &dyn std::fmt::Display| {
        tracing::warn!(error = %e, "travelpayouts failed");
        Fresh { value: answer_of(Vec::new(), PROVIDER, PriceError::UpstreamError, now_ms), ttl_seconds: FAILURE_TTL }
    };
    let (fares, currency) = match travelpayouts::prices_for_dates(http, token, &v3).await {
        Ok(found) => found,
        Err(e) => return failed(&e),
    };
    let key = |kind: &str, date: &str, n: usize| s.quote_id(kind, date, n);
    let currency = currency.unwrap_or_else(|| s.currency.clone());
    if !fares.is_empty() {
        let quotes = fares
            .into_iter()
            .take(s.max_results)
            .enumerate()
            .map(|(n, f)| {
                let id = key("v3", &f.departure_date, n);
                quote(s, f, id, &currency, now_ms)
            })
            .collect();
        return Fresh { value: answer_of(quotes, PROVIDER, PriceError::NoError, now_ms), ttl_seconds: TTL };
    }
    let month = format!("{}-01", &s.departure_date[..7]);
    let matrix = [
        ("currency", s.currency.as_str()),
        ("origin", &s.origin),
        ("destination", &s.destination),
        ("month", &month),
        ("show_to_affiliates", "true"),
        ("trip_class", class),
    ];
    let (mut fares, currency) = match travelpayouts::month_matrix(http, token, &matrix, &s.origin, &s.destination).await
    {
        Ok(found) => found,
        Err(e) => return failed(&e),
    };
    fares.retain(|f| !s.nonstop_only || f.stops == 0);
    fares.sort_by(|a, b| a.price.total_cmp(&b.price));
    let currency = currency.unwrap_or_else(|| s.currency.clone());
    let quotes: Vec<PriceQuote> = fares
        .into_iter()
        .take(s.max_results)
        .enumerate()
        .map(|(n, f)| {
            let id = key("month", &f.departure_date, n);
            quote(s, f, id, &currency, now_ms)
        })
        .collect();
    let error = if quotes.is_empty() { PriceError::NoResults } else { PriceError::NoError };
    Fresh { value: answer_of(quotes, PROVIDER, error, now_ms), ttl_seconds: MONTH_MATRIX_TTL }
}

pub async fn answer(state: &AppState, req: &Request, op: &'static Operation) -> Answer<SearchFlightPricesResponse> {
    let Parsed {
        params: (origin, destination, departure_date, return_date, cabin, nonstop_only, max_results, currency, market),
        jmespath,
        ..
    } = match parse_with::<SearchFlightPricesResponse, _>(req, op, |q, v| {
        let origin = PRICE_ORIGIN.checked(q, v).unwrap_or_default().to_ascii_uppercase();
        let destination = PRICE_DESTINATION.checked(q, v).unwrap_or_default().to_ascii_uppercase();
        let departure_date = DEPARTURE_DATE.checked(q, v).unwrap_or_default();
        let return_date = RETURN_DATE.checked(q, v).unwrap_or_default();
        ADULTS.int32(q, v);
        let cabin = CABIN.enumerated(q, v).unwrap_or("ECONOMY");
        let nonstop_only = NONSTOP_ONLY.boolean(q, v);
        let max_results = MAX_RESULTS.int32(q, v) as usize;
        let currency = CURRENCY.checked(q, v).unwrap_or_else(|| "usd".into()).to_ascii_lowercase();
        let market = MARKET.raw(q).map(|m| m.trim().to_ascii_lowercase()).filter(|m| !m.is_empty());
        (origin, destination, departure_date, return_date, cabin, nonstop_only, max_results, currency, market)
    }) {
        Ok(parsed) => parsed,
        Err(e) => return e.into(),
    };
    let jmespath = jmespath.as_deref();
    let market = market.unwrap_or_else(|| default_market(&origin).into());
    let s =
        Search { origin, destination, departure_date, return_date, cabin, nonstop_only, max_results, currency, market };
    if s.watchable() {
        let (provenance, db) = dataset_read::current(state, op.dataset());
        if let Some(db) = db {
            match watched(&db, &s).await {
                Ok(Some(answer)) => {
                    let key = s.canonical().answer_key(op.segment(), &[db.version as i64]);
                    return dataset_get(&state.cache, req, Some(key), jmespath, provenance, async { Ok(answer) }).await;
                }
                Ok(None) => {}
                Err(e) => return e.into(),
            }
        }
    }
    let rt = &crate::context(state).read_through;
    let (replay, now_ms) = (rt.is_replay(), state.clock.now() * 1000);
    let Some(token) = rt.config.travelpayouts_token.clone() else {
        let answer = if rt.config.demo_prices {
            demo(&s, now_ms)
        } else {
            answer_of(Vec::new(), PriceProvider::None, PriceError::MissingCredentials, now_ms)
        };
        return live_get(req, jmespath, &answer, true, replay);
    };
    let key = s.canonical().live_key("travelpayouts");
    let (answer, lease) = rt.get_or_fetch(&key, || state.clock.now(), || search(state, &s, &token, now_ms)).await;
    let degraded = answer.degraded;
    rt.answer(state, req, jmespath, &answer, degraded, lease)
}
