//! The scheduled datasets: their ids, cadences, partitioning and schemas.

use std::{fmt, str::FromStr, time::Duration};

use arrow::datatypes::SchemaRef;

pub use crate::descriptor::{DatasetDescriptor, Partitioning};
use crate::{aviation, climate, conflict, consumer_prices, energy, ContentClock};

/// A scheduled dataset: a handle on its descriptor, compared and ordered by id string.
#[derive(Clone, Copy)]
pub struct DatasetId(&'static DatasetDescriptor);

#[derive(Debug, thiserror::Error)]
#[error("unknown dataset `{0}` (known: {known})", known = DatasetId::ALL.map(|d| d.as_str()).join(", "))]
pub struct UnknownDataset(pub String);

impl DatasetId {
    pub const ARMED_EVENTS: DatasetId = DatasetId(&conflict::ARMED_EVENTS);
    pub const VIOLENCE_EVENTS: DatasetId = DatasetId(&conflict::VIOLENCE_EVENTS);
    pub const HUMANITARIAN: DatasetId = DatasetId(&conflict::HUMANITARIAN);
    pub const IRAN_EVENTS: DatasetId = DatasetId(&conflict::IRAN_EVENTS);
    pub const AIRCRAFT_EMERGENCIES: DatasetId = DatasetId(&aviation::AIRCRAFT_EMERGENCIES);
    pub const AVIATION_NEWS: DatasetId = DatasetId(&aviation::AVIATION_NEWS);
    pub const AIRPORT_DELAYS: DatasetId = DatasetId(&aviation::AIRPORT_DELAYS);
    pub const AIRPORT_FLIGHTS: DatasetId = DatasetId(&aviation::AIRPORT_FLIGHTS);
    pub const FLIGHT_PRICE_WATCH: DatasetId = DatasetId(&aviation::FLIGHT_PRICE_WATCH);
    pub const AIRCRAFT_WATCH: DatasetId = DatasetId(&aviation::AIRCRAFT_WATCH);
    pub const CO2_MONITORING: DatasetId = DatasetId(&climate::CO2_MONITORING);
    pub const AIR_QUALITY: DatasetId = DatasetId(&climate::AIR_QUALITY);
    pub const CLIMATE_NEWS: DatasetId = DatasetId(&climate::CLIMATE_NEWS);
    pub const OCEAN_ICE: DatasetId = DatasetId(&climate::OCEAN_ICE);
    pub const CLIMATE_NORMALS: DatasetId = DatasetId(&climate::CLIMATE_NORMALS);
    pub const CLIMATE_ANOMALIES: DatasetId = DatasetId(&climate::CLIMATE_ANOMALIES);
    pub const CLIMATE_DISASTERS: DatasetId = DatasetId(&climate::CLIMATE_DISASTERS);
    pub const CONSUMER_PRICES: DatasetId = DatasetId(&consumer_prices::CONSUMER_PRICES);
    pub const CHOKEPOINT_FLOWS: DatasetId = DatasetId(&energy::CHOKEPOINT_FLOWS);
    pub const JODI_OIL: DatasetId = DatasetId(&energy::JODI_OIL);
    pub const JODI_GAS: DatasetId = DatasetId(&energy::JODI_GAS);
    pub const IEA_STOCKS: DatasetId = DatasetId(&energy::IEA_STOCKS);
    pub const COMTRADE_CRUDE: DatasetId = DatasetId(&energy::COMTRADE_CRUDE);
    pub const EMBER_MIX: DatasetId = DatasetId(&energy::EMBER_MIX);
    pub const GAS_STORAGE: DatasetId = DatasetId(&energy::GAS_STORAGE);
    pub const SPR_REGISTRY: DatasetId = DatasetId(&energy::SPR_REGISTRY);

    /// Every scheduled dataset this build knows: the one list.
    pub const ALL: [DatasetId; 26] = [
        DatasetId::ARMED_EVENTS,
        DatasetId::VIOLENCE_EVENTS,
        DatasetId::HUMANITARIAN,
        DatasetId::IRAN_EVENTS,
        DatasetId::AIRCRAFT_EMERGENCIES,
        DatasetId::AVIATION_NEWS,
        DatasetId::AIRPORT_DELAYS,
        DatasetId::AIRPORT_FLIGHTS,
        DatasetId::FLIGHT_PRICE_WATCH,
        DatasetId::AIRCRAFT_WATCH,
        DatasetId::CO2_MONITORING,
        DatasetId::AIR_QUALITY,
        DatasetId::CLIMATE_NEWS,
        DatasetId::OCEAN_ICE,
        DatasetId::CLIMATE_NORMALS,
        DatasetId::CLIMATE_ANOMALIES,
        DatasetId::CLIMATE_DISASTERS,
        DatasetId::CONSUMER_PRICES,
        DatasetId::CHOKEPOINT_FLOWS,
        DatasetId::JODI_OIL,
        DatasetId::JODI_GAS,
        DatasetId::IEA_STOCKS,
        DatasetId::COMTRADE_CRUDE,
        DatasetId::EMBER_MIX,
        DatasetId::GAS_STORAGE,
        DatasetId::SPR_REGISTRY,
    ];

    pub fn descriptor(self) -> &'static DatasetDescriptor {
        self.0
    }

    pub const fn as_str(self) -> &'static str {
        self.0.id
    }

    /// Every id string of [`Self::ALL`], in its order (a closed set for parameters).
    pub const ALL_IDS: [&'static str; 26] = {
        let mut ids = [""; 26];
        let mut i = 0;
        while i < ids.len() {
            ids[i] = DatasetId::ALL[i].as_str();
            i += 1;
        }
        ids
    };

    pub fn table_name(self) -> &'static str {
        self.0.table
    }

    pub fn cadence(self) -> Duration {
        self.0.cadence
    }

    pub fn cron(self) -> &'static str {
        self.0.cron
    }

    pub fn partitioning(self) -> Partitioning {
        self.0.partitioning
    }

    pub fn schema(self) -> SchemaRef {
        (self.0.schema)()
    }

    /// Fingerprint of [`Self::schema`], recorded per file in every commit.
    pub fn fingerprint(self) -> String {
        crate::fingerprint::schema_fingerprint(&self.schema())
    }

    /// The row key ([`DatasetDescriptor::row_key`]).
    pub fn row_key(self) -> &'static [&'static str] {
        self.0.row_key
    }

    pub fn position_key(self) -> Option<(&'static str, &'static str)> {
        self.0.position_key
    }

    pub fn sort_key(self) -> &'static str {
        self.0.sort_key
    }

    pub fn content_clock(self) -> ContentClock {
        self.0.content_clock
    }
}

