//! GIE AGSI+ (SUPPLEMENT 2.5.3) → `gas-storage`: for each country of the EU set, its newest gas day
//! (fill level, gas in storage) and the day-on-day trend of the fill level. Needs `GIE_API_KEY`. A
//! country whose call fails keeps its previous row and is named in `lastError`; the run fails
//! only if every country fails.

use std::collections::BTreeMap;

use arrow::array::{Date32Array, Float64Array, RecordBatch, StringArray};
use chrono::NaiveDate;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::Deserialize;
use sitrep_schemas::{
    closed_set::ClosedSet,
    energy::{GasStorageTrend, GAS_STORAGE_COUNTRIES as EU_SET},
    DatasetId,
};
use url::Url;

use crate::{
    arrow_util::{batch, column, date_column, f64_column, text_column},
    source::KeptParts,
    FetchContext, Fetched, Source, SourceError, Window,
};

const API: &str = "https://agsi.gie.eu/api";
/// A day-on-day change of the fill level beyond this (points) is a trend.
const TREND_THRESHOLD: f64 = 0.05;

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    data: Vec<GasDay>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GasDay {
    gas_day_start: String,
    #[serde(default)]
    gas_in_storage: Option<String>,
    #[serde(default)]
    full: Option<String>,
}

/// A country's newest gas day.
#[derive(Debug, Clone, PartialEq)]
pub struct Storage {
    pub fill_pct: f64,
    pub gas_twh: f64,
    pub trend: GasStorageTrend,
    pub date: NaiveDate,
}

fn number(s: &Option<String>) -> Option<f64> {
    s.as_deref()?.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The newest day with its trend against the day before (stable with one day); `None` without a
/// readable newest day.
fn storage(mut days: Vec<GasDay>) -> Option<Storage> {
    days.sort_by(|a, b| b.gas_day_start.cmp(&a.gas_day_start));
    let today = days.first()?;
    let (fill_pct, gas_twh) = (number(&today.full)?, number(&today.gas_in_storage)?);
    let date = NaiveDate::parse_from_str(today.gas_day_start.trim(), "%Y-%m-%d").ok()?;
    let change = days.get(1).and_then(|y| number(&y.full)).map(|yesterday| fill_pct - yesterday).unwrap_or(0.0);
    let trend = if change > TREND_THRESHOLD {
        GasStorageTrend::Injecting
    } else if change < -TREND_THRESHOLD {
        GasStorageTrend::Withdrawing
    } else {
        GasStorageTrend::Stable
    };
    Some(Storage { fill_pct, gas_twh, trend, date })
}

fn previous(rows: Option<&RecordBatch>) -> Result<BTreeMap<String, Storage>, SourceError> {
    let Some(rows) = rows else { return Ok(BTreeMap::new()) };
    let codes: &StringArray = column(rows, "country_code", "gas-storage")?;
    let fill: &Float64Array = column(rows, "fill_pct", "gas-storage")?;
    let twh: &Float64Array = column(rows, "gas_twh", "gas-storage")?;
    let trend: &StringArray = column(rows, "trend", "gas-storage")?;
    let date: &Date32Array = column(rows, "date", "gas-storage")?;
    Ok((0..rows.num_rows())
        .filter_map(|i| {
            let s = Storage {
                fill_pct: fill.value(i),
                gas_twh: twh.value(i),
                trend: GasStorageTrend::from_wire_name(trend.value(i))?,
                date: date.value_as_date(i)?,
            };
            Some((codes.value(i).to_string(), s))
        })
        .collect())
}

async fn country_storage(ctx: &FetchContext, key: &str, country: &str) -> Result<Option<Storage>, SourceError> {
    let mut url = Url::parse(API).map_err(|e| SourceError::parse("agsi url", e))?;
    url.query_pairs_mut().append_pair("country", country).append_pair("size", "3");
    let mut headers = HeaderMap::new();
    let mut value = HeaderValue::from_str(key).map_err(|e| SourceError::NotConfigured(format!("GIE_API_KEY: {e}")))?;
    value.set_sensitive(true);
    headers.insert("x-key", value);
    let reply = ctx.http.get_ok(&url, headers).await?;
    let answer: Answer = serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("agsi", e))?;
    Ok(storage(answer.data))
}

#[derive(Default)]
pub struct GasStorageSource;

#[async_trait::async_trait]
impl Source for GasStorageSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::GAS_STORAGE
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["gie"]
    }

    fn reads_previous(&self) -> bool {
        true
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("gas-storage keeps the newest gas day")?;
        let key = ctx
            .config
            .gie_api_key
            .as_deref()
            .ok_or_else(|| SourceError::NotConfigured("GIE_API_KEY is not set".into()))?;
        let mut parts = KeptParts::new(previous(ctx.previous.as_ref())?);
        for country in EU_SET {
            parts.record(country, country_storage(ctx, key, country).await);
        }
        let (found, partial_error) = parts.finish("agsi countries")?;
        let list: Vec<(String, Storage)> = found.into_iter().collect();
        let batch = batch(
            DatasetId::GAS_STORAGE,
            vec![
                text_column(&list, |(c, _)| Some(c.as_str())),
                f64_column(&list, |(_, s)| Some(s.fill_pct)),
                f64_column(&list, |(_, s)| Some(s.gas_twh)),
                text_column(&list, |(_, s)| Some(s.trend.as_str())),
                date_column(&list, |(_, s)| Some(s.date)),
            ],
        )?;
        Ok(Fetched { partial_error, ..Fetched::all(batch, ctx.now) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(date: &str, twh: &str, full: &str) -> GasDay {
        GasDay { gas_day_start: date.into(), gas_in_storage: Some(twh.into()), full: Some(full.into()) }
    }

    #[test]
    fn the_newest_day_and_the_trend_of_its_fill_level() {
        let de = storage(vec![day("2026-11-17", "179.9", "72.19"), day("2026-11-18", "180.5", "72.4")]).unwrap();
        assert_eq!((de.fill_pct, de.gas_twh, de.trend.as_str()), (72.4, 180.5, "injecting"));
        assert_eq!(de.date, NaiveDate::from_ymd_opt(2026, 11, 18).unwrap());
        let trend = |today: &str, yesterday: &str| {
            storage(vec![day("2026-11-18", "1", today), day("2026-11-17", "1", yesterday)]).unwrap().trend
        };
        assert_eq!(
            [trend("70.00", "70.06"), trend("70.00", "70.05"), trend("70.05", "70.00"), trend("70.06", "70.00")],
            {
                use GasStorageTrend::*;
                [Withdrawing, Stable, Stable, Injecting]
            }
        );
        assert_eq!(storage(vec![day("2026-11-18", "1", "50")]).unwrap().trend, GasStorageTrend::Stable, "one day");
        assert_eq!(storage(vec![day("2026-11-18", "-", "50")]), None, "no readable gas in storage");
        assert_eq!(storage(vec![]), None);
    }
}
