//! JODI Gas World Database (SUPPLEMENT 2.5.3) → `jodi-gas`: the world ZIP's staging CSV, TJ rows
//! assessed 1 or 2, reduced to one record per country at its latest month. Published only with at
//! least 50 countries.

use std::{
    collections::{BTreeMap, HashMap},
    io::{Cursor, Read},
};

use sitrep_schemas::DatasetId;
use url::Url;

use crate::{
    arrow_util::{batch, f64_column, text_column},
    jodi_csv, FetchContext, Fetched, Source, SourceError, Window,
};

const ZIP_URL: &str = "https://www.jodidata.org/jodi-publisher/gas/17/GAS_world_NewFormat.zip";
const MEMBER: &str = "STAGING_world_NewFormat.csv";
const MIN_COUNTRIES: usize = 50;
/// The flows a record reads (EXPLNG and EXPPIP are kept by 2.5.3 but feed no field).
const FLOWS: [&str; 8] = ["IMPLNG", "IMPPIP", "EXPLNG", "EXPPIP", "INDPROD", "TOTIMPSB", "TOTDEMO", "CLOSTLV"];

/// One country's gas balance at its latest month, in TJ.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub data_month: String,
    pub lng_imports: Option<f64>,
    pub pipe_imports: Option<f64>,
    pub total_imports: Option<f64>,
    pub total_demand: Option<f64>,
    pub production: Option<f64>,
    pub closing_stock: Option<f64>,
    pub lng_share: Option<f64>,
}

/// The staging CSV out of the world ZIP.
fn staging_csv(zip_bytes: &[u8]) -> Result<Vec<u8>, SourceError> {
    let mut archive =
        zip::ZipArchive::new(Cursor::new(zip_bytes)).map_err(|e| SourceError::parse("jodi gas zip", e))?;
    let mut member = archive.by_name(MEMBER).map_err(|e| SourceError::parse("jodi gas zip", e))?;
    let mut csv = Vec::with_capacity(member.size() as usize);
    member.read_to_end(&mut csv).map_err(|e| SourceError::parse("jodi gas zip", e))?;
    Ok(csv)
}

/// One record per country from its latest month with a kept row.
pub fn records(csv: &[u8]) -> Result<BTreeMap<String, Record>, SourceError> {
    // (country, month) → flow → value; months ascend in the BTreeMap, so the last one wins.
    let mut months: BTreeMap<(String, String), HashMap<String, Option<f64>>> = BTreeMap::new();
    jodi_csv::assessed_rows(csv, "TJ", |row| {
        if FLOWS.contains(&row.flow) {
            months
                .entry((row.country.to_ascii_uppercase(), row.period.to_string()))
                .or_default()
                .insert(row.flow.to_string(), row.value);
        }
    })?;
    let mut out = BTreeMap::new();
    for ((country, month), flows) in months {
        let get = |f: &str| flows.get(f).copied().flatten();
        let (lng, pipe) = (get("IMPLNG"), get("IMPPIP"));
        let total = get("TOTIMPSB").or_else(|| match (lng, pipe) {
            (None, None) => None,
            _ => Some(lng.unwrap_or(0.0) + pipe.unwrap_or(0.0)),
        });
        let lng_share = match (lng, total) {
            (Some(l), Some(t)) if t > 0.0 => Some(l / t),
            _ => None,
        };
        out.insert(
            country,
            Record {
                data_month: month,
                lng_imports: lng,
                pipe_imports: pipe,
                total_imports: total,
                total_demand: get("TOTDEMO"),
                production: get("INDPROD"),
                closing_stock: get("CLOSTLV"),
                lng_share,
            },
        );
    }
    Ok(out)
}

fn rows(records: &BTreeMap<String, Record>) -> Result<arrow::array::RecordBatch, SourceError> {
    let list: Vec<(&String, &Record)> = records.iter().collect();
    batch(
        DatasetId::JODI_GAS,
        vec![
            text_column(&list, |(c, _)| Some(c.as_str())),
            text_column(&list, |(_, r)| Some(r.data_month.as_str())),
            f64_column(&list, |(_, r)| r.lng_imports),
            f64_column(&list, |(_, r)| r.pipe_imports),
            f64_column(&list, |(_, r)| r.total_imports),
            f64_column(&list, |(_, r)| r.total_demand),
            f64_column(&list, |(_, r)| r.production),
            f64_column(&list, |(_, r)| r.closing_stock),
            f64_column(&list, |(_, r)| r.lng_share),
        ],
    )
}

#[derive(Default)]
pub struct JodiGasSource;

#[async_trait::async_trait]
impl Source for JodiGasSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::JODI_GAS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["jodi-gas"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("jodi-gas keeps each country's latest month")?;
        let url = Url::parse(ZIP_URL).map_err(|e| SourceError::parse("jodi gas url", e))?;
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        let records = records(&staging_csv(&reply.body)?)?;
        if records.len() < MIN_COUNTRIES {
            return Err(SourceError::Upstream(format!(
                "jodi-gas: {} countries (at least {MIN_COUNTRIES} needed); the previous version keeps serving",
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

    #[test]
    fn the_latest_month_with_totals_and_the_lng_share() {
        let csv = format!(
            "{HEADER}DE,2026-08,NATGAS,IMPLNG,TJ,50000,1\n\
             DE,2026-09,NATGAS,IMPLNG,TJ,60000,1\n\
             DE,2026-09,NATGAS,IMPLNG,M3,1600,1\n\
             DE,2026-09,NATGAS,TOTIMPSB,TJ,300000,2\n\
             DE,2026-09,NATGAS,TOTDEMO,TJ,280000,1\n\
             DE,2026-09,NATGAS,STOCKCH,TJ,-5000,1\n\
             HU,2026-09,NATGAS,IMPLNG,TJ,0,1\n\
             HU,2026-09,NATGAS,IMPPIP,TJ,40000,1\n\
             HU,2026-10,NATGAS,IMPPIP,TJ,41000,3\n\
             CZ,2026-09,NATGAS,IMPLNG,TJ,x,1\n\
             CZ,2026-09,NATGAS,IMPPIP,TJ,30000,1\n"
        );
        let r = records(csv.as_bytes()).unwrap();
        let de = &r["DE"];
        assert_eq!(
            (de.data_month.as_str(), de.lng_imports, de.total_imports, de.total_demand, de.lng_share),
            ("2026-09", Some(60000.0), Some(300000.0), Some(280000.0), Some(0.2))
        );
        let hu = &r["HU"];
        assert_eq!(
            (hu.data_month.as_str(), hu.total_imports, hu.lng_share),
            ("2026-09", Some(40000.0), Some(0.0)),
            "no TOTIMPSB: LNG + pipe; code 3 is not data"
        );
        assert_eq!((r["CZ"].total_imports, r["CZ"].lng_share), (Some(30000.0), None), "missing LNG: no share");
    }
}