impl PartialEq for DatasetId {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for DatasetId {}

impl std::hash::Hash for DatasetId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state)
    }
}

impl PartialOrd for DatasetId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for DatasetId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.id.cmp(other.0.id)
    }
}

impl fmt::Debug for DatasetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DatasetId({})", self.0.id)
    }
}

impl fmt::Display for DatasetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DatasetId {
    type Err = UnknownDataset;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DatasetId::ALL.into_iter().find(|d| d.as_str() == s).ok_or_else(|| UnknownDataset(s.to_string()))
    }
}

impl serde::Serialize for DatasetId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for DatasetId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_fingerprints_are_stable_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for d in DatasetId::ALL {
            assert_eq!(d.as_str().parse::<DatasetId>().unwrap(), d);
            assert!(seen.insert(d.fingerprint()), "fingerprint collision for {d}");
        }
        assert!("nope".parse::<DatasetId>().is_err());
    }

    #[test]
    fn every_content_clock_column_exists_with_a_type_that_tells_time() {
        use arrow::datatypes::{DataType, TimeUnit};
        for d in DatasetId::ALL {
            if let ContentClock::Column { column, .. } = d.content_clock() {
                let schema = d.schema();
                let field = schema.field_with_name(column).unwrap_or_else(|_| panic!("{d}: no column {column}"));
                assert!(
                    matches!(
                        field.data_type(),
                        DataType::Timestamp(TimeUnit::Millisecond, _) | DataType::Date32 | DataType::Utf8
                    ),
                    "{d}: {column} is {:?}",
                    field.data_type()
                );
            }
        }
    }

    #[test]
    fn every_row_key_names_columns_of_its_dataset_and_never_a_rank() {
        for d in DatasetId::ALL {
            assert!(!d.row_key().is_empty(), "{d}: no row key");
            for column in d.row_key() {
                assert!(d.schema().field_with_name(column).is_ok(), "{d}: no column {column}");
                // A rank moves whenever another row does: it identifies nothing across versions.
                assert_ne!(*column, "position", "{d}");
            }
        }
    }

    #[test]
    fn position_keyed_datasets_sort_by_group_then_newest_time_then_id() {
        for d in DatasetId::ALL {
            if let Some((group, time)) = d.position_key() {
                assert_eq!(d.sort_key(), format!("{group}, {time} DESC, id"), "{d}");
            }
        }
    }
}
