//! Open-Meteo's ERA5 archive (SUPPLEMENT 2.2.1) → `climate-normals` (the 1991–2020 monthly
//! normals of 25 zones, every 30 days) and `climate-anomalies` (the last 7 valid days of each zone
//! against its normal, classified, every 3 hours; published only through the gate).

use std::{collections::BTreeMap, time::Duration};

use arrow::array::{Array, Float64Array, Int32Array, RecordBatch, StringArray};
use chrono::{Datelike, NaiveDate};
use serde::Deserialize;
use sitrep_schemas::{
    numbers::{mean, round_to},
    DatasetId,
};
use url::Url;

use crate::{
    arrow_util::{batch, column, f64_column, i32_column, text_column},
    FetchContext, Fetched, Scope, Source, SourceError, Window,
};

const ARCHIVE: &str = "https://archive-api.open-meteo.com/v1/archive";
const NORMALS_FROM: &str = "1991-01-01";
const NORMALS_TO: &str = "2020-12-31";
/// Zones per call: the anomaly window is short, the 30-year normals are not.
const ANOMALY_ZONES_PER_CALL: usize = 8;
const NORMAL_ZONES_PER_CALL: usize = 2;
const WINDOW_DAYS: i64 = 21;
const VALID_DAYS: usize = 7;
/// Open-Meteo's fair-use spacing between calls (live; see `UpstreamConfig::pace_calls`).
pub const CALL_SPACING: Duration = Duration::from_millis(750);

/// A zone: its name and the point whose climate stands for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Zone {
    pub name: &'static str,
    pub lat: f64,
    pub lon: f64,
}

const fn zone(name: &'static str, lat: f64, lon: f64) -> Zone {
    Zone { name, lat, lon }
}

/// The zones in the API's order.
pub const ZONES: [Zone; 25] = [
    zone("Ukraine", 48.4, 31.2),
    zone("Europe", 51.0, 10.0),
    zone("East Asia", 39.0, 127.0),
    zone("Middle East", 33.0, 44.0),
    zone("Sahel", 14.0, 0.0),
    zone("Horn of Africa", 8.0, 42.0),
    zone("South Asia", 25.0, 78.0),
    zone("California", 36.8, -119.4),
    zone("Amazon", -3.4, -60.0),
    zone("Australia", -25.0, 134.0),
    zone("Mediterranean", 38.0, 20.0),
    zone("Taiwan Strait", 24.0, 120.0),
    zone("Myanmar", 19.8, 96.7),
    zone("Central Africa", 4.0, 22.0),
    zone("Southern Africa", -25.0, 28.0),
    zone("Central Asia", 42.0, 65.0),
    zone("Latin America", 7.0, -66.0),
    zone("Caribbean", 19.0, -72.0),
    zone("Arctic", 70.0, 0.0),
    zone("Greenland", 72.0, -42.0),
    zone("Western Antarctic Ice Sheet", -78.0, -100.0),
    zone("Tibetan Plateau", 31.0, 91.0),
    zone("Congo Basin", -1.0, 24.0),
    zone("Coral Triangle", -5.0, 128.0),
    zone("North Atlantic", 55.0, -30.0),
];

/// The publish gate: at least this many zones, and every one of these.
pub const GATE_MIN_ZONES: usize = 17;
pub const GATE_REQUIRED: [&str; 7] = [
    "Arctic",
    "Greenland",
    "Western Antarctic Ice Sheet",
    "Tibetan Plateau",
    "Congo Basin",
    "Coral Triangle",
    "North Atlantic",
];

