//! Iceberg's manifests and manifest lists: Avro object container files whose schemas carry
//! Iceberg's field ids (`field-id`, `element-id`), which readers resolve fields by.
//!
//! The container header is written here, with its metadata in a fixed order and a sync marker
//! derived from the file's identity: the crate's writer keeps the header's metadata in a hash map
//! and draws a random marker, and a file every writer must write byte for byte cannot have either.

use apache_avro::{types::Value, Reader, Schema, Writer};
use sha2::{Digest, Sha256};

use crate::LakeError;

/// A manifest's entry status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Existing = 0,
    Added = 1,
    Deleted = 2,
}

/// A data file as a manifest entry names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub status: Status,
    /// The snapshot that added the file (for a deleted entry: that deleted it).
    pub snapshot_id: i64,
    pub sequence_number: i64,
    pub file_sequence_number: i64,
    /// The file's absolute location.
    pub file_path: String,
    pub record_count: i64,
    pub file_size_in_bytes: i64,
    /// Column statistics by field id (the time columns of files whose entry has their ranges):
    /// bounds in Iceberg's single-value serialization, and null counts.
    pub lower_bounds: Vec<(i32, Vec<u8>)>,
    pub upper_bounds: Vec<(i32, Vec<u8>)>,
    pub null_value_counts: Vec<(i32, i64)>,
}

/// The manifest list's one row: the manifest of a snapshot and what its entries count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    pub manifest_path: String,
    pub manifest_length: i64,
    pub sequence_number: i64,
    pub min_sequence_number: i64,
    pub added_snapshot_id: i64,
    pub added_files_count: i32,
    pub existing_files_count: i32,
    pub deleted_files_count: i32,
    pub added_rows_count: i64,
    pub existing_rows_count: i64,
    pub deleted_rows_count: i64,
}

fn optional(name: &str, id: i32, kind: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"name": name, "type": ["null", kind], "default": null, "field-id": id})
}

fn required(name: &str, id: i32, kind: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"name": name, "type": kind, "field-id": id})
}

/// An Iceberg map with non-string keys, as Avro writes it: an array of key/value records.
fn int_map(key_id: i32, value_id: i32, value: &str) -> serde_json::Value {
    serde_json::json!({"type": "array", "logicalType": "map", "items": {
        "type": "record", "name": format!("k{key_id}_v{value_id}"),
        "fields": [required("key", key_id, "int".into()), required("value", value_id, value.into())],
    }})
}

/// The v2 `manifest_entry` schema (unpartitioned: an empty `partition` record).
fn manifest_schema_json() -> serde_json::Value {
    use serde_json::json;
    let data_file = json!({"type": "record", "name": "r2", "fields": [
        required("content", 134, "int".into()),
        required("file_path", 100, "string".into()),
        required("file_format", 101, "string".into()),
        required("partition", 102, json!({"type": "record", "name": "r102", "fields": []})),
        required("record_count", 103, "long".into()),
        required("file_size_in_bytes", 104, "long".into()),
        optional("column_sizes", 108, int_map(117, 118, "long")),
        optional("value_counts", 109, int_map(119, 120, "long")),
        optional("null_value_counts", 110, int_map(121, 122, "long")),
        optional("nan_value_counts", 137, int_map(138, 139, "long")),
        optional("lower_bounds", 125, int_map(126, 127, "bytes")),
        optional("upper_bounds", 128, int_map(129, 130, "bytes")),
        optional("key_metadata", 131, "bytes".into()),
        optional("split_offsets", 132, json!({"type": "array", "items": "long", "element-id": 133})),
        optional("equality_ids", 135, json!({"type": "array", "items": "int", "element-id": 136})),
        optional("sort_order_id", 140, "int".into()),
    ]});
    json!({"type": "record", "name": "manifest_entry", "fields": [
        required("status", 0, "int".into()),
        optional("snapshot_id", 1, "long".into()),
        optional("sequence_number", 3, "long".into()),
        optional("file_sequence_number", 4, "long".into()),
        required("data_file", 2, data_file),
    ]})
}

