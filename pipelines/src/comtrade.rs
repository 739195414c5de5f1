//! UN Comtrade's public preview (SUPPLEMENT 2.5.3) → `comtrade-crude`: for every jodi-oil country
//! that imports crude, its HS 2709 imports in the newest of the last three years, from the six Gulf
//! partners and in total. Calls are 3 s apart live. A reporter whose calls fail keeps its previous
//! record and is named in `lastError`; the run fails only if every reporter fails.

use std::{collections::BTreeMap, time::Duration};

use arrow::array::{Array, Float64Array, Int32Array, RecordBatch, StringArray};
use chrono::Datelike;
use serde::Deserialize;
use sitrep_schemas::{countries, DatasetId};
use url::Url;

use crate::{
    arrow_util::{batch, column, f64_column, i32_column, text_column},
    source::KeptParts,
    FetchContext, Fetched, Source, SourceError, Window,
};

const PREVIEW: &str = "https://comtradeapi.un.org/public/v1/preview/C/A/HS";
const CALL_SPACING: Duration = Duration::from_secs(3);
/// Partner M49 codes of the Gulf (**Decision** of 2.5.3): SA, AE, IQ, KW, IR, QA.
const GULF_PARTNERS: [u32; 6] = [682, 784, 368, 414, 364, 634];
const WORLD: u32 = 0;
/// Where Comtrade's reporter code is not the ISO 3166 numeric code.
const M49_EXCEPTIONS: [(&str, u32); 6] = [("US", 842), ("FR", 251), ("IN", 699), ("CH", 757), ("NO", 579), ("TW", 490)];

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    data: Vec<TradeRow>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TradeRow {
    partner_code: u32,
    #[serde(default)]
    primary_value: Option<f64>,
}

/// A reporter's crude imports in one year.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Imports {
    pub year: i32,
    pub gulf_value_usd: f64,
    pub total_value_usd: f64,
}

/// Comtrade's reporter code for an ISO alpha-2 code.
pub fn reporter_code(alpha2: &str) -> Option<u32> {
    M49_EXCEPTIONS
        .iter()
        .find(|(c, _)| *c == alpha2)
        .map(|(_, m)| *m)
        .or_else(|| countries::numeric_of(alpha2)?.parse().ok())
}

/// One year's rows → its imports: Gulf partners summed; the World row as total, else the sum of
/// every partner. `None` without rows.
fn imports(year: i32, rows: &[TradeRow]) -> Option<Imports> {
    if rows.is_empty() {
        return None;
    }
    let value = |r: &TradeRow| r.primary_value.filter(|v| v.is_finite()).unwrap_or(0.0);
    let gulf = rows.iter().filter(|r| GULF_PARTNERS.contains(&r.partner_code)).map(value).sum();
    let world: Vec<f64> = rows.iter().filter(|r| r.partner_code == WORLD).map(value).collect();
    let total = if world.is_empty() { rows.iter().map(value).sum() } else { world.iter().sum() };
    Some(Imports { year, gulf_value_usd: gulf, total_value_usd: total })
}

/// The jodi-oil countries with crude imports above zero.
fn importers(jodi_oil: &RecordBatch) -> Result<Vec<String>, SourceError> {
    let codes: &StringArray = column(jodi_oil, "country_code", "jodi-oil")?;
    let crude: &Float64Array = column(jodi_oil, "crude_imports_kbd", "jodi-oil")?;
    Ok((0..jodi_oil.num_rows())
        .filter(|&i| crude.is_valid(i) && crude.value(i) > 0.0)
        .map(|i| codes.value(i).to_string())
        .collect())
}

/// The previous version's records, kept for reporters whose calls fail.
fn previous(rows: Option<&RecordBatch>) -> Result<BTreeMap<String, Imports>, SourceError> {
    let Some(rows) = rows else { return Ok(BTreeMap::new()) };
    let codes: &StringArray = column(rows, "country_code", "comtrade-crude")?;
    let years: &Int32Array = column(rows, "year", "comtrade-crude")?;
    let gulf: &Float64Array = column(rows, "gulf_value_usd", "comtrade-crude")?;
    let total: &Float64Array = column(rows, "total_value_usd", "comtrade-crude")?;
    Ok((0..rows.num_rows())
        .map(|i| {
            let imports =
                Imports { year: years.value(i), gulf_value_usd: gulf.value(i), total_value_usd: total.value(i) };
            (codes.value(i).to_string(), imports)
        })
        .collect())
}

