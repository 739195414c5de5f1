//! The Aviation datasets: their descriptors and Arrow schemas (SUPPLEMENT 2.1, 1.16).

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::content_clock::{days, ContentClock};
use crate::{
    descriptor::{DatasetDescriptor, Partitioning},
    fields::{cached, date_or_null, float64_or_null, instant, int32_or_null, utf8, utf8_or_null},
};

/// The emergency squawks adsb.lol is asked for: hijack, radio failure, general emergency.
pub const SQUAWKS: [&str; 3] =
    [EmergencySquawk::Hijack.as_str(), EmergencySquawk::RadioFailure.as_str(), EmergencySquawk::Emergency.as_str()];

/// One run of the three squawk feeds of adsb.lol (2.1.1), as rows of two kinds:
/// - `row_kind = 'feed'`: one per squawk — whether its feed answered (`feed_status`
///   `available`/`unavailable`), a short message (`"2 aircraft"`, `"HTTP 503"`) and when it was
///   asked (`fetched_at`);
/// - `row_kind = 'observation'`: one per aircraft reported on a squawk (`address`, `callsign`,
///   `description`, `observed_at`, `military_flag`).
///
/// A feed that failed contributes its feed row and no observations, so the dataset always says
/// which of the three feeds it could read.
pub fn aircraft_emergencies_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            utf8("squawk"),
            utf8("source"),
            utf8_or_null("feed_status"),
            utf8_or_null("feed_message"),
            instant("fetched_at", true),
            utf8_or_null("address"),
            utf8_or_null("callsign"),
            utf8_or_null("description"),
            instant("observed_at", true),
            utf8_or_null("military_flag"),
        ])
    })
}

/// `aircraft-emergencies`: adsb.lol's 7500/7600/7700 squawk feeds, every 2 minutes.
pub static AIRCRAFT_EMERGENCIES: DatasetDescriptor = DatasetDescriptor {
    id: "aircraft-emergencies",
    table: "aircraft_emergencies",
    group: "aviation",
    provider: "adsb.lol",
    license: "ODbL-1.0",
    cadence: Duration::from_secs(120),
    cron: "0 */2 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    // The API's order: squawk ascending, then observedAt descending (2.1.1).
    sort_key: "row_kind, squawk, observed_at DESC, address",
    row_key: &["row_kind", "squawk", "address"],
    content_clock: ContentClock::Column { column: "observed_at", frozen_after: days(1) },
    schema: aircraft_emergencies_schema,
};

/// The items of the nine aviation feeds of the last 168 hours (2.1.11), one row per link.
/// `match_text` is the title and the description as plain text, for entity matching.
pub fn aviation_news_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("id"),
            utf8("title"),
            utf8("url"),
            utf8("source_name"),
            instant("published_at", false),
            utf8("snippet"),
            utf8("image_url"),
            utf8("match_text"),
        ])
    })
}

/// `aviation-news`: nine RSS/Atom feeds, every 15 minutes.
pub static AVIATION_NEWS: DatasetDescriptor = DatasetDescriptor {
    id: "aviation-news",
    table: "aviation_news",
    group: "aviation",
    provider: "9 aviation RSS/Atom feeds",
    license: "publisher-terms",
    cadence: Duration::from_secs(15 * 60),
    cron: "0 */15 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "published_at DESC, id",
    row_key: &["id"],
    content_clock: ContentClock::Column { column: "published_at", frozen_after: days(2) },
    schema: aviation_news_schema,
};

