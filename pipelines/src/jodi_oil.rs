//! JODI Oil World Database annual CSVs (SUPPLEMENT 2.5.3) → `jodi-oil`: this year's and last
//! year's primary (crude) and secondary (products) files, kb/d rows assessed 1 or 2, reduced to one
//! record per country at its data month. Published only with at least 40 countries.

use std::collections::{BTreeMap, HashMap};

use arrow::array::{ArrayRef, Float64Array, RecordBatch};
use chrono::Datelike;
use sitrep_schemas::{
    energy::{JODI_CRUDE_COLUMNS, JODI_PRODUCTS, JODI_PRODUCT_FLOWS},
    DatasetId,
};
use url::Url;

use crate::{
    arrow_util::{batch, text_column},
    http::ensure_ok,
    jodi_csv, FetchContext, Fetched, Source, SourceError, Window,
};

const BASE: &str = "https://www.jodidata.org/_resources/files/downloads/oil-data/annual-csv";
const MIN_COUNTRIES: usize = 40;
/// Demand above this is an error in a non-US row (2.5.3).
const MAX_NON_US_DEMAND: f64 = 10_000.0;
const CRUDE_FLOWS: [&str; 4] = ["INDPROD", "REFINOBS", "TOTIMPSB", "TOTEXPSB"];
const PRODUCT_CODES: [&str; 5] = ["GASOLINE", "GASDIES", "JETKERO", "RESFUEL", "LPG"];
const PRODUCT_FLOWS: [&str; 4] = ["TOTDEMO", "REFGROUT", "TOTIMPSB", "TOTEXPSB"];

/// One country's balance at its data month: crude (CRUDE_FLOWS order) and each product (PRODUCT_FLOWS order).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub data_month: String,
    pub crude: [Option<f64>; 4],
    pub products: [[Option<f64>; 4]; 5],
}

/// Kept observations of one country and month: (product, flow) → value (None = reported as missing).
type Month = HashMap<(String, String), Option<f64>>;

/// The kept rows of one CSV: KBD, assessment 1 or 2, a known product and flow.
fn read(body: &[u8], months: &mut BTreeMap<(String, String), Month>) -> Result<(), SourceError> {
    jodi_csv::assessed_rows(body, "KBD", |row| {
        let (p, f) = (row.product, row.flow);
        let crude = matches!(p, "CRUDEOIL" | "TOTCRUDE") && CRUDE_FLOWS.contains(&f);
        let product = PRODUCT_CODES.contains(&p) && PRODUCT_FLOWS.contains(&f);
        if !(crude || product) {
            return;
        }
        let country = row.country.to_ascii_uppercase();
        let mut v = row.value;
        if f == "TOTDEMO" && country != "US" && v.is_some_and(|v| v > MAX_NON_US_DEMAND) {
            v = None;
        }
        months.entry((country, row.period.to_string())).or_default().insert((p.to_string(), f.to_string()), v);
    })
}

/// One record per country: its newest month with a kept secondary-product row, and that month's values
/// (crude from CRUDEOIL when the month has it, else TOTCRUDE).
pub fn records(months: &BTreeMap<(String, String), Month>) -> BTreeMap<String, Record> {
    let mut out: BTreeMap<String, Record> = BTreeMap::new();
    // Months ascend within a country, so the last one with products wins.
    for ((country, month), values) in months {
        if !values.keys().any(|(p, _)| PRODUCT_CODES.contains(&p.as_str())) {
            continue;
        }
        let crude_code = if values.keys().any(|(p, _)| p == "CRUDEOIL") { "CRUDEOIL" } else { "TOTCRUDE" };
        let get = |p: &str, f: &str| values.get(&(p.to_string(), f.to_string())).copied().flatten();
        out.insert(
            country.clone(),
            Record {
                data_month: month.clone(),
                crude: CRUDE_FLOWS.map(|f| get(crude_code, f)),
                products: PRODUCT_CODES.map(|p| PRODUCT_FLOWS.map(|f| get(p, f))),
            },
        );
    }
    out
}

/// One annual file: `<kind>/<year>.csv`, else `<kind>/<kind>year<year>.csv`; `None` when neither exists.
async fn annual(ctx: &FetchContext, kind: &str, year: i32) -> Result<Option<bytes::Bytes>, SourceError> {
    for name in [format!("{year}.csv"), format!("{kind}year{year}.csv")] {
        let url = Url::parse(&format!("{BASE}/{kind}/{name}")).map_err(|e| SourceError::parse("jodi url", e))?;
        let reply = ctx.http.send(reqwest::Method::GET, &url, Default::default(), None, None).await?;
        if reply.status == reqwest::StatusCode::NOT_FOUND {
            continue;
        }
        return Ok(Some(ensure_ok(&url, reply)?.body));
    }
    Ok(None)
}

