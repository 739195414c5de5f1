//! Aviation response shapes (SUPPLEMENT 2.1), as the API emits them.

use poem_openapi::Object;
use serde::Serialize;
use sitrep_platform::kit::wire_name::WireName;
use sitrep_schemas::{
    aviation::{
        AirportOpsSource, AirportRegion, CabinClass, EmergencySquawk, FeedStatus, FlightDelaySource, FlightDelayType,
        FlightStatus, MilitaryFlag, NotamFlag, PositionSource,
    },
    delay_severity::Severity,
};

pub use crate::records::GeoCoordinates;

sitrep_schemas::closed_set!(
    /// What answered an AviationStack-backed read (2.1.5–2.1.7): `aviationstack`, or why nothing
    /// did (`none` no key, `budget` live budget spent, `error` upstream failure, `invalid` a bad
    /// code); `partial` when some of GetCarrierOps's airports failed.
    FlightDataSource,
    "FlightDataSource",
    [
        Aviationstack = "aviationstack",
        Partial = "partial",
        Invalid = "invalid",
        None = "none",
        Budget = "budget",
        Error = "error",
    ]
);

sitrep_schemas::closed_set!(
    /// Which provider answered TrackAircraft (2.1.8); `none` when no query, no provider or every provider failed.
    TrackSource,
    "TrackAircraftSource",
    [Wingbits = "wingbits", Opensky = "opensky", None = "none"]
);

sitrep_schemas::closed_set!(
    /// Where ListAviationNews's items come from (2.1.11); `error` when no feed could be read.
    NewsSource,
    "AviationNewsSource",
    [Rss = "rss", Error = "error"]
);

sitrep_schemas::closed_set!(
    /// Why GetVideoLiveStreamInfo has no video (2.1.9); "" on success.
    VideoError,
    "VideoLookupError",
    [
        NoError = "",
        InvalidVideoId = "invalid_video_id",
        VideoNotFound = "video_not_found",
        UpstreamError = "upstream_error",
        ChannelLiveDetectionRetired = "channel_live_detection_retired",
        MissingVideoId = "missing_video_id",
    ]
);

/// A video that was found has no error.
impl Default for VideoError {
    fn default() -> Self {
        VideoError::NoError
    }
}

sitrep_schemas::closed_set!(
    /// Who priced the fares (2.1.10): Travelpayouts' cached data, labelled demo quotes, or `none` (no token).
    PriceProvider,
    "FlightPriceProvider",
    [TravelpayoutsData = "travelpayouts_data", Demo = "demo", None = "none"]
);

sitrep_schemas::closed_set!(
    /// Why SearchFlightPrices has no quotes (2.1.10); "" on success.
    PriceError,
    "FlightPriceError",
    [
        NoError = "",
        NoResults = "no_results",
        UpstreamError = "upstream_error",
        MissingCredentials = "missing_credentials",
    ]
);
pub use sitrep_platform::kit::paged_list::Pagination;

/// One squawk feed's state in the answered version.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct EmergencyFeed {
    /// EmergencySquawk.
    pub squawk: WireName<EmergencySquawk>,
    /// "adsb.lol".
    pub source: String,
    /// EmergencyFeedStatus.
    pub status: WireName<FeedStatus>,
    /// "<n> aircraft", or a short error ("timeout", "HTTP 503", "malformed response", "no data yet").
    pub message: String,
    /// Epoch ms of the attempt (0 when never attempted).
    pub fetched_at: i64,
}

/// An aircraft reported on an emergency squawk.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct EmergencyObservation {
    /// ICAO 24-bit address, lower-case hex.
    pub address: String,
    pub callsign: String,
    pub description: String,
    /// EmergencySquawk.
    pub squawk: WireName<EmergencySquawk>,
    /// Epoch ms.
    pub observed_at: i64,
    pub source: String,
    /// MilitaryFlag ("military" when the aircraft database flags it).
    pub military_flag: WireName<MilitaryFlag>,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListAircraftEmergenciesResponse {
    /// Always three rows, in squawk order.
    pub feeds: Vec<EmergencyFeed>,
    /// Squawk ascending, then newest first.
    pub observations: Vec<EmergencyObservation>,
}