/// One run of the three airport-delay components of 2.1.2 (FAA NAS Status, AviationStack hubs,
/// ICAO NOTAM), as rows of four kinds:
/// - `row_kind = 'alert'`: the AirportDelayAlerts in the API's order (`position`), fillers
///   included; `component` names the component that produced the row, `coverage` what
///   GetAirportOpsSummary reports as its source (`faa`, `aviationstack`, `degraded`), and
///   `notam_flag`/`notam_text` the NOTAM that applies to the airport (`CLOSED`, `RESTRICTED`);
/// - `row_kind = 'hub'`: one per AviationStack hub — `status` (`normal`, `disruption`,
///   `omitted`, `failed`) and its counts, so a later run can reuse the component for an hour;
/// - `row_kind = 'notam'`: one per closed or restricted airport, kept when ICAO fails;
/// - `row_kind = 'component'`: one per component — `status` (`ok`, `reused`, `failed`) and a
///   short `message`, with `updated_at` the fetch time of the data it carries.
pub fn airport_delays_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            Field::new("position", DataType::Int32, false),
            utf8("component"),
            utf8_or_null("iata"),
            utf8_or_null("icao"),
            utf8_or_null("name"),
            utf8_or_null("city"),
            utf8_or_null("country"),
            float64_or_null("latitude"),
            float64_or_null("longitude"),
            utf8_or_null("region"),
            utf8_or_null("id"),
            utf8_or_null("delay_type"),
            utf8_or_null("severity"),
            int32_or_null("avg_delay_minutes"),
            float64_or_null("delayed_flights_pct"),
            int32_or_null("cancelled_flights"),
            int32_or_null("total_flights"),
            utf8_or_null("reason"),
            utf8_or_null("source"),
            instant("updated_at", true),
            utf8_or_null("status"),
            utf8_or_null("message"),
            utf8_or_null("notam_flag"),
            utf8_or_null("notam_text"),
            utf8_or_null("coverage"),
        ])
    })
}

/// `airport-delays`: FAA NAS Status, AviationStack hubs (refetched at most hourly) and ICAO NOTAM,
/// merged every 30 minutes (2.1.2); GetAirportOpsSummary derives from it (2.1.3).
pub static AIRPORT_DELAYS: DatasetDescriptor = DatasetDescriptor {
    id: "airport-delays",
    table: "airport_delays",
    group: "aviation",
    provider: "FAA NAS Status, AviationStack, ICAO NOTAM",
    license: "FAA public domain; AviationStack and ICAO API terms",
    cadence: Duration::from_secs(30 * 60),
    cron: "0 */30 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, position",
    row_key: &["row_kind", "iata", "icao", "component"],
    content_clock: ContentClock::Column { column: "updated_at", frozen_after: days(1) },
    schema: airport_delays_schema,
};

/// The watch-list airports' departure and arrival pages (`AVIATION_WATCH_AIRPORTS`, 2.1.5), as rows
/// of two kinds:
/// - `row_kind = 'page'`: one per (airport, direction) asked — `status` (`ok`, `failed`), a short
///   `message`, `fetched_at` and `total_available` (rows received);
/// - `row_kind = 'flight'`: the page's Flight records (2.1.4) in the API's order (`position`:
///   scheduled time of the direction, ascending); unknown times are null.
pub fn airport_flights_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        let mut fields = vec![
            utf8("row_kind"),
            utf8("airport"),
            utf8("direction"),
            Field::new("position", DataType::Int32, false),
            instant("fetched_at", false),
            utf8_or_null("status"),
            utf8_or_null("message"),
            int32_or_null("total_available"),
            utf8_or_null("flight_number"),
            utf8_or_null("date"),
        ];
        for side in ["carrier", "origin", "destination"] {
            for column in ["iata", "icao", "name"] {
                fields.push(utf8_or_null(&format!("{side}_{column}")));
            }
            if side != "carrier" {
                fields.push(utf8_or_null(&format!("{side}_timezone")));
            }
        }
        for time in [
            "scheduled_departure",
            "estimated_departure",
            "actual_departure",
            "scheduled_arrival",
            "estimated_arrival",
            "actual_arrival",
        ] {
            fields.push(instant(time, true));
        }
        fields.extend([
            utf8_or_null("flight_status"),
            int32_or_null("delay_minutes"),
            Field::new("cancelled", DataType::Boolean, true),
            Field::new("diverted", DataType::Boolean, true),
            utf8_or_null("gate"),
            utf8_or_null("terminal"),
            utf8_or_null("aircraft_icao24"),
            utf8_or_null("aircraft_type"),
            Field::new("codeshare_flight_numbers", DataType::List(crate::conflict::list_item()), true),
        ]);
        Schema::new(fields)
    })
}

/// `airport-flights`: the watch list's departures and arrivals from AviationStack, every 15 minutes;
/// ListAirportFlights and GetCarrierOps answer from it for watched airports (1.8 step 1).
pub static AIRPORT_FLIGHTS: DatasetDescriptor = DatasetDescriptor {
    id: "airport-flights",
    table: "airport_flights",
    group: "aviation",
    provider: "AviationStack",
    license: "AviationStack API terms",
    cadence: Duration::from_secs(15 * 60),
    cron: "0 */15 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, airport, direction, position",
    row_key: &["row_kind", "airport", "direction", "flight_number", "date"],
    content_clock: ContentClock::Column { column: "scheduled_departure", frozen_after: days(2) },
    schema: airport_flights_schema,
};