/// A reporter's newest year with data among the last three; `None` when none has rows.
async fn reporter_imports(ctx: &FetchContext, code: u32, calls: &mut usize) -> Result<Option<Imports>, SourceError> {
    let last_year = ctx.now.year() - 1;
    for year in [last_year, last_year - 1, last_year - 2] {
        if *calls > 0 {
            ctx.pace(CALL_SPACING).await;
        }
        *calls += 1;
        let mut url = Url::parse(PREVIEW).map_err(|e| SourceError::parse("comtrade url", e))?;
        url.query_pairs_mut()
            .append_pair("reporterCode", &code.to_string())
            .append_pair("cmdCode", "2709")
            .append_pair("flowCode", "M")
            .append_pair("period", &year.to_string())
            .append_pair("includeDesc", "true");
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        let answer: Answer = serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("comtrade", e))?;
        if let Some(error) = answer.error.filter(|e| !e.trim().is_empty()) {
            return Err(SourceError::Upstream(format!("comtrade reporter {code}: {error}")));
        }
        if let Some(found) = imports(year, &answer.data) {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

fn rows(records: &BTreeMap<String, Imports>) -> Result<RecordBatch, SourceError> {
    let list: Vec<(&String, &Imports)> = records.iter().collect();
    batch(
        DatasetId::COMTRADE_CRUDE,
        vec![
            text_column(&list, |(c, _)| Some(c.as_str())),
            i32_column(&list, |(_, r)| Some(r.year)),
            f64_column(&list, |(_, r)| Some(r.gulf_value_usd)),
            f64_column(&list, |(_, r)| Some(r.total_value_usd)),
        ],
    )
}

#[derive(Default)]
pub struct ComtradeCrudeSource;

#[async_trait::async_trait]
impl Source for ComtradeCrudeSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::COMTRADE_CRUDE
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["comtrade"]
    }

    fn reads_previous(&self) -> bool {
        true
    }

    fn inputs(&self) -> &'static [DatasetId] {
        &[DatasetId::JODI_OIL]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("comtrade-crude keeps each reporter's newest year")?;
        let jodi = ctx
            .input(DatasetId::JODI_OIL)
            .ok_or_else(|| SourceError::Upstream("comtrade-crude: jodi-oil has no version yet".into()))?;
        let mut parts = KeptParts::new(previous(ctx.previous.as_ref())?);
        let mut calls = 0;
        for country in importers(jodi)? {
            if let Some(code) = reporter_code(&country) {
                parts.record(&country, reporter_imports(ctx, code, &mut calls).await);
            }
        }
        let (records, partial_error) = parts.finish("comtrade reporters")?;
        Ok(Fetched { partial_error, ..Fetched::all(rows(&records)?, ctx.now) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(partner: u32, value: f64) -> TradeRow {
        TradeRow { partner_code: partner, primary_value: Some(value) }
    }

    #[test]
    fn gulf_partners_against_the_world_row_else_every_partner() {
        let jp =
            imports(2025, &[row(0, 50.0e9), row(682, 20.0e9), row(784, 16.0e9), row(634, 10.0e9), row(643, 1.0e9)]);
        assert_eq!(jp, Some(Imports { year: 2025, gulf_value_usd: 46.0e9, total_value_usd: 50.0e9 }));
        let no_world = imports(2024, &[row(368, 3.0), row(124, 5.0)]);
        assert_eq!(no_world, Some(Imports { year: 2024, gulf_value_usd: 3.0, total_value_usd: 8.0 }));
        assert_eq!(imports(2025, &[]), None);
    }

    #[test]
    fn reporter_codes_follow_comtrade_where_it_differs_from_iso() {
        assert_eq!(
            ["US", "FR", "IN", "NO", "JP", "PK", "ZZ"].map(reporter_code),
            [Some(842), Some(251), Some(699), Some(579), Some(392), Some(586), None]
        );
    }
}
