//! The Aviation group's query parameters. The video parameters take any string: a malformed id
//! is answered 200 with `error: invalid_video_id` (SUPPLEMENT 2.1.9), not refused.

use sitrep_platform::kit::params::{Param, ParamKind, CURSOR, PAGE_SIZE};

pub const VIDEO_ID: Param = Param {
    name: "video_id",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "YouTube video id (11 characters of [A-Za-z0-9_-]).",
};

pub const CHANNEL: Param = Param {
    name: "channel",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Deprecated: live detection by channel is retired; a query with only a channel answers `channel_live_detection_retired`.",
};

pub const VIDEO_LIVE_STREAM_INFO: &[Param] = &[VIDEO_ID, CHANNEL];

fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10 && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

pub const FLIGHT_NUMBER: Param = Param {
    name: "flight_number",
    kind: ParamKind::Checked { min_chars: 3, max_chars: 10, pattern: None },
    required: true,
    description: "IATA flight number (e.g. TK1979); case, spaces and leading zeros of the number do not matter.",
};

pub const DATE: Param = Param {
    name: "date",
    kind: ParamKind::Checked { min_chars: 1, max_chars: 32, pattern: Some((r"^\d{4}-\d{2}-\d{2}$", is_iso_date)) },
    required: true,
    description: "Flight date, YYYY-MM-DD.",
};

pub const ORIGIN: Param = Param {
    name: "origin",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Optional IATA code of the departure airport, to tell apart flights sharing a number.",
};

pub const FLIGHT_STATUS: &[Param] = &[FLIGHT_NUMBER, DATE, ORIGIN];

pub const ENTITIES: Param = Param {
    name: "entities",
    kind: ParamKind::Repeated { max_items: 10 },
    required: false,
    description: "Airline names, airport codes or route strings (repeated, at most 10); items mentioning any of them, case-insensitively.",
};

pub const WINDOW_HOURS: Param = Param {
    name: "window_hours",
    kind: ParamKind::Int32 { min: 1, max: 168, default: 24 },
    required: false,
    description: "Items published in the last N hours, 1–168; 0 or absent = 24.",
};

pub const MAX_ITEMS: Param = Param {
    name: "max_items",
    kind: ParamKind::Int32 { min: 1, max: 50, default: 20 },
    required: false,
    description: "Items to return, 1–50; 0 or absent = 20.",
};

pub const AVIATION_NEWS: &[Param] = &[ENTITIES, WINDOW_HOURS, MAX_ITEMS];

pub const REGION: Param = Param {
    name: "region",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Accepted and ignored, as the contract says: any value, every alert is returned (the contract names AirportRegion values: AIRPORT_REGION_AMERICAS, _EUROPE, _APAC, _MENA, _AFRICA).",
};

pub const MIN_SEVERITY: Param = Param {
    name: "min_severity",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Accepted and ignored, as the contract says: any value, every alert is returned (the contract names FlightDelaySeverity values: FLIGHT_DELAY_SEVERITY_NORMAL, _MINOR, _MODERATE, _MAJOR, _SEVERE, _UNKNOWN).",
};

pub const AIRPORT_DELAYS: &[Param] = &[PAGE_SIZE, CURSOR, REGION, MIN_SEVERITY];

pub const AIRPORTS: Param = Param {
    name: "airports",
    kind: ParamKind::Repeated { max_items: 20 },
    required: false,
    description:
        "IATA codes (repeated, at most 20; any case). Absent = the default watch list IST, ESB, SAW, LHR, FRA, CDG.",
};

pub const AIRPORT_OPS_SUMMARY: &[Param] = &[AIRPORTS];

pub const AIRPORT: Param = Param {
    name: "airport",
    kind: ParamKind::Checked { min_chars: 3, max_chars: 4, pattern: None },
    required: true,
    description: "IATA code of the airport (any case). A code that is not three letters answers `source: \"invalid\"`.",
};

pub const DIRECTION: Param = Param {
    name: "direction",
    kind: ParamKind::Enum { prefix: "FLIGHT_DIRECTION", values: &["DEPARTURE", "ARRIVAL", "BOTH"] },
    required: false,
    description: "FlightDirection: DEPARTURE (default), ARRIVAL or BOTH.",
};

pub const LIMIT: Param = Param {
    name: "limit",
    kind: ParamKind::Int32 { min: 1, max: 100, default: 30 },
    required: false,
    description: "Flights to return, 1–100; 0 or absent = 30.",
};

pub const AIRPORT_FLIGHTS: &[Param] = &[AIRPORT, DIRECTION, LIMIT];

pub const CARRIER_AIRPORTS: Param = Param {
    name: "airports",
    kind: ParamKind::Repeated { max_items: 20 },
    required: false,
    description: "IATA codes (repeated, at most 20; any case; the first 6 are used). Absent = IST, ESB, SAW.",
};

