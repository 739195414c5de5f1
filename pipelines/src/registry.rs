//! The implemented sources: one per dataset, each saying which dataset it fills.

use std::sync::Arc;

use sitrep_schemas::DatasetId;

use crate::{
    acled::AcledSource,
    adsb::AdsbSource,
    airport_delays::AirportDelaysSource,
    airport_flights::AirportFlightsSource,
    aviation_news::AviationNewsSource,
    climate_disasters::ClimateDisastersSource,
    climate_news::ClimateNewsSource,
    comtrade::ComtradeCrudeSource,
    consumer_prices::ConsumerPricesSource,
    ember::EmberMixSource,
    gas_storage::GasStorageSource,
    hdx::HdxSource,
    iea_stocks::IeaStocksSource,
    iran::IranSource,
    jodi_gas::JodiGasSource,
    jodi_oil::JodiOilSource,
    noaa_gml::Co2Source,
    ocean_ice::OceanIceSource,
    open_meteo::{ClimateAnomaliesSource, ClimateNormalsSource},
    openaq::OpenAqSource,
    portwatch::ChokepointFlowsSource,
    spr_registry::SprRegistrySource,
    ucdp::UcdpSource,
    watch_lists::{AircraftWatchSource, FlightPriceWatchSource},
    Source,
};

pub fn all_sources() -> Vec<Arc<dyn Source>> {
    vec![
        Arc::new(AcledSource::default()),
        Arc::new(UcdpSource::default()),
        Arc::new(HdxSource::default()),
        Arc::new(IranSource),
        Arc::new(AdsbSource),
        Arc::new(AviationNewsSource),
        Arc::new(AirportDelaysSource),
        Arc::new(AirportFlightsSource),
        Arc::new(FlightPriceWatchSource),
        Arc::new(AircraftWatchSource),
        Arc::new(Co2Source),
        Arc::new(OpenAqSource),
        Arc::new(ClimateNewsSource),
        Arc::new(OceanIceSource),
        Arc::new(ClimateNormalsSource),
        Arc::new(ClimateAnomaliesSource),
        Arc::new(ClimateDisastersSource),
        Arc::new(ConsumerPricesSource),
        Arc::new(ChokepointFlowsSource),
        Arc::new(JodiOilSource),
        Arc::new(JodiGasSource),
        Arc::new(IeaStocksSource),
        Arc::new(ComtradeCrudeSource),
        Arc::new(EmberMixSource),
        Arc::new(GasStorageSource),
        Arc::new(SprRegistrySource),
    ]
}

/// The source that fills `dataset`, if this build has one.
pub fn source_for(dataset: DatasetId) -> Option<Arc<dyn Source>> {
    all_sources().into_iter().find(|s| s.dataset() == dataset)
}

/// Every recorded upstream the sources call, each once, in source order: what replay mode serves
/// to a whole ingest run.
pub fn recorded_upstreams() -> Vec<&'static str> {
    let mut upstreams: Vec<&'static str> = Vec::new();
    for source in all_sources() {
        for u in source.upstreams() {
            if !upstreams.contains(u) {
                upstreams.push(u);
            }
        }
    }
    upstreams
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recorded_upstream_has_its_normal_recordings_once() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/fixtures");
        let upstreams = recorded_upstreams();
        for u in &upstreams {
            assert!(fixtures.join(u).join("normal").is_dir(), "{u} has no normal recordings");
            assert_eq!(upstreams.iter().filter(|x| *x == u).count(), 1, "{u} listed twice");
        }
        assert!(upstreams.contains(&"faa") && upstreams.contains(&"aviationstack"), "a source's several upstreams");
    }
}
