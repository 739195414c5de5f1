//! The Aviation datasets: their descriptors and Arrow schemas (SUPPLEMENT 2.1, 1.16).

use std::{sync::OnceLock, time::Duration};

use arrow::datatypes::{Schema, SchemaRef};

use crate::{
    dataset::{DatasetDescriptor, Partitioning},
    fields::{cached, instant, utf8, utf8_or_null},
};

/// The emergency squawks adsb.lol is asked for: hijack, radio failure, general emergency.
pub const SQUAWKS: [&str; 3] = ["7500", "7600", "7700"];

/// One run of the three squawk feeds of adsb.lol (2.1.1), as rows of two kinds:
/// - `row_kind = 'feed'`: one per squawk — whether its feed answered (`feed_status`
///   `available`/`unavailable`), a short message (`"2 aircraft"`, `"HTTP 503"`) and when it was
///   asked (`fetched_at`);
/// - `row_kind = 'observation'`: one per aircraft reported on a squawk (`address`, `callsign`,
///   `description`, `observed_at`, `military_flag`).
///
/// A feed that failed contributes its feed row and no observations, so the dataset always says
/// which of the three feeds it could read.
pub fn aircraft_emergencies_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("row_kind"),
            utf8("squawk"),
            utf8("source"),
            utf8_or_null("feed_status"),
            utf8_or_null("feed_message"),
            instant("fetched_at", true),
            utf8_or_null("address"),
            utf8_or_null("callsign"),
            utf8_or_null("description"),
            instant("observed_at", true),
            utf8_or_null("military_flag"),
        ])
    })
}

/// `aircraft-emergencies`: adsb.lol's 7500/7600/7700 squawk feeds, every 2 minutes.
pub static AIRCRAFT_EMERGENCIES: DatasetDescriptor = DatasetDescriptor {
    id: "aircraft-emergencies",
    table: "aircraft_emergencies",
    group: "aviation",
    provider: "adsb.lol",
    license: "ODbL-1.0",
    cadence: Duration::from_secs(120),
    cron: "0 */2 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    // The API's order: squawk ascending, then observedAt descending (2.1.1).
    sort_key: "row_kind, squawk, observed_at DESC, address",
    schema: aircraft_emergencies_schema,
    operations: &["ListAircraftEmergencies"],
};

/// The items of the nine aviation feeds of the last 168 hours (2.1.11), one row per link.
/// `match_text` is the title and the description as plain text, for entity matching.
pub fn aviation_news_schema() -> SchemaRef {
    static S: OnceLock<SchemaRef> = OnceLock::new();
    cached(&S, || {
        Schema::new(vec![
            utf8("id"),
            utf8("title"),
            utf8("url"),
            utf8("source_name"),
            instant("published_at", false),
            utf8("snippet"),
            utf8("image_url"),
            utf8("match_text"),
        ])
    })
}

/// `aviation-news`: nine RSS/Atom feeds, every 15 minutes.
pub static AVIATION_NEWS: DatasetDescriptor = DatasetDescriptor {
    id: "aviation-news",
    table: "aviation_news",
    group: "aviation",
    provider: "9 aviation RSS/Atom feeds",
    license: "publisher-terms",
    cadence: Duration::from_secs(15 * 60),
    cron: "0 */15 * * * *",
    partitioning: Partitioning::None,
    position_key: None,
    sort_key: "published_at DESC, id",
    schema: aviation_news_schema,
    operations: &["ListAviationNews"],
};
