//! The Iceberg table metadata file (`metadata/v<N>.metadata.json`, format version 2): the fields
//! this lake writes, serialised in the specification's names. Every value is a function of our
//! commits (times are `publishedAt`s), so each writer of a metadata version writes the same bytes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::schema::Schema;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct TableMetadata {
    pub format_version: u8,
    pub table_uuid: String,
    pub location: String,
    pub last_sequence_number: i64,
    pub last_updated_ms: i64,
    pub last_column_id: i32,
    pub schemas: Vec<Schema>,
    pub current_schema_id: i32,
    pub partition_specs: Vec<serde_json::Value>,
    pub default_spec_id: i32,
    pub last_partition_id: i32,
    pub properties: BTreeMap<String, String>,
    pub current_snapshot_id: i64,
    pub snapshots: Vec<Snapshot>,
    pub snapshot_log: Vec<SnapshotLogEntry>,
    pub metadata_log: Vec<serde_json::Value>,
    pub sort_orders: Vec<serde_json::Value>,
    pub default_sort_order_id: i32,
    pub refs: BTreeMap<String, SnapshotRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Snapshot {
    pub snapshot_id: i64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub parent_snapshot_id: Option<i64>,
    pub sequence_number: i64,
    pub timestamp_ms: i64,
    pub manifest_list: String,
    pub summary: BTreeMap<String, String>,
    pub schema_id: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotLogEntry {
    pub timestamp_ms: i64,
    pub snapshot_id: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotRef {
    pub snapshot_id: i64,
    #[serde(rename = "type")]
    pub kind: String,
}

/// The one partition spec (none: a version's files are its rows, whatever month each holds) and
/// sort order (none declared) every table has.
pub const SPEC_ID: i32 = 0;

impl TableMetadata {
    /// A table's metadata before its first snapshot.
    pub fn new(table_uuid: String, location: String, properties: BTreeMap<String, String>) -> TableMetadata {
        TableMetadata {
            format_version: 2,
            table_uuid,
            location,
            last_sequence_number: 0,
            last_updated_ms: 0,
            last_column_id: 0,
            schemas: Vec::new(),
            current_schema_id: 0,
            partition_specs: vec![json!({"spec-id": SPEC_ID, "fields": []})],
            default_spec_id: SPEC_ID,
            // No partition field yet: ids of partition fields start at 1000.
            last_partition_id: 999,
            properties,
            current_snapshot_id: -1,
            snapshots: Vec::new(),
            snapshot_log: Vec::new(),
            metadata_log: Vec::new(),
            sort_orders: vec![json!({"order-id": 0, "fields": []})],
            default_sort_order_id: 0,
            refs: BTreeMap::new(),
        }
    }

    pub fn current(&self) -> Option<&Snapshot> {
        self.snapshots.iter().find(|s| s.snapshot_id == self.current_snapshot_id)
    }

    /// The metadata with `snapshot` added as the current one of branch `main`.
    pub fn with_snapshot(mut self, snapshot: Snapshot) -> TableMetadata {
        self.last_sequence_number = snapshot.sequence_number;
        self.last_updated_ms = self.last_updated_ms.max(snapshot.timestamp_ms);
        self.current_snapshot_id = snapshot.snapshot_id;
        self.snapshot_log
            .push(SnapshotLogEntry { timestamp_ms: snapshot.timestamp_ms, snapshot_id: snapshot.snapshot_id });
        self.refs.insert("main".into(), SnapshotRef { snapshot_id: snapshot.snapshot_id, kind: "branch".into() });
        self.snapshots.push(snapshot);
        self
    }

    /// The metadata without the snapshots before `oldest` (a snapshot id, which is our
    /// generation). The current snapshot is never one of them.
    pub fn expired_before(mut self, oldest: i64) -> TableMetadata {
        let current = self.current_snapshot_id;
        let kept = |id: i64| id >= oldest || id == current;
        self.snapshots.retain(|s| kept(s.snapshot_id));
        self.snapshot_log.retain(|e| kept(e.snapshot_id));
        self
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        // Serialising plain structs and string maps cannot fail. Compact: at a thousand snapshots
        // the file is what every reader parses first.
        serde_json::to_vec(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(id: i64, seq: i64) -> Snapshot {
        Snapshot {
            snapshot_id: id,
            parent_snapshot_id: (seq > 1).then_some(id - 1),
            sequence_number: seq,
            timestamp_ms: 1_000 * id,
            manifest_list: format!("/lake/data/d/metadata/snap-{id}.avro"),
            summary: BTreeMap::new(),
            schema_id: 0,
        }
    }

    /// Each snapshot becomes the current one of `main`, logged at its time; expiring keeps the
    /// snapshots from the oldest retained on, and the current one whatever its id.
    #[test]
    fn snapshots_are_added_logged_and_expired() {
        let mut m = TableMetadata::new("u".into(), "/lake/data/d".into(), BTreeMap::new());
        assert!(m.current().is_none());
        for (seq, id) in [(1, 3), (2, 5), (3, 9)] {
            m = m.with_snapshot(snapshot(id, seq));
        }
        assert_eq!(m.current().map(|s| s.snapshot_id), Some(9));
        assert_eq!((m.last_sequence_number, m.last_updated_ms), (3, 9_000));
        assert_eq!(m.refs["main"].snapshot_id, 9);
        assert_eq!(m.snapshot_log.iter().map(|e| e.snapshot_id).collect::<Vec<_>>(), [3, 5, 9]);
        let kept = m.clone().expired_before(5);
        assert_eq!(kept.snapshots.iter().map(|s| s.snapshot_id).collect::<Vec<_>>(), [5, 9]);
        assert_eq!(kept.snapshot_log.iter().map(|e| e.snapshot_id).collect::<Vec<_>>(), [5, 9]);
        let only_current = m.clone().expired_before(100);
        assert_eq!(only_current.snapshots.iter().map(|s| s.snapshot_id).collect::<Vec<_>>(), [9]);
        // What is written reads back the same, in the specification's names.
        let text = String::from_utf8(kept.to_bytes()).unwrap();
        assert!(text.contains(r#""format-version":2"#) && text.contains(r#""current-snapshot-id":9"#), "{text}");
        assert_eq!(serde_json::from_str::<TableMetadata>(&text).unwrap(), kept);
    }
}