/// The route watch list's fares (`AVIATION_WATCH_ROUTES`, 2.1.10), as rows of two kinds:
/// - `row_kind = 'month'`: one per (route, departure month) asked — `status` (`ok`, `failed`),
///   `message`, and the window it covers (`window_start`..`window_end`, the next 60 days);
/// - `row_kind = 'fare'`: Travelpayouts' cheapest one-way economy fares in USD at the origin's
///   default market, by departure date, cheapest first (`position`).
pub fn flight_price_watch_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            utf8("origin"),
            utf8("destination"),
            utf8("month"),
            Field::new("position", DataType::Int32, false),
            instant("fetched_at", false),
            utf8_or_null("status"),
            utf8_or_null("message"),
            date_or_null("window_start"),
            date_or_null("window_end"),
            date_or_null("departure_date"),
            utf8_or_null("airline"),
            float64_or_null("price"),
            utf8_or_null("currency"),
            int32_or_null("transfers"),
            int32_or_null("duration_minutes"),
            utf8_or_null("link"),
            instant("expires_at", true),
        ])
    })
}

/// `flight-price-watch`: the watched routes' fares for the next 60 days, every 6 hours.
pub static FLIGHT_PRICE_WATCH: DatasetDescriptor = DatasetDescriptor {
    id: "flight-price-watch",
    table: "flight_price_watch",
    group: "aviation",
    provider: "Travelpayouts",
    license: "Travelpayouts Data API terms",
    cadence: Duration::from_secs(6 * 3600),
    cron: "0 0 */6 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, origin, destination, month, position",
    row_key: &["row_kind", "origin", "destination", "month", "link"],
    content_clock: ContentClock::Hash { frozen_after: days(3) },
    schema: flight_price_watch_schema,
};

/// The bounding-box watch list's aircraft (`AVIATION_WATCH_BBOXES`, 2.1.8), as rows of two kinds:
/// - `row_kind = 'box'`: one per watched box (`box` = `sw_lat,sw_lon,ne_lat,ne_lon` as configured)
///   — `status` (`ok`, `failed`) and `message`;
/// - `row_kind = 'position'`: the aircraft Wingbits reported inside it.
pub fn aircraft_watch_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            utf8("box"),
            instant("fetched_at", false),
            utf8_or_null("status"),
            utf8_or_null("message"),
            utf8_or_null("icao24"),
            utf8_or_null("callsign"),
            float64_or_null("lat"),
            float64_or_null("lon"),
            float64_or_null("altitude_m"),
            float64_or_null("ground_speed_kts"),
            float64_or_null("track_deg"),
            float64_or_null("vertical_rate"),
            Field::new("on_ground", DataType::Boolean, true),
            utf8_or_null("source"),
            instant("observed_at", true),
        ])
    })
}

/// `aircraft-watch`: the watched boxes' aircraft from Wingbits, every 2 minutes.
pub static AIRCRAFT_WATCH: DatasetDescriptor = DatasetDescriptor {
    id: "aircraft-watch",
    table: "aircraft_watch",
    group: "aviation",
    provider: "Wingbits",
    license: "Wingbits API terms",
    cadence: Duration::from_secs(120),
    cron: "30 */2 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "row_kind, box, icao24",
    row_key: &["row_kind", "box", "icao24"],
    content_clock: ContentClock::Column { column: "observed_at", frozen_after: days(1) },
    schema: aircraft_watch_schema,
};

crate::closed_set!(
    /// A flight's status (SUPPLEMENT 2.1.4's mapping of AviationStack's).
    FlightStatus,
    "FlightInstanceStatus",
    [
        Scheduled = "FLIGHT_INSTANCE_STATUS_SCHEDULED",
        Airborne = "FLIGHT_INSTANCE_STATUS_AIRBORNE",
        Landed = "FLIGHT_INSTANCE_STATUS_LANDED",
        Cancelled = "FLIGHT_INSTANCE_STATUS_CANCELLED",
        Diverted = "FLIGHT_INSTANCE_STATUS_DIVERTED",
        Unknown = "FLIGHT_INSTANCE_STATUS_UNKNOWN",
    ]
);

