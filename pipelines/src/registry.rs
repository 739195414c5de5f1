//! The implemented sources, one per dataset.

use std::sync::Arc;

use sitrep_schemas::DatasetId;

use crate::{acled::AcledSource, hdx::HdxSource, iran::IranSource, ucdp::UcdpSource, Source};

pub fn source_for(dataset: DatasetId) -> Arc<dyn Source> {
    match dataset {
        DatasetId::ArmedEvents => Arc::new(AcledSource::default()),
        DatasetId::ViolenceEvents => Arc::new(UcdpSource::default()),
        DatasetId::Humanitarian => Arc::new(HdxSource::default()),
        DatasetId::IranEvents => Arc::new(IranSource),
    }
}

pub fn all_sources() -> Vec<Arc<dyn Source>> {
    DatasetId::ALL.into_iter().map(source_for).collect()
}
