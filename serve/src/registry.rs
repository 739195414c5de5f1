//! The operation registry: every REST operation is declared here once, and everything about how it
//! is reached reads this declaration — routing (404, 405 with `Allow`), authentication (deny by
//! default), entitlement and scope gating, the idempotency layer, rate-limit policies, the OpenAPI
//! parameters and security requirements, and (later) the MCP tool list and batch dispatch.
//!
//! A path that is not declared here never reaches a handler, and an operation cannot be declared
//! without an access rule: [`Operation`] has no defaults.

use crate::{
    api::{aviation, batch, climate, conflict, consumer_prices, intelligence, params::Param},
    edge::rate_limit::Policy,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Aviation,
    Batch,
    Climate,
    CompanyMonitoring,
    Conflict,
    ConsumerPrices,
    Intelligence,
}

/// Who may call an operation (SUPPLEMENT 1.10, 1.11, 4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No credential needed; a credential that is sent is still checked.
    Public,
    /// Any valid credential of an account that is not suspended (`api_access`, every plan).
    Subscription,
    /// `pro_data`: a Pro-or-better plan that has not lapsed.
    Pro,
    /// Company monitoring reads: scope `company_monitoring:read` and the `company_monitoring` entitlement.
    CmRead,
    /// Company monitoring writes: scope `company_monitoring:write` and the entitlement.
    CmWrite,
    /// GetCompanyMonitoringStatus: any valid credential, so every client can discover its access state.
    CmStatus,
}

impl Access {
    pub fn needs_credential(self) -> bool {
        self != Access::Public
    }
}

/// How an operation is exposed as an MCP tool (SUPPLEMENT 6.4).
#[derive(Debug, Clone, Copy)]
pub struct McpTool {
    pub name: &'static str,
    pub title: &'static str,
    /// At most 200 characters; says PRO where the operation needs it.
    pub description: &'static str,
    /// True for read-through tools (live upstream calls), false for dataset tools.
    pub open_world: bool,
}

pub struct Operation {
    /// The OpenAPI operation id (`ListArmedEvents`).
    pub id: &'static str,
    pub method: Method,
    pub path: &'static str,
    pub group: Group,
    pub access: Access,
    /// Whether the `Idempotency-Key` layer applies (SUPPLEMENT 1.13).
    pub idempotent: bool,
    pub rate: Policy,
    /// The lake datasets the operation answers from.
    pub datasets: &'static [&'static str],
    /// Whether ExecuteBatch may call it.
    pub batchable: bool,
    pub mcp: Option<McpTool>,
    /// Query parameters (GET); `jmespath` is added to every GET by the pipeline.
    pub params: &'static [Param],
    /// JSON Schema of the request body (POST).
    pub body: Option<fn() -> serde_json::Value>,
}

impl Operation {
    /// The last path segment (`list-armed-events`): the cursor's `op` and the MCP tool's stem.
    pub fn segment(&self) -> &'static str {
        self.path.rsplit('/').next().unwrap_or(self.path)
    }
}