/// The v2 `manifest_file` schema of a manifest list.
fn manifest_list_schema_json() -> serde_json::Value {
    use serde_json::json;
    let summary = json!({"type": "record", "name": "r508", "fields": [
        required("contains_null", 509, "boolean".into()),
        optional("contains_nan", 518, "boolean".into()),
        optional("lower_bound", 510, "bytes".into()),
        optional("upper_bound", 511, "bytes".into()),
    ]});
    json!({"type": "record", "name": "manifest_file", "fields": [
        required("manifest_path", 500, "string".into()),
        required("manifest_length", 501, "long".into()),
        required("partition_spec_id", 502, "int".into()),
        required("content", 517, "int".into()),
        required("sequence_number", 515, "long".into()),
        required("min_sequence_number", 516, "long".into()),
        required("added_snapshot_id", 503, "long".into()),
        required("added_files_count", 504, "int".into()),
        required("existing_files_count", 505, "int".into()),
        required("deleted_files_count", 506, "int".into()),
        required("added_rows_count", 512, "long".into()),
        required("existing_rows_count", 513, "long".into()),
        required("deleted_rows_count", 514, "long".into()),
        optional("partitions", 507, json!({"type": "array", "items": summary, "element-id": 508})),
        optional("key_metadata", 519, "bytes".into()),
    ]})
}

fn schema(json: &serde_json::Value) -> Result<Schema, LakeError> {
    Schema::parse(json).map_err(avro_error)
}

fn avro_error(e: apache_avro::Error) -> LakeError {
    LakeError::Validation(format!("Iceberg Avro: {e}"))
}

