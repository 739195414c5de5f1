//! A dataset's Arrow schema as a Delta Lake `schemaString` (the protocol's JSON schema
//! serialisation): the lake's Parquet columns, by name, with the Delta type each reader maps them to.

use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use serde_json::{json, Value};

use crate::LakeError;

/// The Delta type of an Arrow type the lake writes.
fn delta_type(data_type: &DataType) -> Result<Value, LakeError> {
    Ok(match data_type {
        DataType::Utf8 | DataType::LargeUtf8 => json!("string"),
        DataType::Int32 => json!("integer"),
        DataType::Int64 => json!("long"),
        DataType::Float64 => json!("double"),
        DataType::Boolean => json!("boolean"),
        DataType::Date32 => json!("date"),
        // Delta's `timestamp` is an instant (adjusted to UTC); readers take the files' unit.
        DataType::Timestamp(TimeUnit::Millisecond | TimeUnit::Microsecond, Some(_)) => json!("timestamp"),
        DataType::List(item) => json!({
            "type": "array",
            "elementType": delta_type(item.data_type())?,
            "containsNull": item.is_nullable(),
        }),
        other => return Err(LakeError::Validation(format!("no Delta type for the lake's {other:?}"))),
    })
}

fn field(f: &Field) -> Result<Value, LakeError> {
    Ok(json!({"name": f.name(), "type": delta_type(f.data_type())?, "nullable": f.is_nullable(), "metadata": {}}))
}

/// The `schemaString` of a `metaData` action.
pub fn schema_string(schema: &Schema) -> Result<String, LakeError> {
    let fields = schema.fields().iter().map(|f| field(f)).collect::<Result<Vec<_>, _>>()?;
    Ok(json!({"type": "struct", "fields": fields}).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sitrep_schemas::DatasetId;

    /// Every dataset's schema has a Delta schema: each column once, by name, in order.
    #[test]
    fn every_dataset_has_a_delta_schema() {
        for dataset in DatasetId::ALL {
            let schema = dataset.schema();
            let text = schema_string(&schema).unwrap_or_else(|e| panic!("{dataset}: {e}"));
            let parsed: Value = serde_json::from_str(&text).unwrap();
            let names: Vec<&str> =
                parsed["fields"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
            let expected: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            assert_eq!(names, expected, "{dataset}");
        }
        let list = Field::new("actors", DataType::List(Field::new("item", DataType::Utf8, true).into()), false);
        assert_eq!(
            field(&list).unwrap()["type"],
            json!({"type": "array", "elementType": "string", "containsNull": true})
        );
    }
}