pub static OPERATIONS: &[Operation] = &[
    Operation {
        id: "ListAircraftEmergencies",
        method: Method::Get,
        path: "/api/aviation/v1/list-aircraft-emergencies",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["aircraft-emergencies"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_aircraft_emergencies",
            title: "List aircraft emergencies",
            description: "Aircraft squawking 7500 (hijack), 7600 (radio failure) or 7700 (emergency) from adsb.lol, with the state of each feed.",
            open_world: false,
        }),
        params: &[],
        body: None,
    },
    Operation {
        id: "ListAirportFlights",
        method: Method::Get,
        path: "/api/aviation/v1/list-airport-flights",
        group: Group::Aviation,
        access: Access::Pro,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["airport-flights"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_airport_flights",
            title: "List an airport's flights",
            description: "PRO: an airport's departures, arrivals or both with times, delays and status (AviationStack; watched airports from the lake, others live, cached 15 minutes).",
            open_world: true,
        }),
        params: aviation::params::AIRPORT_FLIGHTS,
        body: None,
    },
    Operation {
        id: "GetCarrierOps",
        method: Method::Get,
        path: "/api/aviation/v1/get-carrier-ops",
        group: Group::Aviation,
        access: Access::Pro,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["airport-flights"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_carrier_ops",
            title: "Get carrier operations",
            description: "PRO: per carrier and airport, departures, delayed and cancelled counts, average delay and rates, worst first (default IST, ESB, SAW).",
            open_world: true,
        }),
        params: aviation::params::CARRIER_OPS,
        body: None,
    },
    Operation {
        id: "TrackAircraft",
        method: Method::Get,
        path: "/api/aviation/v1/track-aircraft",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["aircraft-watch"],
        batchable: true,
        mcp: Some(McpTool {
            name: "track_aircraft",
            title: "Track aircraft",
            description: "Live aircraft positions in a latitude/longitude box (antimeridian-aware), or of one ICAO24 address or callsign (Wingbits; cached 2 minutes).",
            open_world: true,
        }),
        params: aviation::params::TRACK_AIRCRAFT,
        body: None,
    },
    Operation {
        id: "SearchFlightPrices",
        method: Method::Get,
        path: "/api/aviation/v1/search-flight-prices",
        group: Group::Aviation,
        access: Access::Pro,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["flight-price-watch"],
        batchable: true,
        mcp: Some(McpTool {
            name: "search_flight_prices",
            title: "Search flight prices",
            description: "PRO: indicative fares for a route and date, one way or return, by cabin (Travelpayouts cached fares, refreshed hourly).",
            open_world: true,
        }),
        params: aviation::params::FLIGHT_PRICES,
        body: None,
    },
    Operation {
        id: "SearchProviderFlights",
        method: Method::Get,
        path: "/api/aviation/v1/search-provider-flights",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &[],
        batchable: true,
        mcp: Some(McpTool {
            name: "search_provider_flights",
            title: "Search flights",
            description: "Itineraries with legs, price, duration and stops for a route and date from the configured flight search provider (cached 10 minutes).",
            open_world: true,
        }),
        params: aviation::params::PROVIDER_FLIGHTS,
        body: None,
    },
    Operation {
        id: "SearchProviderDates",
        method: Method::Get,
        path: "/api/aviation/v1/search-provider-dates",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &[],
        batchable: true,
        mcp: Some(McpTool {
            name: "search_provider_dates",
            title: "Search cheapest dates",
            description: "The cheapest fare per departure date over up to 366 days, one way or round trip, from the configured flight search provider.",
            open_world: true,
        }),
        params: aviation::params::PROVIDER_DATES,
        body: None,
    },
    Operation {
        id: "GetFlightStatus",
        method: Method::Get,
        path: "/api/aviation/v1/get-flight-status",
        group: Group::Aviation,
        access: Access::Pro,
        idempotent: false,
        rate: Policy::Default,
        datasets: &[],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_flight_status",
            title: "Get a flight's status",
            description: "PRO: a flight's schedule, times, delay and status on a date by IATA flight number (AviationStack, live, cached 2 minutes).",
            open_world: true,
        }),
        params: aviation::params::FLIGHT_STATUS,
        body: None,
    },
    Operation {
        id: "ListAirportDelays",
        method: Method::Get,
        path: "/api/aviation/v1/list-airport-delays",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["airport-delays"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_airport_delays",
            title: "List airport delays",
            description: "Delay, closure and NOTAM alerts for 115 major airports (FAA NAS Status, AviationStack hubs, ICAO NOTAM), paged.",
            open_world: false,
        }),
        params: aviation::params::AIRPORT_DELAYS,
        body: None,
    },
    Operation {
        id: "GetAirportOpsSummary",
        method: Method::Get,
        path: "/api/aviation/v1/get-airport-ops-summary",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["airport-delays"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_airport_ops_summary",
            title: "Get airport operations summary",
            description: "Per airport: delayed and cancelled share, average delay, NOTAM closure or restriction flags and a severity (default: IST, ESB, SAW, LHR, FRA, CDG).",
            open_world: false,
        }),
        params: aviation::params::AIRPORT_OPS_SUMMARY,
        body: None,
    },
    Operation {
        id: "ListAviationNews",
        method: Method::Get,
        path: "/api/aviation/v1/list-aviation-news",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["aviation-news"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_aviation_news",
            title: "List aviation news",
            description: "Recent items from nine aviation news feeds, newest first; optionally only those mentioning given airlines, airports or routes.",
            open_world: false,
        }),
        params: aviation::params::AVIATION_NEWS,
        body: None,
    },
    Operation {
        id: "GetVideoLiveStreamInfo",
        method: Method::Get,
        path: "/api/aviation/v1/get-video-live-stream-info",
        group: Group::Aviation,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &[],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_video_live_stream_info",
            title: "Get a video's title and channel",
            description: "A YouTube video's title and channel name by video id (YouTube oEmbed, live). Live-stream detection by channel is retired.",
            open_world: true,
        }),
        params: aviation::params::VIDEO_LIVE_STREAM_INFO,
        body: None,
    },
    Operation {
        id: "GetConsumerPriceOverview",
        method: Method::Get,
        path: "/api/consumer-prices/v1/get-consumer-price-overview",
        group: Group::ConsumerPrices,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["consumer-prices"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_consumer_price_overview",
            title: "Get consumer price overview",
            description: "A market's essentials and value basket indices (base 100), weekly and monthly change, retailer spread, coverage and the categories moving most.",
            open_world: false,
        }),
        params: consumer_prices::params::OVERVIEW,
        body: None,
    },
    Operation {
        id: "GetConsumerPriceBasketSeries",
        method: Method::Get,
        path: "/api/consumer-prices/v1/get-consumer-price-basket-series",
        group: Group::ConsumerPrices,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["consumer-prices"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_consumer_price_basket_series",
            title: "Get consumer price basket series",
            description: "Daily essentials and value basket indices of a market over 7, 30, 90 or 180 days.",
            open_world: false,
        }),
        params: consumer_prices::params::BASKET_SERIES,
        body: None,
    },
    Operation {
        id: "ListConsumerPriceCategories",
        method: Method::Get,
        path: "/api/consumer-prices/v1/list-consumer-price-categories",
        group: Group::ConsumerPrices,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["consumer-prices"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_consumer_price_categories",
            title: "List consumer price categories",
            description: "A market's basket categories over a range: current index, change, daily sparkline and coverage, furthest from 100 first.",
            open_world: false,
        }),
        params: consumer_prices::params::CATEGORIES,
        body: None,
    },
    Operation {
        id: "ListConsumerPriceMovers",
        method: Method::Get,
        path: "/api/consumer-prices/v1/list-consumer-price-movers",
        group: Group::ConsumerPrices,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["consumer-prices"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_consumer_price_movers",
            title: "List consumer price movers",
            description: "The largest rises and falls of retailer item prices in a market over a range, optionally in one category.",
            open_world: false,
        }),
        params: consumer_prices::params::MOVERS,
        body: None,
    },
    Operation {
        id: "ListClimateAnomalies",
        method: Method::Get,
        path: "/api/climate/v1/list-climate-anomalies",
        group: Group::Climate,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["climate-anomalies", "climate-normals"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_climate_anomalies",
            title: "List climate anomalies",
            description: "Temperature and precipitation anomalies of 25 climate zones: the last 7 days against the 1991-2020 monthly normal (ERA5 via Open-Meteo), classified, paged.",
            open_world: false,
        }),
        params: climate::params::CLIMATE_ANOMALIES,
        body: None,
    },
    Operation {
        id: "ListClimateDisasters",
        method: Method::Get,
        path: "/api/climate/v1/list-climate-disasters",
        group: Group::Climate,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["climate-disasters"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_climate_disasters",
            title: "List climate disasters",
            description: "Current floods, cyclones, droughts, heatwaves, wildfires and volcanoes from ReliefWeb, GDACS and NASA EONET, de-duplicated, newest first, paged.",
            open_world: false,
        }),
        params: climate::params::CLIMATE_DISASTERS,
        body: None,
    },
    Operation {
        id: "GetCo2Monitoring",
        method: Method::Get,
        path: "/api/climate/v1/get-co2-monitoring",
        group: Group::Climate,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["co2-monitoring"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_co2_monitoring",
            title: "Get CO2 monitoring",
            description: "Atmospheric CO2 at Mauna Loa (latest daily, a year ago, monthly, 12-month trend), its annual growth, and global methane and nitrous oxide (NOAA GML, daily).",
            open_world: false,
        }),
        params: &[],
        body: None,
    },
    Operation {
        id: "ListAirQualityData",
        method: Method::Get,
        path: "/api/climate/v1/list-air-quality-data",
        group: Group::Climate,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["air-quality"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_air_quality_data",
            title: "List air quality",
            description: "Latest PM2.5 per monitoring station (OpenAQ, last two hours) with its US EPA AQI and risk level, worst first (hourly).",
            open_world: false,
        }),
        params: &[],
        body: None,
    },
    Operation {
        id: "ListClimateNews",
        method: Method::Get,
        path: "/api/climate/v1/list-climate-news",
        group: Group::Climate,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["climate-news"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_climate_news",
            title: "List climate news",
            description: "Recent climate news from eight publishers (Carbon Brief, the Guardian, NASA, UNEP, Copernicus, …) and ReliefWeb disaster reports, newest first.",
            open_world: false,
        }),
        params: &[],
        body: None,
    },
    Operation {
        id: "GetOceanIceData",
        method: Method::Get,
        path: "/api/climate/v1/get-ocean-ice-data",
        group: Group::Climate,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["ocean-ice"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_ocean_ice_data",
            title: "Get ocean and ice data",
            description: "Arctic sea-ice extent (anomaly, trend, 12 months), global sea level rise, ocean heat content and ocean surface temperature anomaly (NSIDC, NASA, NOAA; daily).",
            open_world: false,
        }),
        params: &[],
        body: None,
    },
    Operation {
        id: "ListArmedEvents",
        method: Method::Get,
        path: "/api/conflict/v1/list-armed-events",
        group: Group::Conflict,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["armed-events"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_armed_events",
            title: "List armed-conflict events",
            description: "ACLED armed-conflict events (battles, explosions, violence against civilians), newest first; filter by country and time range, paged.",
            open_world: false,
        }),
        params: conflict::params::ARMED_EVENTS,
        body: None,
    },
    Operation {
        id: "ListViolenceEvents",
        method: Method::Get,
        path: "/api/conflict/v1/list-violence-events",
        group: Group::Conflict,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["violence-events"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_violence_events",
            title: "List violence events",
            description: "UCDP georeferenced organised-violence events with fatality estimates, newest first; filter by country and time range, paged.",
            open_world: false,
        }),
        params: conflict::params::VIOLENCE_EVENTS,
        body: None,
    },
    Operation {
        id: "GetHumanitarianSummary",
        method: Method::Get,
        path: "/api/conflict/v1/get-humanitarian-summary",
        group: Group::Conflict,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["humanitarian"],
        batchable: true,
        mcp: Some(McpTool {
            name: "get_humanitarian_summary",
            title: "Get a country's humanitarian summary",
            description: "HDX HAPI conflict-event summary of one country: political violence, civilian targeting and demonstrations with fatalities, latest reference period.",
            open_world: false,
        }),
        params: conflict::params::HUMANITARIAN_SUMMARY,
        body: None,
    },
    Operation {
        id: "ListIranEvents",
        method: Method::Get,
        path: "/api/conflict/v1/list-iran-events",
        group: Group::Conflict,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &["iran-events"],
        batchable: true,
        mcp: Some(McpTool {
            name: "list_iran_events",
            title: "List regional conflict records",
            description: "Regional conflict records from the operator-supplied export; empty unless the deployment enables them.",
            open_world: false,
        }),
        params: &[],
        body: None,
    },
    Operation {
        id: "GetHumanitarianSummaryBatch",
        method: Method::Post,
        path: "/api/conflict/v1/get-humanitarian-summary-batch",
        group: Group::Conflict,
        access: Access::Subscription,
        idempotent: true,
        rate: Policy::HumanitarianBatch,
        datasets: &["humanitarian"],
        batchable: false,
        mcp: None,
        params: &[],
        body: Some(conflict::params::humanitarian_batch_body),
    },
    Operation {
        id: "ComputeEnergyShockScenario",
        method: Method::Get,
        path: "/api/intelligence/v1/compute-energy-shock",
        group: Group::Intelligence,
        access: Access::Subscription,
        idempotent: false,
        rate: Policy::Default,
        datasets: &[
            "jodi-oil",
            "chokepoint-flows",
            "jodi-gas",
            "iea-stocks",
            "comtrade-crude",
            "ember-mix",
            "gas-storage",
            "spr-registry",
        ],
        batchable: true,
        mcp: Some(McpTool {
            name: "compute_energy_shock",
            title: "Compute an energy shock scenario",
            description: "Oil and LNG impact on a country of a chokepoint disruption: crude loss, product deficits, IEA stock cover, gas storage buffer, with coverage and limitations.",
            open_world: false,
        }),
        params: intelligence::params::ENERGY_SHOCK,
        body: None,
    },
    Operation {
        id: "ExecuteBatch",
        method: Method::Post,
        path: "/api/batch/v1/execute",
        group: Group::Batch,
        // Any valid credential (not PRO); each sub-operation is gated by its own declaration.
        access: Access::Subscription,
        idempotent: true,
        rate: Policy::Batch,
        datasets: &[],
        batchable: false,
        mcp: None,
        params: &[],
        body: Some(batch::body_schema),
    },
];

