//! The Climate group (API.md 4.4, SUPPLEMENT 2.2): every operation answers from a scheduled
//! dataset; none calls an upstream at request time: ListClimateAnomalies (`climate-anomalies`)
//! and ListClimateDisasters (`climate-disasters`), two paged lists; GetCo2Monitoring
//! (`co2-monitoring`), GetOceanIceData (`ocean-ice`), ListAirQualityData (`air-quality`) and
//! ListClimateNews (`climate-news`), each one whole dataset.

pub mod model;
pub mod params;
pub mod queries;

use std::sync::Arc;

use poem::Request;
use poem_openapi::{OpenApi, Tags};
use sitrep_schemas::DatasetId;

use self::model::*;
use super::{
    answer::Answer,
    dataset_read::whole_dataset_get,
    paged_list::{NoFilters, PagedList},
};
use crate::app_state::AppState;

pub static LIST_CLIMATE_ANOMALIES: PagedList<NoFilters, ClimateAnomaly, ListClimateAnomaliesResponse> = PagedList {
    op: "list-climate-anomalies",
    dataset: DatasetId::CLIMATE_ANOMALIES,
    params: params::CLIMATE_ANOMALIES,
    bounds: None,
    page: |conn, db, _, _, page| queries::climate_anomalies(conn, db.table(), page),
    respond: |anomalies, pagination| ListClimateAnomaliesResponse { anomalies, pagination },
};

pub static LIST_CLIMATE_DISASTERS: PagedList<NoFilters, ClimateDisaster, ListClimateDisastersResponse> = PagedList {
    op: "list-climate-disasters",
    dataset: DatasetId::CLIMATE_DISASTERS,
    params: params::CLIMATE_DISASTERS,
    bounds: None,
    page: |conn, db, _, _, page| queries::climate_disasters(conn, db.table(), page),
    respond: |disasters, pagination| ListClimateDisastersResponse { disasters, pagination },
};

#[derive(Tags)]
enum ApiTags {
    /// Anomalies, disasters, greenhouse-gas monitoring, sea ice and ocean indicators, air quality, climate news.
    Climate,
}

pub struct ClimateApi {
    pub state: Arc<AppState>,
}

#[OpenApi(prefix_path = "/api/climate/v1", tag = "ApiTags::Climate")]
impl ClimateApi {
    /// ListClimateAnomalies — temperature and precipitation anomalies of 25 climate zones (the last 7 days against the 1991–2020 normal), paged.
    #[oai(path = "/list-climate-anomalies", method = "get", operation_id = "ListClimateAnomalies")]
    async fn list_climate_anomalies(&self, req: &Request) -> Answer<ListClimateAnomaliesResponse> {
        LIST_CLIMATE_ANOMALIES.answer(&self.state, req).await
    }

    /// ListClimateDisasters — current floods, cyclones, droughts, heatwaves, wildfires and volcanoes (ReliefWeb, GDACS, NASA EONET), newest first, paged.
    #[oai(path = "/list-climate-disasters", method = "get", operation_id = "ListClimateDisasters")]
    async fn list_climate_disasters(&self, req: &Request) -> Answer<ListClimateDisastersResponse> {
        LIST_CLIMATE_DISASTERS.answer(&self.state, req).await
    }

    /// GetCo2Monitoring — CO₂ at Mauna Loa (daily, monthly, 12-month trend), its annual growth, and global methane and nitrous oxide.
    #[oai(path = "/get-co2-monitoring", method = "get", operation_id = "GetCo2Monitoring")]
    async fn get_co2_monitoring(&self, req: &Request) -> Answer<GetCo2MonitoringResponse> {
        let empty = GetCo2MonitoringResponse::default();
        whole_dataset_get(&self.state, req, DatasetId::CO2_MONITORING, "get-co2-monitoring", empty, |db| async move {
            let table = db.table().to_string();
            let monitoring = db.query(move |c| queries::co2_monitoring(c, &table)).await?;
            Ok(GetCo2MonitoringResponse { monitoring })
        })
        .await
    }

    /// ListAirQualityData — the latest PM2.5 per OpenAQ station of the last two hours, with its US EPA AQI and risk level.
    #[oai(path = "/list-air-quality-data", method = "get", operation_id = "ListAirQualityData")]
    async fn list_air_quality_data(&self, req: &Request) -> Answer<ListAirQualityDataResponse> {
        let empty = ListAirQualityDataResponse::default();
        whole_dataset_get(&self.state, req, DatasetId::AIR_QUALITY, "list-air-quality-data", empty, |db| async move {
            let fetched_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0);
            let table = db.table().to_string();
            let stations = db.query(move |c| queries::air_quality_stations(c, &table)).await?;
            Ok(ListAirQualityDataResponse { stations, fetched_at })
        })
        .await
    }

    /// ListClimateNews — climate news from eight feeds and ReliefWeb's disaster reports, newest first.
    #[oai(path = "/list-climate-news", method = "get", operation_id = "ListClimateNews")]
    async fn list_climate_news(&self, req: &Request) -> Answer<ListClimateNewsResponse> {
        let empty = ListClimateNewsResponse::default();
        whole_dataset_get(&self.state, req, DatasetId::CLIMATE_NEWS, "list-climate-news", empty, |db| async move {
            let fetched_at = db.as_of().map(|t| t.timestamp_millis()).unwrap_or(0);
            let table = db.table().to_string();
            let items = db.query(move |c| queries::climate_news(c, &table)).await?;
            Ok(ListClimateNewsResponse { items, fetched_at, data_available: true })
        })
        .await
    }

    /// GetOceanIceData — Arctic sea-ice extent and its trend, sea level, ocean heat content and ocean surface temperature.
    #[oai(path = "/get-ocean-ice-data", method = "get", operation_id = "GetOceanIceData")]
    async fn get_ocean_ice_data(&self, req: &Request) -> Answer<GetOceanIceDataResponse> {
        let empty = GetOceanIceDataResponse::default();
        whole_dataset_get(&self.state, req, DatasetId::OCEAN_ICE, "get-ocean-ice-data", empty, |db| async move {
            let table = db.table().to_string();
            let data = db.query(move |c| queries::ocean_ice(c, &table)).await?;
            Ok(GetOceanIceDataResponse { data })
        })
        .await
    }
}
