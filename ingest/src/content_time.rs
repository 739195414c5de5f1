//! The newest content time of a fetch, read from the column its dataset's `ContentClock` names:
//! what a frozen upstream is judged by (SUPPLEMENT's freshness says only when we fetched).

use arrow::{
    array::{Array, Date32Array, StringArray, TimestampMillisecondArray},
    record_batch::RecordBatch,
};
use chrono::{DateTime, NaiveDate, Utc};
use sitrep_schemas::ContentClock;

/// `None` when the clock reads no column, the batch has no value there, or the column's type
/// tells no time (the schema test keeps declarations to the three types read here).
pub fn newest_content_time(batch: &RecordBatch, clock: ContentClock) -> Option<DateTime<Utc>> {
    let ContentClock::Column { column, .. } = clock else { return None };
    let array = batch.column_by_name(column)?;
    let any = array.as_any();
    if let Some(a) = any.downcast_ref::<TimestampMillisecondArray>() {
        return a.iter().flatten().max().and_then(DateTime::from_timestamp_millis);
    }
    if let Some(a) = any.downcast_ref::<Date32Array>() {
        return a.iter().flatten().max().and_then(|d| DateTime::from_timestamp(i64::from(d) * 86_400, 0));
    }
    let text = any.downcast_ref::<StringArray>()?;
    text.iter().flatten().filter_map(text_date).max().map(|d| d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc())
}

/// `YYYY-MM-DD`, or `YYYY-MM` as its first day.
fn text_date(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .or_else(|| NaiveDate::parse_from_str(&format!("{s}-01"), "%Y-%m-%d").ok())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
    use sitrep_schemas::content_clock::days;

    use super::*;

    fn column(name: &'static str) -> ContentClock {
        ContentClock::Column { column: name, frozen_after: days(1) }
    }

    #[test]
    fn the_newest_value_of_each_kind_of_time_column_is_the_content_time() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("at", DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())), true),
            Field::new("day", DataType::Date32, true),
            Field::new("month", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(TimestampMillisecondArray::from(vec![Some(1_000), None, Some(5_000)]).with_timezone("UTC")),
                Arc::new(Date32Array::from(vec![Some(3), Some(1), None])),
                Arc::new(StringArray::from(vec![Some("2026-07"), Some("2026-09"), Some("not a month")])),
            ],
        )
        .unwrap();
        assert_eq!(newest_content_time(&batch, column("at")), DateTime::from_timestamp_millis(5_000));
        assert_eq!(newest_content_time(&batch, column("day")), DateTime::from_timestamp(3 * 86_400, 0));
        assert_eq!(newest_content_time(&batch, column("month")).unwrap().to_rfc3339(), "2026-09-01T00:00:00+00:00");
        assert_eq!(newest_content_time(&batch, column("absent")), None);
        assert_eq!(newest_content_time(&batch, ContentClock::Hash { frozen_after: days(1) }), None);
        assert_eq!(newest_content_time(&batch.slice(1, 0), column("at")), None, "no rows, no time");
    }
}