/// GetVideoLiveStreamInfo (2.1.9).
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct VideoLiveStreamInfo {
    /// The requested id, echoed.
    pub video_id: String,
    pub title: String,
    pub channel_name: String,
    pub channel_exists: bool,
    /// Deprecated: always false.
    pub is_live: bool,
    /// Deprecated: always "".
    pub hls_url: String,
    /// VideoLookupError.
    pub error: WireName<VideoError>,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Carrier {
    pub iata_code: String,
    pub icao_code: String,
    pub name: String,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AirportRef {
    pub iata: String,
    pub icao: String,
    pub name: String,
    pub timezone: String,
}

/// The Flight record (2.1.4). Times are epoch ms, 0 = unknown.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Flight {
    pub flight_number: String,
    /// YYYY-MM-DD.
    pub date: String,
    pub operating_carrier: Carrier,
    pub origin: AirportRef,
    pub destination: AirportRef,
    pub scheduled_departure: i64,
    pub estimated_departure: i64,
    pub actual_departure: i64,
    pub scheduled_arrival: i64,
    pub estimated_arrival: i64,
    pub actual_arrival: i64,
    pub status: WireName<FlightStatus>,
    pub delay_minutes: i32,
    pub cancelled: bool,
    pub diverted: bool,
    pub gate: String,
    pub terminal: String,
    pub aircraft_icao24: String,
    pub aircraft_type: String,
    pub codeshare_flight_numbers: Vec<String>,
    /// "aviationstack".
    pub source: String,
    pub updated_at: i64,
}

/// GetFlightStatus (2.1.7).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetFlightStatusResponse {
    pub flights: Vec<Flight>,
    /// FlightDataSource: aviationstack, or none, budget or error with no flights.
    pub source: WireName<FlightDataSource>,
    /// True when answered from the read-through cache.
    pub cache_hit: bool,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AviationNewsItem {
    /// First 32 hex of SHA-256 of the link.
    pub id: String,
    pub title: String,
    pub url: String,
    pub source_name: String,
    /// Epoch ms.
    pub published_at: i64,
    pub snippet: String,
    /// The requested entities the item mentions, in request order.
    pub matched_entities: Vec<String>,
    pub image_url: String,
}

/// ListAviationNews (2.1.11).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListAviationNewsResponse {
    pub items: Vec<AviationNewsItem>,
    /// AviationNewsSource.
    pub source: WireName<NewsSource>,
    /// Epoch ms of the fetch the items come from.
    pub updated_at: i64,
}

/// One AirportDelayAlert (2.1.2). Enums are their value names: `region` AirportRegion,
/// `delayType` FlightDelayType, `severity` FlightDelaySeverity, `source` FlightDelaySource.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AirportDelayAlert {
    /// `faa-`, `avstack-`, `notam-`, `status-` or `unknown-` and the IATA code.
    pub id: String,
    pub iata: String,
    pub icao: String,
    pub name: String,
    pub city: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    pub location: GeoCoordinates,
    /// AirportRegion.
    pub region: WireName<AirportRegion>,
    /// FlightDelayType.
    pub delay_type: WireName<FlightDelayType>,
    pub severity: WireName<Severity>,
    pub avg_delay_minutes: i32,
    /// Percent, one decimal.
    pub delayed_flights_pct: f64,
    pub cancelled_flights: i32,
    pub total_flights: i32,
    /// At most 200 characters.
    pub reason: String,
    /// FlightDelaySource.
    pub source: WireName<FlightDelaySource>,
    /// Epoch ms: fetch time of the component that produced the row.
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListAirportDelaysResponse {
    /// FAA alerts, AviationStack alerts, NOTAM alerts, then one filler per other registry airport.
    pub alerts: Vec<AirportDelayAlert>,
    pub pagination: Pagination,
}

