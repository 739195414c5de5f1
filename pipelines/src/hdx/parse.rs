//! HAPI JSON rows and the per-country summary of SUPPLEMENT 2.3.3.

use std::collections::BTreeMap;

use serde::Deserialize;
use sitrep_schemas::{countries, DatasetId};

use crate::{
    arrow_util::{batch, dates, finish, i64s, instants, strings},
    lenient::Lenient,
    SourceError,
};

/// One upstream row, from JSON or from the CSV fallback.
#[derive(Debug, Clone, PartialEq)]
pub struct ConflictRow {
    pub location_code: String,
    pub location_name: String,
    pub admin_level: i64,
    pub event_type: String,
    pub events: i64,
    pub fatalities: i64,
    pub reference_period_start: String,
}

#[derive(Deserialize)]
struct ApiPage<'a> {
    #[serde(borrow)]
    data: Vec<ApiRow<'a>>,
}

#[derive(Deserialize)]
struct ApiRow<'a> {
    #[serde(borrow)]
    location_code: Lenient<'a>,
    #[serde(default, borrow)]
    location_name: Lenient<'a>,
    #[serde(default, borrow)]
    admin_level: Lenient<'a>,
    #[serde(borrow)]
    event_type: Lenient<'a>,
    #[serde(default, borrow)]
    events: Lenient<'a>,
    #[serde(default, borrow)]
    fatalities: Lenient<'a>,
    #[serde(borrow)]
    reference_period_start: Lenient<'a>,
}

pub fn parse_api_page(body: &[u8]) -> Result<Vec<ConflictRow>, SourceError> {
    let page: ApiPage = serde_json::from_slice(body).map_err(|e| SourceError::parse("hdx hapi response", e))?;
    Ok(page
        .data
        .iter()
        .map(|r| ConflictRow {
            location_code: r.location_code.as_str().to_string(),
            location_name: r.location_name.as_str().to_string(),
            admin_level: r.admin_level.i64().unwrap_or(0),
            event_type: r.event_type.as_str().to_string(),
            events: r.events.i64().unwrap_or(0),
            fatalities: r.fatalities.i64().unwrap_or(0),
            reference_period_start: r.reference_period_start.as_str().chars().take(10).collect(),
        })
        .collect())
}

#[derive(Default)]
struct Acc {
    name: String,
    events_total: i64,
    pv_events: i64,
    pv_fatalities: i64,
    demonstrations: i64,
}

/// `YYYY-MM-DD` as days since 1970-01-01 (Arrow `Date32`); `None` when it is not a date.
fn days_since_epoch(date: &str) -> Option<i32> {
    let d = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    Some((d - chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?).num_days() as i32)
}

/// Per country: keep only the newest reference_period_start, and within it the highest admin level
/// present; sum events and fatalities by event type.
pub fn summarise(rows: &[ConflictRow], updated_at_ms: i64) -> Result<arrow::record_batch::RecordBatch, SourceError> {
    let mut newest: BTreeMap<&str, (&str, i64)> = BTreeMap::new();
    for r in rows {
        let Some(code) = countries::alpha2_from_alpha3(&r.location_code) else { continue };
        // A row without a reference period date cannot say which period is newest.
        if days_since_epoch(&r.reference_period_start).is_none() {
            continue;
        }
        let key = (r.reference_period_start.as_str(), r.admin_level);
        newest.entry(code).and_modify(|k| *k = (*k).max(key)).or_insert(key);
    }
    let mut acc: BTreeMap<&str, Acc> = BTreeMap::new();
    for r in rows {
        let Some(code) = countries::alpha2_from_alpha3(&r.location_code) else { continue };
        if newest.get(code) != Some(&(r.reference_period_start.as_str(), r.admin_level)) {
            continue;
        }
        let a = acc.entry(code).or_default();
        if a.name.is_empty() {
            a.name = if r.location_name.is_empty() {
                countries::name_of(code).unwrap_or(code).to_string()
            } else {
                r.location_name.clone()
            };
        }
        a.events_total += r.events;
        match r.event_type.as_str() {
            "political_violence" | "civilian_targeting" => {
                a.pv_events += r.events;
                a.pv_fatalities += r.fatalities;
            }
            "demonstration" => a.demonstrations += r.events,
            _ => {}
        }
    }
    let n = acc.len();
    let (mut cc, mut name, mut total, mut pv, mut fat, mut demo, mut period, mut updated) =
        (strings(n), strings(n), i64s(n), i64s(n), i64s(n), i64s(n), dates(n), instants(n));
    for (code, a) in &acc {
        cc.append_value(code);
        name.append_value(&a.name);
        total.append_value(a.events_total);
        pv.append_value(a.pv_events);
        fat.append_value(a.pv_fatalities);
        demo.append_value(a.demonstrations);
        period.append_option(days_since_epoch(newest[code].0));
        updated.append_value(updated_at_ms);
    }
    batch(
        DatasetId::HUMANITARIAN,
        vec![
            finish(cc),
            finish(name),
            finish(total),
            finish(pv),
            finish(fat),
            finish(demo),
            finish(period),
            finish(updated),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{AsArray, Int64Array};

    fn row(code: &str, level: i64, kind: &str, events: i64, fatalities: i64, period: &str) -> ConflictRow {
        ConflictRow {
            location_code: code.into(),
            location_name: String::new(),
            admin_level: level,
            event_type: kind.into(),
            events,
            fatalities,
            reference_period_start: period.into(),
        }
    }

    #[test]
    fn newest_period_and_highest_level_win() {
        let rows = vec![
            row("SDN", 0, "political_violence", 100, 50, "2026-09-01"),
            row("SDN", 0, "political_violence", 10, 5, "2026-10-01"),
            row("SDN", 0, "civilian_targeting", 4, 3, "2026-10-01"),
            row("SDN", 0, "demonstration", 7, 0, "2026-10-01"),
            row("YEM", 0, "political_violence", 1, 1, "2026-10-01"),
            row("YEM", 1, "political_violence", 2, 2, "2026-10-01"),
            row("ZZZ", 0, "political_violence", 1, 1, "2026-10-01"),
            // Not a date: cannot compete for the newest period.
            row("YEM", 2, "political_violence", 9, 9, "soon"),
        ];
        let b = summarise(&rows, 42).unwrap();
        assert_eq!(b.num_rows(), 2);
        assert_eq!(b.column(0).as_string::<i32>().value(0), "SD");
        assert_eq!(b.column(1).as_string::<i32>().value(0), "Sudan");
        let col = |i: usize| b.column(i).as_any().downcast_ref::<Int64Array>().unwrap().value(0);
        assert_eq!((col(2), col(3), col(4), col(5)), (21, 14, 8, 7));
        let period = b.column(6).as_primitive::<arrow::datatypes::Date32Type>().value_as_date(0);
        assert_eq!(period, chrono::NaiveDate::from_ymd_opt(2026, 10, 1));
        let updated = b.column(7).as_primitive::<arrow::datatypes::TimestampMillisecondType>();
        assert_eq!(updated.value(0), 42);
        let yem_total = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap().value(1);
        assert_eq!(yem_total, 2, "admin level 1 rows win the tie");
    }

    #[test]
    fn start_date_is_two_months_back() {
        let d = chrono::NaiveDate::from_ymd_opt(2026, 1, 20).unwrap();
        assert_eq!(super::super::start_date(d).to_string(), "2025-11-01");
    }
}