/// Avro's `long`: zig-zag, then base-128 varint.
fn put_long(out: &mut Vec<u8>, n: i64) {
    let mut z = ((n << 1) ^ (n >> 63)) as u64;
    while z >= 0x80 {
        out.push((z as u8) | 0x80);
        z >>= 7;
    }
    out.push(z as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_long(out, b.len() as i64);
    out.extend_from_slice(b);
}

/// An object container file of `records` under `schema`, its header metadata in the order given.
/// `identity` names the file (its digest is the sync marker).
fn container(
    schema_json: &serde_json::Value,
    metadata: &[(&str, String)],
    records: Vec<Value>,
    identity: &str,
) -> Result<Vec<u8>, LakeError> {
    let schema = schema(schema_json)?;
    let marker: [u8; 16] = Sha256::digest(identity.as_bytes())[..16].try_into().unwrap_or_default();
    let mut out = b"Obj\x01".to_vec();
    let mut header: Vec<(&str, Vec<u8>)> =
        vec![("avro.schema", schema_json.to_string().into_bytes()), ("avro.codec", b"null".to_vec())];
    header.extend(metadata.iter().map(|(k, v)| (*k, v.clone().into_bytes())));
    put_long(&mut out, header.len() as i64);
    for (key, value) in &header {
        put_bytes(&mut out, key.as_bytes());
        put_bytes(&mut out, value);
    }
    put_long(&mut out, 0);
    out.extend_from_slice(&marker);
    let mut writer = Writer::builder().schema(&schema).writer(out).marker(marker).has_header(true).build();
    for record in records {
        writer.append(record).map_err(avro_error)?;
    }
    writer.into_inner().map_err(avro_error)
}

fn null() -> Value {
    Value::Union(0, Box::new(Value::Null))
}

fn some(v: Value) -> Value {
    Value::Union(1, Box::new(v))
}

fn record(fields: Vec<(&str, Value)>) -> Value {
    Value::Record(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// An [`int_map`]'s value (null when empty).
fn int_map_value<T>(pairs: &[(i32, T)], value: impl Fn(&T) -> Value) -> Value {
    if pairs.is_empty() {
        return null();
    }
    let items = pairs.iter().map(|(k, v)| record(vec![("key", Value::Int(*k)), ("value", value(v))])).collect();
    some(Value::Array(items))
}

/// An [`int_map`] read back (empty when null).
fn int_map_read<T>(fields: &[(String, Value)], name: &str, value: impl Fn(&Value) -> Option<T>) -> Vec<(i32, T)> {
    let Some(Value::Array(items)) = field(fields, name) else { return Vec::new() };
    items
        .iter()
        .filter_map(|item| {
            let Value::Record(kv) = item else { return None };
            let key = match field(kv, "key")? {
                Value::Int(k) => *k,
                _ => return None,
            };
            Some((key, value(field(kv, "value")?)?))
        })
        .collect()
}

/// A manifest of `entries`; `metadata` is the header Iceberg asks for (the table's schema and
/// its id, the partition spec and its id, the format version, the content).
pub fn manifest(entries: &[Entry], metadata: &[(&str, String)], identity: &str) -> Result<Vec<u8>, LakeError> {
    let records = entries
        .iter()
        .map(|e| {
            let data_file = record(vec![
                ("content", Value::Int(0)),
                ("file_path", Value::String(e.file_path.clone())),
                ("file_format", Value::String("PARQUET".into())),
                ("partition", Value::Record(Vec::new())),
                ("record_count", Value::Long(e.record_count)),
                ("file_size_in_bytes", Value::Long(e.file_size_in_bytes)),
                ("column_sizes", null()),
                ("value_counts", null()),
                ("null_value_counts", int_map_value(&e.null_value_counts, |n| Value::Long(*n))),
                ("nan_value_counts", null()),
                ("lower_bounds", int_map_value(&e.lower_bounds, |b| Value::Bytes(b.clone()))),
                ("upper_bounds", int_map_value(&e.upper_bounds, |b| Value::Bytes(b.clone()))),
                ("key_metadata", null()),
                ("split_offsets", null()),
                ("equality_ids", null()),
                ("sort_order_id", null()),
            ]);
            record(vec![
                ("status", Value::Int(e.status as i32)),
                ("snapshot_id", some(Value::Long(e.snapshot_id))),
                ("sequence_number", some(Value::Long(e.sequence_number))),
                ("file_sequence_number", some(Value::Long(e.file_sequence_number))),
                ("data_file", data_file),
            ])
        })
        .collect();
    container(&manifest_schema_json(), metadata, records, identity)
}

/// A manifest list of `files`.
pub fn manifest_list(
    files: &[ManifestFile],
    metadata: &[(&str, String)],
    identity: &str,
) -> Result<Vec<u8>, LakeError> {
    let records = files
        .iter()
        .map(|m| {
            record(vec![
                ("manifest_path", Value::String(m.manifest_path.clone())),
                ("manifest_length", Value::Long(m.manifest_length)),
                ("partition_spec_id", Value::Int(0)),
                ("content", Value::Int(0)),
                ("sequence_number", Value::Long(m.sequence_number)),
                ("min_sequence_number", Value::Long(m.min_sequence_number)),
                ("added_snapshot_id", Value::Long(m.added_snapshot_id)),
                ("added_files_count", Value::Int(m.added_files_count)),
                ("existing_files_count", Value::Int(m.existing_files_count)),
                ("deleted_files_count", Value::Int(m.deleted_files_count)),
                ("added_rows_count", Value::Long(m.added_rows_count)),
                ("existing_rows_count", Value::Long(m.existing_rows_count)),
                ("deleted_rows_count", Value::Long(m.deleted_rows_count)),
                ("partitions", null()),
                ("key_metadata", null()),
            ])
        })
        .collect();
    container(&manifest_list_schema_json(), metadata, records, identity)
}

fn fields(value: Value) -> Vec<(String, Value)> {
    match value {
        Value::Record(fields) => fields,
        _ => Vec::new(),
    }
}

fn field<'a>(fields: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    match fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)? {
        Value::Union(_, inner) => Some(inner),
        v => Some(v),
    }
}

fn long(fields: &[(String, Value)], name: &str) -> Option<i64> {
    match field(fields, name)? {
        Value::Long(n) => Some(*n),
        Value::Int(n) => Some(i64::from(*n)),
        _ => None,
    }
}

fn string(fields: &[(String, Value)], name: &str) -> Option<String> {
    match field(fields, name)? {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The records of a container file this module wrote.
fn read(bytes: &[u8]) -> Result<Vec<Vec<(String, Value)>>, LakeError> {
    Reader::new(bytes).map_err(avro_error)?.map(|r| r.map(fields).map_err(avro_error)).collect()
}

/// The entries of a manifest this module wrote.
pub fn read_manifest(bytes: &[u8]) -> Result<Vec<Entry>, LakeError> {
    let bad = || LakeError::Validation("an Iceberg manifest entry lacks a field".into());
    read(bytes)?
        .into_iter()
        .map(|e| {
            let file = match field(&e, "data_file") {
                Some(Value::Record(f)) => f.clone(),
                _ => return Err(bad()),
            };
            let status = match long(&e, "status") {
                Some(0) => Status::Existing,
                Some(1) => Status::Added,
                Some(2) => Status::Deleted,
                _ => return Err(bad()),
            };
            Ok(Entry {
                status,
                snapshot_id: long(&e, "snapshot_id").ok_or_else(bad)?,
                sequence_number: long(&e, "sequence_number").ok_or_else(bad)?,
                file_sequence_number: long(&e, "file_sequence_number").ok_or_else(bad)?,
                file_path: string(&file, "file_path").ok_or_else(bad)?,
                record_count: long(&file, "record_count").ok_or_else(bad)?,
                file_size_in_bytes: long(&file, "file_size_in_bytes").ok_or_else(bad)?,
                lower_bounds: int_map_read(&file, "lower_bounds", bytes_value),
                upper_bounds: int_map_read(&file, "upper_bounds", bytes_value),
                null_value_counts: int_map_read(&file, "null_value_counts", |v| match v {
                    Value::Long(n) => Some(*n),
                    _ => None,
                }),
            })
        })
        .collect()
}

fn bytes_value(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Bytes(b) => Some(b.clone()),
        _ => None,
    }
}

/// The manifests' paths of a manifest list this module wrote.
pub fn read_manifest_list(bytes: &[u8]) -> Result<Vec<String>, LakeError> {
    read(bytes)?
        .iter()
        .map(|m| {
            string(m, "manifest_path")
                .ok_or_else(|| LakeError::Validation("an Iceberg manifest list row lacks its path".into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(status: Status, path: &str) -> Entry {
        Entry {
            status,
            snapshot_id: 7,
            sequence_number: 2,
            file_sequence_number: 2,
            file_path: path.into(),
            record_count: 10,
            file_size_in_bytes: 1234,
            lower_bounds: Vec::new(),
            upper_bounds: Vec::new(),
            null_value_counts: Vec::new(),
        }
    }

    /// What is written reads back, the header names the schema with its field ids, and two
    /// writes of the same entries are the same bytes.
    #[test]
    fn a_manifest_reads_back_and_is_written_the_same_every_time() {
        let bounded = Entry {
            lower_bounds: vec![(3, 1_000i64.to_le_bytes().to_vec()), (5, 19_000i32.to_le_bytes().to_vec())],
            upper_bounds: vec![(3, 9_000i64.to_le_bytes().to_vec()), (5, 19_300i32.to_le_bytes().to_vec())],
            null_value_counts: vec![(3, 0), (5, 2)],
            ..entry(Status::Added, "/lake/data/a/1/part-00000.parquet")
        };
        let entries = vec![bounded, entry(Status::Deleted, "/x")];
        let meta = [("format-version", "2".to_string()), ("content", "data".to_string())];
        let bytes = manifest(&entries, &meta, "a 7").unwrap();
        assert_eq!(bytes, manifest(&entries, &meta, "a 7").unwrap());
        assert_eq!(read_manifest(&bytes).unwrap(), entries);
        let reader = Reader::new(&bytes[..]).unwrap();
        assert_eq!(reader.user_metadata().get("format-version").map(Vec::as_slice), Some(&b"2"[..]));
        let header = String::from_utf8_lossy(&bytes).to_string();
        assert!(header.contains(r#""field-id":102"#) && header.contains(r#""element-id":133"#));
        let list = ManifestFile {
            manifest_path: "/lake/data/a/metadata/m.avro".into(),
            manifest_length: bytes.len() as i64,
            sequence_number: 2,
            min_sequence_number: 1,
            added_snapshot_id: 7,
            added_files_count: 1,
            existing_files_count: 0,
            deleted_files_count: 1,
            added_rows_count: 10,
            existing_rows_count: 0,
            deleted_rows_count: 10,
        };
        let listed = manifest_list(std::slice::from_ref(&list), &meta, "a 7 list").unwrap();
        assert_eq!(read_manifest_list(&listed).unwrap(), vec![list.manifest_path]);
    }
}
