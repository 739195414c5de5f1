//! A serving row as the diff's JSON, rendered from the Arrow chunks DuckDB streams: DuckDB's own
//! `json_object` took about 6 µs a row (12 s of a 2M-change diff), this a fraction of that.
//! Serving tables hold only text, integers, doubles and booleans (instants are epoch-ms integers,
//! dates text, lists JSON text: `schemas::sql`), so that is all there is to render.

use std::io::Write;

use arrow::{
    array::{Array, ArrayRef, AsArray},
    datatypes::{DataType, Int32Type, Int64Type},
};
use sitrep_schemas::DatasetId;

/// Why a column could not be rendered: a type no serving table has.
#[derive(Debug, thiserror::Error)]
#[error("a serving column of type {0} in a diff")]
pub struct Unrenderable(DataType);

/// How a dataset's serving rows render: each column's member name, and whether its text is JSON
/// already (a list column), in schema order.
pub struct RowRender {
    members: Vec<(String, bool)>,
    key: Vec<usize>,
}

impl RowRender {
    pub fn of(dataset: DatasetId) -> Self {
        let schema = dataset.schema();
        let members = schema
            .fields()
            .iter()
            .map(|f| {
                let name = serde_json::to_string(f.name()).unwrap_or_default();
                (name, matches!(f.data_type(), DataType::List(_)))
            })
            .collect();
        let key = dataset.row_key().iter().filter_map(|k| schema.fields().iter().position(|f| f.name() == k)).collect();
        RowRender { members, key }
    }

    /// Row `i` of `columns` (the serving columns, in schema order) as a JSON object.
    pub fn row(&self, columns: &[ArrayRef], i: usize, out: &mut Vec<u8>) -> Result<(), Unrenderable> {
        self.object(columns, i, 0..self.members.len(), out)
    }

    /// The row key of row `i` of `columns` as a JSON object.
    pub fn key(&self, columns: &[ArrayRef], i: usize, out: &mut Vec<u8>) -> Result<(), Unrenderable> {
        self.object(columns, i, self.key.iter().copied(), out)
    }

    fn object(
        &self,
        columns: &[ArrayRef],
        i: usize,
        of: impl Iterator<Item = usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), Unrenderable> {
        out.push(b'{');
        for (n, c) in of.enumerate() {
            let (name, json_text) = &self.members[c];
            if n > 0 {
                out.push(b',');
            }
            out.extend_from_slice(name.as_bytes());
            out.push(b':');
            value(&columns[c], i, *json_text, out)?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// Value `i` of `array` in JSON: text quoted (or as it is, when it is JSON already), numbers as
/// serde_json writes them (a double that is not finite as `null`).
fn value(array: &ArrayRef, i: usize, json_text: bool, out: &mut Vec<u8>) -> Result<(), Unrenderable> {
    if array.is_null(i) {
        out.extend_from_slice(b"null");
        return Ok(());
    }
    let text = |s: &str, out: &mut Vec<u8>| match json_text {
        true => out.extend_from_slice(s.as_bytes()),
        false => write_json(out, s),
    };
    match array.data_type() {
        DataType::Utf8 => text(array.as_string::<i32>().value(i), out),
        DataType::LargeUtf8 => text(array.as_string::<i64>().value(i), out),
        DataType::Utf8View => text(array.as_string_view().value(i), out),
        DataType::Int32 => write_json(out, &array.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => write_json(out, &array.as_primitive::<Int64Type>().value(i)),
        DataType::Float64 => write_json(out, &array.as_primitive::<arrow::datatypes::Float64Type>().value(i)),
        DataType::Boolean => {
            let _ = out.write_all(if array.as_boolean().value(i) { b"true" } else { b"false" });
        }
        other => return Err(Unrenderable(other.clone())),
    }
    Ok(())
}

fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    // Writing to a Vec cannot fail, nor can serialising text or a number.
    let _ = serde_json::to_writer(out, v);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{BooleanArray, Float64Array, Int32Array, Int64Array, StringArray, StringViewArray};

    use super::*;

    #[test]
    fn a_row_renders_each_type_as_json_and_its_key_apart() {
        let render = RowRender {
            members: vec![
                ("\"id\"".into(), false),
                ("\"n\"".into(), false),
                ("\"at\"".into(), false),
                ("\"x\"".into(), false),
                ("\"ok\"".into(), false),
                ("\"actors\"".into(), true),
                ("\"note\"".into(), false),
            ],
            key: vec![0],
        };
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec!["a\"b\n"])),
            Arc::new(Int32Array::from(vec![Some(-3)])),
            Arc::new(Int64Array::from(vec![1_700_000_000_000])),
            Arc::new(Float64Array::from(vec![f64::NAN])),
            Arc::new(BooleanArray::from(vec![true])),
            Arc::new(StringViewArray::from(vec!["[\"x\",\"y\"]"])),
            Arc::new(StringArray::from(vec![None::<&str>])),
        ];
        let mut out = Vec::new();
        render.row(&columns, 0, &mut out).unwrap();
        let row: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            row,
            serde_json::json!({"id": "a\"b\n", "n": -3, "at": 1_700_000_000_000_i64, "x": null, "ok": true,
                               "actors": ["x", "y"], "note": null})
        );
        out.clear();
        render.key(&columns, 0, &mut out).unwrap();
        assert_eq!(out, b"{\"id\":\"a\\\"b\\n\"}");
        let unknown: Vec<ArrayRef> = vec![Arc::new(arrow::array::Date32Array::from(vec![1]))];
        assert!(render.key(&unknown, 0, &mut out).is_err());
    }
}
