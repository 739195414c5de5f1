//! Ember's monthly electricity data (SUPPLEMENT 2.5.3) → `ember-mix`: the fossil share of each
//! country's generation (Electricity generation / Aggregate fuel / Fossil, in %) in its newest month.

use std::collections::BTreeMap;

use sitrep_schemas::{countries, DatasetId};
use url::Url;

use crate::{
    arrow_util::{batch, f64_column, text_column},
    FetchContext, Fetched, Source, SourceError, Window,
};

const CSV_URL: &str =
    "https://storage.googleapis.com/emb-prod-bkt-publicdata/public-downloads/monthly_full_release_long_format.csv";

/// A country's fossil share in one month.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    /// `YYYY-MM`.
    pub data_month: String,
    pub fossil_share: f64,
}

/// Alpha-2 → the newest month's fossil share. Aggregates (no ISO 3 code), codes we cannot map and
/// rows without a value are left out.
pub fn fossil_shares(csv: &[u8]) -> Result<BTreeMap<&'static str, Mix>, SourceError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(csv);
    let headers = reader.headers().map_err(|e| SourceError::parse("ember csv", e))?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h.trim().trim_start_matches('\u{feff}') == name)
            .ok_or_else(|| SourceError::parse("ember csv", format!("no {name} column")))
    };
    let (iso3, date, category, subcategory, variable, unit, value) = (
        col("ISO 3 code")?,
        col("Date")?,
        col("Category")?,
        col("Subcategory")?,
        col("Variable")?,
        col("Unit")?,
        col("Value")?,
    );
    let mut out: BTreeMap<&'static str, Mix> = BTreeMap::new();
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).map_err(|e| SourceError::parse("ember csv", e))? {
        let field = |i: usize| record.get(i).unwrap_or("").trim();
        if field(variable) != "Fossil"
            || field(unit) != "%"
            || field(subcategory) != "Aggregate fuel"
            || field(category) != "Electricity generation"
        {
            continue;
        }
        let (Some(code), Ok(share)) = (countries::alpha2_from_alpha3(field(iso3)), field(value).parse::<f64>()) else {
            continue;
        };
        let Some(month) = month_of(field(date)) else { continue };
        if share.is_finite() && out.get(code).is_none_or(|m| m.data_month < month) {
            out.insert(code, Mix { data_month: month, fossil_share: share });
        }
    }
    Ok(out)
}

/// `2026-08-01` or `01/08/2026` (both seen in Ember's releases) → `2026-08`, which orders as text.
fn month_of(date: &str) -> Option<String> {
    let d = chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d")
        .or_else(|_| chrono::NaiveDate::parse_from_str(date, "%d/%m/%Y"))
        .ok()?;
    Some(d.format("%Y-%m").to_string())
}

#[derive(Default)]
pub struct EmberMixSource;

#[async_trait::async_trait]
impl Source for EmberMixSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::EMBER_MIX
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["ember"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("ember-mix keeps each country's newest month")?;
        let url = Url::parse(CSV_URL).map_err(|e| SourceError::parse("ember url", e))?;
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        let shares: Vec<(&str, Mix)> = fossil_shares(&reply.body)?.into_iter().collect();
        let batch = batch(
            DatasetId::EMBER_MIX,
            vec![
                text_column(&shares, |(c, _)| Some(c)),
                text_column(&shares, |(_, m)| Some(m.data_month.as_str())),
                f64_column(&shares, |(_, m)| Some(m.fossil_share)),
            ],
        )?;
        Ok(Fetched::all(batch, ctx.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_fossil_percentage_per_country() {
        let csv = "Area,ISO 3 code,Date,Area type,Category,Subcategory,Variable,Unit,Value\n\
                   Japan,JPN,2026-07-01,Country,Electricity generation,Aggregate fuel,Fossil,%,66.1\n\
                   Japan,JPN,01/08/2026,Country,Electricity generation,Aggregate fuel,Fossil,%,68\r\n\
                   Japan,JPN,2026-08-01,Country,Electricity generation,Aggregate fuel,Fossil,TWh,55.2\n\
                   Japan,JPN,2026-08-01,Country,Electricity generation,Aggregate fuel,Clean,%,32\n\
                   Japan,JPN,2026-08-01,Country,Electricity generation,Fuel,Fossil,%,1\n\
                   Poland,POL,2026-08-01,Country,Electricity generation,Aggregate fuel,Fossil,%,\n\
                   Poland,POL,2026-07-01,Country,Electricity generation,Aggregate fuel,Fossil,%,72.4\n\
                   World,,2026-08-01,Region,Electricity generation,Aggregate fuel,Fossil,%,59\n";
        let got = fossil_shares(csv.as_bytes()).unwrap();
        assert_eq!(got.len(), 2, "the world aggregate has no ISO code");
        assert_eq!(got["JP"], Mix { data_month: "2026-08".into(), fossil_share: 68.0 });
        assert_eq!(got["PL"], Mix { data_month: "2026-07".into(), fossil_share: 72.4 }, "an empty value is skipped");
    }
}
