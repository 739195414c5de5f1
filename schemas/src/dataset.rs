//! The scheduled datasets: their ids, cadences, partitioning and schemas.

use std::{fmt, str::FromStr, time::Duration};

use arrow::datatypes::SchemaRef;

use crate::conflict;

/// Every scheduled dataset the lake knows. Each later group (aviation, climate, …) adds variants here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DatasetId {
    ArmedEvents,
    ViolenceEvents,
    Humanitarian,
    IranEvents,
}

/// How a dataset's files are split. Event datasets are split by event month so a run or a backfill
/// can replace the months it fetched and carry the others forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    None,
    /// Partition value `YYYY-MM` of the UTC event date.
    Month,
}

#[derive(Debug, thiserror::Error)]
#[error("unknown dataset `{0}` (known: armed-events, violence-events, humanitarian, iran-events)")]
pub struct UnknownDataset(pub String);

impl DatasetId {
    pub const ALL: [DatasetId; 4] =
        [DatasetId::ArmedEvents, DatasetId::ViolenceEvents, DatasetId::Humanitarian, DatasetId::IranEvents];

    pub fn as_str(self) -> &'static str {
        match self {
            DatasetId::ArmedEvents => "armed-events",
            DatasetId::ViolenceEvents => "violence-events",
            DatasetId::Humanitarian => "humanitarian",
            DatasetId::IranEvents => "iran-events",
        }
    }

    /// SQL-safe table name (fixed by us, never derived from input).
    pub fn table_name(self) -> &'static str {
        match self {
            DatasetId::ArmedEvents => "armed_events",
            DatasetId::ViolenceEvents => "violence_events",
            DatasetId::Humanitarian => "humanitarian",
            DatasetId::IranEvents => "iran_events",
        }
    }

    /// Default refresh cadence (SUPPLEMENT 1.16). Also defines `fresh` vs `stale` (2 × cadence).
    pub fn cadence(self) -> Duration {
        match self {
            DatasetId::ArmedEvents => Duration::from_secs(60 * 60),
            DatasetId::ViolenceEvents | DatasetId::Humanitarian => Duration::from_secs(6 * 60 * 60),
            // "On file change": the scheduler checks the export file every 5 minutes.
            DatasetId::IranEvents => Duration::from_secs(5 * 60),
        }
    }

    /// Six-field cron expression (seconds first) for the scheduler, UTC.
    pub fn cron(self) -> &'static str {
        match self {
            DatasetId::ArmedEvents => "0 7 * * * *",
            DatasetId::ViolenceEvents => "0 17 */6 * * *",
            DatasetId::Humanitarian => "0 27 */6 * * *",
            DatasetId::IranEvents => "0 */5 * * * *",
        }
    }

    pub fn partitioning(self) -> Partitioning {
        match self {
            DatasetId::ArmedEvents | DatasetId::ViolenceEvents => Partitioning::Month,
            DatasetId::Humanitarian | DatasetId::IranEvents => Partitioning::None,
        }
    }

    pub fn schema(self) -> SchemaRef {
        match self {
            DatasetId::ArmedEvents => conflict::armed_events_schema(),
            DatasetId::ViolenceEvents => conflict::violence_events_schema(),
            DatasetId::Humanitarian => conflict::humanitarian_schema(),
            DatasetId::IranEvents => conflict::iran_events_schema(),
        }
    }

    /// Fingerprint of [`Self::schema`], recorded per file in every commit.
    pub fn fingerprint(self) -> String {
        crate::fingerprint::schema_fingerprint(&self.schema())
    }

    /// Epoch-ms column whose UTC month is the partition value (month-partitioned datasets).
    pub fn partition_column(self) -> Option<&'static str> {
        match self {
            DatasetId::ArmedEvents => Some("occurred_at_ms"),
            DatasetId::ViolenceEvents => Some("date_start_ms"),
            DatasetId::Humanitarian | DatasetId::IranEvents => None,
        }
    }

    /// Event datasets served by position ranges: (group column, time column). Their sort key is
    /// `group, time DESC, id`, so one group's rows in a time range are consecutive in API order.
    pub fn position_key(self) -> Option<(&'static str, &'static str)> {
        match self {
            DatasetId::ArmedEvents => Some(("country_iso2", "occurred_at_ms")),
            DatasetId::ViolenceEvents => Some(("country_iso2", "date_start_ms")),
            DatasetId::Humanitarian | DatasetId::IranEvents => None,
        }
    }

    /// Column order the serving tables are sorted by, so range filters prune row groups.
    pub fn sort_key(self) -> &'static str {
        match self {
            DatasetId::ArmedEvents => "country_iso2, occurred_at_ms DESC, id",
            DatasetId::ViolenceEvents => "country_iso2, date_start_ms DESC, id",
            DatasetId::Humanitarian => "country_code",
            DatasetId::IranEvents => "timestamp_ms DESC, id",
        }
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
            assert_eq!(d.fingerprint(), d.fingerprint());
            assert!(seen.insert(d.fingerprint()), "fingerprint collision for {d}");
        }
        assert!("nope".parse::<DatasetId>().is_err());
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
