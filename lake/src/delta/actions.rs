//! One Delta Lake table version (`_delta_log/<N>.json`): the actions that take the table from one
//! of our dataset versions to the next, as newline-delimited JSON. A pure function of the two
//! versions' commit entries and times, so every writer of a version writes the same bytes.

use arrow::datatypes::{DataType, Schema, TimeUnit};
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Map, Value};
use sitrep_schemas::{DatasetEntry, DatasetId, FileEntry};

use super::schema::schema_string;
use crate::{layout, LakeError};

/// Protocol versions: readers 1, writers 2 (no deletion vectors, no column mapping, no table features).
const READER_VERSION: u32 = 1;
const WRITER_VERSION: u32 = 2;

/// A dataset version the table is taken to: the generation that published it, when, and its entry.
pub struct TableVersion<'a> {
    pub generation: u64,
    pub published_at: DateTime<Utc>,
    pub entry: &'a DatasetEntry,
}

/// The table's id: the same for every writer of the dataset.
pub fn table_id(dataset: DatasetId) -> String {
    crate::tables::stable_uuid(&format!("sitrep delta table {dataset}"))
}

fn millis(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// A file's path relative to the table root, or an error when it lies outside (a file of the
/// layout before the open tables, which the table cannot name).
fn relative(dataset: DatasetId, file: &FileEntry) -> Result<&str, LakeError> {
    layout::in_table(dataset, &file.path).ok_or_else(|| {
        LakeError::Validation(format!("{} lies outside {}'s table folder", file.path, layout::table_root(dataset)))
    })
}

pub fn protocol() -> Value {
    json!({"protocol": {"minReaderVersion": READER_VERSION, "minWriterVersion": WRITER_VERSION}})
}

/// The table's metadata: its id, name and the version's schema (no partition columns: a version's files are
/// its rows, whatever month each holds).
pub fn metadata(dataset: DatasetId, schema: &Schema) -> Result<Value, LakeError> {
    Ok(json!({"metaData": {
        "id": table_id(dataset),
        "name": dataset.table_name(),
        "format": {"provider": "parquet", "options": {}},
        "schemaString": schema_string(schema)?,
        "partitionColumns": [],
        "configuration": {},
    }}))
}

/// A file's `stats`: its rows, and for its time columns with recorded ranges their minimum,
/// maximum and nulls in the JSON forms Delta gives a `timestamp` (ISO 8601, milliseconds, UTC)
/// and a `date`.
fn stats(file: &FileEntry, schema: &Schema) -> String {
    let (mut min, mut max, mut nulls) = (Map::new(), Map::new(), Map::new());
    for (column, range) in &file.bounds {
        let Ok(field) = schema.field_with_name(column) else { continue };
        let render: fn(i64) -> Option<Value> = match field.data_type() {
            DataType::Timestamp(TimeUnit::Millisecond, _) => {
                |ms| DateTime::from_timestamp_millis(ms).map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true).into())
            }
            DataType::Date32 => |days| {
                let date = chrono::NaiveDate::default().checked_add_signed(chrono::Duration::days(days))?;
                Some(date.to_string().into())
            },
            _ => continue,
        };
        min.extend(range.min.and_then(render).map(|v| (column.clone(), v)));
        max.extend(range.max.and_then(render).map(|v| (column.clone(), v)));
        nulls.insert(column.clone(), range.nulls.into());
    }
    let mut stats = json!({"numRecords": file.rows});
    if !nulls.is_empty() {
        stats["minValues"] = Value::Object(min);
        stats["maxValues"] = Value::Object(max);
        stats["nullCount"] = Value::Object(nulls);
    }
    stats.to_string()
}

/// A file's `add` action, its `stats` rendered for the version's `schema`.
pub fn add(dataset: DatasetId, schema: &Schema, file: &FileEntry) -> Result<Value, LakeError> {
    Ok(json!({"add": {
        "path": relative(dataset, file)?,
        "partitionValues": {},
        "size": file.bytes,
        // The file's fetch time: what the commit knows, the same for every writer.
        "modificationTime": millis(file.fetched_at),
        "dataChange": true,
        "stats": stats(file, schema),
    }}))
}

