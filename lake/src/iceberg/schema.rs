//! A version's Arrow schema as an Iceberg schema, and the table's name mapping.
//!
//! Field ids follow names: a column keeps the id it first had in the table, whatever schema it
//! appears in, and a new column takes the next id after `last-column-id` — as Iceberg's own
//! schema evolution assigns them. Files written since the tables carry their columns' ids
//! (`PARQUET:field_id`, stamped from the table at write time); older files carry none, so the
//! table's `schema.name-mapping.default` maps every name any schema used to its id; with one id
//! per name that mapping holds for every schema's files.

use std::collections::BTreeMap;

use arrow::datatypes::{DataType, Field as ArrowField, Schema as ArrowSchema, TimeUnit};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use sitrep_schemas::ColumnRange;

use crate::LakeError;

/// The Arrow field metadata key the Parquet writer stores as a column's field id.
const PARQUET_FIELD_ID: &str = "PARQUET:field_id";

/// An Iceberg type: a primitive by name, or a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Type {
    Primitive(String),
    List(ListType),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ListType {
    /// Always "list".
    #[serde(rename = "type")]
    pub kind: String,
    pub element_id: i32,
    pub element: Box<Type>,
    pub element_required: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub id: i32,
    pub name: String,
    pub required: bool,
    #[serde(rename = "type")]
    pub kind: Type,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Schema {
    /// Always "struct".
    #[serde(rename = "type")]
    pub kind: String,
    pub schema_id: i32,
    pub fields: Vec<Field>,
}

/// A file's column statistics by field id, as a manifest entry holds them.
#[derive(Debug, Default, PartialEq)]
pub struct ColumnStats {
    pub lower: Vec<(i32, Vec<u8>)>,
    pub upper: Vec<(i32, Vec<u8>)>,
    pub nulls: Vec<(i32, i64)>,
}

impl Schema {
    /// The statistics of a file whose time columns have `ranges`, in Iceberg's single-value
    /// serialization: a `timestamptz` as its microseconds, a `date` as its days (little-endian).
    pub fn column_stats(&self, ranges: &BTreeMap<String, ColumnRange>) -> ColumnStats {
        let mut stats = ColumnStats::default();
        for field in &self.fields {
            let Some(range) = ranges.get(&field.name) else { continue };
            let encode: fn(i64) -> Vec<u8> = match &field.kind {
                Type::Primitive(t) if t == "timestamptz" => |ms| (ms * 1000).to_le_bytes().to_vec(),
                Type::Primitive(t) if t == "date" => |days| (days as i32).to_le_bytes().to_vec(),
                _ => continue,
            };
            stats.lower.extend(range.min.map(|v| (field.id, encode(v))));
            stats.upper.extend(range.max.map(|v| (field.id, encode(v))));
            stats.nulls.push((field.id, range.nulls as i64));
        }
        stats
    }

    /// Its ids by path, as [`FieldIds`] keys them.
    pub fn ids_by_path(&self) -> BTreeMap<String, i32> {
        let mut out = BTreeMap::new();
        for f in &self.fields {
            out.insert(f.name.clone(), f.id);
            if let Type::List(list) = &f.kind {
                out.insert(format!("{}.element", f.name), list.element_id);
            }
        }
        out
    }
}

/// The ids `schema` (a file's, as its footer reads) carries, by path as [`FieldIds`] keys
/// them; empty when the file has none.
pub fn ids_in_file(schema: &ArrowSchema) -> BTreeMap<String, i32> {
    let id = |f: &ArrowField| f.metadata().get(PARQUET_FIELD_ID).and_then(|v| v.parse().ok());
    let mut out = BTreeMap::new();
    for f in schema.fields() {
        out.extend(id(f).map(|i| (f.name().clone(), i)));
        if let DataType::List(item) = f.data_type() {
            out.extend(id(item).map(|i| (format!("{}.element", f.name()), i)));
        }
    }
    out
}

/// Field ids by path (`name`, and `name.element` for a list's element) across a table's schemas.
#[derive(Debug, Default)]
pub struct FieldIds {
    ids: BTreeMap<String, i32>,
    last: i32,
}

impl FieldIds {
    /// The ids `schemas` assigned, and the table's `last-column-id`.
    pub fn of(schemas: &[Schema], last_column_id: i32) -> FieldIds {
        let mut ids = FieldIds { ids: BTreeMap::new(), last: last_column_id };
        for schema in schemas {
            for (path, id) in schema.ids_by_path() {
                ids.ids.entry(path).or_insert(id);
            }
        }
        ids
    }

    pub fn last_column_id(&self) -> i32 {
        self.last
    }

    fn id(&mut self, path: String) -> i32 {
        let next = self.last + 1;
        let id = *self.ids.entry(path).or_insert(next);
        self.last = self.last.max(id);
        id
    }

    /// The Iceberg schema of the lake's Arrow `schema`, numbered `schema_id`.
    pub fn schema(&mut self, schema: &ArrowSchema, schema_id: i32) -> Result<Schema, LakeError> {
        let fields = schema.fields().iter().map(|f| self.field(f)).collect::<Result<_, _>>()?;
        Ok(Schema { kind: "struct".into(), schema_id, fields })
    }

    fn field(&mut self, f: &ArrowField) -> Result<Field, LakeError> {
        let id = self.id(f.name().clone());
        let kind = match f.data_type() {
            DataType::List(item) => Type::List(ListType {
                kind: "list".into(),
                element_id: self.id(format!("{}.element", f.name())),
                element: Box::new(primitive(item.data_type())?),
                element_required: !item.is_nullable(),
            }),
            other => primitive(other)?,
        };
        Ok(Field { id, name: f.name().clone(), required: !f.is_nullable(), kind })
    }

    /// `schema` with the ids this table gives its columns (and lists' elements) as each Arrow
    /// field's `PARQUET:field_id`, which the Parquet writer stores in the file's schema: readers
    /// then resolve the file's columns by id, and the name mapping serves only older files.
    pub fn stamp(&mut self, schema: &ArrowSchema) -> Result<ArrowSchema, LakeError> {
        let numbered = self.schema(schema, 0)?;
        let with_id = |f: &ArrowField, id: i32| {
            let mut metadata = f.metadata().clone();
            metadata.insert(PARQUET_FIELD_ID.to_string(), id.to_string());
            f.clone().with_metadata(metadata)
        };
        let fields: Vec<ArrowField> = schema
            .fields()
            .iter()
            .zip(&numbered.fields)
            .map(|(f, numbered)| {
                let field = match (f.data_type(), &numbered.kind) {
                    (DataType::List(item), Type::List(list)) => {
                        f.as_ref().clone().with_data_type(DataType::List(with_id(item, list.element_id).into()))
                    }
                    _ => f.as_ref().clone(),
                };
                with_id(&field, numbered.id)
            })
            .collect();
        Ok(ArrowSchema::new_with_metadata(fields, schema.metadata().clone()))
    }

    /// `schema.name-mapping.default`: every name to its id. A list's element is mapped by the
    /// names Parquet writers give it (arrow-rs writes `item`, the Parquet spec says `element`).
    pub fn name_mapping(&self) -> String {
        let mut top: Vec<Value> = Vec::new();
        for (path, id) in &self.ids {
            if path.contains('.') {
                continue;
            }
            let mut entry = json!({"field-id": id, "names": [path]});
            if let Some(element) = self.ids.get(&format!("{path}.element")) {
                entry["fields"] = json!([{"field-id": element, "names": ["element", "item"]}]);
            }
            top.push(entry);
        }
        top.sort_by_key(|e| e["field-id"].as_i64());
        Value::Array(top).to_string()
    }
}

/// The Iceberg type of an Arrow type the lake writes. Instants are `timestamptz` (microseconds,
/// UTC); the lake's files store them in milliseconds, which Iceberg readers widen on read.
fn primitive(data_type: &DataType) -> Result<Type, LakeError> {
    let name = match data_type {
        DataType::Utf8 | DataType::LargeUtf8 => "string",
        DataType::Int32 => "int",
        DataType::Int64 => "long",
        DataType::Float64 => "double",
        DataType::Boolean => "boolean",
        DataType::Date32 => "date",
        DataType::Timestamp(TimeUnit::Millisecond | TimeUnit::Microsecond, Some(_)) => "timestamptz",
        other => return Err(LakeError::Validation(format!("no Iceberg type for the lake's {other:?}"))),
    };
    Ok(Type::Primitive(name.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitrep_schemas::DatasetId;

    #[test]
    fn every_dataset_has_an_iceberg_schema_with_one_id_per_column() {
        for dataset in DatasetId::ALL {
            let mut ids = FieldIds::default();
            let arrow = dataset.schema();
            let schema = ids.schema(&arrow, 0).unwrap_or_else(|e| panic!("{dataset}: {e}"));
            let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
            let expected: Vec<&str> = arrow.fields().iter().map(|f| f.name().as_str()).collect();
            assert_eq!(names, expected, "{dataset}");
            let mut all: Vec<i32> = schema.fields.iter().map(|f| f.id).collect();
            all.extend(schema.fields.iter().filter_map(|f| match &f.kind {
                Type::List(l) => Some(l.element_id),
                Type::Primitive(_) => None,
            }));
            let count = all.len();
            all.sort_unstable();
            all.dedup();
            assert_eq!(all.len(), count, "{dataset}: an id twice");
            assert_eq!(ids.last_column_id(), count as i32, "{dataset}");
        }
    }

    /// Stamped ids are the table's, on a list's element too, and read back from the schema.
    #[test]
    fn a_stamped_schema_carries_the_tables_ids() {
        let arrow = ArrowSchema::new(vec![
            ArrowField::new("id", DataType::Utf8, false),
            ArrowField::new("actors", DataType::List(ArrowField::new("item", DataType::Utf8, false).into()), false),
        ]);
        let mut ids = FieldIds::default();
        let numbered = ids.schema(&arrow, 0).unwrap();
        let stamped = ids.stamp(&arrow).unwrap();
        assert_eq!(ids_in_file(&stamped), numbered.ids_by_path());
        assert_eq!(ids_in_file(&stamped)["actors.element"], 3);
        assert!(ids_in_file(&arrow).is_empty());
        assert!(sitrep_schemas::fingerprint::fingerprint_matches(&arrow, &stamped));
    }

    /// Bounds in Iceberg's single-value serialization, by field id; only time columns.
    #[test]
    fn column_stats_serialize_time_bounds() {
        let arrow = ArrowSchema::new(vec![
            ArrowField::new("id", DataType::Utf8, false),
            ArrowField::new("at", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
            ArrowField::new("day", DataType::Date32, false),
        ]);
        let schema = FieldIds::default().schema(&arrow, 0).unwrap();
        let range = |min, max, nulls| ColumnRange { min, max, nulls };
        let ranges = BTreeMap::from([
            ("id".to_string(), range(Some(1), Some(2), 0)),
            ("at".to_string(), range(Some(1_500), Some(2_000), 1)),
            ("day".to_string(), range(None, None, 4)),
        ]);
        let stats = schema.column_stats(&ranges);
        assert_eq!(stats.lower, vec![(2, 1_500_000i64.to_le_bytes().to_vec())]);
        assert_eq!(stats.upper, vec![(2, 2_000_000i64.to_le_bytes().to_vec())]);
        assert_eq!(stats.nulls, vec![(2, 1), (3, 4)]);
        let days = schema.column_stats(&BTreeMap::from([("day".to_string(), range(Some(20_000), Some(20_030), 0))]));
        assert_eq!(days.lower, vec![(3, 20_000i32.to_le_bytes().to_vec())]);
    }

    /// A column keeps its id in a later schema, wherever it moved; a new one takes the next id.
    #[test]
    fn ids_follow_names_across_schemas() {
        let before = ArrowSchema::new(vec![
            ArrowField::new("id", DataType::Utf8, false),
            ArrowField::new("actors", DataType::List(ArrowField::new("item", DataType::Utf8, false).into()), false),
        ]);
        let mut ids = FieldIds::default();
        let first = ids.schema(&before, 0).unwrap();
        let after = ArrowSchema::new(vec![
            ArrowField::new("added", DataType::Int64, true),
            ArrowField::new("id", DataType::Utf8, false),
        ]);
        let mut ids = FieldIds::of(std::slice::from_ref(&first), ids.last_column_id());
        let second = ids.schema(&after, 1).unwrap();
        assert_eq!(second.fields[1].id, first.fields[0].id);
        assert_eq!(second.fields[0].id, 4);
        assert_eq!(serde_json::to_value(&second.fields[0].kind).unwrap(), json!("long"));
        assert_eq!(
            serde_json::to_value(&first.fields[1].kind).unwrap(),
            json!({"type": "list", "element-id": 3, "element": "string", "element-required": true})
        );
        let mapping: Value = serde_json::from_str(&ids.name_mapping()).unwrap();
        assert_eq!(
            mapping,
            json!([
                {"field-id": 1, "names": ["id"]},
                {"field-id": 2, "names": ["actors"], "fields": [{"field-id": 3, "names": ["element", "item"]}]},
                {"field-id": 4, "names": ["added"]},
            ])
        );
        let parsed: Schema = serde_json::from_value(serde_json::to_value(&first).unwrap()).unwrap();
        assert_eq!(parsed, first);
    }
}
