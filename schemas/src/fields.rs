//! Column constructors shared by the groups' schemas: one definition of how an instant, a date
//! and a text column look in the lake.

use std::sync::{Arc, OnceLock};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};

pub(crate) fn utf8(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

/// An instant: Parquet `TIMESTAMP(MILLIS, UTC)`, read as a time by DuckDB, Polars and PyArrow.
pub(crate) fn instant(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), nullable)
}

/// A calendar date: Parquet `DATE`.
pub(crate) fn date(name: &str) -> Field {
    Field::new(name, DataType::Date32, false)
}

pub(crate) fn cached(cell: &'static OnceLock<SchemaRef>, build: fn() -> Schema) -> SchemaRef {
    cell.get_or_init(|| Arc::new(build())).clone()
}

/// A nullable text column.
pub(crate) fn utf8_or_null(name: &str) -> Field {
    Field::new(name, DataType::Utf8, true)
}

/// A nullable 32-bit integer column.
pub(crate) fn int32_or_null(name: &str) -> Field {
    Field::new(name, DataType::Int32, true)
}

/// A nullable double column.
pub(crate) fn float64_or_null(name: &str) -> Field {
    Field::new(name, DataType::Float64, true)
}

/// A nullable calendar date: Parquet `DATE`.
pub(crate) fn date_or_null(name: &str) -> Field {
    Field::new(name, DataType::Date32, true)
}