/// One airport's operations (2.1.3).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AirportOpsSummary {
    pub iata: String,
    pub icao: String,
    pub name: String,
    /// IANA time zone.
    pub timezone: String,
    /// Percent, one decimal.
    pub delay_pct: f64,
    pub avg_delay_minutes: i32,
    /// Percent, one decimal.
    pub cancellation_rate: f64,
    pub total_flights: i32,
    /// True when a NOTAM closes the airport.
    pub closure_status: bool,
    /// NotamFlag values: "CLOSED" or "RESTRICTED", then "NOTAM" when either applies.
    pub notam_flags: Vec<WireName<NotamFlag>>,
    pub severity: WireName<Severity>,
    /// At most two: the alert's reason (unless a filler) and the NOTAM text (80 characters).
    pub top_delay_reasons: Vec<String>,
    /// AirportOpsSource: the component covering the airport, "degraded" when it is unavailable,
    /// "unknown" for a code outside the registry.
    pub source: WireName<AirportOpsSource>,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetAirportOpsSummaryResponse {
    /// One per requested airport, in request order, duplicates removed.
    pub summaries: Vec<AirportOpsSummary>,
    /// True when no live upstream call was made (always, once the dataset is published).
    pub cache_hit: bool,
}

/// ListAirportFlights (2.1.5).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct ListAirportFlightsResponse {
    /// Scheduled time of the requested direction, ascending; at most `limit`.
    pub flights: Vec<Flight>,
    /// Rows the upstream returned.
    pub total_available: i32,
    /// FlightDataSource: aviationstack, or invalid (not a three-letter code), none, budget or error
    /// with no flights.
    pub source: WireName<FlightDataSource>,
    pub updated_at: i64,
}

/// One carrier's departures at one airport (2.1.6).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct CarrierOps {
    pub carrier: Carrier,
    /// IATA code of the airport.
    pub airport: String,
    pub total_flights: i32,
    pub delayed_count: i32,
    pub cancelled_count: i32,
    pub avg_delay_minutes: i32,
    /// Percent, one decimal.
    pub delay_pct: f64,
    /// Percent, one decimal.
    pub cancellation_rate: f64,
    pub updated_at: i64,
}

/// GetCarrierOps (2.1.6).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct GetCarrierOpsResponse {
    /// Cancellation rate descending, then delay share descending, then airport, then carrier code.
    pub carriers: Vec<CarrierOps>,
    /// FlightDataSource: aviationstack (every airport answered), partial (some failed), invalid, or
    /// the failing airports' none, budget or error with no carriers.
    pub source: WireName<FlightDataSource>,
    pub updated_at: i64,
}

/// One aircraft position (2.1.8).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct AircraftPosition {
    /// Lower-case hex.
    pub icao24: String,
    pub callsign: String,
    pub lat: f64,
    pub lon: f64,
    pub altitude_m: f64,
    pub ground_speed_kts: f64,
    pub track_deg: f64,
    /// m/s (0 when the provider does not report it).
    pub vertical_rate: f64,
    pub on_ground: bool,
    pub source: WireName<PositionSource>,
    pub observed_at: i64,
}

/// TrackAircraft (2.1.8).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct TrackAircraftResponse {
    /// icao24 ascending, at most 1,000.
    pub positions: Vec<AircraftPosition>,
    /// TrackAircraftSource.
    pub source: WireName<TrackSource>,
    pub updated_at: i64,
}

/// One fare (2.1.10).
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct PriceQuote {
    pub id: String,
    pub origin: String,
    pub destination: String,
    /// YYYY-MM-DD.
    pub departure_date: String,
    /// YYYY-MM-DD, or "" for one way.
    pub return_date: String,
    pub carrier: Carrier,
    pub price_amount: f64,
    /// Upper case.
    pub currency: String,
    pub cabin: WireName<CabinClass>,
    pub stops: i32,
    pub duration_minutes: i32,
    pub booking_url: String,
    /// FlightPriceProvider (never none: a quote always has one).
    pub provider: WireName<PriceProvider>,
    pub is_indicative: bool,
    pub observed_at: i64,
    pub checkout_ref: String,
    /// Epoch ms, 0 = unknown.
    pub expires_at: i64,
}