fn rows(records: &BTreeMap<String, Record>) -> Result<RecordBatch, SourceError> {
    let list: Vec<(&String, &Record)> = records.iter().collect();
    let mut columns: Vec<ArrayRef> =
        vec![text_column(&list, |(c, _)| Some(c.as_str())), text_column(&list, |(_, r)| Some(r.data_month.as_str()))];
    let numbers = |value: &dyn Fn(&Record) -> Option<f64>| -> ArrayRef {
        std::sync::Arc::new(list.iter().map(|(_, r)| value(r)).collect::<Float64Array>())
    };
    for i in 0..JODI_CRUDE_COLUMNS.len() {
        columns.push(numbers(&|r: &Record| r.crude[i]));
    }
    for p in 0..JODI_PRODUCTS.len() {
        for f in 0..JODI_PRODUCT_FLOWS.len() {
            columns.push(numbers(&|r: &Record| r.products[p][f]));
        }
    }
    batch(DatasetId::JODI_OIL, columns)
}

#[derive(Default)]
pub struct JodiOilSource;

#[async_trait::async_trait]
impl Source for JodiOilSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::JODI_OIL
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["jodi-oil"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("jodi-oil keeps each country's latest month")?;
        let year = ctx.now.year();
        let mut months = BTreeMap::new();
        for y in [year - 1, year] {
            for kind in ["primary", "secondary"] {
                if let Some(body) = annual(ctx, kind, y).await? {
                    read(&body, &mut months)?;
                }
            }
        }
        let records = records(&months);
        if records.len() < MIN_COUNTRIES {
            return Err(SourceError::Upstream(format!(
                "jodi-oil: {} countries (at least {MIN_COUNTRIES} needed); the previous version keeps serving",
                records.len()
            )));
        }
        Ok(Fetched::all(rows(&records)?, ctx.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "REF_AREA,TIME_PERIOD,ENERGY_PRODUCT,FLOW_BREAKDOWN,UNIT_MEASURE,OBS_VALUE,ASSESSMENT_CODE\n";

    fn parse(csv: &str) -> BTreeMap<String, Record> {
        let mut months = BTreeMap::new();
        read(format!("{HEADER}{csv}").as_bytes(), &mut months).unwrap();
        records(&months)
    }

    #[test]
    fn the_newest_assessed_month_and_its_values() {
        let r = parse(
            "JP,2026-08,CRUDEOIL,TOTIMPSB,KBD,2300,1\n\
             JP,2026-09,CRUDEOIL,TOTIMPSB,KBD,2400,1\n\
             JP,2026-09,CRUDEOIL,TOTIMPSB,KTONS,9999,1\n\
             JP,2026-09,GASOLINE,TOTDEMO,KBD,820,2\n\
             JP,2026-09,GASDIES,TOTDEMO,KBD,x,1\n\
             JP,2026-09,NAPHTHA,TOTDEMO,KBD,50,1\n\
             NG,2026-08,GASOLINE,TOTDEMO,KBD,300,1\n\
             NG,2026-09,GASOLINE,TOTDEMO,KBD,310,3\n\
             NG,2026-08,TOTCRUDE,TOTEXPSB,KBD,1500,1\n\
             IN,2026-09,GASOLINE,TOTDEMO,KBD,12000,1\n\
             US,2026-09,GASDIES,TOTDEMO,KBD,10500,1\n",
        );
        let jp = &r["JP"];
        assert_eq!(
            (jp.data_month.as_str(), jp.crude[2], jp.products[0][0], jp.products[1][0]),
            ("2026-09", Some(2400.0), Some(820.0), None)
        );
        let ng = &r["NG"];
        assert_eq!(
            (ng.data_month.as_str(), ng.crude[3], ng.products[0][0]),
            ("2026-08", Some(1500.0), Some(300.0)),
            "code 3 is not assessed; TOTCRUDE without CRUDEOIL"
        );
        assert_eq!(r["IN"].products[0][0], None, "a non-US demand over 10,000 is an error");
        assert_eq!(r["US"].products[1][0], Some(10500.0));
    }
}