/// One location of an archive answer.
#[derive(Debug, Clone, Deserialize)]
pub struct Location {
    pub daily: Daily,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Daily {
    pub time: Vec<String>,
    pub temperature_2m_mean: Vec<Option<f64>>,
    pub precipitation_sum: Vec<Option<f64>>,
}

/// A single location answers one object; several answer an array in request order.
#[derive(Deserialize)]
#[serde(untagged)]
enum Answer {
    Many(Vec<Location>),
    One(Box<Location>),
}

/// Parses an archive answer for `expected` locations.
pub fn parse(body: &[u8], expected: usize) -> Result<Vec<Location>, SourceError> {
    let locations = match serde_json::from_slice(body).map_err(|e| SourceError::parse("open-meteo archive", e))? {
        Answer::Many(v) => v,
        Answer::One(l) => vec![*l],
    };
    if locations.len() != expected {
        return Err(SourceError::parse("open-meteo archive", format!("{} locations for {expected}", locations.len())));
    }
    for l in &locations {
        let d = &l.daily;
        if d.temperature_2m_mean.len() != d.time.len() || d.precipitation_sum.len() != d.time.len() {
            return Err(SourceError::parse("open-meteo archive", "daily series of different lengths"));
        }
    }
    Ok(locations)
}

/// One valid day: both series present.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Day {
    pub date: NaiveDate,
    pub temp: f64,
    pub precip: f64,
}

impl Daily {
    /// The days with both a temperature and a precipitation value, in date order.
    pub fn valid_days(&self) -> Result<Vec<Day>, SourceError> {
        let mut days = Vec::with_capacity(self.time.len());
        for (i, t) in self.time.iter().enumerate() {
            let date =
                NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|e| SourceError::parse("open-meteo time", e))?;
            if let (Some(temp), Some(precip)) = (self.temperature_2m_mean[i], self.precipitation_sum[i]) {
                if temp.is_finite() && precip.is_finite() {
                    days.push(Day { date, temp, precip });
                }
            }
        }
        days.sort_by_key(|d| d.date);
        Ok(days)
    }
}

/// A zone's normal for one calendar month.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Normal {
    pub month: u32,
    pub temperature_c: f64,
    pub precipitation_mm: f64,
}

/// Monthly normals: per calendar month, the mean over years of the per-(year, month) mean of the
/// daily values (each series on its own days), to 2 dp. Every month must have data.
pub fn monthly_normals(daily: &Daily) -> Result<Vec<Normal>, SourceError> {
    let mut by_year_month: BTreeMap<(i32, u32), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (i, t) in daily.time.iter().enumerate() {
        let date = NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|e| SourceError::parse("open-meteo time", e))?;
        let entry = by_year_month.entry((date.year(), date.month())).or_default();
        entry.0.extend(daily.temperature_2m_mean[i].filter(|v| v.is_finite()));
        entry.1.extend(daily.precipitation_sum[i].filter(|v| v.is_finite()));
    }
    (1..=12)
        .map(|month| {
            let of_month = || by_year_month.iter().filter(move |((_, m), _)| *m == month).map(|(_, v)| v);
            let temp = mean(of_month().filter_map(|(t, _)| mean(t.iter().copied())));
            let precip = mean(of_month().filter_map(|(_, p)| mean(p.iter().copied())));
            match (temp, precip) {
                (Some(t), Some(p)) => {
                    Ok(Normal { month, temperature_c: round_to(t, 2), precipitation_mm: round_to(p, 2) })
                }
                _ => Err(SourceError::Upstream(format!("open-meteo normals: no data for month {month}"))),
            }
        })
        .collect()
}

pub use sitrep_schemas::climate::{AnomalySeverity as Severity, AnomalyType};

/// Severity of rounded deltas (°C, mm/day).
pub fn severity(t: f64, p: f64) -> Severity {
    if t.abs() >= 5.0 || p.abs() >= 12.0 {
        Severity::Extreme
    } else if t.abs() >= 3.0 || p.abs() >= 6.0 {
        Severity::Moderate
    } else {
        Severity::Normal
    }
}

/// Type of rounded deltas: the first rule of 2.2.1 that matches.
pub fn anomaly_type(t: f64, p: f64) -> AnomalyType {
    let temperature_led = t.abs() >= p.abs() / 3.0;
    if temperature_led && t > 0.0 && p < -3.0 {
        AnomalyType::Mixed
    } else if temperature_led && t > 3.0 {
        AnomalyType::Warm
    } else if temperature_led && t < -3.0 {
        AnomalyType::Cold
    } else if p > 6.0 {
        AnomalyType::Wet
    } else if p < -6.0 {
        AnomalyType::Dry
    } else if t > 0.0 {
        AnomalyType::Warm
    } else {
        AnomalyType::Cold
    }
}

