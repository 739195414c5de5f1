//! Small helpers for building record batches against a lake schema.

use arrow::{
    array::{
        ArrayRef, Date32Builder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
        TimestampMillisecondBuilder,
    },
    record_batch::RecordBatch,
};
use sitrep_schemas::{conflict::list_item, DatasetId};

use crate::SourceError;

pub fn batch(dataset: DatasetId, columns: Vec<ArrayRef>) -> Result<RecordBatch, SourceError> {
    RecordBatch::try_new(dataset.schema(), columns).map_err(|e| SourceError::parse(dataset.as_str(), e))
}

pub fn strings(cap: usize) -> StringBuilder {
    StringBuilder::with_capacity(cap, cap * 16)
}
pub fn f64s(cap: usize) -> Float64Builder {
    Float64Builder::with_capacity(cap)
}
pub fn i64s(cap: usize) -> Int64Builder {
    Int64Builder::with_capacity(cap)
}
/// Instants as epoch milliseconds, typed `TIMESTAMP(MILLIS, UTC)` like the lake schemas.
pub fn instants(cap: usize) -> TimestampMillisecondBuilder {
    TimestampMillisecondBuilder::with_capacity(cap).with_timezone("UTC")
}
/// Calendar dates as days since 1970-01-01 (`DATE`).
pub fn dates(cap: usize) -> Date32Builder {
    Date32Builder::with_capacity(cap)
}
pub fn i32s(cap: usize) -> Int32Builder {
    Int32Builder::with_capacity(cap)
}
/// A list-of-strings builder whose item field matches the schema's (non-null `item`).
pub fn string_lists(cap: usize) -> ListBuilder<StringBuilder> {
    ListBuilder::with_capacity(strings(cap), cap).with_field(list_item())
}

pub fn finish<B: arrow::array::ArrayBuilder>(mut b: B) -> ArrayRef {
    b.finish()
}

/// A nullable text column, one value per row of a batch under construction.
pub fn text_column<R>(rows: &[R], value: impl for<'r> Fn(&'r R) -> Option<&'r str>) -> ArrayRef {
    let mut b = strings(rows.len());
    rows.iter().for_each(|r| b.append_option(value(r)));
    finish(b)
}

/// A nullable double column, one value per row.
pub fn f64_column<R>(rows: &[R], value: impl Fn(&R) -> Option<f64>) -> ArrayRef {
    let mut b = f64s(rows.len());
    rows.iter().for_each(|r| b.append_option(value(r)));
    finish(b)
}

/// A nullable 32-bit integer column, one value per row.
pub fn i32_column<R>(rows: &[R], value: impl Fn(&R) -> Option<i32>) -> ArrayRef {
    let mut b = i32s(rows.len());
    rows.iter().for_each(|r| b.append_option(value(r)));
    finish(b)
}

/// A boolean column, one value per row.
pub fn bool_column<R>(rows: &[R], value: impl Fn(&R) -> bool) -> ArrayRef {
    std::sync::Arc::new(rows.iter().map(|r| Some(value(r))).collect::<arrow::array::BooleanArray>())
}

/// A calendar-date column (`DATE`), one value per row.
pub fn date_column<R>(rows: &[R], value: impl Fn(&R) -> Option<chrono::NaiveDate>) -> ArrayRef {
    let mut b = dates(rows.len());
    rows.iter().for_each(|r| b.append_option(value(r).map(days_since_epoch)));
    finish(b)
}

/// A date as Arrow's `Date32`: days since 1970-01-01.
pub fn days_since_epoch(d: chrono::NaiveDate) -> i32 {
    (d - chrono::NaiveDate::default()).num_days() as i32
}

/// A nullable instant column (epoch ms), one value per row.
pub fn instant_column<R>(rows: &[R], value: impl Fn(&R) -> Option<i64>) -> ArrayRef {
    let mut b = instants(rows.len());
    rows.iter().for_each(|r| b.append_option(value(r)));
    finish(b)
}

/// Cuts text to at most `max` characters (not bytes), on a char boundary.
pub fn truncate_chars(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// A column of a lake version read back (`FetchContext::previous` / `inputs`), by name and type.
pub fn column<'a, T: 'static>(rows: &'a RecordBatch, name: &str, what: &str) -> Result<&'a T, SourceError> {
    rows.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| SourceError::parse(what, format!("column {name} missing or of another type")))
}
