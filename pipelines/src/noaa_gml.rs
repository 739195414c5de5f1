//! NOAA GML trends (SUPPLEMENT 2.2.3) → `co2-monitoring`: five whitespace-separated text files
//! (`#` comment lines; a negative value such as −999.99 is a gap), reduced at ingest to the
//! numbers GetCo2Monitoring answers.

use chrono::{Datelike, NaiveDate};
use sitrep_schemas::{numbers::round_to, DatasetId};
use url::Url;

use crate::{
    arrow_util::{batch, f64s, finish, i32s, instants, strings},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

const BASE: &str = "https://gml.noaa.gov/webdata/ccgg/trends";
pub const STATION: &str = "Mauna Loa, Hawaii";
pub const PRE_INDUSTRIAL_PPM: f64 = 280.0;

/// One dated value of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub year: i32,
    /// 1–12 (0 for annual series).
    pub month: u32,
    /// 1–31 (0 for monthly and annual series).
    pub day: u32,
    pub value: f64,
}

/// The data lines of a GML file: `#` comments and blank lines skipped, the date columns and the
/// value column read, gaps (negative values) dropped. `date_columns` is 3 (daily), 2 (monthly)
/// or 1 (annual); `value_column` counts from 0.
pub fn parse(body: &str, date_columns: usize, value_column: usize, what: &str) -> Result<Vec<Point>, SourceError> {
    let mut out = Vec::new();
    for (n, line) in body.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || SourceError::parse(what, format!("line {}: `{line}`", n + 1));
        if f.len() <= value_column.max(date_columns - 1) {
            return Err(bad());
        }
        let int = |i: usize| f[i].parse::<i64>().map_err(|_| bad());
        let value: f64 = f[value_column].parse().map_err(|_| bad())?;
        let year = int(0)? as i32;
        let month = if date_columns >= 2 { int(1)? as u32 } else { 0 };
        let day = if date_columns >= 3 { int(2)? as u32 } else { 0 };
        if value >= 0.0 {
            out.push(Point { year, month, day, value });
        }
    }
    if out.is_empty() {
        return Err(SourceError::parse(what, "no data lines"));
    }
    Ok(out)
}

fn date(p: &Point) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(p.year, p.month, p.day)
}

/// GetCo2Monitoring's numbers (2.2.3's mapping).
#[derive(Debug, Clone, PartialEq)]
pub struct Co2Summary {
    pub current_ppm: f64,
    /// UTC midnight of the latest daily value, epoch ms.
    pub measured_at: i64,
    pub year_ago_ppm: f64,
    pub annual_growth_rate: f64,
    pub monthly_average: f64,
    /// (`YYYY-MM`, ppm, anomaly against the same month a year earlier or 0).
    pub trend12m: Vec<(String, f64, f64)>,
    pub methane_ppb: f64,
    pub nitrous_oxide_ppb: f64,
}

pub fn summarise(
    daily: &[Point],
    monthly: &[Point],
    annual: &[Point],
    ch4: &[Point],
    n2o: &[Point],
) -> Result<Co2Summary, SourceError> {
    let latest = daily.iter().filter_map(|p| date(p).map(|d| (d, p.value))).max_by_key(|(d, _)| *d);
    let (day, current) = latest.ok_or_else(|| SourceError::parse("co2 daily", "no valid day"))?;
    let prior_year: Vec<(NaiveDate, f64)> = daily
        .iter()
        .filter_map(|p| date(p).map(|d| (d, p.value)))
        .filter(|(d, _)| d.year() == day.year() - 1)
        .collect();
    let same_day = day.with_year(day.year() - 1);
    let year_ago = prior_year
        .iter()
        .min_by_key(|(d, _)| same_day.map(|s| (*d - s).num_days().abs()).unwrap_or(i64::MAX))
        .map(|(_, v)| *v)
        .unwrap_or(0.0);
    let annual_growth_rate = match annual {
        [.., previous, last] => round_to(last.value - previous.value, 2),
        _ => 0.0,
    };
    let month_key = |p: &Point| (p.year, p.month);
    let monthly_average = monthly
        .iter()
        .filter(|p| month_key(p) <= (day.year(), day.month()))
        .max_by_key(|p| month_key(p))
        .map(|p| p.value)
        .unwrap_or(0.0);
    let last12 = &monthly[monthly.len().saturating_sub(12)..];
    let trend12m = last12
        .iter()
        .map(|p| {
            let before = monthly.iter().find(|q| q.year == p.year - 1 && q.month == p.month);
            let anomaly = before.map(|q| round_to(p.value - q.value, 2)).unwrap_or(0.0);
            (format!("{:04}-{:02}", p.year, p.month), p.value, anomaly)
        })
        .collect();
    let latest_of = |s: &[Point]| s.iter().max_by_key(|p| month_key(p)).map(|p| round_to(p.value, 2)).unwrap_or(0.0);
    Ok(Co2Summary {
        current_ppm: current,
        measured_at: day.and_hms_opt(0, 0, 0).map(|t| t.and_utc().timestamp_millis()).unwrap_or(0),
        year_ago_ppm: year_ago,
        annual_growth_rate,
        monthly_average,
        trend12m,
        methane_ppb: latest_of(ch4),
        nitrous_oxide_ppb: latest_of(n2o),
    })
}