pub const MIN_FLIGHTS: Param = Param {
    name: "min_flights",
    kind: ParamKind::Int32 { min: 1, max: i32::MAX, default: 3 },
    required: false,
    description: "Smallest number of departures a carrier needs at an airport to be listed; 0 or absent = 3.",
};

pub const CARRIER_OPS: &[Param] = &[CARRIER_AIRPORTS, MIN_FLIGHTS];

pub const ICAO24: Param = Param {
    name: "icao24",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "ICAO 24-bit address (hex, any case): only this aircraft.",
};

pub const CALLSIGN: Param = Param {
    name: "callsign",
    kind: ParamKind::Text { max_bytes: None },
    required: false,
    description: "Callsign or part of one (any case).",
};

const fn coordinate(name: &'static str, lat: bool, description: &'static str) -> Param {
    let limit = if lat { 90.0 } else { 180.0 };
    Param { name, kind: ParamKind::Double { min: -limit, max: limit }, required: false, description }
}

pub const SW_LAT: Param = coordinate("sw_lat", true, "South-west corner latitude, −90..90.");
pub const SW_LON: Param = coordinate(
    "sw_lon",
    false,
    "South-west corner longitude, −180..180 (greater than ne_lon: the box crosses the antimeridian).",
);
pub const NE_LAT: Param = coordinate("ne_lat", true, "North-east corner latitude, −90..90.");
pub const NE_LON: Param = coordinate("ne_lon", false, "North-east corner longitude, −180..180.");

pub const TRACK_AIRCRAFT: &[Param] = &[ICAO24, CALLSIGN, SW_LAT, SW_LON, NE_LAT, NE_LON];

fn is_currency(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_alphabetic())
}

const fn route_end(name: &'static str, description: &'static str) -> Param {
    Param { name, kind: ParamKind::Checked { min_chars: 3, max_chars: 4, pattern: None }, required: true, description }
}

pub const PRICE_ORIGIN: Param = route_end("origin", "IATA code of the departure airport (any case).");
pub const PRICE_DESTINATION: Param = route_end("destination", "IATA code of the arrival airport (any case).");

pub const DEPARTURE_DATE: Param = Param { name: "departure_date", description: "Departure date, YYYY-MM-DD.", ..DATE };

pub const RETURN_DATE: Param =
    Param { name: "return_date", required: false, description: "Return date, YYYY-MM-DD; absent = one way.", ..DATE };

pub const ADULTS: Param = Param {
    name: "adults",
    kind: ParamKind::Int32 { min: 1, max: 9, default: 1 },
    required: false,
    description: "Adults, 1–9 (accepted and ignored: fares are per adult).",
};

pub const CABIN: Param = Param {
    name: "cabin",
    kind: ParamKind::Enum { prefix: "CABIN_CLASS", values: &["ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"] },
    required: false,
    description: "CabinClass; absent = ECONOMY.",
};

pub const NONSTOP_ONLY: Param =
    Param { name: "nonstop_only", kind: ParamKind::Bool, required: false, description: "Only fares without changes." };

pub const MAX_RESULTS: Param = Param {
    name: "max_results",
    kind: ParamKind::Int32 { min: 1, max: 50, default: 10 },
    required: false,
    description: "Quotes to return, 1–50; 0 or absent = 10.",
};

pub const CURRENCY: Param = Param {
    name: "currency",
    kind: ParamKind::Checked { min_chars: 0, max_chars: usize::MAX, pattern: Some(("^[A-Za-z]{3}$", is_currency)) },
    required: false,
    description: "ISO 4217 currency code; absent = usd.",
};

pub const MARKET: Param = Param {
    name: "market",
    kind: ParamKind::Text { max_bytes: Some(16) },
    required: false,
    description: "Travelpayouts market (locale code); absent = from the origin: tr (Turkey), ae (DXB, AUH, SHJ, DWC), gb (other European airports of the registry), else us.",
};

pub const FLIGHT_PRICES: &[Param] = &[
    PRICE_ORIGIN,
    PRICE_DESTINATION,
    DEPARTURE_DATE,
    RETURN_DATE,
    ADULTS,
    CABIN,
    NONSTOP_ONLY,
    MAX_RESULTS,
    CURRENCY,
    MARKET,
];

fn is_iata_code(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_alphabetic())
}

/// `H-H` with hours 0–23 then 1–24 (the pattern of SUPPLEMENT 1.6); the order is checked apart.
pub fn is_departure_window(s: &str) -> bool {
    let hour = |h: &str, max: u32| {
        !h.is_empty()
            && h.len() <= 2
            && h.bytes().all(|b| b.is_ascii_digit())
            && h.parse::<u32>().is_ok_and(|n| n <= max)
    };
    matches!(s.split_once('-'), Some((a, b)) if hour(a, 23) && hour(b, 24))
}

