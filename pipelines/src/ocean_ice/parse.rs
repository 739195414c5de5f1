//! The four ocean and ice sources' formats (SUPPLEMENT 2.2.4) and the sea-ice computations.

use chrono::{Datelike, NaiveDate};
use sitrep_schemas::{climate::ArcticTrend, numbers::round_to};

use crate::SourceError;

/// A daily Arctic extent (10⁶ km²).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DailyExtent {
    pub day: NaiveDate,
    pub extent: f64,
}

/// NSIDC's daily CSV: a header, a units row, then `Year, Month, Day, Extent, Missing, Source`.
pub fn nsidc_daily(body: &str) -> Result<Vec<DailyExtent>, SourceError> {
    let mut out = Vec::new();
    for line in body.lines() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(y), Some(m), Some(d), Some(e)) = (f.first(), f.get(1), f.get(2), f.get(3)) else { continue };
        let (Ok(y), Ok(m), Ok(d), Ok(e)) = (y.parse::<i32>(), m.parse::<u32>(), d.parse::<u32>(), e.parse::<f64>())
        else {
            continue; // the header and the units row
        };
        if let Some(day) = NaiveDate::from_ymd_opt(y, m, d).filter(|_| e >= 0.0) {
            out.push(DailyExtent { day, extent: e });
        }
    }
    if out.is_empty() {
        return Err(SourceError::parse("nsidc daily", "no data rows"));
    }
    out.sort_by_key(|d| d.day);
    Ok(out)
}

/// NSIDC's climatology CSV: a preamble, a header, then `DOY, Average, Std, 10th, 25th, 50th, …`;
/// the median (50th percentile) per day of year.
pub fn nsidc_median(body: &str) -> Result<Vec<(u32, f64)>, SourceError> {
    let mut out = Vec::new();
    for line in body.lines() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(doy), Some(median)) = (f.first(), f.get(5)) else { continue };
        if let (Ok(doy), Ok(median)) = (doy.parse::<u32>(), median.parse::<f64>()) {
            out.push((doy, median));
        }
    }
    if out.is_empty() {
        return Err(SourceError::parse("nsidc climatology", "no data rows"));
    }
    Ok(out)
}

/// The median extent of a day of year (DOY 366 falls back to 365).
pub fn median_of(medians: &[(u32, f64)], day: NaiveDate) -> Option<f64> {
    let doy = day.ordinal();
    medians
        .iter()
        .find(|(d, _)| *d == doy)
        .or_else(|| medians.iter().find(|(d, _)| *d == doy.min(365)))
        .map(|(_, m)| *m)
}

/// The sea-ice values: latest extent, its anomaly, the trend word and the 12-month series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeaIce {
    pub latest: DailyExtent,
    pub anomaly: f64,
    pub trend: ArcticTrend,
    /// (`YYYY-MM`, extent, anomaly) of the last 12 months.
    pub months: Vec<(String, f64, f64)>,
}

pub fn sea_ice(daily: &[DailyExtent], medians: &[(u32, f64)]) -> Result<SeaIce, SourceError> {
    let latest = *daily.last().ok_or_else(|| SourceError::parse("nsidc daily", "empty"))?;
    let median = median_of(medians, latest.day).ok_or_else(|| SourceError::parse("nsidc climatology", "no DOY"))?;
    let anomaly = round_to(latest.extent - median, 2);
    let same_day: Vec<f64> = daily
        .iter()
        .filter(|d| {
            d.day.year() < latest.day.year() && (d.day.month(), d.day.day()) == (latest.day.month(), latest.day.day())
        })
        .map(|d| d.extent)
        .collect();
    let trend = if same_day.len() >= 2 && same_day.iter().all(|v| latest.extent <= *v) {
        ArcticTrend::RecordLow
    } else if anomaly <= -0.5 {
        ArcticTrend::BelowAverage
    } else if anomaly >= 0.5 {
        ArcticTrend::AboveAverage
    } else {
        ArcticTrend::Average
    };
    let mut months: Vec<(String, f64, f64)> = Vec::new();
    for d in daily.iter().rev() {
        let key = d.day.format("%Y-%m").to_string();
        if months.iter().any(|(m, _, _)| *m == key) {
            continue;
        }
        if months.len() == 12 {
            break;
        }
        let median = median_of(medians, d.day).unwrap_or(d.extent);
        months.push((key, d.extent, round_to(d.extent - median, 2)));
    }
    months.reverse();
    Ok(SeaIce { latest, anomaly, trend, months })
}

/// The first decimal number in `s`.
fn first_number(s: &str) -> Option<f64> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    let end = s[start..].find(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(s.len(), |e| start + e);
    s[start..end].parse().ok()
}

