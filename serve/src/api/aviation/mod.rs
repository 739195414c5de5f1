//! The Aviation group (API.md 4.2, SUPPLEMENT 2.1). So far: the scheduled-dataset operations
//! ListAircraftEmergencies, ListAirportDelays, GetAirportOpsSummary and ListAviationNews, and the
//! read-through GetFlightStatus (PRO, AviationStack) and GetVideoLiveStreamInfo (YouTube oEmbed).

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

use std::sync::Arc;

use poem::Request;
use poem_openapi::{OpenApi, Tags};
use sitrep_schemas::DatasetId;

use self::model::*;
use super::{answer::Answer, dataset_read::whole_dataset_get};
use crate::app_state::AppState;

#[derive(Tags)]
enum ApiTags {
    /// Aircraft emergencies, airport delays and operations, flights, prices and aviation news.
    Aviation,
}

pub struct AviationApi {
    pub state: Arc<AppState>,
}

/// The three squawks' rows before the dataset was ever published (2.1.1 "Unavailable").
fn never_published() -> ListAircraftEmergenciesResponse {
    let feeds = sitrep_schemas::aviation::SQUAWKS
        .iter()
        .map(|s| EmergencyFeed {
            squawk: s.to_string(),
            source: "adsb.lol".into(),
            status: "unavailable".into(),
            message: "no data yet".into(),
            fetched_at: 0,
        })
        .collect();
    ListAircraftEmergenciesResponse { feeds, observations: Vec::new() }
}

#[OpenApi(prefix_path = "/api/aviation/v1", tag = "ApiTags::Aviation")]
impl AviationApi {
    /// ListAircraftEmergencies — aircraft squawking 7500, 7600 or 7700, with the state of each feed.
    #[oai(path = "/list-aircraft-emergencies", method = "get", operation_id = "ListAircraftEmergencies")]
    async fn list_aircraft_emergencies(&self, req: &Request) -> Answer<ListAircraftEmergenciesResponse> {
        let op = "list-aircraft-emergencies";
        whole_dataset_get(&self.state, req, DatasetId::AIRCRAFT_EMERGENCIES, op, never_published(), |db| async move {
            let table = db.table().to_string();
            let (feeds, observations) = db
                .query(move |c| Ok((queries::emergency_feeds(c, &table)?, queries::emergency_observations(c, &table)?)))
                .await?;
            Ok(ListAircraftEmergenciesResponse { feeds, observations })
        })
        .await
    }

    /// ListAirportDelays — delay, closure and NOTAM alerts for the 115 registry airports (FAA, AviationStack, ICAO).
    #[oai(path = "/list-airport-delays", method = "get", operation_id = "ListAirportDelays")]
    async fn list_airport_delays(&self, req: &Request) -> Answer<ListAirportDelaysResponse> {
        delays::LIST_AIRPORT_DELAYS.answer(&self.state, req).await
    }

    /// GetAirportOpsSummary — delays, cancellations, NOTAM flags and severity per airport, from the current airport-delays version.
    #[oai(path = "/get-airport-ops-summary", method = "get", operation_id = "GetAirportOpsSummary")]
    async fn get_airport_ops_summary(&self, req: &Request) -> Answer<GetAirportOpsSummaryResponse> {
        delays::ops_summary(&self.state, req).await
    }

    /// ListAirportFlights — an airport's departures, arrivals or both (PRO; watch list or live, TTL 900 s).
    #[oai(path = "/list-airport-flights", method = "get", operation_id = "ListAirportFlights")]
    async fn list_airport_flights(&self, req: &Request) -> Answer<ListAirportFlightsResponse> {
        airport_flights::list(&self.state, req).await
    }

    /// GetCarrierOps — delays and cancellations per carrier at up to six airports (PRO; watch list or live).
    #[oai(path = "/get-carrier-ops", method = "get", operation_id = "GetCarrierOps")]
    async fn get_carrier_ops(&self, req: &Request) -> Answer<GetCarrierOpsResponse> {
        airport_flights::carriers(&self.state, req).await
    }

    /// TrackAircraft — live aircraft positions in a box, or of one aircraft or callsign (Wingbits; OpenSky optional).
    #[oai(path = "/track-aircraft", method = "get", operation_id = "TrackAircraft")]
    async fn track_aircraft(&self, req: &Request) -> Answer<TrackAircraftResponse> {
        track::answer(&self.state, req).await
    }

    /// SearchFlightPrices — indicative fares for a route and date (PRO; Travelpayouts, cached 1 hour).
    #[oai(path = "/search-flight-prices", method = "get", operation_id = "SearchFlightPrices")]
    async fn search_flight_prices(&self, req: &Request) -> Answer<SearchFlightPricesResponse> {
        prices::answer(&self.state, req).await
    }

    /// SearchProviderFlights — itineraries from the configured flight search provider (cached 10 minutes).
    #[oai(path = "/search-provider-flights", method = "get", operation_id = "SearchProviderFlights")]
    async fn search_provider_flights(&self, req: &Request) -> Answer<SearchProviderFlightsResponse> {
        provider::flights(&self.state, req).await
    }

    /// SearchProviderDates — the cheapest fare per date over a range from the flight search provider.
    #[oai(path = "/search-provider-dates", method = "get", operation_id = "SearchProviderDates")]
    async fn search_provider_dates(&self, req: &Request) -> Answer<SearchProviderDatesResponse> {
        provider::dates(&self.state, req).await
    }

    /// GetFlightStatus — a flight's schedule and status on a date (PRO; read-through, TTL 120 s).
    #[oai(path = "/get-flight-status", method = "get", operation_id = "GetFlightStatus")]
    async fn get_flight_status(&self, req: &Request) -> Answer<GetFlightStatusResponse> {
        flight_status::answer(&self.state, req).await
    }

    /// ListAviationNews — aviation news from nine feeds, optionally about given airlines, airports or routes.
    #[oai(path = "/list-aviation-news", method = "get", operation_id = "ListAviationNews")]
    async fn list_aviation_news(&self, req: &Request) -> Answer<ListAviationNewsResponse> {
        news::answer(&self.state, req).await
    }

    /// GetVideoLiveStreamInfo — a YouTube video's title and channel (read-through, TTL 600 s).
    #[oai(path = "/get-video-live-stream-info", method = "get", operation_id = "GetVideoLiveStreamInfo")]
    async fn get_video_live_stream_info(&self, req: &Request) -> Answer<VideoLiveStreamInfo> {
        video::answer(&self.state, req).await
    }
}