/// The operation declared at `path`, whatever the method (a hash lookup: every request asks).
pub fn find(path: &str) -> Option<&'static Operation> {
    static BY_PATH: std::sync::OnceLock<foldhash::HashMap<&'static str, &'static Operation>> =
        std::sync::OnceLock::new();
    BY_PATH.get_or_init(|| OPERATIONS.iter().map(|op| (op.path, op)).collect()).get(path).copied()
}

/// The operation with this OpenAPI operation id.
pub fn by_id(id: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|op| op.id == id)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_operation_a_dataset_lists_declares_that_dataset() {
        for dataset in sitrep_schemas::DatasetId::ALL {
            for id in dataset.descriptor().operations {
                let op = by_id(id).unwrap_or_else(|| panic!("{dataset} lists undeclared operation {id}"));
                assert!(op.datasets.contains(&dataset.as_str()), "{id} does not read {dataset}");
            }
        }
    }

    #[test]
    fn declarations_are_consistent() {
        let mut paths = HashSet::new();
        let mut ids = HashSet::new();
        for op in OPERATIONS {
            assert!(paths.insert(op.path), "{} declared twice", op.path);
            assert!(ids.insert(op.id), "{} declared twice", op.id);
            // API.md 1 rule 1: /api/<group>/v1/<operation-in-kebab-case>.
            let parts: Vec<&str> = op.path.split('/').collect();
            assert_eq!(parts.len(), 5, "{}", op.path);
            assert_eq!((parts[1], parts[3]), ("api", "v1"), "{}", op.path);
            assert!(
                op.segment().bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                op.path
            );
            // Reads are GET, so only POSTs take the idempotency layer; MCP tools are GET reads.
            assert!(!op.idempotent || op.method == Method::Post, "{}", op.id);
            if let Some(tool) = op.mcp {
                assert_eq!(op.method, Method::Get, "{}", op.id);
                assert_eq!(tool.name, op.segment().replace('-', "_"), "{}", op.id);
                assert!(tool.description.chars().count() <= 200, "{}: description over 200 characters", op.id);
                assert_eq!(
                    tool.description.contains("PRO"),
                    op.access == Access::Pro,
                    "{}: say PRO exactly when gated",
                    op.id
                );
            }
            for d in op.datasets {
                let dataset = d.parse::<sitrep_schemas::DatasetId>().unwrap_or_else(|e| panic!("{}: {e}", op.id));
                assert!(dataset.descriptor().operations.contains(&op.id), "{d} does not list {}", op.id);
            }
            assert!(op.method == Method::Get || op.params.is_empty(), "POST parameters are in the body");
            assert!(!op.batchable || op.method == Method::Get, "{}: batch runs GETs only", op.id);
            assert_eq!(op.body.is_some(), op.method == Method::Post, "{}: POSTs declare their body", op.id);
        }
    }
}