crate::closed_set!(
    /// Where an aircraft's position came from.
    PositionSource,
    "PositionSource",
    [Wingbits = "POSITION_SOURCE_WINGBITS", Opensky = "POSITION_SOURCE_OPENSKY"]
);

crate::closed_set!(
    /// A fare's cabin.
    CabinClass,
    "CabinClass",
    [
        Economy = "CABIN_CLASS_ECONOMY",
        PremiumEconomy = "CABIN_CLASS_PREMIUM_ECONOMY",
        Business = "CABIN_CLASS_BUSINESS",
        First = "CABIN_CLASS_FIRST",
    ]
);

/// What a flight is before anything is known of it.
impl Default for FlightStatus {
    fn default() -> Self {
        FlightStatus::Unknown
    }
}

crate::closed_set!(
    /// A registry airport's region (2.1.0).
    AirportRegion,
    "AirportRegion",
    [
        Americas = "AIRPORT_REGION_AMERICAS",
        Europe = "AIRPORT_REGION_EUROPE",
        Apac = "AIRPORT_REGION_APAC",
        Mena = "AIRPORT_REGION_MENA",
        Africa = "AIRPORT_REGION_AFRICA",
    ]
);

impl AirportRegion {
    /// The region of a registry row (`EUROPE`: the enum's name without its prefix).
    pub fn of_registry(region: &str) -> Option<AirportRegion> {
        <AirportRegion as crate::closed_set::ClosedSet>::VALUES
            .iter()
            .copied()
            .find(|r| r.as_str().strip_prefix("AIRPORT_REGION_") == Some(region))
    }
}

crate::closed_set!(
    /// What kind of delay an alert reports (2.1.2).
    FlightDelayType,
    "FlightDelayType",
    [
        GroundStop = "FLIGHT_DELAY_TYPE_GROUND_STOP",
        GroundDelay = "FLIGHT_DELAY_TYPE_GROUND_DELAY",
        DepartureDelay = "FLIGHT_DELAY_TYPE_DEPARTURE_DELAY",
        ArrivalDelay = "FLIGHT_DELAY_TYPE_ARRIVAL_DELAY",
        General = "FLIGHT_DELAY_TYPE_GENERAL",
        Closure = "FLIGHT_DELAY_TYPE_CLOSURE",
    ]
);

crate::closed_set!(
    /// Which upstream an alert came from (2.1.2); UNSPECIFIED for an airport none reported on.
    /// EUROCONTROL and COMPUTED are reserved by the spec and never written, so not declared.
    FlightDelaySource,
    "FlightDelaySource",
    [
        Unspecified = "FLIGHT_DELAY_SOURCE_UNSPECIFIED",
        Faa = "FLIGHT_DELAY_SOURCE_FAA",
        Aviationstack = "FLIGHT_DELAY_SOURCE_AVIATIONSTACK",
        Notam = "FLIGHT_DELAY_SOURCE_NOTAM",
    ]
);

crate::closed_set!(
    /// What an airport's operations summary is based on (2.1.3): the component covering it, `degraded`
    /// when that component is unavailable, `unknown` for a code outside the registry.
    AirportOpsSource,
    "AirportOpsSource",
    [Aviationstack = "aviationstack", Faa = "faa", Degraded = "degraded", Unknown = "unknown"]
);

crate::closed_set!(
    /// A NOTAM flag of an airport's operations summary (2.1.3).
    NotamFlag,
    "NotamFlag",
    [Closed = "CLOSED", Restricted = "RESTRICTED", Notam = "NOTAM"]
);

crate::closed_set!(
    /// The emergency squawk codes adsb.lol is asked about (2.1.1), in feed order.
    EmergencySquawk,
    "EmergencySquawk",
    [Hijack = "7500", RadioFailure = "7600", Emergency = "7700"]
);

crate::closed_set!(
    /// Whether an aircraft database flags an aircraft as military (2.1.1); never "civil", only unknown.
    MilitaryFlag,
    "MilitaryFlag",
    [Military = "military", Unknown = "unknown"]
);

crate::closed_set!(
    /// Whether a squawk's feed answered in the last run (2.1.1).
    FeedStatus,
    "EmergencyFeedStatus",
    [Available = "available", Unavailable = "unavailable"]
);
