//! The Conflict datasets: their descriptors and Arrow schemas. Column names are snake_case;
//! instants are Parquet `TIMESTAMP(MILLIS, UTC)` and calendar dates `DATE`, so analysts' tools
//! (DuckDB, Polars, PyArrow) read them as times with no codebook.

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::content_clock::{days, ContentClock};
use crate::{
    descriptor::{DatasetDescriptor, Partitioning},
    fields::{cached, date, instant, utf8},
};

/// The item field of list columns; one definition so writer and validator agree.
pub fn list_item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Utf8, false))
}

/// ACLED events. One row per event; `occurred_at` = UTC midnight of the event date.
pub fn armed_events_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("id"),
            utf8("event_type"),
            utf8("sub_event_type"),
            utf8("country"),
            utf8("country_iso2"),
            utf8("admin1"),
            Field::new("latitude", DataType::Float64, false),
            Field::new("longitude", DataType::Float64, false),
            instant("occurred_at", false),
            Field::new("fatalities", DataType::Int32, false),
            Field::new("actors", DataType::List(list_item()), false),
            utf8("source"),
        ])
    })
}

/// UCDP GED events. `release` is the GED version a row came from (annual `26.1` or candidate `26.0.10`).
pub fn violence_events_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("id"),
            instant("date_start", false),
            // Null when the upstream's end date is not a date.
            instant("date_end", true),
            Field::new("latitude", DataType::Float64, false),
            Field::new("longitude", DataType::Float64, false),
            utf8("country"),
            utf8("country_iso2"),
            utf8("side_a"),
            utf8("side_b"),
            Field::new("deaths_best", DataType::Int32, false),
            Field::new("deaths_low", DataType::Int32, false),
            Field::new("deaths_high", DataType::Int32, false),
            utf8("violence_type"),
            utf8("source_original"),
            utf8("release"),
        ])
    })
}

/// HDX HAPI conflict-event summary, one row per country (newest reference period).
pub fn humanitarian_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("country_code"),
            utf8("country_name"),
            Field::new("conflict_events_total", DataType::Int64, false),
            Field::new("conflict_political_violence_events", DataType::Int64, false),
            Field::new("conflict_fatalities", DataType::Int64, false),
            Field::new("conflict_demonstrations", DataType::Int64, false),
            // First day of the newest reference period.
            date("reference_period"),
            instant("updated_at", false),
        ])
    })
}

/// Operator-supplied Iran regional events export.
pub fn iran_events_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("id"),
            utf8("title"),
            utf8("category"),
            utf8("source_url"),
            Field::new("latitude", DataType::Float64, false),
            Field::new("longitude", DataType::Float64, false),
            utf8("location_name"),
            instant("published_at", false),
            utf8("severity"),
        ])
    })
}

/// UCDP `type_of_violence` → the API enum name.
pub fn ucdp_violence_type(code: i64) -> &'static str {
    match code {
        1 => UcdpViolenceType::StateBased,
        2 => UcdpViolenceType::NonState,
        3 => UcdpViolenceType::OneSided,
        _ => UcdpViolenceType::Unspecified,
    }
    .as_str()
}

/// `armed-events`: ACLED, hourly, month partitions by event date (SUPPLEMENT 1.16, 2.3.1).
pub static ARMED_EVENTS: DatasetDescriptor = DatasetDescriptor {
    id: "armed-events",
    table: "armed_events",
    group: "conflict",
    provider: "ACLED",
    license: "provider-terms",
    cadence: Duration::from_secs(60 * 60),
    cron: "0 7 * * * *",
    partitioning: Partitioning::Month { column: "occurred_at" },
    position_key: Some(("country_iso2", "occurred_at")),
    sort_key: "country_iso2, occurred_at DESC, id",
    row_key: &["id"],
    content_clock: ContentClock::Column { column: "occurred_at", frozen_after: days(14) },
    schema: armed_events_schema,
};

/// `violence-events`: UCDP GED, every 6 hours, month partitions by dateStart (2.3.2).
pub static VIOLENCE_EVENTS: DatasetDescriptor = DatasetDescriptor {
    id: "violence-events",
    table: "violence_events",
    group: "conflict",
    provider: "UCDP",
    license: "CC-BY-4.0",
    cadence: Duration::from_secs(6 * 60 * 60),
    cron: "0 17 */6 * * *",
    partitioning: Partitioning::Month { column: "date_start" },
    position_key: Some(("country_iso2", "date_start")),
    sort_key: "country_iso2, date_start DESC, id",
    row_key: &["id"],
    content_clock: ContentClock::Column { column: "date_start", frozen_after: days(60) },
    schema: violence_events_schema,
};

/// `humanitarian`: HDX HAPI conflict-event summaries, every 6 hours (2.3.3).
pub static HUMANITARIAN: DatasetDescriptor = DatasetDescriptor {
    id: "humanitarian",
    table: "humanitarian",
    group: "conflict",
    provider: "HDX HAPI",
    license: "provider-terms",
    cadence: Duration::from_secs(6 * 60 * 60),
    cron: "0 27 */6 * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "country_code",
    row_key: &["country_code"],
    content_clock: ContentClock::Column { column: "updated_at", frozen_after: days(45) },
    schema: humanitarian_schema,
};

/// `iran-events`: the operator's export file; "on file change", checked every 5 minutes (2.3.4).
pub static IRAN_EVENTS: DatasetDescriptor = DatasetDescriptor {
    id: "iran-events",
    table: "iran_events",
    group: "conflict",
    provider: "operator export",
    license: "provider-terms",
    cadence: Duration::from_secs(5 * 60),
    cron: "0 */5 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "published_at DESC, id",
    row_key: &["id"],
    content_clock: ContentClock::Column { column: "published_at", frozen_after: days(3) },
    schema: iran_events_schema,
};

crate::closed_set!(
    /// UCDP's type of violence (2.3.2).
    UcdpViolenceType,
    "UcdpViolenceType",
    [
        Unspecified = "UCDP_VIOLENCE_TYPE_UNSPECIFIED",
        StateBased = "UCDP_VIOLENCE_TYPE_STATE_BASED",
        NonState = "UCDP_VIOLENCE_TYPE_NON_STATE",
        OneSided = "UCDP_VIOLENCE_TYPE_ONE_SIDED",
    ]
);
