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
        other => format!("{other:?}"),
    }
}

/// `name TYPE, …` for `CREATE TABLE` of an empty dataset.
pub fn column_defs(dataset: DatasetId) -> String {
    dataset
        .schema()
        .fields()
        .iter()
        .map(|f| format!("{} {}", f.name(), duckdb_type(f.data_type())))
        .collect::<Vec<_>>()
        .join(", ")
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