/// One zone's anomaly.
#[derive(Debug, Clone, PartialEq)]
pub struct Anomaly {
    pub zone: Zone,
    pub temp_delta: f64,
    pub precip_delta: f64,
    pub severity: Severity,
    pub kind: AnomalyType,
    pub period: String,
}

/// The anomaly of a zone from its window's days and its 12 normals: the last 7 valid days against
/// the normal of the latest day's month; `None` with fewer than 7 valid days.
pub fn anomaly(zone: Zone, days: &[Day], normals: &[Normal]) -> Option<Anomaly> {
    let last = days.len().checked_sub(VALID_DAYS).map(|from| &days[from..])?;
    let (first, latest) = (last.first()?, last.last()?);
    let normal = normals.iter().find(|n| n.month == latest.date.month())?;
    let t = round_to(mean(last.iter().map(|d| d.temp))? - normal.temperature_c, 1);
    let p = round_to(mean(last.iter().map(|d| d.precip))? - normal.precipitation_mm, 1);
    Some(Anomaly {
        zone,
        temp_delta: t,
        precip_delta: p,
        severity: severity(t, p),
        kind: anomaly_type(t, p),
        period: format!("{} to {}", first.date, latest.date),
    })
}

/// Whether a run's anomalies may be published (2.2.1's gate); the reason when not.
pub fn gate(anomalies: &[Anomaly]) -> Result<(), String> {
    let missing: Vec<&str> =
        GATE_REQUIRED.iter().copied().filter(|r| !anomalies.iter().any(|a| a.zone.name == *r)).collect();
    if anomalies.len() < GATE_MIN_ZONES || !missing.is_empty() {
        return Err(format!(
            "publish gate: {} zones computed (at least {GATE_MIN_ZONES} needed), required zones missing: [{}]",
            anomalies.len(),
            missing.join(", ")
        ));
    }
    Ok(())
}

fn archive_url(zones: &[Zone], start: &str, end: &str) -> Result<Url, SourceError> {
    let list = |f: fn(&Zone) -> f64| zones.iter().map(|z| format!("{:.1}", f(z))).collect::<Vec<_>>().join(",");
    let mut url = Url::parse(ARCHIVE).map_err(|e| SourceError::parse("open-meteo url", e))?;
    url.query_pairs_mut()
        .append_pair("latitude", &list(|z| z.lat))
        .append_pair("longitude", &list(|z| z.lon))
        .append_pair("start_date", start)
        .append_pair("end_date", end)
        .append_pair("daily", "temperature_2m_mean,precipitation_sum")
        .append_pair("timezone", "UTC");
    Ok(url)
}

/// Every zone's daily series over `start..=end`, `per_call` zones a call, calls spaced by the
/// configured interval (429s wait for `Retry-After` in the shared client). Any failed call fails
/// the fetch.
async fn fetch_zones(ctx: &FetchContext, per_call: usize, start: &str, end: &str) -> Result<Vec<Daily>, SourceError> {
    let mut out = Vec::with_capacity(ZONES.len());
    for (i, chunk) in ZONES.chunks(per_call).enumerate() {
        if i > 0 {
            ctx.pace(CALL_SPACING).await;
        }
        let url = archive_url(chunk, start, end)?;
        let reply = ctx.http.get_ok(&url, Default::default()).await?;
        out.extend(parse(&reply.body, chunk.len())?.into_iter().map(|l| l.daily));
    }
    Ok(out)
}

#[derive(Default)]
pub struct ClimateNormalsSource;

#[async_trait::async_trait]
impl Source for ClimateNormalsSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::CLIMATE_NORMALS
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["open-meteo"]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("climate-normals covers 1991–2020 as a whole".into()));
        }
        let series = fetch_zones(ctx, NORMAL_ZONES_PER_CALL, NORMALS_FROM, NORMALS_TO).await?;
        let mut rows: Vec<(usize, Normal)> = Vec::with_capacity(ZONES.len() * 12);
        for (position, daily) in series.iter().enumerate() {
            rows.extend(monthly_normals(daily)?.into_iter().map(|n| (position, n)));
        }
        let batch = batch(
            DatasetId::CLIMATE_NORMALS,
            vec![
                i32_column(&rows, |(p, _)| Some(*p as i32)),
                text_column(&rows, |(p, _)| Some(ZONES[*p].name)),
                i32_column(&rows, |(_, n)| Some(n.month as i32)),
                f64_column(&rows, |(_, n)| Some(n.temperature_c)),
                f64_column(&rows, |(_, n)| Some(n.precipitation_mm)),
            ],
        )?;
        Ok(Fetched { batch, scope: Scope::All, as_of: ctx.now, upstream_version: None, partial_error: None })
    }
}

