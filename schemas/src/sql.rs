//! DuckDB column definitions for a dataset schema, shared by `lake views` and the server's tables.

use arrow::datatypes::DataType;

use crate::DatasetId;

pub fn duckdb_type(t: &DataType) -> String {
    match t {
        DataType::Utf8 => "VARCHAR".into(),
        DataType::Int32 => "INTEGER".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Boolean => "BOOLEAN".into(),
        DataType::List(f) => format!("{}[]", duckdb_type(f.data_type())),
        DataType::Timestamp(_, Some(_)) => "TIMESTAMPTZ".into(),
        DataType::Timestamp(_, None) => "TIMESTAMP".into(),
        DataType::Date32 => "DATE".into(),
        other => format!("{other:?}"),
    }
}

/// How the server stores a lake column: instants as epoch-ms `BIGINT` (0 when unknown) and dates
/// as `YYYY-MM-DD` text — the API's wire forms — lists as JSON array text, everything else as it
/// is. A list column is scanned a whole vector (2,048 rows) at a time however few rows a page
/// selects, while a text column reads only the selected rows: as a list, `actors` was about a
/// twentieth of an uncached page's CPU.
fn serving(f: &arrow::datatypes::Field) -> (String, String) {
    let name = f.name();
    match f.data_type() {
        DataType::Timestamp(..) => (format!("coalesce(epoch_ms({name}), 0) AS {name}"), "BIGINT".into()),
        DataType::Date32 => (format!("coalesce(CAST({name} AS VARCHAR), '') AS {name}"), "VARCHAR".into()),
        DataType::List(_) => (format!("CAST(to_json({name}) AS VARCHAR) AS {name}"), "VARCHAR".into()),
        t => (name.to_string(), duckdb_type(t)),
    }
}

/// The select list that turns a lake row into a serving row (see [`serving`]).
pub fn serving_select(dataset: DatasetId) -> String {
    dataset.schema().fields().iter().map(|f| serving(f).0).collect::<Vec<_>>().join(", ")
}

/// `name TYPE, …` of an empty serving table.
pub fn serving_column_defs(dataset: DatasetId) -> String {
    dataset.schema().fields().iter().map(|f| format!("{} {}", f.name(), serving(f).1)).collect::<Vec<_>>().join(", ")
}

/// `NULL::TYPE AS name, …` for a typed empty view.
pub fn null_columns(dataset: DatasetId) -> String {
    dataset
        .schema()
        .fields()
        .iter()
        .map(|f| format!("NULL::{} AS {}", duckdb_type(f.data_type()), f.name()))
        .collect::<Vec<_>>()
        .join(", ")
}