async fn text(ctx: &FetchContext, path: &str) -> Result<String, SourceError> {
    let url = Url::parse(&format!("{BASE}/{path}")).map_err(|e| SourceError::parse("noaa url", e))?;
    let reply = ctx.http.get_ok(&url, Default::default()).await?;
    Ok(String::from_utf8_lossy(&reply.body).into_owned())
}

#[derive(Default)]
pub struct Co2Source;

#[async_trait::async_trait]
impl Source for Co2Source {
    fn dataset(&self) -> DatasetId {
        DatasetId::CO2_MONITORING
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["noaa-gml"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("co2-monitoring is rebuilt whole from NOAA's files".into()));
        }
        let (daily, monthly, annual, ch4, n2o) = tokio::try_join!(
            text(ctx, "co2/co2_daily_mlo.txt"),
            text(ctx, "co2/co2_mm_mlo.txt"),
            text(ctx, "co2/co2_annmean_gl.txt"),
            text(ctx, "ch4/ch4_mm_gl.txt"),
            text(ctx, "n2o/n2o_mm_gl.txt"),
        )?;
        let summary = summarise(
            &parse(&daily, 3, 4, "co2 daily")?,
            &parse(&monthly, 2, 3, "co2 monthly")?,
            &parse(&annual, 1, 1, "co2 annual")?,
            &parse(&ch4, 2, 3, "ch4 monthly")?,
            &parse(&n2o, 2, 3, "n2o monthly")?,
        )?;
        Ok(Fetched {
            partial_error: None,
            batch: rows(&summary)?,
            scope: Scope::All,
            as_of: ctx.now,
            upstream_version: None,
        })
    }
}

fn rows(s: &Co2Summary) -> Result<arrow::array::RecordBatch, SourceError> {
    let n = 1 + s.trend12m.len();
    let (mut kind, mut position, mut station, mut month) = (strings(n), i32s(n), strings(n), strings(n));
    let mut summary: Vec<_> = (0..7).map(|_| f64s(n)).collect();
    let (mut measured, mut ppm, mut anomaly) = (instants(n), f64s(n), f64s(n));
    let values = [
        s.current_ppm,
        s.year_ago_ppm,
        s.annual_growth_rate,
        PRE_INDUSTRIAL_PPM,
        s.monthly_average,
        s.methane_ppb,
        s.nitrous_oxide_ppb,
    ];
    kind.append_value("summary");
    position.append_value(0);
    summary.iter_mut().zip(values).for_each(|(b, v)| b.append_value(v));
    measured.append_value(s.measured_at);
    station.append_value(STATION);
    month.append_null();
    ppm.append_null();
    anomaly.append_null();
    for (i, (m, p, a)) in s.trend12m.iter().enumerate() {
        kind.append_value("trend");
        position.append_value(i as i32);
        summary.iter_mut().for_each(|b| b.append_null());
        measured.append_null();
        station.append_null();
        month.append_value(m);
        ppm.append_value(*p);
        anomaly.append_value(*a);
    }
    let mut columns = vec![finish(kind), finish(position)];
    columns.extend(summary.into_iter().map(finish));
    columns.extend([finish(measured), finish(station), finish(month), finish(ppm), finish(anomaly)]);
    batch(DatasetId::CO2_MONITORING, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(year: i32, month: u32, day: u32, value: f64) -> Point {
        Point { year, month, day, value }
    }

    #[test]
    fn comments_and_gaps_are_skipped() {
        let body =
            "# header\n#  year month day decimal average\n 2026 03 27 2026.236 -999.99\n 2026 03 28 2026.238 427.55\n";
        assert_eq!(parse(body, 3, 4, "daily").unwrap(), [p(2026, 3, 28, 427.55)]);
        assert!(parse("# only comments\n", 3, 4, "daily").is_err());
        assert!(parse("2026 03 x 1 2\n", 3, 4, "daily").is_err());
    }

    #[test]
    fn the_mapping_with_hand_checked_values() {
        let daily = [p(2025, 3, 25, 424.9), p(2025, 3, 30, 425.2), p(2026, 3, 27, 427.1), p(2026, 3, 28, 427.55)];
        let monthly: Vec<Point> = (1..=15)
            .map(|i| {
                let (y, m) = if i <= 12 { (2025, i) } else { (2026, i - 12) };
                p(y, m, 0, 420.0 + i as f64 * 0.5)
            })
            .collect();
        let annual = [p(2024, 0, 0, 422.79), p(2025, 0, 0, 425.24)];
        let s = summarise(&daily, &monthly, &annual, &[p(2025, 12, 0, 1935.456)], &[p(2025, 12, 0, 338.114)]).unwrap();
        assert_eq!(s.current_ppm, 427.55);
        assert_eq!(s.measured_at, 1_774_656_000_000, "2026-03-28T00:00Z");
        assert_eq!(s.year_ago_ppm, 425.2, "2025-03-28 is missing: the closest day of 2025 (the 30th, 2 days off)");
        assert_eq!(s.annual_growth_rate, 2.45);
        assert_eq!(s.monthly_average, 427.5, "March 2026 is the 15th month: 420 + 7.5");
        assert_eq!(s.trend12m.len(), 12);
        assert_eq!(s.trend12m[11], ("2026-03".to_string(), 427.5, 6.0), "against March 2025");
        assert_eq!(s.trend12m[0].2, 0.0, "April 2025 has no April 2024");
        assert_eq!((s.methane_ppb, s.nitrous_oxide_ppb), (1935.46, 338.11));
    }
}
