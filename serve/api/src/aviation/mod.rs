//! The Aviation group (API.md 4.2, SUPPLEMENT 2.1): the scheduled-dataset operations
//! (ListAircraftEmergencies, ListAirportDelays, GetAirportOpsSummary, ListAviationNews), the
//! watch-list operations that read a dataset or call the upstream live (ListAirportFlights,
//! GetCarrierOps, TrackAircraft, SearchFlightPrices), and the read-through ones
//! (SearchProviderFlights, SearchProviderDates, GetFlightStatus, GetVideoLiveStreamInfo).

mod airport_flights;
mod delays;
mod flight_status;
pub mod model;
mod news;
pub mod params;
mod prices;
mod provider;
pub mod queries;
mod track;
mod video;

use poem::Request;
use sitrep_schemas::DatasetId;

use self::model::*;
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    kit::{answer::Answer, dataset_read::whole_dataset_get},
    registry::{Access, Group, McpTool, Operation},
};

pub static GROUP: Group = Group {
    tag: "Aviation",
    description: "Aircraft emergencies, airport delays and operations, flights, prices and aviation news.",
    operations: &[
        &LIST_AIRCRAFT_EMERGENCIES,
        &LIST_AIRPORT_FLIGHTS,
        &GET_CARRIER_OPS,
        &TRACK_AIRCRAFT,
        &SEARCH_FLIGHT_PRICES,
        &SEARCH_PROVIDER_FLIGHTS,
        &SEARCH_PROVIDER_DATES,
        &GET_FLIGHT_STATUS,
        &LIST_AIRPORT_DELAYS,
        &GET_AIRPORT_OPS_SUMMARY,
        &LIST_AVIATION_NEWS,
        &GET_VIDEO_LIVE_STREAM_INFO,
    ],
};

pub static LIST_AIRCRAFT_EMERGENCIES: Operation = Operation {
    id: "ListAircraftEmergencies",
    path: "/api/aviation/v1/list-aircraft-emergencies",
    summary: "aircraft squawking 7500, 7600 or 7700, with the state of each feed.",
    datasets: &[DatasetId::AIRCRAFT_EMERGENCIES],
    mcp: Some(McpTool {
        title: "List aircraft emergencies",
        description: "Aircraft squawking 7500 (hijack), 7600 (radio failure) or 7700 (emergency) from adsb.lol, with the state of each feed.",
        open_world: false,
    }),
    answer: answered_by!(ListAircraftEmergenciesResponse, list_aircraft_emergencies),
    ..Operation::GET
};

pub static LIST_AIRPORT_FLIGHTS: Operation = Operation {
    id: "ListAirportFlights",
    path: "/api/aviation/v1/list-airport-flights",
    summary: "an airport's departures, arrivals or both (PRO; watch list or live, TTL 900 s).",
    access: Access::Pro,
    datasets: &[DatasetId::AIRPORT_FLIGHTS],
    params: params::AIRPORT_FLIGHTS,
    mcp: Some(McpTool {
        title: "List an airport's flights",
        description: "PRO: an airport's departures, arrivals or both with times, delays and status (AviationStack; watched airports from the lake, others live, cached 15 minutes).",
        open_world: true,
    }),
    answer: answered_by!(ListAirportFlightsResponse, airport_flights::list),
    ..Operation::GET
};

pub static GET_CARRIER_OPS: Operation = Operation {
    id: "GetCarrierOps",
    path: "/api/aviation/v1/get-carrier-ops",
    summary: "delays and cancellations per carrier at up to six airports (PRO; watch list or live).",
    access: Access::Pro,
    datasets: &[DatasetId::AIRPORT_FLIGHTS],
    params: params::CARRIER_OPS,
    mcp: Some(McpTool {
        title: "Get carrier operations",
        description: "PRO: per carrier and airport, departures, delayed and cancelled counts, average delay and rates, worst first (default IST, ESB, SAW).",
        open_world: true,
    }),
    answer: answered_by!(GetCarrierOpsResponse, airport_flights::carriers),
    ..Operation::GET
};

pub static TRACK_AIRCRAFT: Operation = Operation {
    id: "TrackAircraft",
    path: "/api/aviation/v1/track-aircraft",
    summary: "live aircraft positions in a box, or of one aircraft or callsign (Wingbits; OpenSky optional).",
    datasets: &[DatasetId::AIRCRAFT_WATCH],
    params: params::TRACK_AIRCRAFT,
    mcp: Some(McpTool {
        title: "Track aircraft",
        description: "Live aircraft positions in a latitude/longitude box (antimeridian-aware), or of one ICAO24 address or callsign (Wingbits; cached 2 minutes).",
        open_world: true,
    }),
    answer: answered_by!(TrackAircraftResponse, track::answer),
    ..Operation::GET
};

pub static SEARCH_FLIGHT_PRICES: Operation = Operation {
    id: "SearchFlightPrices",
    path: "/api/aviation/v1/search-flight-prices",
    summary: "indicative fares for a route and date (PRO; Travelpayouts, cached 1 hour).",
    access: Access::Pro,
    datasets: &[DatasetId::FLIGHT_PRICE_WATCH],
    params: params::FLIGHT_PRICES,
    mcp: Some(McpTool {
        title: "Search flight prices",
        description: "PRO: indicative fares for a route and date, one way or return, by cabin (Travelpayouts cached fares, refreshed hourly).",
        open_world: true,
    }),
    answer: answered_by!(SearchFlightPricesResponse, prices::answer),
    ..Operation::GET
};