const fn provider_airport(name: &'static str, description: &'static str) -> Param {
    Param {
        name,
        kind: ParamKind::Checked {
            min_chars: 0,
            max_chars: usize::MAX,
            pattern: Some(("^[A-Za-z]{3}$", is_iata_code)),
        },
        required: false,
        description,
    }
}

pub const PROVIDER_ORIGIN: Param = provider_airport("origin", "IATA code of the departure airport.");
pub const PROVIDER_DESTINATION: Param = provider_airport("destination", "IATA code of the arrival airport.");

pub const CABIN_CLASS: Param = Param {
    name: "cabin_class",
    kind: ParamKind::OneOf { values: &["ECONOMY", "PREMIUM_ECONOMY", "BUSINESS", "FIRST"] },
    required: false,
    description: "ECONOMY (default), PREMIUM_ECONOMY, BUSINESS or FIRST.",
};

pub const MAX_STOPS: Param = Param {
    name: "max_stops",
    kind: ParamKind::OneOf { values: &["ANY", "NON_STOP", "ONE_STOP", "TWO_PLUS_STOPS"] },
    required: false,
    description: "ANY (default), NON_STOP, ONE_STOP or TWO_PLUS_STOPS.",
};

pub const DEPARTURE_WINDOW: Param = Param {
    name: "departure_window",
    kind: ParamKind::Checked {
        min_chars: 0,
        max_chars: usize::MAX,
        pattern: Some(("^([01]?[0-9]|2[0-3])-([01]?[0-9]|2[0-4])$", is_departure_window)),
    },
    required: false,
    description: "Departure hours `H-H` (e.g. 6-20), the first before the second.",
};

pub const AIRLINES: Param = Param {
    name: "airlines",
    kind: ParamKind::Repeated { max_items: 20 },
    required: false,
    description: "Two-character IATA airline codes (repeated).",
};

pub const PASSENGERS: Param = Param {
    name: "passengers",
    kind: ParamKind::Int32 { min: 1, max: 9, default: 1 },
    required: false,
    description: "Adults, 1–9; 0 or absent = 1.",
};

const fn optional_date(name: &'static str, description: &'static str) -> Param {
    Param { name, required: false, description, ..DATE }
}

pub const PROVIDER_DEPARTURE_DATE: Param = optional_date("departure_date", "Departure date, YYYY-MM-DD.");
pub const PROVIDER_RETURN_DATE: Param = optional_date("return_date", "Return date, YYYY-MM-DD; absent = one way.");

pub const SORT_BY: Param = Param {
    name: "sort_by",
    kind: ParamKind::OneOf { values: &["CHEAPEST", "DURATION", "DEPARTURE_TIME", "ARRIVAL_TIME"] },
    required: false,
    description: "CHEAPEST, DURATION, DEPARTURE_TIME or ARRIVAL_TIME; absent = the provider's best order.",
};

pub const PROVIDER_FLIGHTS: &[Param] = &[
    PROVIDER_ORIGIN,
    PROVIDER_DESTINATION,
    CABIN_CLASS,
    MAX_STOPS,
    DEPARTURE_WINDOW,
    AIRLINES,
    PASSENGERS,
    PROVIDER_DEPARTURE_DATE,
    PROVIDER_RETURN_DATE,
    SORT_BY,
];

pub const START_DATE: Param = optional_date("start_date", "First departure date, YYYY-MM-DD.");
pub const END_DATE: Param =
    optional_date("end_date", "Last departure date, YYYY-MM-DD (at most 366 days after start_date).");

pub const TRIP_DURATION: Param = Param {
    name: "trip_duration",
    kind: ParamKind::Int32 { min: 1, max: 30, default: 0 },
    required: false,
    description: "Days between departure and return, 1–30; required for round trips.",
};

pub const IS_ROUND_TRIP: Param = Param {
    name: "is_round_trip",
    kind: ParamKind::Bool,
    required: false,
    description: "Round trips of trip_duration days.",
};

pub const SORT_BY_PRICE: Param = Param {
    name: "sort_by_price",
    kind: ParamKind::Bool,
    required: false,
    description: "Cheapest first instead of by date.",
};

pub const PROVIDER_DATES: &[Param] = &[
    PROVIDER_ORIGIN,
    PROVIDER_DESTINATION,
    CABIN_CLASS,
    MAX_STOPS,
    DEPARTURE_WINDOW,
    AIRLINES,
    PASSENGERS,
    START_DATE,
    END_DATE,
    TRIP_DURATION,
    IS_ROUND_TRIP,
    SORT_BY_PRICE,
];
