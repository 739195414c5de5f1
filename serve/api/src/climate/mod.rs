//! The Climate group (API.md 4.4, SUPPLEMENT 2.2): every operation answers from a scheduled
//! dataset; none calls an upstream at request time: ListClimateAnomalies (`climate-anomalies`)
//! and ListClimateDisasters (`climate-disasters`), two paged lists; GetCo2Monitoring
//! (`co2-monitoring`), GetOceanIceData (`ocean-ice`), ListAirQualityData (`air-quality`) and
//! ListClimateNews (`climate-news`), each one whole dataset.

pub mod model;
pub mod params;
pub mod queries;

use poem::Request;
use sitrep_schemas::DatasetId;

use self::model::*;
use sitrep_platform::{
    answered_by,
    app_state::AppState,
    kit::{
        answer::Answer,
        dataset_read::whole_dataset_get,
        paged_list::{NoFilters, PagedList},
    },
    registry::{Group, McpTool, Operation},
};

pub static GROUP: Group = Group {
    tag: "Climate",
    description:
        "Anomalies, disasters, greenhouse-gas monitoring, sea ice and ocean indicators, air quality, climate news.",
    operations: &[
        &LIST_CLIMATE_ANOMALIES,
        &LIST_CLIMATE_DISASTERS,
        &GET_CO2_MONITORING,
        &LIST_AIR_QUALITY_DATA,
        &LIST_CLIMATE_NEWS,
        &GET_OCEAN_ICE_DATA,
    ],
};

pub static LIST_CLIMATE_ANOMALIES: Operation = Operation {
    id: "ListClimateAnomalies",
    path: "/api/climate/v1/list-climate-anomalies",
    summary: "temperature and precipitation anomalies of 25 climate zones (the last 7 days against the 1991–2020 normal), paged.",
    datasets: &[DatasetId::CLIMATE_ANOMALIES, DatasetId::CLIMATE_NORMALS],
    params: params::CLIMATE_ANOMALIES,
    mcp: Some(McpTool {
        title: "List climate anomalies",
        description: "Temperature and precipitation anomalies of 25 climate zones: the last 7 days against the 1991-2020 monthly normal (ERA5 via Open-Meteo), classified, paged.",
        open_world: false,
    }),
    answer: answered_by!(ListClimateAnomaliesResponse, |state, req, op| ANOMALIES.answer(state, req, op)),
    ..Operation::GET
};

pub static LIST_CLIMATE_DISASTERS: Operation = Operation {
    id: "ListClimateDisasters",
    path: "/api/climate/v1/list-climate-disasters",
    summary: "current floods, cyclones, droughts, heatwaves, wildfires and volcanoes (ReliefWeb, GDACS, NASA EONET), newest first, paged.",
    datasets: &[DatasetId::CLIMATE_DISASTERS],
    params: params::CLIMATE_DISASTERS,
    mcp: Some(McpTool {
        title: "List climate disasters",
        description: "Current floods, cyclones, droughts, heatwaves, wildfires and volcanoes from ReliefWeb, GDACS and NASA EONET, de-duplicated, newest first, paged.",
        open_world: false,
    }),
    answer: answered_by!(ListClimateDisastersResponse, |state, req, op| DISASTERS.answer(state, req, op)),
    ..Operation::GET
};

pub static GET_CO2_MONITORING: Operation = Operation {
    id: "GetCo2Monitoring",
    path: "/api/climate/v1/get-co2-monitoring",
    summary: "CO₂ at Mauna Loa (daily, monthly, 12-month trend), its annual growth, and global methane and nitrous oxide.",
    datasets: &[DatasetId::CO2_MONITORING],
    mcp: Some(McpTool {
        title: "Get CO2 monitoring",
        description: "Atmospheric CO2 at Mauna Loa (latest daily, a year ago, monthly, 12-month trend), its annual growth, and global methane and nitrous oxide (NOAA GML, daily).",
        open_world: false,
    }),
    answer: answered_by!(GetCo2MonitoringResponse, get_co2_monitoring),
    ..Operation::GET
};