/// The normals of each zone (by zone name) from a `climate-normals` version.
pub fn normals_by_zone(rows: &RecordBatch) -> Result<BTreeMap<String, Vec<Normal>>, SourceError> {
    let what = "climate-normals";
    let zone = column::<StringArray>(rows, "zone", what)?;
    let month = column::<Int32Array>(rows, "month", what)?;
    let temp = column::<Float64Array>(rows, "temperature_c", what)?;
    let precip = column::<Float64Array>(rows, "precipitation_mm", what)?;
    let mut out: BTreeMap<String, Vec<Normal>> = BTreeMap::new();
    for i in 0..rows.num_rows() {
        if zone.is_null(i) {
            continue;
        }
        out.entry(zone.value(i).to_string()).or_default().push(Normal {
            month: month.value(i) as u32,
            temperature_c: temp.value(i),
            precipitation_mm: precip.value(i),
        });
    }
    Ok(out)
}

#[derive(Default)]
pub struct ClimateAnomaliesSource;

#[async_trait::async_trait]
impl Source for ClimateAnomaliesSource {
    fn dataset(&self) -> DatasetId {
        DatasetId::CLIMATE_ANOMALIES
    }

    fn upstreams(&self) -> &'static [&'static str] {
        &["open-meteo"]
    }

    fn inputs(&self) -> &'static [DatasetId] {
        &[DatasetId::CLIMATE_NORMALS]
    }

    async fn fetch(&self, ctx: &FetchContext, window: Window) -> Result<Fetched, SourceError> {
        if window != Window::Scheduled {
            return Err(SourceError::Unsupported("climate-anomalies keeps only the latest window".into()));
        }
        let normals = ctx
            .input(DatasetId::CLIMATE_NORMALS)
            .ok_or_else(|| SourceError::Upstream("climate-normals has no version: no baseline".into()))?;
        let normals = normals_by_zone(normals)?;
        let end = ctx.now.date_naive();
        let start = end - chrono::Duration::days(WINDOW_DAYS - 1);
        let series = fetch_zones(ctx, ANOMALY_ZONES_PER_CALL, &start.to_string(), &end.to_string()).await?;
        let mut anomalies = Vec::new();
        for (zone, daily) in ZONES.iter().zip(&series) {
            let Some(zone_normals) = normals.get(zone.name) else { continue };
            anomalies.extend(anomaly(*zone, &daily.valid_days()?, zone_normals));
        }
        gate(&anomalies).map_err(SourceError::Upstream)?;
        let batch = batch(
            DatasetId::CLIMATE_ANOMALIES,
            vec![
                i32_column(&anomalies, |a| ZONES.iter().position(|z| z.name == a.zone.name).map(|p| p as i32)),
                text_column(&anomalies, |a| Some(a.zone.name)),
                f64_column(&anomalies, |a| Some(a.zone.lat)),
                f64_column(&anomalies, |a| Some(a.zone.lon)),
                f64_column(&anomalies, |a| Some(a.temp_delta)),
                f64_column(&anomalies, |a| Some(a.precip_delta)),
                text_column(&anomalies, |a| Some(a.severity.as_str())),
                text_column(&anomalies, |a| Some(a.kind.as_str())),
                text_column(&anomalies, |a| Some(a.period.as_str())),
            ],
        )?;
        Ok(Fetched { batch, scope: Scope::All, as_of: ctx.now, upstream_version: None, partial_error: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(date: &str, temp: f64, precip: f64) -> Day {
        Day { date: date.parse().unwrap(), temp, precip }
    }

    #[test]
    fn severity_edges() {
        let cases = [
            ((5.0, 0.0), Severity::Extreme),
            ((-5.0, 0.0), Severity::Extreme),
            ((4.9, 11.9), Severity::Moderate),
            ((0.0, 12.0), Severity::Extreme),
            ((0.0, -12.0), Severity::Extreme),
            ((3.0, 0.0), Severity::Moderate),
            ((2.9, 5.9), Severity::Normal),
            ((0.0, -6.0), Severity::Moderate),
            ((-2.9, -5.9), Severity::Normal),
        ];
        for ((t, p), expected) in cases {
            assert_eq!(severity(t, p), expected, "t={t} p={p}");
        }
    }

    #[test]
    fn type_rules_in_order() {
        let cases = [
            ((2.0, -4.0), AnomalyType::Mixed, "rule 1: temperature-led, warm and dry"),
            ((1.0, -4.0), AnomalyType::Warm, "|t| < |p|/3: rules 1–3 fail; −4 is within ±6; t > 0: rule 6"),
            ((3.1, 0.0), AnomalyType::Warm, "rule 2"),
            ((3.0, 0.0), AnomalyType::Warm, "3.0 is not > 3: rule 6"),
            ((-3.1, 0.0), AnomalyType::Cold, "rule 3"),
            ((-3.0, 0.0), AnomalyType::Cold, "rule 7"),
            ((0.5, 12.5), AnomalyType::Wet, "rule 4"),
            ((1.0, -7.0), AnomalyType::Dry, "rule 5"),
            ((0.2, -0.3), AnomalyType::Warm, "rule 6"),
            ((0.0, 0.0), AnomalyType::Cold, "rule 7"),
            ((-1.0, 6.0), AnomalyType::Cold, "p = 6 is not > 6: rule 7"),
        ];
        for ((t, p), expected, why) in cases {
            assert_eq!(anomaly_type(t, p), expected, "t={t} p={p}: {why}");
        }
    }

    #[test]
    fn normals_are_the_mean_of_monthly_means() {
        // January: 1991 has two days (0 and 2 → mean 1), 1992 one day (4) → normal (1 + 4) / 2 = 2.5,
        // not the mean of the three days (2.0). Precipitation skips a null day.
        let mut daily = Daily { time: vec![], temperature_2m_mean: vec![], precipitation_sum: vec![] };
        let mut push = |d: &str, t: Option<f64>, p: Option<f64>| {
            daily.time.push(d.into());
            daily.temperature_2m_mean.push(t);
            daily.precipitation_sum.push(p);
        };
        push("1991-01-01", Some(0.0), Some(1.0));
        push("1991-01-02", Some(2.0), None);
        push("1992-01-01", Some(4.0), Some(2.0));
        for m in 2..=12 {
            push(&format!("1991-{m:02}-01"), Some(1.0 / 3.0), Some(0.125));
        }
        let n = monthly_normals(&daily).unwrap();
        assert_eq!(n[0], Normal { month: 1, temperature_c: 2.5, precipitation_mm: 1.5 });
        assert_eq!((n[1].temperature_c, n[1].precipitation_mm), (0.33, 0.13), "2 dp, half away from zero");
        daily.time.pop();
        daily.temperature_2m_mean.pop();
        daily.precipitation_sum.pop();
        assert!(monthly_normals(&daily).is_err(), "December has no data");
    }

    #[test]
    fn anomaly_of_the_last_seven_valid_days() {
        let normals: Vec<Normal> =
            (1..=12).map(|month| Normal { month, temperature_c: 10.0, precipitation_mm: 2.0 }).collect();
        let mut days: Vec<Day> = (1..=6).map(|d| day(&format!("2026-10-{d:02}"), 40.0, 40.0)).collect();
        // The last 7 valid days: 2026-10-30 .. 2026-11-05; the November normal applies.
        for (d, t) in [("2026-10-30", 15.0), ("2026-10-31", 15.0), ("2026-11-01", 15.0), ("2026-11-02", 14.6)] {
            days.push(day(d, t, 2.0));
        }
        for d in ["2026-11-03", "2026-11-04", "2026-11-05"] {
            days.push(day(d, 15.0, 2.0));
        }
        let a = anomaly(ZONES[0], &days, &normals).unwrap();
        // Mean temperature (6 × 15 + 14.6) / 7 = 14.943 → 4.943 → 4.9: MODERATE, not EXTREME.
        assert_eq!((a.temp_delta, a.precip_delta), (4.9, 0.0));
        assert_eq!((a.severity, a.kind), (Severity::Moderate, AnomalyType::Warm));
        assert_eq!(a.period, "2026-10-30 to 2026-11-05");
        assert!(anomaly(ZONES[0], &days[days.len() - 6..], &normals).is_none(), "6 valid days are too few");
    }

    #[test]
    fn the_gate_needs_seventeen_zones_and_the_required_seven() {
        let of = |names: &[&'static str]| -> Vec<Anomaly> {
            names
                .iter()
                .map(|n| Anomaly {
                    zone: *ZONES.iter().find(|z| z.name == *n).unwrap(),
                    temp_delta: 0.0,
                    precip_delta: 0.0,
                    severity: Severity::Normal,
                    kind: AnomalyType::Cold,
                    period: String::new(),
                })
                .collect()
        };
        let all: Vec<&'static str> = ZONES.iter().map(|z| z.name).collect();
        assert!(gate(&of(&all)).is_ok());
        assert!(gate(&of(&all[8..])).is_ok(), "17 zones, the required ones among them");
        assert!(gate(&of(&all[9..])).unwrap_err().contains("16 zones"));
        let without_arctic: Vec<&'static str> = all.iter().copied().filter(|z| *z != "Arctic").collect();
        assert!(gate(&of(&without_arctic)).unwrap_err().contains("[Arctic]"));
    }

    #[test]
    fn one_location_is_an_object_several_an_array() {
        let one = br#"{"latitude":55.0,"longitude":-30.0,"timezone":"GMT","daily":{"time":["2026-11-01"],"temperature_2m_mean":[null],"precipitation_sum":[0.5]}}"#;
        assert_eq!(parse(one, 1).unwrap().len(), 1);
        let many = format!("[{},{}]", std::str::from_utf8(one).unwrap(), std::str::from_utf8(one).unwrap());
        assert_eq!(parse(many.as_bytes(), 2).unwrap().len(), 2);
        assert!(parse(many.as_bytes(), 8).is_err(), "an answer for the wrong number of zones");
        let days = parse(one, 1).unwrap()[0].daily.valid_days().unwrap();
        assert!(days.is_empty(), "a day without temperature is not valid");
        assert!(parse(b"{\"error\":true,\"reason\":\"x\"}", 1).is_err());
    }

    fn recording(path: &str) -> Vec<u8> {
        std::fs::read(format!("{}/../data/fixtures/open-meteo/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn recorded_answers_parse() {
        let first = parse(&recording("normal/anomalies-1.body.json"), 8).unwrap();
        let ukraine = &first[0].daily;
        assert_eq!((ukraine.time.len(), ukraine.time[0].as_str()), (21, "2026-10-31"));
        assert!(ukraine.temperature_2m_mean[16..].iter().all(Option::is_none), "the archive's trailing nulls");
        assert_eq!(ukraine.valid_days().unwrap().len(), 15, "21 days, 5 trailing nulls and the 12th");
        assert_eq!(parse(&recording("normal/anomalies-4.body.json"), 1).unwrap().len(), 1, "one object");
        let normals = parse(&recording("normal/normals-1.body.json"), 2).unwrap();
        assert_eq!(normals[0].daily.time.len(), 731, "the short synthetic range 1991–1992");
        let ukraine = monthly_normals(&normals[0].daily).unwrap();
        let at = |m: u32| ukraine.iter().find(|n| n.month == m).map(|n| (n.temperature_c, n.precipitation_mm));
        assert_eq!((at(1), at(7), at(11)), (Some((-3.1, 1.3)), Some((22.9, 2.0)), Some((3.4, 1.3))));
        assert!(parse(&recording("empty/normals-1.body.json"), 2).is_err(), "Open-Meteo's error object");
        assert!(parse(&recording("rate-limited/anomalies-1.body.json"), 8).is_err());
    }

    #[test]
    fn coordinates_keep_one_decimal_in_the_url() {
        let url = archive_url(&ZONES[4..8], "2026-10-31", "2026-11-20").unwrap();
        let q: BTreeMap<_, _> = url.query_pairs().collect();
        assert_eq!(q["latitude"], "14.0,8.0,25.0,36.8");
        assert_eq!(q["longitude"], "0.0,42.0,78.0,-119.4");
    }
}
