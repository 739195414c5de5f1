//! IEA's oil stocks in days of net imports (SUPPLEMENT 2.5.3) → `iea-stocks`: the newest month
//! (`/netimports/latest`), then that month's figure per member. Totals are skipped; "Net Exporter"
//! has no days; a figure over 500 days is kept but marked an anomaly.

use serde::Deserialize;
use sitrep_schemas::{countries, DatasetId};
use url::Url;

use crate::{
    arrow_util::{batch, bool_column, i32_column, text_column},
    FetchContext, Fetched, Source, SourceError, Window,
};

const LATEST: &str = "https://api.iea.org/netimports/latest";
const MONTHLY: &str = "https://api.iea.org/netimports/monthly/";
const NET_EXPORTER: &str = "Net Exporter";
const ANOMALY_DAYS: i64 = 500;

#[derive(Deserialize)]
struct Latest {
    year: i32,
    month: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MonthRow {
    country_name: String,
    year_month: serde_json::Value,
    total: String,
}

/// One member's cover in the month.
#[derive(Debug, Clone, PartialEq)]
pub struct Cover {
    pub country_code: &'static str,
    pub data_month: String,
    pub days: Option<i64>,
    pub net_exporter: bool,
    pub anomaly: bool,
}

/// `202609` (number or string) → `2026-09`.
fn month_of(year_month: &serde_json::Value) -> Option<String> {
    let ym: u32 = match year_month {
        serde_json::Value::Number(n) => n.as_u64()?.try_into().ok()?,
        serde_json::Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    (1..=12).contains(&(ym % 100)).then(|| format!("{}-{:02}", ym / 100, ym % 100))
}

/// The month's rows as covers: totals, unknown names and unreadable figures are left out.
fn covers(rows: Vec<MonthRow>) -> (Vec<Cover>, Vec<String>) {
    let (mut out, mut unknown) = (Vec::new(), Vec::new());
    for row in rows {
        let name = row.country_name.trim();
        if name.starts_with("Total") {
            continue;
        }
        let Some(country_code) = countries::alpha2_from_name(name) else {
            unknown.push(name.to_string());
            continue;
        };
        let Some(data_month) = month_of(&row.year_month) else { continue };
        let total = row.total.trim();
        let (days, net_exporter) = if total.eq_ignore_ascii_case(NET_EXPORTER) {
            (None, true)
        } else {
            match total.parse::<f64>() {
                Ok(d) if d.is_finite() => (Some(d.round() as i64), false),
                _ => continue,
            }
        };
        out.push(Cover {
            country_code,
            data_month,
            anomaly: days.is_some_and(|d| d > ANOMALY_DAYS),
            days,
            net_exporter,
        });
    }
    out.sort_by_key(|c| c.country_code);
    out.dedup_by_key(|c| c.country_code);
    (out, unknown)
}

fn rows(covers: &[Cover]) -> Result<arrow::array::RecordBatch, SourceError> {
    batch(
        DatasetId::IEA_STOCKS,
        vec![
            text_column(covers, |c| Some(c.country_code)),
            text_column(covers, |c| Some(c.data_month.as_str())),
            i32_column(covers, |c| c.days.and_then(|d| i32::try_from(d).ok())),
            bool_column(covers, |c| c.net_exporter),
            bool_column(covers, |c| c.anomaly),
        ],
    )
}

#[derive(Default)]
pub struct IeaStocksSource;

#[async_trait::async_trait]
impl Source for IeaStocksSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::IEA_STOCKS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["iea"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("iea-stocks keeps the newest month")?;
        let url = Url::parse(LATEST).map_err(|e| SourceError::parse("iea url", e))?;
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        let latest: Latest = serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("iea latest", e))?;
        let mut url = Url::parse(MONTHLY).map_err(|e| SourceError::parse("iea url", e))?;
        url.query_pairs_mut()
            .append_pair("year", &latest.year.to_string())
            .append_pair("month", &latest.month.to_string());
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        let month: Vec<MonthRow> =
            serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("iea monthly", e))?;
        let (covers, unknown) = covers(month);
        if !unknown.is_empty() {
            // A renamed member must not vanish silently from the scenario's coverage.
            tracing::warn!(names = ?unknown, "iea-stocks: country names without an ISO code");
        }
        Ok(Fetched::all(rows(&covers)?, ctx.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, ym: serde_json::Value, total: &str) -> MonthRow {
        MonthRow { country_name: name.into(), year_month: ym, total: total.into() }
    }

    #[test]
    fn members_by_iso_code_with_exporters_and_anomalies() {
        let (c, unknown) = covers(vec![
            row("Japan", 202609.into(), "220"),
            row("Korea", "202609".into(), "210.4"),
            row("United States", 202609.into(), "Net Exporter"),
            row("Estonia", 202609.into(), "612"),
            row("Total IEA net importers", 202609.into(), "140"),
            row("Atlantis", 202609.into(), "90"),
            row("Germany", 202609.into(), "n/a"),
        ]);
        let got: Vec<_> = c.iter().map(|c| (c.country_code, c.days, c.net_exporter, c.anomaly)).collect();
        assert_eq!(
            got,
            [
                ("EE", Some(612), false, true),
                ("JP", Some(220), false, false),
                ("KR", Some(210), false, false),
                ("US", None, true, false)
            ]
        );
        assert_eq!(c[0].data_month, "2026-09");
        assert_eq!(unknown, ["Atlantis"]);
    }
}