pub static LIST_AIR_QUALITY_DATA: Operation = Operation {
    id: "ListAirQualityData",
    path: "/api/climate/v1/list-air-quality-data",
    summary: "the latest PM2.5 per OpenAQ station of the last two hours, with its US EPA AQI and risk level.",
    datasets: &[DatasetId::AIR_QUALITY],
    mcp: Some(McpTool {
        title: "List air quality",
        description: "Latest PM2.5 per monitoring station (OpenAQ, last two hours) with its US EPA AQI and risk level, worst first (hourly).",
        open_world: false,
    }),
    answer: answered_by!(ListAirQualityDataResponse, list_air_quality_data),
    ..Operation::GET
};

pub static LIST_CLIMATE_NEWS: Operation = Operation {
    id: "ListClimateNews",
    path: "/api/climate/v1/list-climate-news",
    summary: "climate news from eight feeds and ReliefWeb's disaster reports, newest first.",
    datasets: &[DatasetId::CLIMATE_NEWS],
    mcp: Some(McpTool {
        title: "List climate news",
        description: "Recent climate news from eight publishers (Carbon Brief, the Guardian, NASA, UNEP, Copernicus, …) and ReliefWeb disaster reports, newest first.",
        open_world: false,
    }),
    answer: answered_by!(ListClimateNewsResponse, list_climate_news),
    ..Operation::GET
};

pub static GET_OCEAN_ICE_DATA: Operation = Operation {
    id: "GetOceanIceData",
    path: "/api/climate/v1/get-ocean-ice-data",
    summary: "Arctic sea-ice extent and its trend, sea level, ocean heat content and ocean surface temperature.",
    datasets: &[DatasetId::OCEAN_ICE],
    mcp: Some(McpTool {
        title: "Get ocean and ice data",
        description: "Arctic sea-ice extent (anomaly, trend, 12 months), global sea level rise, ocean heat content and ocean surface temperature anomaly (NSIDC, NASA, NOAA; daily).",
        open_world: false,
    }),
    answer: answered_by!(GetOceanIceDataResponse, get_ocean_ice_data),
    ..Operation::GET
};

static ANOMALIES: PagedList<NoFilters, ClimateAnomaly, ListClimateAnomaliesResponse> = PagedList {
    bounds: None,
    page: |conn, db, _, _, page| queries::climate_anomalies(conn, db.table(), page),
    respond: |anomalies, pagination| ListClimateAnomaliesResponse { anomalies, pagination },
};

static DISASTERS: PagedList<NoFilters, ClimateDisaster, ListClimateDisastersResponse> = PagedList {
    bounds: None,
    page: |conn, db, _, _, page| queries::climate_disasters(conn, db.table(), page),
    respond: |disasters, pagination| ListClimateDisastersResponse { disasters, pagination },
};

async fn get_co2_monitoring(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetCo2MonitoringResponse> {
    whole_dataset_get(state, req, op, GetCo2MonitoringResponse::default(), |db| async move {
        let monitoring = db.query_table(queries::co2_monitoring).await?;
        Ok(GetCo2MonitoringResponse { monitoring })
    })
    .await
}

async fn list_air_quality_data(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<ListAirQualityDataResponse> {
    whole_dataset_get(state, req, op, ListAirQualityDataResponse::default(), |db| async move {
        let fetched_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0);
        let stations = db.query_table(queries::air_quality_stations).await?;
        Ok(ListAirQualityDataResponse { stations, fetched_at })
    })
    .await
}

async fn list_climate_news(state: &AppState, req: &Request, op: &'static Operation) -> Answer<ListClimateNewsResponse> {
    whole_dataset_get(state, req, op, ListClimateNewsResponse::default(), |db| async move {
        let fetched_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0);
        let items = db.query_table(queries::climate_news).await?;
        Ok(ListClimateNewsResponse { items, fetched_at, data_available: true })
    })
    .await
}

async fn get_ocean_ice_data(
    state: &AppState,
    req: &Request,
    op: &'static Operation,
) -> Answer<GetOceanIceDataResponse> {
    whole_dataset_get(state, req, op, GetOceanIceDataResponse::default(), |db| async move {
        let data = db.query_table(queries::ocean_ice).await?;
        Ok(GetOceanIceDataResponse { data })
    })
    .await
}
