//! Delta checkpoints: every [`EVERY`] table versions, the table's whole state at that version in
//! one Parquet file (`<N>.checkpoint.parquet`) and `_last_checkpoint` naming it, so a reader opens
//! a table of thousands of versions by reading the checkpoint and the few versions after it, not
//! every version since the first. A table version is one of our versions, so its state is that
//! version's entry in our commit: the protocol, the metadata and an `add` per file. Removed files'
//! tombstones are left out (they serve only a vacuum, which the lake's gc replaces).

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use sitrep_schemas::{DatasetEntry, DatasetId};

use super::actions::{add, metadata, protocol};
use crate::LakeError;

/// Table versions between checkpoints.
pub const EVERY: u64 = 10;

fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

/// A `map<string, string>` column as Delta's checkpoints write it.
fn string_map(name: &str) -> Field {
    let entries =
        Field::new("key_value", DataType::Struct(Fields::from(vec![utf8("key", false), utf8("value", true)])), false);
    Field::new(name, DataType::Map(Arc::new(entries), false), false)
}

fn structure(name: &str, fields: Vec<Field>) -> Field {
    Field::new(name, DataType::Struct(Fields::from(fields)), true)
}

/// The checkpoint's columns: one action a row, the others null.
fn schema() -> Schema {
    Schema::new(vec![
        structure(
            "add",
            vec![
                utf8("path", false),
                string_map("partitionValues"),
                Field::new("size", DataType::Int64, false),
                Field::new("modificationTime", DataType::Int64, false),
                Field::new("dataChange", DataType::Boolean, false),
                utf8("stats", true),
            ],
        ),
        structure(
            "metaData",
            vec![
                utf8("id", false),
                utf8("name", true),
                utf8("description", true),
                Field::new(
                    "format",
                    DataType::Struct(Fields::from(vec![utf8("provider", false), string_map("options")])),
                    false,
                ),
                utf8("schemaString", false),
                Field::new("partitionColumns", DataType::List(Arc::new(utf8("element", false))), false),
                Field::new("createdTime", DataType::Int64, true),
                string_map("configuration"),
            ],
        ),
        structure(
            "protocol",
            vec![
                Field::new("minReaderVersion", DataType::Int32, false),
                Field::new("minWriterVersion", DataType::Int32, false),
            ],
        ),
    ])
}

/// The checkpoint of the table version that is `entry`'s version, as Parquet, and its rows.
pub fn checkpoint(
    dataset: DatasetId,
    entry: &DatasetEntry,
    table_schema: &Schema,
) -> Result<(Bytes, usize), LakeError> {
    let mut lines = vec![protocol(), metadata(dataset, table_schema)?];
    for file in &entry.files {
        lines.push(add(dataset, table_schema, file)?);
    }
    let ndjson: Vec<u8> = lines.iter().flat_map(|l| [l.to_string().into_bytes(), b"\n".to_vec()]).flatten().collect();
    let schema = Arc::new(schema());
    let failed = |e: &dyn std::fmt::Display| LakeError::Validation(format!("{dataset}'s Delta checkpoint: {e}"));
    let reader =
        arrow::json::ReaderBuilder::new(schema.clone()).build(std::io::Cursor::new(ndjson)).map_err(|e| failed(&e))?;
    let mut out = Vec::new();
    let mut writer = parquet::arrow::ArrowWriter::try_new(&mut out, schema, None).map_err(|e| failed(&e))?;
    for batch in reader {
        writer.write(&batch.map_err(|e| failed(&e))?).map_err(|e| failed(&e))?;
    }
    writer.close().map_err(|e| failed(&e))?;
    Ok((Bytes::from(out), lines.len()))
}