/// The last decimal number in `s`.
fn last_number(s: &str) -> Option<f64> {
    let end = s.rfind(|c: char| c.is_ascii_digit())? + 1;
    let start = s[..end].rfind(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(0, |i| i + 1);
    s[start..end].parse().ok()
}

/// NASA's global mean sea level page: the millimetres after "RISE SINCE 1993" and the rate in
/// cm/year (→ mm/year).
pub fn nasa_sea_level(html: &str) -> Result<(f64, f64), SourceError> {
    let text = crate::feeds::plain_text(html, usize::MAX);
    let upper = text.to_ascii_uppercase();
    let rise = upper.find("RISE SINCE 1993").and_then(|i| first_number(&text[i + "RISE SINCE 1993".len()..]));
    let rate = upper.find("CM/YEAR").and_then(|i| last_number(&text[..i]));
    match (rise, rate) {
        (Some(rise), Some(rate)) => Ok((rise, round_to(rate * 10.0, 2))),
        _ => Err(SourceError::parse("nasa sea level", "no \"RISE SINCE 1993\" value or cm/year rate")),
    }
}

/// NCEI's `h22-w0-700m.dat`: `YEAR WO …` (WO in 10²² J); the latest year and WO × 10 (ZJ).
pub fn ncei_ohc(body: &str) -> Result<(f64, f64), SourceError> {
    let latest = body
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some((f.first()?.parse::<f64>().ok()?, f.get(1)?.parse::<f64>().ok()?))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    latest
        .map(|(year, wo)| (year, round_to(wo * 10.0, 2)))
        .ok_or_else(|| SourceError::parse("ncei ohc", "no data rows"))
}

/// The newest `aravg.mon.ocean.90S.90N.v6.*.asc` named in NOAA's directory index.
pub fn noaa_latest_file(index_html: &str) -> Result<String, SourceError> {
    let mut names: Vec<&str> = index_html
        .split(['"', '>', '<'])
        .filter(|s| s.starts_with("aravg.mon.ocean.90S.90N.v6") && s.ends_with(".asc"))
        .collect();
    names.sort_unstable();
    names.last().map(|s| s.to_string()).ok_or_else(|| SourceError::parse("noaa v6 index", "no ocean series file"))
}

/// The latest monthly anomaly of a v6 series (`year month anomaly …`) and its month.
pub fn noaa_sst(body: &str) -> Result<(NaiveDate, f64), SourceError> {
    body.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (y, m, a) =
                (f.first()?.parse::<i32>().ok()?, f.get(1)?.parse::<u32>().ok()?, f.get(2)?.parse::<f64>().ok()?);
            Some((NaiveDate::from_ymd_opt(y, m, 1)?, a))
        })
        .filter(|(_, a)| *a > -999.0)
        .max_by_key(|(d, _)| *d)
        .ok_or_else(|| SourceError::parse("noaa v6 series", "no data rows"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn sea_ice_anomaly_trend_and_months() {
        let daily = nsidc_daily(" Year, Month, Day,     Extent,    Missing, Source Data\n  YYYY,    MM,  DD, 10^6 sq km, 10^6 sq km, Source data product web site: https://nsidc.org\n 2024,  11,  18,    9.500,      0.000, ['x']\n 2025,  11,  18,    9.200,      0.000, ['x']\n 2026,  10,  31,    7.100,      0.000, ['x']\n 2026,  11,  18,    9.100,      0.000, ['x']\n").unwrap();
        let medians = nsidc_median("Arctic climatology 1981-2010\nDOY, Average Extent, Std Deviation, 10th, 25th, 50th, 75th, 90th\n304, 7.9, 0.5, 7, 7.5, 7.80, 8, 8.5\n322, 10.5, 0.5, 9.8, 10.1, 10.40, 10.8, 11\n").unwrap();
        let ice = sea_ice(&daily, &medians).unwrap();
        assert_eq!((ice.latest.extent, ice.anomaly), (9.1, -1.3));
        assert_eq!(ice.trend, ArcticTrend::RecordLow, "below both earlier 18 Novembers");
        assert_eq!(ice.months.last().unwrap(), &("2026-11".to_string(), 9.1, -1.3));
        assert_eq!(ice.months[ice.months.len() - 2], ("2026-10".to_string(), 7.1, -0.7));
        let one_year = [daily[1], daily[3]];
        assert_eq!(
            sea_ice(&one_year, &medians).unwrap().trend,
            ArcticTrend::BelowAverage,
            "one earlier year is not a record"
        );
    }

    #[test]
    fn the_other_three_formats() {
        let html = r#"<div class="vital-signs"><h4>RISE SINCE 1993</h4><p class="value">111.6 <span>mm</span></p>
            <p>Rate of change: <strong>0.44</strong> cm/year</p></div>"#;
        assert_eq!(nasa_sea_level(html).unwrap(), (111.6, 4.4));
        assert!(nasa_sea_level("<html>maintenance</html>").is_err());
        assert_eq!(
            ncei_ohc("YEAR  WO  WOse  NH\n 2023.5  28.911  0.4  1\n 2024.5  29.523  0.41  1\n").unwrap(),
            (2024.5, 295.23)
        );
        let index = r#"<a href="aravg.mon.ocean.90S.90N.v6.0.0.202609.asc">…</a><a href="aravg.mon.ocean.90S.90N.v6.0.0.202610.asc">…</a><a href="aravg.mon.land.90S.90N.v6.0.0.202610.asc">"#;
        assert_eq!(noaa_latest_file(index).unwrap(), "aravg.mon.ocean.90S.90N.v6.0.0.202610.asc");
        assert_eq!(noaa_sst("2026 9 0.6210 0.1\n2026 10 0.6543 0.1\n").unwrap(), (day("2026-10-01"), 0.6543));
    }
}
