//! IMF PortWatch daily chokepoint transits (SUPPLEMENT 2.5.3) → `chokepoint-flows`: 180 days per
//! chokepoint from its ArcGIS FeatureServer (paged while `exceededTransferLimit`), reduced to the
//! last 7 days against the 90 before them.

use chrono::{DateTime, Duration, NaiveTime};
use serde::Deserialize;
use sitrep_schemas::{numbers::mean, DatasetId};
use url::Url;

use crate::{
    arrow_util::{batch, bool_column, date_column, f64_column, i32_column, text_column},
    FetchContext, Fetched, Source, SourceError, Window,
};

const QUERY: &str =
    "https://services9.arcgis.com/weJ1QsnbMYJlCHdG/arcgis/rest/services/Daily_Chokepoints_Data/FeatureServer/0/query";
const DAYS_BACK: i64 = 180;
const PAGE: usize = 2000;
const MAX_PAGES: usize = 20;
const MIN_DAYS: usize = 40;
const CURRENT_DAYS: usize = 7;
const BASELINE_DAYS: usize = 90;

/// Chokepoint id, PortWatch's portname, static baseline flow in mb/d (EIA 2023).
pub const CHOKEPOINTS: [(&str, &str, f64); 4] = [
    ("hormuz_strait", "Strait of Hormuz", 21.0),
    ("malacca_strait", "Malacca Strait", 17.2),
    ("suez", "Suez Canal", 7.6),
    ("bab_el_mandeb", "Bab el-Mandeb Strait", 6.2),
];

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    features: Vec<Feature>,
    #[serde(default, rename = "exceededTransferLimit")]
    exceeded: bool,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Feature {
    attributes: Day,
}

/// One day of transits.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct Day {
    /// UTC midnight, epoch ms.
    pub date: i64,
    #[serde(default)]
    pub n_tanker: Option<f64>,
    #[serde(default)]
    pub capacity_tanker: Option<f64>,
}

/// A chokepoint's flow against its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    pub flow_ratio: f64,
    pub current_mbd: f64,
    pub baseline_mbd: f64,
    pub disrupted: bool,
    /// `dwt` or `counts`.
    pub basis: &'static str,
    pub days: usize,
    pub last_day_ms: i64,
}

/// The flow of a chokepoint from its days (any order); `None` with fewer than 40 days or no
/// baseline. DWT when at least half of the baseline days carry tanker capacity, else counts.
pub fn flow(mut days: Vec<Day>, baseline_mbd: f64) -> Option<Flow> {
    days.sort_by_key(|d| d.date);
    days.dedup_by_key(|d| d.date);
    if days.len() < MIN_DAYS {
        return None;
    }
    let split = days.len() - CURRENT_DAYS;
    let (earlier, current) = days.split_at(split);
    let baseline_days = &earlier[earlier.len().saturating_sub(BASELINE_DAYS)..];
    let with_capacity = baseline_days.iter().filter(|d| d.capacity_tanker.is_some()).count();
    let dwt = with_capacity * 2 >= baseline_days.len();
    let measure = |d: &Day| if dwt { d.capacity_tanker } else { d.n_tanker };
    let baseline = mean(baseline_days.iter().filter_map(measure)).filter(|b| *b > 0.0)?;
    let now = mean(current.iter().filter_map(measure))?;
    let flow_ratio = (now / baseline).clamp(0.0, 1.5);
    let disrupted = days[days.len() - 3..].iter().all(|d| measure(d).is_some_and(|m| m < 0.85 * baseline));
    Some(Flow {
        flow_ratio,
        current_mbd: baseline_mbd * flow_ratio,
        baseline_mbd,
        disrupted,
        basis: if dwt { "dwt" } else { "counts" },
        days: days.len(),
        last_day_ms: days[days.len() - 1].date,
    })
}