pub static SEARCH_PROVIDER_FLIGHTS: Operation = Operation {
    id: "SearchProviderFlights",
    path: "/api/aviation/v1/search-provider-flights",
    summary: "itineraries from the configured flight search provider (cached 10 minutes).",
    params: params::PROVIDER_FLIGHTS,
    mcp: Some(McpTool {
        title: "Search flights",
        description: "Itineraries with legs, price, duration and stops for a route and date from the configured flight search provider (cached 10 minutes).",
        open_world: true,
    }),
    answer: answered_by!(SearchProviderFlightsResponse, provider::flights),
    ..Operation::GET
};

pub static SEARCH_PROVIDER_DATES: Operation = Operation {
    id: "SearchProviderDates",
    path: "/api/aviation/v1/search-provider-dates",
    summary: "the cheapest fare per date over a range from the flight search provider.",
    params: params::PROVIDER_DATES,
    mcp: Some(McpTool {
        title: "Search cheapest dates",
        description: "The cheapest fare per departure date over up to 366 days, one way or round trip, from the configured flight search provider.",
        open_world: true,
    }),
    answer: answered_by!(SearchProviderDatesResponse, provider::dates),
    ..Operation::GET
};

pub static GET_FLIGHT_STATUS: Operation = Operation {
    id: "GetFlightStatus",
    path: "/api/aviation/v1/get-flight-status",
    summary: "a flight's schedule and status on a date (PRO; read-through, TTL 120 s).",
    access: Access::Pro,
    params: params::FLIGHT_STATUS,
    mcp: Some(McpTool {
        title: "Get a flight's status",
        description: "PRO: a flight's schedule, times, delay and status on a date by IATA flight number (AviationStack, live, cached 2 minutes).",
        open_world: true,
    }),
    answer: answered_by!(GetFlightStatusResponse, flight_status::answer),
    ..Operation::GET
};

pub static LIST_AIRPORT_DELAYS: Operation = Operation {
    id: "ListAirportDelays",
    path: "/api/aviation/v1/list-airport-delays",
    summary: "delay, closure and NOTAM alerts for the 115 registry airports (FAA, AviationStack, ICAO).",
    datasets: &[DatasetId::AIRPORT_DELAYS],
    params: params::AIRPORT_DELAYS,
    mcp: Some(McpTool {
        title: "List airport delays",
        description: "Delay, closure and NOTAM alerts for 115 major airports (FAA NAS Status, AviationStack hubs, ICAO NOTAM), paged.",
        open_world: false,
    }),
    answer: answered_by!(ListAirportDelaysResponse, |state, req, op| delays::ALERTS.answer(state, req, op)),
    ..Operation::GET
};

pub static GET_AIRPORT_OPS_SUMMARY: Operation = Operation {
    id: "GetAirportOpsSummary",
    path: "/api/aviation/v1/get-airport-ops-summary",
    summary: "delays, cancellations, NOTAM flags and severity per airport, from the current airport-delays version.",
    datasets: &[DatasetId::AIRPORT_DELAYS],
    params: params::AIRPORT_OPS_SUMMARY,
    mcp: Some(McpTool {
        title: "Get airport operations summary",
        description: "Per airport: delayed and cancelled share, average delay, NOTAM closure or restriction flags and a severity (default: IST, ESB, SAW, LHR, FRA, CDG).",
        open_world: false,
    }),
    answer: answered_by!(GetAirportOpsSummaryResponse, delays::ops_summary),
    ..Operation::GET
};

pub static LIST_AVIATION_NEWS: Operation = Operation {
    id: "ListAviationNews",
    path: "/api/aviation/v1/list-aviation-news",
    summary: "aviation news from nine feeds, optionally about given airlines, airports or routes.",
    datasets: &[DatasetId::AVIATION_NEWS],
    params: params::AVIATION_NEWS,
    mcp: Some(McpTool {
        title: "List aviation news",
        description: "Recent items from nine aviation news feeds, newest first; optionally only those mentioning given airlines, airports or routes.",
        open_world: false,
    }),
    answer: answered_by!(ListAviationNewsResponse, news::answer),
    ..Operation::GET
};

pub static GET_VIDEO_LIVE_STREAM_INFO: Operation = Operation {
    id: "GetVideoLiveStreamInfo",
    path: "/api/aviation/v1/get-video-live-stream-info",
    summary: "a YouTube video's title and channel (read-through, TTL 600 s).",
    params: params::VIDEO_LIVE_STREAM_INFO,
    mcp: Some(McpTool {
        title: "Get a video's title and channel",
        description: "A YouTube video's title and channel name by video id (YouTube oEmbed, live). Live-stream detection by channel is retired.",
        open_world: true,
    }),
    answer: answered_by!(VideoLiveStreamInfo, video::answer),
    ..Operation::GET
};

/// The three squawks' rows before the dataset was ever published (2.1.1 "Unavailable").
fn never_published() -> ListAircraftEmergenciesResponse {
    use sitrep_platform::kit::wire_name::WireName;
    use sitrep_schemas::{
        aviation::{EmergencySquawk, FeedStatus},
        closed_set::ClosedSet,
    };
    let feeds = EmergencySquawk::VALUES
        .iter()
        .map(|&s| EmergencyFeed {
            squawk: WireName(s),
            source: "adsb.lol".into(),
            status: WireName(FeedStatus::Unavailable),
            message: "no data yet".into(),
            fetched_at: 0,
        })
        .collect();
    ListAircraftEmergenciesResponse { feeds, observations: Vec::new() }
}

async fn list_aircraft_emergencies(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListAircraftEmergenciesResponse> {
    whole_dataset_get(state, req, op, never_published(), |db| async move {
        let (feeds, observations) = db
            .query_table(|c, table| {
                Ok((queries::emergency_feeds(c, table)?, queries::emergency_observations(c, table)?))
            })
            .await?;
        Ok(ListAircraftEmergenciesResponse { feeds, observations })
    })
    .await
}
