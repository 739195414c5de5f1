//! A version's Arrow schema as an Iceberg schema, and the table's name mapping.
//!
//! Field ids follow names: a column keeps the id it first had in the table, whatever schema it
//! appears in, and a new column takes the next id after `last-column-id` — as Iceberg's own
//! schema evolution assigns them. The lake's Parquet files carry no field ids, so the table's
//! `schema.name-mapping.default` maps every name any schema used to its id; with one id per name
//! that mapping holds for every schema's files.

use std::collections::BTreeMap;

use arrow::datatypes::{DataType, Field as ArrowField, Schema as ArrowSchema, TimeUnit};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::LakeError;

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
            for field in &schema.fields {
                ids.ids.entry(field.name.clone()).or_insert(field.id);
                if let Type::List(list) = &field.kind {
                    ids.ids.entry(format!("{}.element", field.name)).or_insert(list.element_id);
                }
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