fn remove(dataset: DatasetId, file: &FileEntry, at: DateTime<Utc>) -> Result<Value, LakeError> {
    Ok(json!({"remove": {
        "path": relative(dataset, file)?,
        "deletionTimestamp": millis(at),
        "dataChange": true,
        "extendedFileMetadata": true,
        "partitionValues": {},
        "size": file.bytes,
    }}))
}

/// The table's version taking it from `previous` (none: the table's first version) to `next`.
/// A schema change (or the first version) writes the table's metadata with `schema`, the
/// version's, and replaces every file.
pub fn table_version(
    dataset: DatasetId,
    schema: &Schema,
    previous: Option<&TableVersion>,
    next: &TableVersion,
) -> Result<Vec<u8>, LakeError> {
    let schema_changed = previous.is_none_or(|p| p.entry.schema_fingerprint != next.entry.schema_fingerprint);
    let mode = if schema_changed { "Overwrite" } else { "Append" };
    let mut actions = vec![json!({"commitInfo": {
        "timestamp": millis(next.published_at),
        "operation": "WRITE",
        "operationParameters": {"mode": mode, "partitionBy": "[]"},
        "isBlindAppend": false,
        "engineInfo": concat!("sitrep/", env!("CARGO_PKG_VERSION")),
        "sitrepGeneration": next.generation,
    }})];
    if previous.is_none() {
        actions.push(protocol());
    }
    if schema_changed {
        actions.push(metadata(dataset, schema)?);
    }
    let before: Vec<&FileEntry> = previous.map(|p| p.entry.files.iter().collect()).unwrap_or_default();
    let kept = |f: &FileEntry| !schema_changed && before.iter().any(|b| b.path == f.path);
    for gone in before.iter().filter(|b| schema_changed || !next.entry.files.iter().any(|f| f.path == b.path)) {
        actions.push(remove(dataset, gone, next.published_at)?);
    }
    for new in next.entry.files.iter().filter(|f| !kept(f)) {
        actions.push(add(dataset, schema, new)?);
    }
    let mut out = Vec::new();
    for a in actions {
        out.extend(a.to_string().into_bytes());
        out.push(b'\n');
    }
    Ok(out)
}

/// The generation a table version's `commitInfo` names (None: not written by us).
pub fn generation_of(version: &[u8]) -> Option<u64> {
    let first = version.split(|b| *b == b'\n').next()?;
    let action: Value = serde_json::from_slice(first).ok()?;
    action["commitInfo"]["sitrepGeneration"].as_u64()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use arrow::datatypes::Field;
    use sitrep_schemas::ColumnRange;

    use super::*;

    /// Time columns' ranges become Delta's typed JSON; a column every value of which is null has
    /// a null count only; a file without ranges has its row count only.
    #[test]
    fn stats_give_the_time_columns_ranges_in_deltas_forms() {
        let schema = Schema::new(vec![
            Field::new("at", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
            Field::new("day", DataType::Date32, false),
            Field::new("never", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
        ]);
        let bounds = BTreeMap::from([
            ("at".to_string(), ColumnRange { min: Some(1_764_547_200_000), max: Some(1_764_633_599_999), nulls: 2 }),
            ("day".to_string(), ColumnRange { min: Some(0), max: Some(20_423), nulls: 0 }),
            ("never".to_string(), ColumnRange { min: None, max: None, nulls: 5 }),
        ]);
        let file = FileEntry {
            path: "data/armed-events/01RUN/part-00000.parquet".into(),
            rows: 5,
            bytes: 100,
            sha256: String::new(),
            schema_fingerprint: String::new(),
            run_id: "01RUN".into(),
            fetched_at: Utc::now(),
            partition: None,
            bounds,
            extra: BTreeMap::new(),
        };
        let rendered: Value = serde_json::from_str(&stats(&file, &schema)).unwrap();
        assert_eq!(
            rendered,
            json!({
                "numRecords": 5,
                "minValues": {"at": "2025-12-01T00:00:00.000Z", "day": "1970-01-01"},
                "maxValues": {"at": "2025-12-01T23:59:59.999Z", "day": "2025-12-01"},
                "nullCount": {"at": 2, "day": 0, "never": 5},
            })
        );
        let bare = FileEntry { bounds: BTreeMap::new(), ..file };
        assert_eq!(stats(&bare, &schema), r#"{"numRecords":5}"#);
    }
}
