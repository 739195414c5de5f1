//! Our SPR registry (SUPPLEMENT 2.5.3) → `spr-registry`: each country's strategic petroleum
//! reserve regime, authored from public sources in `data/reference/spr_registry.csv` and compiled
//! in, so a version changes only when the file does. No upstream call.

use arrow::array::RecordBatch;
use serde::Deserialize;
use sitrep_schemas::{countries, DatasetId};

use crate::{
    arrow_util::{batch, bool_column, f64_column, text_column},
    FetchContext, Fetched, Source, SourceError, Window,
};

const REGISTRY_CSV: &str = include_str!("../../data/reference/spr_registry.csv");
const REGIMES: [&str; 5] = ["government_spr", "mandatory_stockholding", "commercial_only", "none", "spare_capacity"];

#[derive(Debug, Deserialize)]
pub struct Entry {
    pub country_code: String,
    pub regime: String,
    pub operator: Option<String>,
    pub capacity_mb: Option<f64>,
    pub iea_member: bool,
}

/// The registry's rows, checked: known country codes and regimes, no duplicates.
pub fn entries(csv: &str) -> Result<Vec<Entry>, SourceError> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let mut out: Vec<Entry> = Vec::new();
    for row in reader.deserialize::<Entry>() {
        let mut e = row.map_err(|e| SourceError::parse("spr registry", e))?;
        e.operator = e.operator.filter(|o| !o.trim().is_empty());
        if countries::name_of(&e.country_code).is_none() || !REGIMES.contains(&e.regime.as_str()) {
            return Err(SourceError::parse(
                "spr registry",
                format!("{}: unknown country or regime {}", e.country_code, e.regime),
            ));
        }
        if out.iter().any(|o| o.country_code == e.country_code) {
            return Err(SourceError::parse("spr registry", format!("{} is listed twice", e.country_code)));
        }
        out.push(e);
    }
    out.sort_by(|a, b| a.country_code.cmp(&b.country_code));
    Ok(out)
}

fn rows(entries: &[Entry]) -> Result<RecordBatch, SourceError> {
    batch(
        DatasetId::SPR_REGISTRY,
        vec![
            text_column(entries, |e| Some(e.country_code.as_str())),
            text_column(entries, |e| Some(e.regime.as_str())),
            text_column(entries, |e| e.operator.as_deref()),
            f64_column(entries, |e| e.capacity_mb),
            bool_column(entries, |e| e.iea_member),
        ],
    )
}

#[derive(Default)]
pub struct SprRegistrySource;

#[async_trait::async_trait]
impl Source for SprRegistrySource {
    fn dataset(&self) -> DatasetId {
        DatasetId::SPR_REGISTRY
    }

    fn upstreams(&self) -> &'static [&'static str] {
        // Not an HTTP upstream: nothing to replay.
        &[]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("spr-registry is one file")?;
        Ok(Fetched::all(rows(&entries(REGISTRY_CSV)?)?, ctx.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_covers_every_iea_member_and_the_named_others() {
        let all = entries(REGISTRY_CSV).unwrap();
        let has = |c: &str| all.iter().find(|e| e.country_code == c);
        let iea = [
            "AU", "AT", "BE", "CA", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "JP", "KR", "LV", "LT",
            "LU", "MX", "NL", "NZ", "NO", "PL", "PT", "SK", "ES", "SE", "CH", "TR", "GB", "US",
        ];
        for c in iea {
            assert!(has(c).is_some_and(|e| e.iea_member), "{c} is an IEA member");
        }
        for c in ["CN", "IN", "SG", "ZA", "AE", "ID", "TW"] {
            assert!(has(c).is_some_and(|e| !e.iea_member), "{c} is listed, not a member");
        }
        assert!(has("PK").is_none(), "worked example B: Pakistan is not classified");
    }

    #[test]
    fn a_bad_row_is_refused() {
        let header = "country_code,regime,operator,capacity_mb,iea_member,source\n";
        assert!(entries(&format!("{header}ZZ,none,,,false,x\n")).is_err());
        assert!(entries(&format!("{header}JP,strategic,,,true,x\n")).is_err());
        assert!(entries(&format!("{header}JP,none,,,true,x\nJP,none,,,true,x\n")).is_err());
        let ok = entries(&format!("{header}IN,government_spr,ISPRL,39,false,x\n")).unwrap();
        assert_eq!((ok[0].operator.as_deref(), ok[0].capacity_mb), (Some("ISPRL"), Some(39.0)));
    }
}