/// Every day of one chokepoint since `start` (`YYYY-MM-DD HH:MM:SS`), paged.
async fn fetch_days(ctx: &FetchContext, portname: &str, start: &str) -> Result<Vec<Day>, SourceError> {
    let mut days = Vec::new();
    for _ in 0..MAX_PAGES {
        let mut url = Url::parse(QUERY).map_err(|e| SourceError::parse("portwatch url", e))?;
        url.query_pairs_mut()
            .append_pair("where", &format!("portname='{portname}' AND date >= timestamp '{start}'"))
            .append_pair("outFields", "date,n_tanker,n_total,capacity_tanker")
            .append_pair("orderByFields", "date")
            .append_pair("f", "json")
            .append_pair("resultOffset", &days.len().to_string())
            .append_pair("resultRecordCount", &PAGE.to_string());
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        let answer: Answer = serde_json::from_slice(&reply.body).map_err(|e| SourceError::parse("portwatch", e))?;
        if let Some(error) = answer.error {
            return Err(SourceError::Upstream(format!("portwatch {portname}: {error}")));
        }
        let got = answer.features.len();
        days.extend(answer.features.into_iter().map(|f| f.attributes));
        if !answer.exceeded || got == 0 {
            return Ok(days);
        }
    }
    Err(SourceError::Upstream(format!("portwatch {portname}: more than {MAX_PAGES} pages")))
}

#[derive(Default)]
pub struct ChokepointFlowsSource;

#[async_trait::async_trait]
impl Source for ChokepointFlowsSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::CHOKEPOINT_FLOWS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["portwatch"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        window.scheduled_only("chokepoint-flows keeps only the current flows")?;
        let start = (ctx.now.date_naive() - Duration::days(DAYS_BACK)).and_time(NaiveTime::MIN);
        let start = start.format("%Y-%m-%d %H:%M:%S").to_string();
        let mut flows: Vec<(&str, Flow)> = Vec::new();
        for (id, portname, baseline_mbd) in CHOKEPOINTS {
            let days = fetch_days(ctx, portname, &start).await?;
            flows.extend(flow(days, baseline_mbd).map(|f| (id, f)));
        }
        let batch = batch(
            DatasetId::CHOKEPOINT_FLOWS,
            vec![
                text_column(&flows, |(id, _)| Some(id)),
                f64_column(&flows, |(_, f)| Some(f.flow_ratio)),
                f64_column(&flows, |(_, f)| Some(f.current_mbd)),
                f64_column(&flows, |(_, f)| Some(f.baseline_mbd)),
                bool_column(&flows, |(_, f)| f.disrupted),
                text_column(&flows, |(_, f)| Some(f.basis)),
                i32_column(&flows, |(_, f)| Some(f.days as i32)),
                date_column(&flows, |(_, f)| DateTime::from_timestamp_millis(f.last_day_ms).map(|t| t.date_naive())),
            ],
        )?;
        Ok(Fetched::all(batch, ctx.now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn days(n: usize, tankers: impl Fn(usize) -> f64, capacity: impl Fn(usize) -> Option<f64>) -> Vec<Day> {
        (0..n)
            .map(|i| Day { date: i as i64 * 86_400_000, n_tanker: Some(tankers(i)), capacity_tanker: capacity(i) })
            .collect()
    }

    #[test]
    fn the_last_week_against_the_ninety_days_before() {
        // 100 days: baseline = days 3..93 (90 days) of 40 tankers, current = the last 7 of 30.
        let f = flow(days(100, |i| if i >= 93 { 30.0 } else { 40.0 }, |_| None), 21.0).unwrap();
        assert_eq!((f.basis, f.flow_ratio, f.days), ("counts", 0.75, 100));
        assert!((f.current_mbd - 15.75).abs() < 1e-12);
        assert!(f.disrupted, "30 < 0.85 × 40 on each of the last 3 days");
        // DWT when half of the baseline days carry capacity; the mean over the days that do.
        let f = flow(days(60, |_| 10.0, |i| (i % 2 == 0).then_some(if i >= 53 { 6.0e6 } else { 5.0e6 })), 6.2).unwrap();
        assert_eq!((f.basis, f.flow_ratio), ("dwt", 1.2));
        assert!(!f.disrupted, "a day without the measure is not below it");
        assert_eq!(flow(days(39, |_| 1.0, |_| None), 1.0), None, "fewer than 40 days");
        let f = flow(days(50, |i| if i >= 43 { 100.0 } else { 10.0 }, |_| None), 1.0).unwrap();
        assert_eq!(f.flow_ratio, 1.5, "clamped");
    }
}