/// SearchFlightPrices (2.1.10). Demo quotes (only with `AVIATION_DEMO_PRICES=1` and no token) say so.
#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SearchFlightPricesResponse {
    pub quotes: Vec<PriceQuote>,
    /// FlightPriceProvider.
    pub provider: WireName<PriceProvider>,
    pub is_demo_mode: bool,
    pub updated_at: i64,
    pub is_indicative: bool,
    pub degraded: bool,
    /// FlightPriceError.
    pub error: WireName<PriceError>,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Leg {
    pub airline_code: String,
    pub flight_number: String,
    pub departure_airport: String,
    pub arrival_airport: String,
    /// Local `YYYY-MM-DDTHH:MM`.
    pub departure_datetime: String,
    /// Local `YYYY-MM-DDTHH:MM`.
    pub arrival_datetime: String,
    pub duration_minutes: i32,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct Itinerary {
    pub legs: Vec<Leg>,
    pub price: f64,
    pub duration_minutes: i32,
    /// Legs − 1.
    pub stops: i32,
}

/// SearchProviderFlights (2.1.12). `error`: "", a missing-parameter message, `provider_unavailable`,
/// `provider_cooldown` or `upstream_error`.
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SearchProviderFlightsResponse {
    pub flights: Vec<Itinerary>,
    pub degraded: bool,
    pub error: String,
}

#[derive(Debug, Clone, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct DatePrice {
    /// YYYY-MM-DD.
    pub date: String,
    /// YYYY-MM-DD, or "" for one way.
    pub return_date: String,
    pub price: f64,
}

/// SearchProviderDates (2.1.12).
#[derive(Debug, Clone, Default, Serialize, Object)]
#[serde(rename_all = "camelCase")]
#[oai(rename_all = "camelCase")]
pub struct SearchProviderDatesResponse {
    /// Date ascending, or price ascending with `sort_by_price`.
    pub dates: Vec<DatePrice>,
    pub degraded: bool,
    pub error: String,
}

/// A provider's position record as the API shows it.
impl From<sitrep_pipelines::positions::Position> for AircraftPosition {
    fn from(p: sitrep_pipelines::positions::Position) -> Self {
        AircraftPosition {
            icao24: p.icao24,
            callsign: p.callsign,
            lat: p.lat,
            lon: p.lon,
            altitude_m: p.altitude_m,
            ground_speed_kts: p.ground_speed_kts,
            track_deg: p.track_deg,
            vertical_rate: p.vertical_rate,
            on_ground: p.on_ground,
            source: WireName(p.source),
            observed_at: p.observed_at,
        }
    }
}

impl From<sitrep_pipelines::aviationstack::Place> for AirportRef {
    fn from(p: sitrep_pipelines::aviationstack::Place) -> Self {
        AirportRef { iata: p.iata, icao: p.icao, name: p.name, timezone: p.timezone }
    }
}

impl Flight {
    /// The connector's flight record as the API's Flight, as known at `updated_at` (epoch ms).
    pub fn of_record(r: sitrep_pipelines::aviationstack::FlightRecord, updated_at: i64) -> Flight {
        Flight {
            flight_number: r.flight_number,
            date: r.date,
            operating_carrier: Carrier { iata_code: r.carrier.iata, icao_code: r.carrier.icao, name: r.carrier.name },
            origin: r.origin.into(),
            destination: r.destination.into(),
            scheduled_departure: r.scheduled_departure,
            estimated_departure: r.estimated_departure,
            actual_departure: r.actual_departure,
            scheduled_arrival: r.scheduled_arrival,
            estimated_arrival: r.estimated_arrival,
            actual_arrival: r.actual_arrival,
            status: WireName(r.status),
            delay_minutes: r.delay_minutes.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            cancelled: r.cancelled,
            diverted: r.diverted,
            gate: r.gate,
            terminal: r.terminal,
            aircraft_icao24: r.aircraft_icao24,
            aircraft_type: r.aircraft_type,
            codeshare_flight_numbers: r.codeshare_flight_numbers,
            source: "aviationstack".into(),
            updated_at,
        }
    }
}
